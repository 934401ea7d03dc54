"""The seed's rule in c9.core.formats (a value is stored as FP32 first, then rounded to the format) and
each format's own tie rule, against independent oracles (tests/fp32_oracle.py): decimal → FP32 on
numpy's float32 grid by exact distance, FP32 → format by ml_dtypes / numpy casts of float32 values, and
one rounding of the exact value as the neighbour on the input's side of the midpoint the test built.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from conftest import examples
from hypothesis import example, given, settings
from hypothesis import strategies as st

from c9.core import formats as F
from tests.fp32_oracle import ORACLE, f32_oracle, lib_code

# Decimal inputs a reader could type, one per format where two roundings part (the FP32 value is a tie of
# the format, the exact value is not), with the code stored FP32-first and the code one rounding gives.
PARTED = [
    ("bfloat16", "257.0000001", 0x4380, 0x4381),  # lesson 3: FP32 257, the tie 256 | 258, even 256
    ("bfloat16", "1.0039062500001", 0x3F80, 0x3F81),  # 1 + 2⁻⁸ + 10⁻¹³
    ("float16", "1.000488281250001", 0x3C00, 0x3C01),  # 1 + 2⁻¹¹ + 10⁻¹⁵
    ("float8_e4m3fn", "1.0625000001", 0x38, 0x39),  # the tie 1 | 1.125
    ("float8_e4m3fn", "-431.99999999999994", 0xFE, 0xFD),  # the lab's row: −448 via FP32, −416 once
    ("float8_e5m2", "1.1250000001", 0x3C, 0x3D),  # the tie 1 | 1.25
    ("float4_e2m1fn", "2.5000000001", 0x4, 0x5),  # the tie 2 | 3
    ("float4_e2m1fn", "-2.5000000001", 0xC, 0xD),
    ("float8_e8m0fnu", "1.4999999999", 0x80, 0x7F),  # E8M0's tie goes up: 2, though 1 is nearer
    ("float8_e8m0fnu", "0.7499999999", 0x7F, 0x7E),
    ("float8_e8m0fnu", "1e-50", 0xFF, 0x00),  # FP32 holds 0, and E8M0 has no 0: NaN, not 2⁻¹²⁷
]
# Inputs where both ways agree (FP32 moves them, but not across a tie of any format here).
AGREED = ["0.1", "1e-8", "70000", "257", "1.0001", "1.001", "-2.7", "0.05", "3", "0.75"]


@pytest.mark.parametrize("fmt, text, via, once", PARTED, ids=lambda v: str(v))
def test_fp32_first_against_the_libraries_and_one_rounding(fmt, text, via, once):
    x = Fraction(Decimal(text))
    x32 = f32_oracle(x)
    assert F.as_float32(x) == x32
    assert F.encode_via_float32(fmt, x) == lib_code(fmt, x32) == via
    two = F.two_roundings(fmt, x)
    assert (two.float32, two.code, two.direct, two.differ) == (x32, via, once, True)
    assert F.encode(fmt, x) == once  # the codec itself still rounds the exact value once
    held, want = F.round_via_float32(fmt, x), F.decode(fmt, via)
    assert held == want or (held != held and want != want)  # E8M0's NaN


@pytest.mark.parametrize("fmt", list(ORACLE))
@pytest.mark.parametrize("text", AGREED)
def test_fp32_first_agrees_with_one_rounding_away_from_ties(fmt, text):
    x = Fraction(Decimal(text))
    two = F.two_roundings(fmt, x)
    assert two.code == lib_code(fmt, f32_oracle(x)) == F.encode(fmt, x)
    assert not two.differ


def test_a_decimal_that_float64_puts_on_an_fp32_tie_is_still_rounded_once_into_fp32():
    # 1 + 2⁻²⁴ + 10⁻³⁰: float64 holds 1 + 2⁻²⁴, an FP32 tie that would go to 1; the exact value is above it.
    x = Fraction(Decimal("1.000000059604644775390625000001"))
    assert float(x) == 1 + 2**-24 and float(np.float32(float(x))) == 1.0  # the trap
    assert F.as_float32(x) == f32_oracle(x) == 1 + 2**-23
    assert F.as_float32(-x) == -(1 + 2**-23)
    assert F.as_float32(Fraction(1) + Fraction(1, 2**24)) == 1.0  # the tie itself goes to even


def _midpoint_input(fmt: str, data) -> tuple[Fraction, int, Fraction, tuple[int, int]]:
    """A rounding midpoint of ``fmt`` (FP32 holds it exactly) moved by far less than FP32's half spacing:
    the input, the code one rounding gives (the neighbour on the input's side), the midpoint's magnitude,
    and the two neighbours' codes (smaller magnitude first; the sign is drawn too)."""
    f = F.get_format(fmt)
    lo = data.draw(st.integers(0, f.max_code - 1), label="code below")
    a, b = F.decode_exact(f, lo), F.decode_exact(f, lo + 1)
    mid = (a + b) / 2
    digits = data.draw(st.integers(9, 30), label="offset digits")
    side = data.draw(st.sampled_from((-1, 1)), label="side")
    x = mid + side * mid / 10**digits
    neg = data.draw(st.booleans(), label="negative") and f.signed
    s = f.sign_bit if neg else 0
    below, above = lo | s, (lo + 1) | s
    return (-x if neg else x), (above if side > 0 else below), mid, (below, above)


@settings(max_examples=examples(150), deadline=None)
@given(fmt=st.sampled_from(list(ORACLE)), data=st.data())
def test_two_roundings_part_exactly_at_the_formats_ties(fmt, data):
    x, nearest, mid, pair = _midpoint_input(fmt, data)
    x32 = f32_oracle(x)
    assert abs(x32) == mid  # FP32 cannot tell the input from the midpoint
    two = F.two_roundings(fmt, x)
    assert two.float32 == x32
    assert two.code == lib_code(fmt, x32)  # FP32 first: the library on the float32 value
    assert two.direct == nearest  # one rounding: the neighbour on the input's side
    assert two.differ == (two.code != nearest)
    assert F.tie_neighbours(fmt, x32) == pair


@settings(max_examples=examples(300), deadline=None)
@given(x=st.floats(allow_nan=False, allow_infinity=False))
def test_as_float32_of_a_float_is_numpys_cast(x):
    with np.errstate(over="ignore"):
        want = float(np.float32(x))
    got = F.as_float32(x)
    assert got == want and math.copysign(1, got) == math.copysign(1, want)


@settings(max_examples=examples(300), deadline=None)
@given(
    m=st.integers(1 << 23, (1 << 24) - 1),
    e=st.integers(-149, 104),
    off=st.fractions(min_value=-1, max_value=1, max_denominator=10**12),
)
@example(
    m=(1 << 24) - 1, e=104, off=Fraction(0)
)  # the overflow threshold: the largest float32 + half its spacing
@example(m=(1 << 24) - 2, e=104, off=Fraction(1))
@example(m=(1 << 24) - 1, e=104, off=Fraction(-1, 10**12))
def test_as_float32_of_a_rational_near_an_fp32_tie(m, e, off):
    x = (Fraction(2 * m + 1, 2) + off / 10**6) * Fraction(2) ** e  # near the tie above m · 2^e
    assert F.as_float32(x) == f32_oracle(x)
    assert F.as_float32(x) == F.round_value("float32", x)  # the fast path equals the exact codec


def test_as_float32_past_fp32s_range_and_specials():
    top = F.get_format("float32").max
    assert F.as_float32(Fraction(10) ** 39) == math.inf and F.as_float32(-(Fraction(10) ** 39)) == -math.inf
    assert F.as_float32(top) == top and F.as_float32(Fraction(top) + Fraction(F.ulp("fp32", top)) / 4) == top
    assert math.copysign(1, F.as_float32(-0.0)) < 0 and F.as_float32(-math.inf) == -math.inf
    nan = F.as_float32(-math.nan)
    assert nan != nan and math.copysign(1, nan) < 0


# ------------------------------------------------------------------ each format's own tie rule


@pytest.mark.parametrize("fmt", ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "float8_e8m0fnu"])
def test_each_formats_stated_tie_rule_is_what_ml_dtypes_does_at_every_tie(fmt):
    f = F.get_format(fmt)
    for lo in range(f.max_code):
        a, b = F.decode(f, lo), F.decode(f, lo + 1)
        got = lib_code(fmt, (a + b) / 2)
        even = lo if lo % 2 == 0 else lo + 1
        assert got == (lo + 1 if f.ties_up else even), (fmt, a, b)
        assert F.encode(f, (a + b) / 2) == got
    assert f.tie_rule_zh == ("平局进到较大的 2 的幂" if fmt == "float8_e8m0fnu" else "平局取偶")


def test_e8m0_sends_ties_up_like_ml_dtypes_and_torch_at_every_exponent():
    e8 = F.get_format("float8_e8m0fnu")
    assert e8.ties_up and not any(f.ties_up for f in F.FORMATS if f is not e8)
    ties = np.array([1.5 * 2.0**k for k in range(-127, 127)], dtype=np.float32)
    lib = ties.astype(ml_dtypes.float8_e8m0fnu).view(np.uint8).tolist()
    ours = [F.encode(e8, float(t)) for t in ties]
    assert ours == lib == [F.encode(e8, 2.0 ** (k + 1)) for k in range(-127, 127)]
    assert F.round_value(e8, 0.75) == 1.0 and F.round_value(e8, 3) == 4.0
