"""In headless Chromium: the block lab's MX scale rule. Choosing RCEIL recomputes the page's MX panels in
Pyodide; their summaries, the clipped-blocks column and the address follow, as CPython computes them."""

from __future__ import annotations

import pytest
from conftest import PYTHON_TIMEOUT, python_view
from playwright.sync_api import expect

from c9.views import block_lab

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


def test_choosing_the_mx_rule_drives_the_block_lab(page, site_server):
    page.goto(site_server.url + "lesson-4/")
    w = page.locator('[data-widget="block-lab"]')
    w.scroll_into_view_if_needed()
    expect(w).to_have_attribute("data-chart", "drawn", timeout=30_000)
    floor = python_view("block-lab", scheme="mxfp4")
    row = w.locator('.c9-bl-table tr[data-scheme="mxfp4"]')
    # the build's default: OCP's floor, with its clipped blocks in the table
    expect(row.locator("td").nth(6)).to_have_text(f"{floor['clipped_blocks']} / {floor['n_scales']}")
    assert floor["clipped_blocks"] > 0
    select = w.locator('select[name="rule"]')
    expect(select).to_have_accessible_name("MX 块的缩放规则（只影响 MXFP8 与 MXFP4）")
    select.select_option("rceil")
    expect(w).to_have_attribute("data-runs", "1", timeout=PYTHON_TIMEOUT)
    for scheme in ("mxfp8_e4m3", "mxfp4", "nvfp4"):
        want = python_view("block-lab", scheme=scheme, rule="rceil")
        panel = w.locator(f'.c9-bl-panel[data-scheme="{scheme}"]')
        expect(panel.locator(".c9-bl-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    expect(row.locator("td").nth(6)).to_have_text(f"0 / {floor['n_scales']}")
    expect(w.locator('.c9-bl-panel[data-scheme="mxfp4"] .c9-bl-summary')).to_contain_text(
        "没有哪个块的最大值被截断"
    )
    assert "bl.rule=rceil" in page.url
    assert set(block_lab.RULES) == {"floor", "rceil", "ceil", "even"}
    assert page.errors == []
