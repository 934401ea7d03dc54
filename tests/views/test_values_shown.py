"""What a view prints about a value is true (the Python side):

- ±∞ is shown, not refused (the repeated update overflowing FP16);
- a value exact in its format is shown exactly (a decimal, or odd × a power of two), the same in every
  format; a rounded share never reads 0% or 100% when it is not;
- a control that changes nothing says so and why (BF16's loss-scale slider); counts are worded for 0, 1
  and many (the block lab's outlier channels)."""

from __future__ import annotations

import json
import random
import re
from fractions import Fraction

import pytest
from conftest import ROOT, examples
from hypothesis import given, settings
from hypothesis import strategies as st

from c9.base import typed, units
from c9.core import formats as F
from c9.views import api, bit_flipper, block_lab, loss_scale, mx_nv


def ask(widget, **p):
    return json.loads(api.handle(json.dumps({"widget": widget, "params": p})))


# ---- overflow to ∞ is shown --------------------------------------------------------------


@pytest.mark.parametrize("w0, delta, step", [("70000", "1", 0), ("60000", "1000", 6), ("-60000", "-1000", 6)])
def test_the_repeated_update_shows_fp16_overflowing_to_infinity(w0, delta, step):
    a = ask("repeated-update", fmt="float16", w0=w0, delta=delta, steps=10)
    assert a["ok"], a
    v = a["view"]
    inf = "−∞" if w0.startswith("-") else "∞"
    low = v["figure"]["data"][3]
    assert low["y"][step] == (-65504.0 if w0.startswith("-") else 65504.0) and low["y"][step + 1 :] == [
        None
    ] * (10 - step)
    assert low["text"][step] == inf and low["y"][:step] == [float(x) for x in low["y"][:step]]
    marks = [m for m in v["figure"]["layout"]["annotations"] if m["x"] == step]
    assert (
        len(marks) == 1 and marks[0]["text"] == f"{inf}（第 {step} 步起，两条 FP16 线）"
    )  # one label for the two lines
    assert v["table"][3]["text"] == inf and v["final"]["low"] is None
    assert f"溢出成 {inf}" in v["summary"] and "65,504" in v["summary"]


@pytest.mark.parametrize("w0, delta", [("60000", "1000"), ("-60000", "-1000")])
def test_the_overflow_label_names_the_real_step_of_a_long_run(w0, delta):
    """With 5,000 steps the chart is sampled every 25 steps: the label said 「∞（第 25 步起…）」 while the
    summary rightly said step 6."""
    v = ask("repeated-update", fmt="float16", w0=w0, delta=delta, steps=5000)["view"]
    inf = "−∞" if w0.startswith("-") else "∞"
    (mark,) = v["figure"]["layout"]["annotations"]
    assert mark["x"] == 6 and mark["text"] == f"{inf}（第 6 步起，两条 FP16 线）"
    assert "第 6 步" in v["summary"]
    low = v["figure"]["data"][3]
    assert (
        6 in low["x"]
        and low["text"][low["x"].index(6)] == inf
        and inf not in low["text"][: low["x"].index(6)]
    )


def test_negative_overflow_says_it_fell_below_minus_max():
    v = ask("repeated-update", fmt="float16", w0="-60000", delta="-1000", steps=10)["view"]
    assert "第 6 步超过了" not in v["summary"]
    assert "第 6 步跌破 −65,504，绝对值超过了 FP16 的最大值 65,504，溢出成 −∞" in v["summary"]
    assert "副本是 −∞（跌破 −65,504" in v["summary"]
    v = ask("repeated-update", fmt="float16", w0="60000", delta="1000", steps=10)["view"]
    assert "第 6 步超过了 FP16 的最大值 65,504，溢出成 ∞" in v["summary"]


def test_the_repeated_update_table_has_one_number_format():
    """Integers had thousands separators and non-integers not: 「65,519」 beside 「65519.5」."""
    v = ask("repeated-update", fmt="float16", w0="65519.5", delta="1e-4", steps=10)["view"]
    texts = {r["label"]: r["text"] for r in v["table"]}
    assert texts["FP32 主权重"] == "65,519.5" and texts["精确值"] == "65,519.501"
    v = ask("repeated-update", fmt="bfloat16", w0="1e-30", delta="1e-30", steps=1)["view"]
    assert "e" not in "".join(r["text"] for r in v["table"]) and "×10⁻³⁰" in v["table"][0]["text"]


def test_a_finite_run_has_no_overflow_marks():
    v = ask("repeated-update", fmt="bfloat16", w0="60000", delta="1000", steps=10)["view"]
    assert v["figure"]["layout"]["annotations"] == [] and "∞" not in v["summary"]


# ---- kind 11: exact values exactly; shares never 0% / 100% when they are not ----------------------


