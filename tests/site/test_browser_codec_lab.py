"""In headless Chromium: lesson 4's FP8 bit flipper (464 → 448 and 0x7E; 465 → NaN or
448 as the reader switches saturation with the keyboard; the mode in the address and back from it) and
the FP4 branch's E2M1/E8M0 one (a bit flipped with the keyboard; a NaN typed into E2M1 refused in
Chinese). Every state is compared with the same view computed in CPython."""

from __future__ import annotations

import re

import pytest
from conftest import PYTHON_TIMEOUT, new_page, python_view
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

FP8 = "float8_e4m3fn,float8_e5m2"
FP4 = "float4_e2m1fn,float8_e8m0fnu"


def _type(widget, text):
    box = widget.locator('input[name="value"]')
    box.fill(text)
    box.press("Enter")


def test_464_and_465_in_e4m3_with_and_without_saturation(page, site_server):
    page.goto(site_server.url + "lesson-4/")
    widget = page.locator('[data-widget="bit-flipper"]')
    e4 = widget.locator('.c9-bf-row[data-format="float8_e4m3fn"]')
    _type(widget, "464")
    want = python_view("bit-flipper", formats=FP8, value="464")
    expect(widget.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    expect(e4.locator('input[name="hex"]')).to_have_value("0x7E")
    expect(e4.locator('dd[data-k="exact"]')).to_have_text("448")

    _type(widget, "465")
    expect(widget.locator(".c9-summary")).to_have_text(
        python_view("bit-flipper", formats=FP8, value="465")["summary"], timeout=PYTHON_TIMEOUT
    )
    expect(e4.locator('input[name="hex"]')).to_have_value("0x7F")
    expect(e4).to_have_attribute("data-cls", "nan")

    # the labelled radio pair, by keyboard: focus the checked one, arrow to the other
    plain = widget.get_by_role("radio", name="非饱和：E4M3 变 NaN，E5M2 变 ±∞")
    expect(plain).to_be_checked()
    plain.focus()
    page.keyboard.press("ArrowDown")
    sat = widget.get_by_role("radio", name="饱和：截到 ±最大有限值")
    expect(sat).to_be_checked()
    want = python_view("bit-flipper", formats=FP8, value="465", overflow="saturate")
    expect(widget.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    expect(e4.locator('input[name="hex"]')).to_have_value("0x7E")
    expect(e4.locator('dd[data-k="error_text"]')).to_have_text(want["rows"][0]["error_text"])
    expect(page).to_have_url(re.compile(r"bf\.overflow=saturate"))
    assert "bf.value=465" in page.url

    # E5M2 beyond 61,440: +∞ without saturation, 57,344 with it (the mode stays as chosen)
    _type(widget, "65536")
    e5 = widget.locator('.c9-bf-row[data-format="float8_e5m2"]')
    expect(e5.locator('input[name="hex"]')).to_have_value("0x7B", timeout=PYTHON_TIMEOUT)
    plain.check()
    expect(e5.locator('input[name="hex"]')).to_have_value("0x7C", timeout=PYTHON_TIMEOUT)
    expect(widget.locator(".c9-summary")).to_have_text(
        python_view("bit-flipper", formats=FP8, value="65536")["summary"]
    )
    assert page.errors == []


def test_the_saturating_mode_reopens_from_the_address(page, site_server):
    page.goto(site_server.url + "lesson-4/?bf.value=465&bf.overflow=saturate")
    widget = page.locator('[data-widget="bit-flipper"]')
    want = python_view("bit-flipper", formats=FP8, value="465", overflow="saturate")
    expect(widget.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    expect(widget.get_by_role("radio", name="饱和：截到 ±最大有限值")).to_be_checked()
    expect(widget.locator('input[name="value"]')).to_have_value("465")
    page.goto(site_server.url + "lesson-4/?bf.overflow=clamp")
    expect(widget.locator(".c9-status")).to_contain_text("链接里的参数有误", timeout=PYTHON_TIMEOUT)
    expect(widget.locator(".c9-status")).to_contain_text("「clamp」")
    assert page.errors == []


def test_flipping_an_e2m1_bit_by_keyboard_and_nan_into_e2m1(page, site_server):
    page.goto(site_server.url + "fp4/")
    widget = page.locator('[data-widget="bit-flipper"]')
    row = widget.locator('.c9-bf-row[data-format="float4_e2m1fn"]')
    expect(widget.locator(".c9-bf-overflow")).to_have_count(0)  # E2M1 and E8M0: no choice to make
    first = row.locator(".c9-bit").first
    expect(first).to_be_enabled()
    first.focus()
    page.keyboard.press("Space")  # the sign bit: 1 (0x2) → −1 (0xA)
    want = python_view("bit-flipper", formats=FP4, source="float4_e2m1fn", code="0xA")
    expect(widget.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    expect(row.locator('input[name="hex"]')).to_have_value("0xA")
    expect(row.locator('dd[data-k="exact"]')).to_have_text("−1")
    page.keyboard.press("End")  # roving focus to the mantissa bit
    expect(row.get_by_role("button", name="FP4 E2M1 尾数位 1")).to_be_focused()
    page.keyboard.press("Space")  # −1 → −1.5 (0xB)
    want = python_view("bit-flipper", formats=FP4, source="float4_e2m1fn", code="0xB")
    expect(widget.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    e8 = widget.locator('.c9-bf-row[data-format="float8_e8m0fnu"]')
    expect(e8.locator('input[name="hex"]')).to_have_value("0xFF")  # E8M0 has no negatives: NaN

    # E8M0's NaN code leaves the E2M1 row empty, with the reason, and the flip is still made
    e8box = e8.locator('input[name="hex"]')
    e8box.fill("0xFF")
    e8box.press("Enter")
    want = python_view("bit-flipper", formats=FP4, source="float8_e8m0fnu", code="0xFF")
    expect(widget.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    expect(row.locator('[data-k="missing"]')).to_be_visible()
    expect(row.locator('[data-k="missing"]')).to_contain_text("E2M1 没有 NaN")

    _type(widget, "nan")
    expect(widget.locator(".c9-status")).to_contain_text("E2M1 没有 NaN", timeout=PYTHON_TIMEOUT)
    expect(widget).to_have_attribute("data-stale", "")
    expect(widget.locator(".c9-summary")).to_have_text(want["summary"])  # the last good state stays
    row.locator('input[name="hex"]').fill("0x1F")
    row.locator('input[name="hex"]').press("Enter")
    expect(widget.locator(".c9-status")).to_contain_text("4 位的编码", timeout=PYTHON_TIMEOUT)
    _type(widget, "5")
    expect(widget.locator(".c9-summary")).to_have_text(
        python_view("bit-flipper", formats=FP4, value="5")["summary"], timeout=PYTHON_TIMEOUT
    )
    expect(row.locator('[data-k="missing"]')).to_be_hidden()
    assert page.errors == []


def test_a_refusal_is_on_screen_beside_the_box_the_reader_used_on_a_phone(browser, site_server):
    # The rows make the widget two screens tall at 390 px: the status used to sit under the last row,
    # so "abc" or a 4-digit code got its message far below the screen while the old answer stayed faded.
    ctx, page = new_page(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(site_server.url + "lesson-4/")
    widget = page.locator('[data-widget="bit-flipper"]')
    status = widget.locator(".c9-status")
    box = widget.locator('input[name="value"]')
    box.evaluate("e => e.scrollIntoView({block: 'center'})")
    box.fill("abc")
    box.press("Enter")
    expect(status).to_have_text(
        "输入有误：数值「abc」读不成数字：请输入十进制数，例如「0.1」「-3.5」「1e-8」「70000」。",
        timeout=PYTHON_TIMEOUT,
    )
    expect(status).to_be_in_viewport()
    assert widget.get_attribute("data-stale") is not None

    hexbox = widget.locator('.c9-bf-row[data-format="float8_e5m2"] input[name="hex"]')
    hexbox.evaluate("e => e.scrollIntoView({block: 'center'})")
    hexbox.fill("0x3C00")
    hexbox.press("Enter")
    expect(status).to_contain_text("无法把「0x3C00」读成 8 位的编码", timeout=PYTHON_TIMEOUT)
    expect(status).to_be_in_viewport()
    hexbox.fill("")
    hexbox.press("Enter")
    expect(status).to_have_text(
        "输入有误：编码是空的：请输入 FP8 E5M2 的十六进制编码，例如 1 的编码 0x3C。", timeout=PYTHON_TIMEOUT
    )
    hexbox.fill("0x3C")
    hexbox.press("Enter")
    expect(widget.locator(".c9-summary")).to_have_text(
        python_view("bit-flipper", formats=FP8, source="float8_e5m2", code="0x3C")["summary"],
        timeout=PYTHON_TIMEOUT,
    )
    assert widget.get_attribute("data-stale") is None
    assert page.errors == []
    ctx.close()


def test_on_a_phone_an_fp8_row_wraps_between_fields_not_inside_one(browser, site_server):
    # 8 bits of 44 px do not fit the 336 px a 390 px phone leaves: the row must break between the
    # exponent and the mantissa, not leave the mantissa's last bit alone on the next line.
    ctx, page = new_page(
        browser, python=False, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page.goto(site_server.url + "lesson-4/")
    lines = page.evaluate("""() => [...document.querySelectorAll('[data-widget="bit-flipper"] .c9-bf-row')].map((row) => {
        const out = {};
        for (const b of row.querySelectorAll('.c9-bit')) {
          const top = Math.round(b.getBoundingClientRect().top);
          out[top] = (out[top] || '') + b.className.match(/c9-bit-(\\w)/)[1];
        }
        return [row.dataset.format, Object.keys(out).sort((a, b) => a - b).map((k) => out[k])];
      })""")
    assert lines == [["float8_e4m3fn", ["seeee", "mmm"]], ["float8_e5m2", ["seeeee", "mm"]]]
    # and "1 符号位 + 4 指数位 + 3 尾数位，偏置 7" moves under the name whole ("偏置" / "7" was split)
    assert page.evaluate(
        "[...document.querySelectorAll('.c9-bf-layout')].map((e) => e.getClientRects().length)"
    ) == [1, 1]
    ctx.close()
