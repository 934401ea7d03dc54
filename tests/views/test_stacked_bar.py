"""c9/views/stacked_bar.py: the axis covers the data with a 1-2-5 step; bars are as long as their values."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from svg_chart import bar_rows, bar_values, parse, reference_line, tick_value

from c9.views import stacked_bar


@pytest.mark.parametrize(
    "top, ticks",
    [
        (162.5, [0, 50, 100, 150, 200]),
        (1, [0, 0.2, 0.4, 0.6, 0.8, 1.0]),
        (74.5, [0, 20, 40, 60, 80]),
        (6, [0, 1, 2, 3, 4, 5, 6]),
    ],
)
def test_nice_ticks(top, ticks):
    assert stacked_bar.nice_ticks(top) == pytest.approx(ticks)


@given(st.floats(1e-6, 1e15))
def test_ticks_cover_the_top_with_at_most_seven_ticks(top):
    ticks = stacked_bar.nice_ticks(top)
    step = ticks[1]
    assert ticks[0] == 0 and ticks[-1] >= top * (1 - 1e-9) and len(ticks) <= 7
    mantissa = step / 10 ** math.floor(math.log10(step) + 1e-12)
    assert any(math.isclose(mantissa, m) for m in (1, 2, 5, 10))


@pytest.mark.parametrize("bad", [0, -1, math.inf, math.nan])
def test_ticks_refuse_an_empty_or_infinite_axis(bad):
    with pytest.raises(ValueError):
        stacked_bar.nice_ticks(bad)


def test_two_rows_a_line_a_zero_segment_and_escaped_labels():
    rows = [
        {
            "label": "推演",
            "segments": [
                {"key": "a", "label": "A<&>", "value": 30, "text": "30", "color": "#000000"},
                {"key": "z", "label": "Z", "value": 0, "text": "0", "color": "#000000"},
                {"key": "b", "label": "B", "value": 12.5, "text": "12.5", "color": "#111111"},
            ],
        },
        {
            "label": "实测",
            "segments": [
                {"key": "m", "label": "M", "value": 50, "text": "50", "color": "#222222", "hatch": True}
            ],
        },
    ]
    out = stacked_bar.svg(rows, "单位", {"value": 45, "label": "线"}, label="名字")
    parse(out)  # well-formed XML despite "<&>" in a label
    assert bar_values(out) == [
        ("a", pytest.approx(30, rel=1e-5)),
        ("z", 0),
        ("b", pytest.approx(12.5, rel=1e-5)),
        ("m", pytest.approx(50, rel=1e-5)),
    ]
    assert bar_rows(out) == ["推演", "实测"]
    assert reference_line(out) == (pytest.approx(45, rel=1e-5), "线")
    assert out.count('fill="url(#c9-hatch)"') == 1


@pytest.mark.parametrize(
    "top, texts",
    [
        (800, ["0", "200", "400", "600", "800"]),
        (80_000, ["0", "20,000", "40,000", "60,000", "80,000"]),
        (8.66e9, ["0", "2×10⁹", "4×10⁹", "6×10⁹", "8×10⁹", "1×10¹⁰"]),
        (1.2e7, ["0", "2×10⁶", "4×10⁶", "6×10⁶", "8×10⁶", "1×10⁷", "1.2×10⁷"]),
        (2.4e10, ["0", "5×10⁹", "1×10¹⁰", "1.5×10¹⁰", "2×10¹⁰", "2.5×10¹⁰"]),
    ],
)
def test_tick_labels_stay_short_on_a_huge_axis(top, texts):
    """At s = 1,048,576 and b = 1,024 the axis reaches 10¹⁰ GB: "2,000,000,000" overlapped its neighbours
    on a 390 px phone; from 10⁶ the labels are in scientific notation, each as the site writes it (a reader
    check read 「10×10⁹」 beside 「8×10⁹」 as a slip)."""
    assert stacked_bar.tick_texts(stacked_bar.nice_ticks(top)) == texts


@given(st.floats(0.05, 1e15))  # two decimals at most: the charts' axes start at 80 (the card's line)
def test_tick_labels_are_short_and_read_back_as_their_values(top):
    ticks = stacked_bar.nice_ticks(top)
    texts = stacked_bar.tick_texts(ticks)
    assert max(map(len, texts)) <= 8
    assert [tick_value(t) for t in texts] == pytest.approx(ticks, rel=1e-9)
