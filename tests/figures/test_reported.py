"""Papers' own results (anchor-model.json: reported) reach the pages only as build figures.

A page that types a reported number (0.25%, 48G → 7G, 42.1% → 54.2% …) instead of quoting the figure
loses its source on hover; this checks the figures render every fact in its unit, and that no page's
Markdown types any of them next to the words that introduce it.
"""

from __future__ import annotations

import re

import pytest
from conftest import ROOT

from c9.core.models import load_facts
from c9.figures import reported

DOCS = ROOT / "docs"


def test_every_reported_fact_becomes_a_figure_with_its_source():
    facts = {k: v for k, v in load_facts()["reported"].items() if k != "about"}
    figs = {f["name"]: f for f in reported.figures()}
    assert set(figs) == {f"rep_{k}" for k in facts}
    for key, fact in facts.items():
        fig = figs[f"rep_{key}"]
        assert fig["value"] == fact["value"]
        assert fact["source"] in fig["formula"] and "arXiv:" in fact["source"]


@pytest.mark.parametrize(
    "value, unit, text",
    [
        (0.25, "%", "0.25%"),
        (2240, "", "2,240"),
        (42.1, "%", "42.1%"),
        (3, "x", "3 倍"),
        (300, "B", "300B"),
        (48, "G", "48G"),
    ],
)
def test_text_is_the_papers_number_in_the_readers_notation(value, unit, text):
    assert reported.text(value, unit) == text


def test_an_unknown_unit_is_refused():
    with pytest.raises(ValueError):
        reported.text(1, "furlongs")


# The typed forms the pages used before these figures existed (each phrase as it was written).
TYPED = [
    "0.25%",
    "48G",
    "7G",
    "42.1%",
    "54.2%",
    "530B",
    "2,240 张",
    "3 倍[^flash]",
    "12B",
    "10T",
    "300B token",
    "16B 参数",
    "慢 30% 到 40%",
    "大 2048 倍",
    "约 14 位精度",
    "可接近 2%",
]


@pytest.mark.parametrize("page", sorted(p.name for p in DOCS.glob("*.md")))
def test_no_page_types_a_reported_result(page):
    text = (DOCS / page).read_text(encoding="utf-8")
    text = re.sub(r"\{\{.*?\}\}", "", text)
    found = [t for t in TYPED if t in text]
    assert not found, f"{page} types {found}: quote the rep_ figure instead"


# Figures the build derives that a page typed beside the words that introduce them: the guide's
# pitfall 「少算了 8 倍」 (l1_undercount) and lesson 2's 「到了 2048」 right after the figure 「2,048」 (l2_sum_stops_at).
DERIVED = ["少算了 8 倍", "到了 2048", "2048 + 1", "回到 2048"]


@pytest.mark.parametrize("page", sorted(p.name for p in DOCS.glob("*.md")))
def test_no_page_types_a_figure_the_build_derives(page):
    text = re.sub(r"\{\{.*?\}\}", "", (DOCS / page).read_text(encoding="utf-8"))
    found = [t for t in DERIVED if t in text]
    assert not found, f"{page} types {found}: quote the figure instead"


def test_the_fp16_swallow_ratio_is_the_formats_own():
    """The paper's 2048 is FP16's 2¹¹: an update below 2⁻¹¹ of the weight rounds away (fp16_swallow_threshold)."""
    from c9.core import formats as F

    (fig,) = [f for f in reported.figures() if f["name"] == "rep_mp_swallow_ratio"]
    assert fig["text"] == "2,048" and fig["value"] == 2 ** (F.get_format("float16").mantissa_bits + 1)