@settings(max_examples=examples(500))
@given(st.integers(0, 10**7), st.integers(1, 10**7), st.integers(0, 3))
def test_a_share_reads_0_or_100_percent_only_when_it_is(part, whole, digits):
    part = min(part, whole)
    text = units.share(Fraction(part, whole), digits)
    number = float(text.lstrip("<> ").rstrip("%").replace(",", ""))
    assert (number == 0) == (part == 0) or text.startswith("<")
    assert (number == 100 and not text.startswith(">")) == (part == whole)
    if text.startswith("<"):
        assert 0 < part / whole * 100 < number
    if text.startswith(">"):
        assert number < part / whole * 100 < 100


def test_share_examples():
    assert units.share(Fraction(198, 3688704)) == "< 0.1%" and units.percent(3688070, 3688704) == "> 99.9%"
    assert (
        units.percent(1, 8) == "12.5%" and units.percent(0, 5) == "0.0%" and units.percent(5, 5) == "100.0%"
    )


SHARE = re.compile(r"([<>] )?([\d.]+)%（([\d,]+) 个）")


@pytest.mark.parametrize("source", sorted(loss_scale.SOURCES))
@pytest.mark.parametrize("fmt", ["float16", "bfloat16"])
def test_loss_scale_shares_agree_with_their_counts_at_every_k(source, fmt):
    for k in range(loss_scale.K_MIN, loss_scale.K_MAX + 1):
        v = loss_scale.view({"k": k, "source": source, "fmt": fmt})
        n = v["counts"]["n"]
        found = SHARE.findall(v["summary"])
        assert len(found) == 4
        for mark, pct, count in found:
            c = int(count.replace(",", ""))
            assert (float(pct) == 0 and not mark) == (c == 0), (k, v["summary"])
            assert (float(pct) == 100 and not mark) == (c == n), (k, v["summary"])
        for key, text in v["shares"].items():
            assert text == units.percent(v["counts"][key], n)


def test_the_lab_gradients_at_k_20_read_as_counted():
    if "lab" not in loss_scale.SOURCES:
        pytest.skip("no lab data file")
    s = loss_scale.view({"k": 20, "source": "lab", "fmt": "float16"})["summary"]
    assert "< 0.1%（198 个）溢出成 ∞" in s and "> 99.9%（3,688,070 个）是正规数" in s


def test_relative_errors_read_100_percent_only_for_a_value_that_became_zero():
    rng = random.Random(12)
    for _ in range(200):
        text = ", ".join(
            f"{rng.choice([-1, 1]) * 10 ** rng.uniform(-6, 3):.4g}" for _ in range(rng.randint(1, 16))
        )
        v = mx_nv.view({"text": text})
        for row in v["rows"]:
            for side in ("mx", "nv"):
                e = row[side]
                if e["rel_text"] in ("100.0%", "100%"):
                    assert e["zeroed"], (text, e)
                if e["rel_text"] in ("0%", "0.00%", "0.0%"):
                    assert e["rel_error"] == 0, (text, e)
    for scheme in block_lab.SCHEMES:
        v = block_lab.view({"scheme": scheme, "seed": 3})
        assert v["max_rel_text"] != "100.0%" or v["max_rel"] == 1
    assert units.error_percent(0.99996) == "> 99.9%" and units.error_percent(1.0) == "100.0%"


def _shown_values(fmt, code):
    """(text, the code it shows) for the value and its two neighbours in the bit flipper's row."""
    row = bit_flipper.view({"formats": fmt, "source": fmt, "code": code})["rows"][0]
    return [
        (row["value_text"], code),
        (row["up"], F.next_up(fmt, code)),
        (row["down"], F.next_down(fmt, code)),
    ]


@pytest.mark.parametrize(
    "fmt",
    ["float16", "bfloat16", "float32", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "float8_e8m0fnu"],
)
def test_the_bit_flipper_shows_every_value_exactly(fmt):
    f = F.get_format(fmt)
    rng = random.Random(11)
    codes = (
        range(f.n_codes)
        if f.n_codes <= 256
        else [rng.randrange(f.n_codes) for _ in range(300)] + [1, f.max_code]
    )
    for code in codes:
        for text, c in _shown_values(fmt, code):
            if text is None or text in ("NaN", "−NaN", "+∞", "−∞"):
                continue
            assert typed.parse(text) == F.decode_exact(f, c), (fmt, code, text)
            assert "≈" not in text and "e" not in text


def test_tiny_values_and_e8m0_codes_read_exactly():
    s = bit_flipper.view({"value": "5.9604644775390625e-08", "formats": "float16,float32"})["summary"]
    assert "FP16 存成 2⁻²⁴（≈ 5.96046448×10⁻⁸，" in s and "FP32 存成 2⁻²⁴（≈ 5.96046448×10⁻⁸，" in s
    row = bit_flipper.view({"source": "float8_e8m0fnu", "code": "0x86", "formats": "float8_e8m0fnu"})["rows"][
        0
    ]
    assert (row["value_text"], row["down"], row["up"]) == ("128", "64", "256")


