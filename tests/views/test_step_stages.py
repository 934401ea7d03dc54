"""Lesson 5's opening: the stages of one training step, each chosen to see its size on the anchor.
Unit tests on c9/views/step_stages.py (the memory bar's ledger, grouped by stage) and a browser test:
choosing a stage by mouse or keyboard shows Python's figure for it."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

import pytest
from conftest import PYTHON_TIMEOUT, new_page, python_view

from c9.base.errors import InputError
from c9.core.models import anchor
from c9.views import memory_bar, step_stages


def test_stages_are_the_memory_bars_ledger_grouped_by_stage():
    v = step_stages.view({"stage": "update"})
    bar = memory_bar.view()
    psi = anchor().param_total
    by = {s["key"]: s["bytes"] for s in v["stages"]}
    assert by == {
        "weights": 2 * psi,
        "forward": bar["activation_bytes"],
        "backward": 2 * psi,
        "update": 12 * psi,
    }
    assert sum(by.values()) == bar["total_bytes"] == v["total_bytes"]
    # the activations are Korthikanti's eq. 1 on the anchor at s = 4,096, b = 1: L·(34sbh + 5as²b)
    m = anchor()
    assert by["forward"] == m.L * (34 * 4096 * m.h + 5 * m.a * 4096**2)


def half_up(n_bytes: int, digits: int) -> str:
    """An oracle for one shown size: the exact bytes in GB, rounded half-up (Decimal, not units.size)."""
    q = (Decimal(n_bytes) / Decimal(10**9)).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    return f"{q:,} GB"


def test_shown_figures_add_up_and_are_each_the_true_value_rounded():
    """Issue 21: the table moved a last digit so its rows would add up (174.49 GB for 174.483…); at two
    decimals half-up rows make 618.98 against a total of 618.99, so the table shows three."""
    v = step_stages.view()
    shown = [Decimal(s["gb_text"].removesuffix(" GB")) for s in v["stages"]]
    assert sum(shown) == Decimal(v["total_text"].removesuffix(" GB"))
    assert v["total_text"] == half_up(v["total_bytes"], 3) == "618.986 GB"
    for s in v["stages"]:
        assert s["gb_text"] == half_up(s["bytes"], 3)
        assert [p["text"] for p in s["parts"]] == [half_up(p["bytes"], 3) for p in s["parts"]]
        assert sum(Decimal(p["text"].removesuffix(" GB")) for p in s["parts"]) == Decimal(s["gb_text"][:-3])
    upd = next(s for s in v["stages"] if s["key"] == "update")
    # lesson 1's table says 111.13 and 222.25 GB at two decimals: the same values, one digit more
    assert [p["text"] for p in upd["parts"]] == ["111.126 GB", "222.251 GB"]
    assert v["stages"][0]["gb_text"] == v["stages"][2]["gb_text"] == "55.563 GB"  # 2 B × Ψ twice
    fwd = next(s for s in v["stages"] if s["key"] == "forward")
    assert fwd["text"] == "174.483 GB（162.5 GiB）"
    # the shares too add up to the table's 100% as shown (9.0% + 28.2% + 9.0% + 53.9% = 100.1%),
    # each its stage's bytes over the step's, rounded to a whole percent
    assert [s["share"] for s in v["stages"]] == ["9%", "28%", "9%", "54%"] and v["total_share"] == "100%"
    assert sum(int(s["share"].removesuffix("%")) for s in v["stages"]) == 100
    assert [round(100 * s["bytes"] / v["total_bytes"]) for s in v["stages"]] == [9, 28, 9, 54]


@pytest.mark.parametrize("stage", step_stages.KEYS)
def test_each_stage_says_its_figure_and_what_it_holds(stage):
    v = step_stages.view({"stage": stage})
    s = v["stage"]
    assert v["params"]["stage"] == stage and s["key"] == stage
    assert s["text"] in v["summary"] and s["holds"] in v["summary"] and s["share"] in v["summary"]


@pytest.mark.parametrize("bad", ["nope", "", 3, "FORWARD"])
def test_unknown_stage_gets_a_chinese_message(bad):
    with pytest.raises(InputError) as e:
        step_stages.view({"stage": bad})
    assert "环节" in e.value.message_zh


@pytest.mark.browser
def test_choosing_a_stage_shows_pythons_figure(browser, site_server):
    from playwright.sync_api import expect

    ctx, page = new_page(browser)
    page.goto(site_server.url + "lesson-5/")
    w = page.locator('[data-widget="step-stages"]')
    summary = w.locator(".c9-summary")
    # Before any script: the build-time state is the forward stage, and the table lists every stage.
    expect(summary).to_have_text(python_view("step-stages")["summary"])
    expect(w.locator("tr[data-stage]")).to_have_count(4)
    # A click: the optimizer's update, its figure from Python.
    w.locator('button[data-stage="update"]').click()
    want = python_view("step-stages", stage="update")
    expect(summary).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    assert "333.377 GB" in summary.inner_text()
    expect(w.locator('button[data-stage="update"]')).to_have_attribute("aria-pressed", "true")
    expect(w.locator('button[data-stage="forward"]')).to_have_attribute("aria-pressed", "false")
    expect(w.locator('tr[data-stage="update"]')).to_have_attribute("aria-current", "true")
    # the whole row is tinted, its pinned (opaque) first cell too (only the figures were)
    expect(w.locator('tr[data-stage="update"] > th')).to_have_css("background-image", re.compile("gradient"))
    expect(w.locator('tr[data-stage="forward"] > th')).to_have_css("background-image", "none")
    assert "st.stage=update" in page.url
    # The keyboard: Tab back to the first stage's button, Enter.
    w.locator('button[data-stage="forward"]').focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")
    want = python_view("step-stages", stage="weights")
    expect(summary).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    assert want["stage"]["text"] == "55.563 GB" and want["stage"]["text"] in summary.inner_text()
    # A shared link reopens the stage; a bad one gets the Chinese message and keeps the default.
    page.goto(site_server.url + "lesson-5/?st.stage=backward")
    expect(page.locator('[data-widget="step-stages"] .c9-summary')).to_have_text(
        python_view("step-stages", stage="backward")["summary"], timeout=PYTHON_TIMEOUT
    )
    page.goto(site_server.url + "lesson-5/?st.stage=xyz")
    w = page.locator('[data-widget="step-stages"]')
    expect(w.locator(".c9-status")).to_contain_text("训练一步里没有这个环节", timeout=PYTHON_TIMEOUT)
    expect(w.locator(".c9-summary")).to_have_text(python_view("step-stages")["summary"])
    assert not page.errors, page.errors
    ctx.close()
