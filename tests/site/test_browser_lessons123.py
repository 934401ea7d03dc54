"""Lessons 1–3 in headless Chromium: a bit flipped with the keyboard and a loss-scale slider step are
recomputed by Python in the page and match the same views in CPython; a bad hex code gets a Chinese
message; 257.0000001 typed in lesson 3 is stored FP32 first (BF16 256) with the note on double rounding;
the ledger's slider moves the bars. One page per lesson, to keep the suite fast."""

from __future__ import annotations

import re

import pytest
from conftest import PYTHON_TIMEOUT, python_view
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_bit_flip_by_keyboard_and_a_bad_hex_code(page, site_server):
    page.goto(site_server.url + "lesson-2/")
    widget = page.locator('[data-widget="bit-flipper"]').first
    row = widget.locator('.c9-bf-row[data-format="float16"]')
    first = row.locator(".c9-bit").first
    expect(first).to_be_enabled()
    first.focus()
    page.keyboard.press("End")  # roving focus to the last mantissa bit
    last = row.get_by_role("button", name="FP16 尾数位 10")
    expect(last).to_be_focused()
    page.keyboard.press("Space")
    expected = python_view("bit-flipper", formats="float16,float32", source="float16", code=0x3C01)
    expect(widget.locator(".c9-summary")).to_have_text(expected["summary"], timeout=PYTHON_TIMEOUT)
    expect(last).to_have_attribute("aria-pressed", "true")
    expect(row.locator('dd[data-k="exact"]')).to_have_text(expected["rows"][0]["exact"])
    expect(widget.locator('.c9-bf-row[data-format="float32"] input[name="hex"]')).to_have_value("0x3F802000")

    box = row.locator('input[name="hex"]')
    box.fill("0x12345")
    box.press("Enter")
    expect(widget.locator(".c9-status")).to_contain_text(
        "无法把「0x12345」读成 16 位的编码", timeout=PYTHON_TIMEOUT
    )
    expect(widget.locator(".c9-summary")).to_have_text(expected["summary"])  # the last good state stays

    value = widget.locator('input[name="value"]')
    value.fill("70000")
    value.press("Enter")
    expect(widget.locator(".c9-summary")).to_have_text(
        python_view("bit-flipper", formats="float16,float32", value="70000")["summary"],
        timeout=PYTHON_TIMEOUT,
    )

    ls = page.locator('[data-widget="loss-scale"]')
    slider = ls.locator('input[name="k"]')
    slider.focus()
    for _ in range(16):
        slider.press("ArrowRight")
    expect(ls.locator(".c9-summary")).to_have_text(
        python_view("loss-scale", k=16)["summary"], timeout=PYTHON_TIMEOUT
    )
    assert page.errors == []


def test_lesson_3_stores_257_0000001_fp32_first_and_says_so(page, site_server):
    # The seed's rule: FP32 holds 257, a BF16 tie, so BF16 stores 256 (0x4380); the row's note says that one
    # rounding of the exact value would give 258 (0x4381), as in PyTorch's and ml_dtypes' casts.
    page.goto(site_server.url + "lesson-3/")
    widget = page.locator('[data-widget="bit-flipper"]').first
    bf16 = widget.locator('.c9-bf-row[data-format="bfloat16"]')
    note = bf16.locator('[data-k="double"]')
    expect(note).to_be_hidden()  # the default 257: FP32 holds it exactly, one rounding either way
    value = widget.locator('input[name="value"]')
    value.fill("257.0000001")
    value.press("Enter")
    expected = python_view("bit-flipper", formats="float32,float16,bfloat16", value="257.0000001")
    expect(widget.locator(".c9-summary")).to_have_text(expected["summary"], timeout=PYTHON_TIMEOUT)
    expect(bf16.locator('input[name="hex"]')).to_have_value("0x4380")
    expect(bf16.locator('dd[data-k="exact"]')).to_have_text("256")
    expect(note).to_be_visible()
    expect(note).to_contain_text("先存成 FP32 是 257")
    expect(note).to_contain_text("256（0x4380）")
    expect(note).to_contain_text("258（0x4381）")
    # the lab appendix's table of such inputs (Material's instant navigation writes links out in full)
    expect(note.get_by_role("link")).to_have_attribute("href", re.compile(r"/lab/#double-rounding$"))
    expect(widget.locator('.c9-bf-row[data-format="float16"] [data-k="double"]')).to_be_hidden()
    value.fill("257")
    value.press("Enter")
    expect(bf16.locator('input[name="hex"]')).to_have_value("0x4380", timeout=PYTHON_TIMEOUT)
    expect(widget.locator(".c9-summary")).to_have_text(
        python_view("bit-flipper", formats="float32,float16,bfloat16", value="257")["summary"],
        timeout=PYTHON_TIMEOUT,
    )
    expect(note).to_be_hidden()  # the note leaves with the input that needed it
    assert page.errors == []


