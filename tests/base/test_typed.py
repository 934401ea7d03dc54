"""One parser (c9/base/typed.py) reads every typed number on the site exactly, and
every widget uses it. Property tests against Python's Fraction and Decimal."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pytest
from conftest import examples
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from c9.base import typed, units
from c9.base.errors import InputError
from c9.core import formats as F
from c9.views import bit_flipper, block_lab, mx_nv, params, repeated_update

FULL_WIDTH = str.maketrans("0123456789.-+,eE", "０１２３４５６７８９．－＋，ｅＥ")


@settings(max_examples=examples(400))
@given(
    st.decimals(
        allow_nan=False, allow_infinity=False, min_value=Decimal("-1e300"), max_value=Decimal("1e300")
    )
)
def test_a_decimal_reads_as_its_exact_fraction_in_every_spelling(d):
    assume(len(d.as_tuple().digits) <= 40)  # a typed number has at most typed.MAX_TEXT characters
    want = Fraction(d)
    for text in {t for t in (str(d), f"{d:e}", f"{d:f}") if len(t) <= typed.MAX_TEXT}:
        got = typed.parse(text)
        if want == 0:
            assert (
                got == 0 and isinstance(got, float) and math.copysign(1, got) == (-1 if d.is_signed() else 1)
            )
        else:
            assert got == want and isinstance(got, Fraction)
        assert typed.parse(text.translate(FULL_WIDTH)) == got  # full width reads the same
        assert typed.parse(text.replace("-", "−")) == got  # so does a minus sign


@settings(max_examples=examples(300))
@given(st.integers(min_value=-(10**18), max_value=10**18))
def test_thousands_separators_in_the_standard_grouping_read_as_the_integer(n):
    assert typed.parse(f"{n:,}") == (n if n else 0)
    assert typed.integer(f"{n:,}", "数", -(10**18), 10**18) == n
    assert typed.integer(f"{n:,}".translate(FULL_WIDTH), "数", -(10**18), 10**18) == n


@pytest.mark.parametrize("text", ["1,5", "1,50", "1,5000", "12,34,567", ",5", "1,", "1.5,000", "8,192.5,1"])
def test_a_comma_that_is_not_a_thousands_separator_is_refused(text):
    with pytest.raises(InputError, match="逗号不是千位分隔符"):
        typed.parse(text)
    with pytest.raises(InputError, match="逗号"):
        params.integer(text, "序列长度 s", 1, 10**6)


def test_signs_of_zero_and_nan_are_kept():
    for text, sign in (("-0", -1), ("+0", 1), ("0", 1), ("-0.0e5", -1), ("－０", -1)):
        z = typed.parse(text)
        assert z == 0 and math.copysign(1, z) == sign
    for text, sign in (("nan", 1), ("NaN", 1), ("+nan", 1), ("-nan", -1), ("−NaN", -1)):
        x = typed.parse(text)
        assert x != x and math.copysign(1, x) == sign
    assert (
        typed.parse("-inf") == -math.inf
        and typed.parse("∞") == math.inf
        and typed.parse("+Infinity") == math.inf
    )


def test_hex_and_powers_of_two_are_exact():
    assert typed.parse("0x3C00") == 15360
    assert typed.parse("0x1.8p3") == 12 and typed.parse("-0x1p-149") == -Fraction(1, 2**149)
    assert typed.parse("2^-24") == typed.parse("2⁻²⁴") == typed.parse("2**-24") == Fraction(1, 2**24)
    assert typed.parse("1.5 × 2⁻¹³⁰") == Fraction(3, 2**131) and typed.parse("−3 × 2⁻¹³¹") == -Fraction(
        3, 2**131
    )
    assert typed.parse("1.5×10^-3") == Fraction(3, 2000)


@settings(max_examples=examples(300))
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_json_number_reads_as_the_decimal_it_prints_as(x):
    got = typed.parse(x)
    assert got == (Fraction(repr(x)) if x else 0)


@pytest.mark.parametrize(
    "value", [None, True, [], {}, [1], {"a": 1}, "", "  ", "abc", "1e", "0x", "--1", "1..2", "1/2"]
)
def test_anything_else_gets_a_chinese_message(value):
    with pytest.raises(InputError) as e:
        typed.parse(value)
    assert e.value.message_zh and not any(w in e.value.message_zh for w in ("Error", "could not", "invalid"))


# ---- every widget uses it -------------------------------------------------------------------------


def test_the_bit_flipper_keeps_the_sign_of_nan_and_refuses_1_comma_5():
    rows = {
        r["format"]: r for r in bit_flipper.view({"value": "-nan", "formats": "float16,bfloat16"})["rows"]
    }
    assert rows["float16"]["hex"] == "0xFE00" and rows["bfloat16"]["hex"] == "0xFFC0"
    assert {r["format"]: r["hex"] for r in bit_flipper.view({"value": "nan"})["rows"]}["float16"] == "0x7E00"
    with pytest.raises(InputError, match="逗号"):
        bit_flipper.view({"value": "1,5"})
    assert bit_flipper.view({"value": "8,192"})["rows"][0]["value"] == 8192


def test_the_block_lab_quantises_1e_330_from_its_exact_value():
    for text in ("1e-330, 1", "1e-320, 1", "1e-300, 1"):
        v = block_lab.view({"source": "typed", "text": text})
        assert v["flushed"] == 1 and "其中 1 个变成了 0" in v["summary"], text
    assert block_lab.parse_tensor("1e-330, 1") == [[Fraction(1, 10**330), 1.0]]
    assert block_lab.parse_tensor("1,5\n2、3") == [[1.0, 5.0], [2.0, 3.0]]  # in a list a comma separates


def test_mx_nv_and_the_repeated_update_read_exactly():
    assert mx_nv.parse_block("1e-330, 1") == [Fraction(1, 10**330), 1.0]
    v = mx_nv.view({"text": "1e-330, 1"})
    assert v["mx"]["zeroed"] == 1 and v["nv"]["zeroed"] == 1
    assert [r["value_text"] for r in v["rows"]] == ["1×10⁻³³⁰", "1"]
    v = repeated_update.view({"w0": "0x1p-20", "delta": "2^-30", "steps": 1, "fmt": "float16"})
    assert v["final"]["master"] == F.round_value("float32", Fraction(1, 2**20) + Fraction(1, 2**30))
    with pytest.raises(InputError, match="逗号"):
        repeated_update.view({"w0": "1,5"})


def test_integer_boxes_share_the_rule():
    assert params.integer("8,192", "序列长度 s", 5, 131072) == 8192
    assert params.integer("0x10", "batch b", 1, 64) == 16
    with pytest.raises(InputError, match="随机种子要是整数"):
        block_lab.view({"seed": "1.5"})
    assert block_lab.view({"seed": "1,000"})["params"]["seed"] == 1000


@pytest.mark.parametrize(
    "text, value",
    [
        ("2³", 8),
        ("2⁻²⁴", Fraction(1, 2**24)),
        ("1.5×2⁻¹³⁰", Fraction(3, 2**131)),
        ("2⁺³", 8),
        ("−2⁻¹", Fraction(-1, 2)),
    ],
)
def test_a_list_reads_superscript_powers_like_one_number(text, value):
    """numbers() flattened superscripts with NFKC first: "2³" became 23, "2⁻²⁴" was refused."""
    assert typed.parse(text) == value
    assert typed.numbers(text) == [value]
    assert typed.numbers(f"1, {text}、0.5") == [1, value, Fraction(1, 2)]
    assert len(typed.tokens(f"{text}; 3")) == 2
    assert mx_nv.parse_block(f"{text}, 1")[0] == value


@pytest.mark.parametrize("text", ["0,500", "0,001", "000,001", "-0,5", "00,000"])
def test_a_leading_zero_group_is_a_decimal_comma_and_refused(text):
    """ "0,500" read as 500 and "0,001" as 1: a reader with a decimal comma means 0.5 and 0.001."""
    with pytest.raises(InputError, match="逗号不是千位分隔符"):
        typed.parse(text)
    with pytest.raises(InputError, match="逗号"):
        params.integer(text, "序列长度 s", 1, 10**6)


@pytest.mark.parametrize("text", ["1\n", "\t1", " 1 ", "\u30001\u3000", "1\r\n", "7 0\t000"])
def test_whitespace_around_a_number_is_ignored(text):
    assert typed.parse(text) == (70000 if "7" in text else 1)


@pytest.mark.parametrize(
    "text", ["1e9999999999999999999", "1e999999999999999999", "-5e+12345678901234567890"]
)
def test_a_huge_exponent_is_out_of_range_not_unreadable(text):
    with pytest.raises(InputError) as e:
        typed.parse(text)
    assert str(e.value) == "too_big" and "太大了：量级超过 10⁴⁰⁰ 的数这里不收" in e.value.message_zh
    with pytest.raises(InputError, match="要在 1 到 5 之间"):
        typed.integer(text, "次数", 1, 5)
    with pytest.raises(InputError) as e:
        typed.parse("1e-9999999999999999999")
    assert str(e.value) == "too_small"


def test_a_negative_nan_float_keeps_its_sign():
    x = typed.parse(-math.nan)
    assert x != x and math.copysign(1, x) == -1
    assert math.copysign(1, typed.parse(math.nan)) == 1


@pytest.mark.parametrize(
    "head, tail, want",
    [
        ("收到的是", "1,048,577", "收到的是 1,048,577"),
        ("收到的是", "约 1×10²⁰", "收到的是约 1×10²⁰"),
        ("收到的是", "「abc」", "收到的是「abc」"),
        ("主权重（FP32）", "111.1 GB", "主权重（FP32）111.1 GB"),
        ("权重 FP32", "111.1 GB", "权重 FP32 111.1 GB"),
        ("整数", "约 1×10⁴⁰⁰", "整数约 1×10⁴⁰⁰"),
        ("FP32 + AdamW", "口径：16 字节/参数", "FP32 + AdamW 口径：16 字节/参数"),
    ],
)
def test_joined_spaces_chinese_the_sites_way(head, tail, want):
    """Reader check: 「收到的是 约 1×10³⁰」 and 「主权重（FP32） 111.1 GB」 had a space where Chinese has none."""
    assert units.joined(head, tail) == want


@pytest.mark.parametrize(
    "parts, want",
    [
        (("BF16 的解码结果与", "PyTorch", "相同的个数"), "BF16 的解码结果与 PyTorch 相同的个数"),
        (("BF16 的解码结果与", "对照库", "相同的个数"), "BF16 的解码结果与对照库相同的个数"),
        (
            ("编码时与", "PyTorch（对本站的默认溢出规则）", "结果不同的"),
            "编码时与 PyTorch（对本站的默认溢出规则）结果不同的",
        ),
        (("结果不同的", "NaN 输入", "个数"), "结果不同的 NaN 输入个数"),
        (("例子：", "PyTorch", "的结果"), "例子：PyTorch 的结果"),
        (("", "PyTorch", ""), "PyTorch"),
    ],
)
def test_joined_spaces_every_seam(parts, want):
    """Each seam follows the same rule, so a name set inside a sentence needs no helper of its own."""
    assert units.joined(*parts) == want


def test_a_number_past_the_bound_says_which_end_and_what_shows_the_same():
    """Reader checks: 「1e999」 was told 「量级超出了 10⁻⁴⁰⁰ 到 10⁴⁰⁰：…只会是 0 或无穷大」, one message for both
    ends that refused without saying what to type; then 「请换一个量级在 10⁴⁰⁰ 以内的数」 suggested 1e399 would
    show something else. The inputs it offers instead are checked against FP32 here."""
    import numpy as np

    with pytest.raises(InputError) as e:
        typed.parse("1e-999")
    assert str(e.value) == "too_small" and "先存成 FP32 就已经是 0" in e.value.message_zh
    assert "约 7×10⁻⁴⁶" in e.value.message_zh and np.float32(1e-46) == 0 and np.float32(7.1e-46) > 0
    with pytest.raises(InputError) as e:
        typed.parse("-1e999")
    assert str(e.value) == "too_big" and "先存成 FP32 就已经是无穷大" in e.value.message_zh
    assert "约 3.4×10³⁸" in e.value.message_zh
    with np.errstate(over="ignore"):
        assert np.isinf(np.float32(1e39)) and np.float32(3.4e38) < np.inf
