"""Material's search index holds the pages' formulas as readable text, not TeX (hooks/search_text.py).

A search result's snippet is cut from the index's text, which the search plugin takes before KaTeX draws the
math: without the hook a reader searching 「激活」 read 「\\(sbh(34 + 5as/h)\\)」. The built index carries no
arithmatex delimiter at all, and a few formulas the lessons use read as their symbols."""

from __future__ import annotations

import json

import pytest

from hooks.search_text import clean_text, readable


def _docs(site):
    return json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]


def test_the_built_index_has_no_tex_delimiters(built_site):
    docs = _docs(built_site)
    assert len(docs) > 50
    raw = [
        (d["location"], f)
        for d in docs
        for f in ("title", "text")
        for mark in ("\\(", "\\)", "\\[", "\\]")
        if mark in d.get(f, "")
    ]
    assert not raw, raw[:5]
    text = " ".join(d["text"] for d in docs)
    # lesson 5's formula and the attention scores, lesson 3's transpose, as a reader writes them
    for shown in ("sbh(34 + 5as/h)", "s²", "softmax(QKᵀ/√(dₕ))V", "2Ψ + 2Ψ + KΨ"):
        assert shown in text, shown
    assert "\\frac" not in text and "\\times" not in text and "\\Psi" not in text


@pytest.mark.parametrize(
    "tex, text",
    [
        (r"s^2", "s²"),
        (r"2^{-126}", "2⁻¹²⁶"),
        (r"2^k \le |g| < 2^{k+1}", "2ᵏ ≤ |g| < 2ᵏ⁺¹"),
        (r"X = 2^{\lfloor \log_2 \text{amax} \rfloor - 2}", "X = 2^(⌊ log₂ amax ⌋ - 2)"),
        (r"\mathrm{softmax}(QK^\top/\sqrt{d_h})V", "softmax(QKᵀ/√(dₕ))V"),
        (r"\frac{1}{S}\,g", "1/S g"),
        (r"L \cdot sbh(34 + 5as/h)", "L · sbh(34 + 5as/h)"),
        (r"0.05 \times 6 / 2.7 \approx 0.11", "0.05 × 6 / 2.7 ≈ 0.11"),
    ],
)
def test_a_formula_reads_as_text(tex, text):
    assert readable(tex) == text
    assert clean_text(f"前 \\({tex}\\) 后") == f"前 {text} 后"
    assert clean_text(f"前\\[{tex}\\]后") == f"前{text}后"