def test_ledger_slider_moves_the_bars(page, site_server):
    page.goto(site_server.url + "lesson-1/")
    widget = page.locator('[data-widget="ledger"]')
    expect(widget.locator(".c9-summary")).to_have_text(python_view("ledger")["summary"])
    slider = widget.locator('input[name="log10_params"]')
    slider.focus()
    slider.press("ArrowRight")
    expected = python_view("ledger", model="custom", log10_params=10.05, convention="zero")
    expect(widget.locator(".c9-summary")).to_have_text(expected["summary"], timeout=PYTHON_TIMEOUT)
    widget.scroll_into_view_if_needed()
    expect(widget).to_have_attribute("data-chart", "drawn")
    xs = page.evaluate("() => document.querySelector('.c9-ledger .c9-chart').data.map(t => t.x[0])")
    assert xs == pytest.approx([t["x"][0] for t in expected["figure"]["data"]])
    assert page.errors == []


def test_the_seed_box_opens_with_stochastic_rounding_and_a_refused_box_is_marked(page, site_server):
    """Reader check: the seed box took an empty, a negative and a 23-digit seed without a word, because
    round-to-nearest never reads it; w₀, Δ and 步数 were never marked when Python refused them."""
    page.goto(site_server.url + "lesson-3/")
    w = page.locator('[data-widget="repeated-update"]').first
    w.scroll_into_view_if_needed()
    expect(w).to_have_attribute("data-mounted", "yes", timeout=30_000)
    seed, w0, steps = (w.locator(f'input[name="{n}"]') for n in ("seed", "w0", "steps"))
    expect(seed).to_be_disabled()
    w.locator('input[name="method"][value="stochastic"]').check()
    expect(seed).to_be_enabled()
    seed.fill("-3")
    seed.press("Enter")
    expect(w.locator(".c9-status")).to_contain_text(
        "随机种子要在 0 到 1,000,000 之间", timeout=PYTHON_TIMEOUT
    )
    expect(seed).to_have_attribute("aria-invalid", "true")
    w.locator('input[name="method"][value="nearest"]').check()  # the seed is not read any more
    expect(seed).to_be_disabled()
    expect(w.locator(".c9-status")).to_have_attribute("data-kind", "ok", timeout=PYTHON_TIMEOUT)
    for box, bad, good in ((steps, "2.5", "100"), (w0, "abc", None)):
        box.fill(bad)
        box.press("Enter")  # with the browser's own validation, 2.5 in a step-1 box was never sent
        expect(w.locator(".c9-status")).to_have_attribute("data-kind", "error", timeout=PYTHON_TIMEOUT)
        expect(box).to_have_attribute("aria-invalid", "true")
        if good:
            box.fill(good)
    # Reader check: a corrected box stayed red while the status named another. The box marked is the one
    # Python's message names.
    delta = w.locator('input[name="delta"]')
    steps.fill("100")
    delta.fill("")
    delta.press("Enter")  # w₀ still reads abc: the message names w₀, and w₀ alone is red
    expect(w.locator(".c9-status")).to_contain_text("初值 w₀", timeout=PYTHON_TIMEOUT)
    expect(w0).to_have_attribute("aria-invalid", "true")
    expect(delta).not_to_have_attribute("aria-invalid", "true")
    w0.fill("1")
    w0.press("Enter")  # now the message names Δ: w₀ is clear, Δ is red
    expect(w.locator(".c9-status")).to_contain_text("每步加的 Δ", timeout=PYTHON_TIMEOUT)
    expect(w0).not_to_have_attribute("aria-invalid", "true")
    expect(delta).to_have_attribute("aria-invalid", "true")
    delta.fill("1e-4")
    steps.fill("100")
    steps.press("Enter")
    expect(w.locator(".c9-status")).to_have_attribute("data-kind", "ok", timeout=PYTHON_TIMEOUT)
    for box in (w0, delta, steps, seed):
        expect(box).not_to_have_attribute("aria-invalid", "true")
    assert page.errors == []


def test_the_chosen_convention_row_is_tinted_under_its_pinned_cell(page, site_server):
    """Reader check: the ledger's chosen convention row was tinted but for its first cell, which the pinned
    column paints opaque; the row read as cut in two."""
    page.goto(site_server.url + "lesson-1/")
    row = page.locator(".c9-ledger tr.c9-chosen").first
    row.scroll_into_view_if_needed()
    first, second = row.locator("> :first-child"), row.locator("> :nth-child(2)")
    assert "linear-gradient" in first.evaluate("el => getComputedStyle(el).backgroundImage")
    tint = row.evaluate("el => getComputedStyle(el).backgroundColor")
    assert tint not in ("rgba(0, 0, 0, 0)", "transparent"), tint
    assert second.evaluate("el => getComputedStyle(el).backgroundColor") == "rgba(0, 0, 0, 0)"