# four or more digits in a row before any decimal point: the odd integer of "1,048,575 × 2⁻¹⁴⁹" too (a reader
# check found 「1048575 × 2⁻¹⁴⁹」); grouped, it still types back
UNGROUPED = re.compile(r"(?<![\d.,])\d{4,}(?!\d)")


@pytest.mark.parametrize(
    "fmt", ["float16", "bfloat16", "float32", "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu"]
)
def test_the_bit_flipper_groups_every_number_it_shows_the_same_way(fmt):
    """The value read 「65,504」 while the interval beside it read 「(65488, 65520)」 and the ulp 「2¹³ = 8192」."""
    f = F.get_format(fmt)
    rng = random.Random(13)
    codes = (
        range(f.n_codes)
        if f.n_codes <= 256
        else [rng.randrange(f.n_codes) for _ in range(300)] + [f.max_code]
    )
    for code in codes:
        row = bit_flipper.view({"formats": fmt, "source": fmt, "code": code})["rows"][0]
        for key in ("exact", "value_text", "up", "down", "interval", "ulp_text"):
            assert not UNGROUPED.search(row[key] or ""), (fmt, code, key, row[key])
    row = bit_flipper.view({"formats": "float16", "source": "float16", "code": "0x7BFF"})["rows"][0]
    assert (row["exact"], row["down"], row["interval"], row["ulp_text"]) == (
        "65,504",
        "65,472",
        "(65,488，65,520)",
        "2⁵ = 32",
    )
    row = bit_flipper.view({"formats": "float8_e5m2", "source": "float8_e5m2", "code": "0xFB"})["rows"][0]
    assert (row["exact"], row["interval"], row["ulp_text"]) == (
        "−57,344",
        "(−61,440，−53,248)",
        "2¹³ = 8,192",
    )
    for text in ("65,488", "−61,440", "65,503.998"):  # an interval's ends type back too
        assert typed.parse(text) == Fraction(text.replace(",", "").replace("−", "-"))


# ---- kind 13: no inert control without a reason; counts worded for 0, 1, many ---------------------


@pytest.mark.parametrize("source", sorted(loss_scale.SOURCES))
def test_bf16s_slider_says_why_it_changes_nothing(source):
    for k in (0, 13, 40):
        s = loss_scale.view({"k": k, "source": source, "fmt": "bfloat16"})["summary"]
        assert (
            "k 从 0 到 40 这些比例一个都不变" in s
            and "指数有 8 位（和 FP32 一样）" in s
            and "才开始有梯度溢出" in s
        )
        assert "一个都不变" not in loss_scale.view({"k": k, "source": source, "fmt": "float16"})["summary"]
    k_over = int(re.search(r"要到 k = (\d+)", s).group(1))
    assert (
        loss_scale.counts(source, k_over, "bfloat16")["inf"]
        > 0
        == loss_scale.counts(source, k_over - 1, "bfloat16")["inf"]
    )


@pytest.mark.parametrize(
    "channels, token, words",
    [
        (0, False, "没有离群通道，没有离群 token"),
        (0, True, "没有离群通道，外加一个离群 token（token 5）"),
        (1, True, "1 个离群通道（通道 48，在前 128 个通道里）"),
        (4, False, "4 个离群通道（通道 1、48、67、83，都在前 128 个通道里）"),
    ],
)
def test_block_lab_words_every_count_of_outlier_channels(channels, token, words):
    note = block_lab.view({"channels": channels, "token": token})["tensor_note"]
    assert words in note and "无" not in note and "第  列" not in note


def test_block_lab_names_the_outliers_by_the_numbers_its_charts_show():
    """The |x| map numbers tokens and channels from 0 (axes and hover): the text named the outlier token
    "第 5 行", which a reader counts from 1 and looks for at token 4."""
    t, cols = block_lab.generate_with_outliers()
    big_rows = [i for i, row in enumerate(t) if min(abs(v) for v in row) >= 300]
    big_cols = [j for j in range(len(t[0])) if min(abs(row[j]) for row in t) >= 300]
    assert big_rows == [5] and big_cols == cols == [1, 48, 67, 83]
    trace = block_lab.abs_figure(t)["data"][0]
    assert (trace["y0"], trace["dy"], trace["x0"], trace["dx"]) == (0, 1, 0, 1)  # row i is drawn at token i
    note = block_lab.view({})["tensor_note"]
    assert "token 5" in note and "通道 1、48、67、83" in note
    page = (ROOT / "docs" / "lesson-4.md").read_text(encoding="utf-8")
    template = (ROOT / "c9" / "views" / "block-lab.html").read_text(encoding="utf-8")
    for text in (note, page, template):
        assert "第 5 行" not in text and "第 128–255 列" not in text


