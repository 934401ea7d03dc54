"""Lesson 5's opening: the stages of one training step and what each leaves in memory, on the anchor.
Unit tests on c9/views/step_stages.py (the memory bar's ledger, grouped by stage) and on the built page: a
table the build draws, with no row of buttons repeating what the table already says."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from page_text import article

from c9.core.models import anchor
from c9.views import memory_bar, step_stages


def test_stages_are_the_memory_bars_ledger_grouped_by_stage():
    v = step_stages.page_context()
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
    v = step_stages.page_context()
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


def test_the_page_shows_the_table_and_what_each_stage_holds_without_buttons(built_site):
    """The four buttons once revealed a sentence the table already showed: gone, with their room. The table
    keeps every stage's figure and share, the forward stage marked as the part lesson 1's ledger lacks, and
    the list says what each stage holds."""
    root = article(built_site / "lesson-5" / "index.html")
    fig = next(n for n in root.iter() if n.tag == "figure" and "c9-step-stages" in n.classes)
    assert not [n for n in fig.iter() if n.tag in ("button", "input", "select")]
    assert not [n for n in fig.iter() if "c9-summary" in n.classes or "data-widget" in n.attrs]
    rows = {n.attrs["data-stage"]: n for n in fig.iter() if n.tag == "tr" and "data-stage" in n.attrs}
    want = step_stages.page_context()
    assert list(rows) == [s["key"] for s in want["stages"]]
    for s in want["stages"]:
        cells = [c.text().strip() for c in rows[s["key"]].children if getattr(c, "tag", "") in ("th", "td")]
        assert cells[1:] == [s["gb_text"], s["share"]], cells
    assert [k for k, r in rows.items() if "c9-chosen" in r.classes] == ["forward"]
    holds = " ".join(n.text() for n in fig.iter() if n.tag == "dd")
    assert all(s["holds"] in holds for s in want["stages"])