def test_block_lab_magnitude_refusal_writes_the_choices_as_the_list_does():
    out = json.loads(api.handle(json.dumps({"widget": "block-lab", "params": {"magnitude": 5}})))
    assert out["error"] == "离群值的量级只能选 100、1,000、10,000"


def test_the_bit_flippers_approximations_and_signs_follow_one_rule():
    """≈ with 9 significant digits always (E8M0 2⁻²⁷ showed 8: trailing zero dropped); "−0" with U+2212 in
    the exact field too; relative errors as ×10ⁿ, not "6.08e−07%"; a negative NaN as −NaN."""
    s = bit_flipper.view({"value": "2^-27", "formats": "float8_e8m0fnu,float32"})["summary"]
    assert "E8M0 存成 2⁻²⁷（≈ 7.45058060×10⁻⁹，" in s and "FP32 存成 2⁻²⁷（≈ 7.45058060×10⁻⁹，" in s
    rows = bit_flipper.view({"value": "-0", "formats": "float16,float32"})["rows"]
    assert [r["exact"] for r in rows] == ["−0", "−0"] and [r["value_text"] for r in rows] == ["−0", "−0"]
    assert "-" not in "".join(
        r["exact"] for r in bit_flipper.view({"value": "-0.1", "formats": "float32"})["rows"]
    )
    row = bit_flipper.view({"value": "0.1", "formats": "float32"})["rows"][0]
    assert row["error_text"] == "+1.49×10⁻⁹（相对 1.5×10⁻⁶%）"
    assert not re.search(r"\de[−+-]?\d", row["error_text"])
    v = bit_flipper.view({"value": "-nan", "formats": "float16,float32"})
    assert [r["value_text"] for r in v["rows"]] == ["−NaN", "−NaN"] and "FP16 存成 −NaN（非数，0xFE00）" in v[
        "summary"
    ]
    assert bit_flipper.view({"value": "nan", "formats": "float16"})["rows"][0]["value_text"] == "NaN"


def test_lesson_2_says_where_fp16_overflow_starts():
    """Under round-to-nearest-even, (65504, 65520) rounds back to 65504: ∞ starts at 65520, not above the max."""

    text = (ROOT / "docs" / "lesson-2.md").read_text(encoding="utf-8")
    assert "数一旦超过 {{ fig.fp16_max }}，在 FP16 里就变成无穷大" not in text
    assert "从 {{ fig.fp16_overflow_from }} 起的数在 FP16 里就变成无穷大" in text


def test_the_bit_flippers_interval_and_infinity_read_unambiguously():
    """At 70000 in FP16: 「[65,520, +∞]」 used the comma as both thousands separator and list separator, and
    「2 的幂形式」 wrote ∞ where 存下的值 wrote +∞."""
    from c9.views import bit_flipper

    row = next(r for r in bit_flipper.view({"value": "70000"})["rows"] if r["format"] == "float16")
    assert row["interval"].count("，") == 1 and ", " not in row["interval"], row["interval"]
    assert row["value_text"] == "+∞" and row["pow2"] == "+∞", (row["value_text"], row["pow2"])


def _axis_formats(value):
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "tickformat":
                yield v
            else:
                yield from _axis_formats(v)
    elif isinstance(value, list):
        for v in value:
            yield from _axis_formats(v)


@pytest.mark.parametrize("params", [{"w0": "70000", "delta": "1"}, {"w0": "1", "fmt": "bfloat16"}])
def test_every_chart_axis_groups_thousands(params):
    """Lesson 2 at w₀ = 70000: the y axis read 66000…70000 while the x axis read 2,000 4,000 (charts.js
    asks Plotly for separators; a tickformat without 「,」 turned them off on that axis)."""
    from c9.views.api import WIDGETS, widget_module

    views = [widget_module("repeated-update").view(params)]
    views += [widget_module(n).view() for n in WIDGETS if hasattr(widget_module(n), "view")]
    formats = [f for v in views for f in _axis_formats(v)]
    assert formats and all(f.startswith(",") for f in formats), formats


def test_a_power_of_two_form_is_grouped_and_types_back():
    row = bit_flipper.view({"formats": "float32", "source": "float32", "code": "FFFFF"})["rows"][0]
    assert (row["value_text"], row["down"]) == ("1,048,575 × 2⁻¹⁴⁹", "524,287 × 2⁻¹⁴⁸")
    back = bit_flipper.view({"formats": "float32", "value": row["value_text"]})["rows"][0]
    assert back["code"] == row["code"] and back["value_text"] == row["value_text"]
