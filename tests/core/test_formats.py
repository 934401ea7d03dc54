"""c9.core.formats against independent oracles: ml_dtypes 0.6 (FP8, FP6, FP4, E8M0, BF16) and
numpy (FP16, FP32), on every code, every rounding midpoint and 10^5 random float32 values.

ml_dtypes 0.6 rounds float64 inputs twice (through float32), so the oracle is always fed float32
arrays; our encode rounds the exact value once. Failures name the format and the code or value.
"""

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from c9.core import formats as F
from tests.golden_formats import GOLDEN, ROUNDING

ORACLE = {
    "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
    "float8_e4m3fn": ml_dtypes.float8_e4m3fn,
    "float8_e5m2": ml_dtypes.float8_e5m2,
    "float6_e2m3fn": ml_dtypes.float6_e2m3fn,
    "float6_e3m2fn": ml_dtypes.float6_e3m2fn,
    "float4_e2m1fn": ml_dtypes.float4_e2m1fn,
    "float8_e8m0fnu": ml_dtypes.float8_e8m0fnu,
}
SMALL = list(ORACLE)
UINT = {8: np.uint8, 16: np.uint16}


def oracle_codes(name, x32):
    """Oracle codes of a float32 array (ml_dtypes / numpy cast, then the raw bits)."""
    dt = ORACLE[name]
    with np.errstate(invalid="ignore", over="ignore"):
        y = np.asarray(x32, dtype=np.float32).astype(dt)
    width = np.dtype(dt).itemsize * 8
    codes = y.view(UINT[width]).astype(np.int64)
    if name == "float8_e8m0fnu":
        codes = _patch_e8m0_subnormal_inputs(np.asarray(x32, dtype=np.float32), codes)
    return codes


def _patch_e8m0_subnormal_inputs(x32, codes):
    """ml_dtypes 0.6 rounds float32 *subnormal* inputs in (2^-127, 2^-126) up to 2^-126 even when
    2^-127 is nearer (e.g. 1.001 × 2^-127 → 0x01). For those inputs the reference is the plain
    nearest-of-two rule: below the midpoint 1.5 × 2^-127 → 0x00, at or above → 0x01 (the tie goes
    to the even significand, as ml_dtypes does for normal inputs). Checked in
    test_ml_dtypes_e8m0_subnormal_input_deviation."""
    x = x32.astype(np.float64)
    sub = (x > 2.0**-127) & (x < 2.0**-126)
    out = codes.copy()
    out[sub] = np.where(x[sub] < 1.5 * 2.0**-127, 0, 1)
    return out


def our_codes(name, xs, overflow="default"):
    f = F.get_format(name)
    return np.array([F.encode(f, x, overflow) for x in xs], dtype=np.int64)


def assert_same_codes(name, xs, ours, theirs):
    bad = np.nonzero(ours != theirs)[0]
    if len(bad):
        i = bad[0]
        pytest.fail(
            f"{name}: encode({xs[i]!r}) = {int(ours[i]):#x}, oracle {int(theirs[i]):#x} "
            f"({len(bad)} mismatches)"
        )


# ------------------------------------------------------------------ table and derived values


def test_table_counts_every_code_of_the_six_formats():
    # 65,536 + 65,536 + 256 + 256 + 16 + 256 (+ 64 + 64 for FP6)
    n = {f.name: f.n_codes for f in F.FORMATS}
    assert [
        n[k]
        for k in ("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "float8_e8m0fnu")
    ] == [65536, 65536, 256, 256, 16, 256]


@pytest.mark.parametrize("name", SMALL)
def test_derived_values_match_ml_dtypes_finfo(name):
    f = F.get_format(name)
    fi = ml_dtypes.finfo(ORACLE[name])
    assert f.max == float(fi.max)
    assert f.min_normal == float(fi.smallest_normal)
    assert f.min_subnormal == float(fi.smallest_subnormal)
    assert f.epsilon == float(fi.eps)
    assert f.bits == fi.bits


def test_fp32_derived_values_match_numpy():
    f = F.get_format("FP32")
    fi = np.finfo(np.float32)
    assert (f.max, f.min_normal, f.min_subnormal, f.epsilon) == (
        float(fi.max),
        float(fi.smallest_normal),
        float(fi.smallest_subnormal),
        float(fi.eps),
    )


def test_e4m3_is_the_finite_ocp_one_not_the_ieee_like_one():
    f = F.get_format("E4M3")
    assert f.name == "float8_e4m3fn" and f.max == 448.0 and not f.has_inf
    assert float(ml_dtypes.finfo(ml_dtypes.float8_e4m3).max) == 240.0  # the other one
    assert F.get_format("fp8_e4m3fn") is f and F.get_format("E4M3FN") is f


@pytest.mark.parametrize(
    "alias,name",
    [
        ("FP32", "float32"),
        ("fp16", "float16"),
        ("BF16", "bfloat16"),
        ("e5m2", "float8_e5m2"),
        ("FP4", "float4_e2m1fn"),
        ("E2M1", "float4_e2m1fn"),
        ("E8M0", "float8_e8m0fnu"),
        ("e2m3", "float6_e2m3fn"),
        ("E3M2", "float6_e3m2fn"),
    ],
)
def test_aliases(alias, name):
    assert F.get_format(alias).name == name


def test_unknown_format_is_a_clear_value_and_key_error():
    for exc in (ValueError, KeyError, F.CodecInputError):
        with pytest.raises(exc, match="unknown number format 'fp7'"):
            F.get_format("fp7")
    try:
        F.decode("fp7", 0)
    except F.CodecInputError as e:
        assert "这种数字格式；可选：FP32、FP16、BF16" in e.message_zh and e.kind == "unknown_format"


# ------------------------------------------------------------------ decode, every code


@pytest.mark.parametrize("name", SMALL)
def test_decode_every_code_against_oracle(name):
    f = F.get_format(name)
    width = np.dtype(ORACLE[name]).itemsize * 8
    codes = np.arange(f.n_codes, dtype=UINT[width])
    with np.errstate(invalid="ignore"):
        theirs = codes.view(ORACLE[name]).astype(np.float64)
    ours = np.array(F.code_points(f))
    assert len(ours) == f.n_codes
    nan_o, nan_t = np.isnan(ours), np.isnan(theirs)
    bad = np.nonzero(
        (nan_o != nan_t) | (~nan_o & ((ours != theirs) | (np.signbit(ours) != np.signbit(theirs))))
    )[0]
    if len(bad):
        c = int(bad[0])
        pytest.fail(f"{name} code {c:#x}: ours {ours[c]!r}, oracle {theirs[c]!r} ({len(bad)} codes differ)")
    # and the per-code path agrees with the cached table
    for c in range(0, f.n_codes, max(1, f.n_codes // 256)):
        a, b = F._decode_compute(f, c), ours[c]
        assert (a != a and b != b) or a == b


def test_decode_fp32_sample_against_numpy():
    rng = np.random.default_rng(1)
    codes = np.concatenate(
        [
            rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32),
            np.array(
                [0, 1, 0x7F7FFFFF, 0x7F800000, 0xFF800000, 0x80000000, 0x00800000, 0x007FFFFF, 0x7FC00000],
                dtype=np.uint32,
            ),
        ]
    )
    with np.errstate(invalid="ignore"):
        theirs = codes.view(np.float32).astype(np.float64)
    for c, t in zip(codes.tolist(), theirs.tolist()):
        o = F.decode("float32", c)
        assert (o != o and t != t) or (o == t and math.copysign(1, o) == math.copysign(1, t)), hex(c)


@pytest.mark.parametrize("name", SMALL)
def test_encode_of_every_decoded_value_round_trips(name):
    f = F.get_format(name)
    for c, v in enumerate(F.code_points(f)):
        if v != v:
            assert F.classify(f, F.encode(f, v)) == "nan"
        else:
            assert F.encode(f, v) == c, f"{name} code {c:#x}"


# ------------------------------------------------------------------ encode against oracles


def _midpoint_inputs(f):
    """float32 midpoints between adjacent positive values (incl. 0 and max + ulp/2), ±1 float32
    ulp either side, both signs."""
    vals = sorted({v for v in F.code_points(f) if v == v and not math.isinf(v) and v >= 0})
    top = vals[-1] + F.ulp(f, vals[-1])
    vals.append(top)
    mids = np.array([(a + b) / 2 for a, b in zip(vals, vals[1:])], dtype=np.float64)
    m32 = mids.astype(np.float32)
    assert np.all(m32.astype(np.float64) == mids), "midpoints must be exact float32"
    x = np.concatenate([m32, np.nextafter(m32, np.float32(np.inf)), np.nextafter(m32, np.float32(0))])
    return np.concatenate([x, -x]).astype(np.float32)


def _random_float32(n, seed):
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    return x[np.isfinite(x)]


def _ok_for(f, x32):
    # inputs our encode may legitimately refuse: NaN into a format without NaN
    return x32 if f.has_nan else x32[~np.isnan(x32)]


@pytest.mark.parametrize("name", SMALL)
def test_encode_midpoints_and_neighbours_against_oracle(name):
    f = F.get_format(name)
    x32 = _midpoint_inputs(f)
    xs = x32.astype(np.float64).tolist()
    assert_same_codes(name, xs, our_codes(name, xs), oracle_codes(name, x32))


@pytest.mark.parametrize("name", SMALL)
def test_encode_random_float32_against_oracle(name):
    f = F.get_format(name)
    n = 100_000
    x32 = _random_float32(n, seed=hash(name) % 2**32)
    # plus values spread over the format's own range, where most of its codes live
    rng = np.random.default_rng(7)
    lo, hi = math.log2(f.min_subnormal) - 2, math.log2(f.max) + 1
    with np.errstate(over="ignore"):
        spread = (np.exp2(rng.uniform(lo, hi, 20_000)) * rng.choice([-1, 1], 20_000)).astype(np.float32)
    x32 = np.concatenate([x32, spread, np.array([0.0, -0.0, np.inf, -np.inf], dtype=np.float32)])
    x32 = _ok_for(f, x32)
    xs = x32.astype(np.float64).tolist()
    assert len(xs) >= 100_000
    assert_same_codes(name, xs, our_codes(name, xs), oracle_codes(name, x32))


def test_encode_fp32_against_numpy_float64_cast():
    """FP32: numpy's float64 → float32 cast is correctly rounded (one rounding)."""
    rng = np.random.default_rng(3)
    b = rng.integers(0, 2**64, 100_000, dtype=np.uint64)
    x = b.view(np.float64)
    x = x[np.isfinite(x)]
    x = x[np.abs(x) < 1e39]
    x = np.concatenate([x, np.exp2(rng.uniform(-152, 129, 30_000)) * rng.choice([-1, 1], 30_000)])
    # midpoints between random adjacent float32 values, and ±1 float64 ulp
    a = _random_float32(20_000, 4)
    a = a[np.abs(a) < np.float32(3.4e38)]
    nb = np.nextafter(a, np.float32(np.inf))
    mid = (a.astype(np.float64) + nb.astype(np.float64)) / 2
    x = np.concatenate(
        [
            x,
            mid,
            np.nextafter(mid, np.inf),
            np.nextafter(mid, -np.inf),
            [3.4028235677973366e38, 3.4028235677973362e38, 2.0**-150, 2.0**-150 * 1.0000001],
        ]
    )
    with np.errstate(over="ignore"):
        theirs = x.astype(np.float32).view(np.uint32).astype(np.int64)
    xs = x.tolist()
    assert_same_codes("float32", xs, our_codes("float32", xs), theirs)


@pytest.mark.parametrize("name", SMALL)
def test_saturate_mode_clamps_what_the_oracle_overflows(name):
    f = F.get_format(name)
    x32 = np.concatenate([_midpoint_inputs(f), np.array([np.inf, -np.inf, 1e30, -1e30], np.float32)])
    xs = x32.astype(np.float64).tolist()
    theirs = oracle_codes(name, x32)
    table = np.array(F.code_points(f))
    special = ~np.isfinite(table[theirs])  # the oracle overflowed to Inf/NaN
    clamp = f.max_code | np.where(x32 < 0, f.sign_bit, 0)
    if not f.signed:  # unsigned E8M0: only positive overflow clamps
        special &= x32 > 0
    expected = np.where(special, clamp, theirs)
    ours = our_codes(name, xs, "saturate")
    assert_same_codes(name, xs, ours, np.array(expected))


def test_ml_dtypes_e8m0_subnormal_input_deviation():
    x = np.array([1.001 * 2.0**-127, 1.49 * 2.0**-127], np.float32)
    assert x.astype(ml_dtypes.float8_e8m0fnu).view(np.uint8).tolist() == [1, 1]  # the oracle's quirk
    assert [F.encode("E8M0", float(v)) for v in x] == [0, 0]  # nearest: 2^-127


def test_e4m3fn_overflow_nan_by_default_like_ml_dtypes_and_saturate_on_request():
    # ml_dtypes' float8_e4m3fn cast does what OFP8 §5.3 calls non-saturating: > 464 → NaN.
    x = np.array([464, 465, 1e6, np.inf], np.float32)
    assert oracle_codes("float8_e4m3fn", x).tolist() == [0x7E, 0x7F, 0x7F, 0x7F]
    assert [F.encode("E4M3", float(v)) for v in x] == [0x7E, 0x7F, 0x7F, 0x7F]
    assert [F.encode("E4M3", float(v), "saturate") for v in x] == [0x7E] * 4


# ------------------------------------------------------------------ exactness beyond the oracle


def test_no_double_rounding_through_float32():
    # 1 + 2^-8 + 2^-40 is above the BF16 tie 1 + 2^-8 (exact), so it rounds up to 1 + 2^-7;
    # through float32 it would first become the tie 1 + 2^-8 and then round down to 1.
    x = 1 + 2.0**-8 + 2.0**-40
    assert F.encode("bf16", x) == 0x3F81
    assert np.float32(x).astype(ml_dtypes.bfloat16).view(np.uint16) == 0x3F80  # double rounding
    assert F.encode("bf16", Fraction(1) + Fraction(1, 256) + Fraction(1, 2**200)) == 0x3F81
    assert F.encode("bf16", Fraction(1) + Fraction(1, 256)) == 0x3F80


def test_exact_rationals_and_ints():
    assert F.encode("E4M3", Fraction(1, 3)) == F.encode("E4M3", 1 / 3)
    assert F.encode("fp16", 10**400) == 0x7C00
    assert F.encode("fp16", -(10**400), "saturate") == 0xFBFF
    assert F.encode("fp32", Fraction(1, 10**60)) == 0x00000000
    assert F.encode("fp32", -Fraction(1, 10**60)) == 0x80000000


@pytest.mark.parametrize("name,x,code,overflow,reason", ROUNDING)
def test_rounding_cases(name, x, code, overflow, reason):
    assert F.encode(name, x, overflow) == code, reason


@pytest.mark.parametrize("name,code,value,source", GOLDEN)
def test_golden_spec_values(name, code, value, source):
    got = F.decode(name, code)
    if value != value:
        assert got != got, source
        assert F.classify(name, code) == "nan"
        return
    assert got == value and math.copysign(1, got) == math.copysign(1, value), source
    assert F.encode(name, value) == code, source


def test_nan_never_becomes_finite():
    for f in F.FORMATS:
        if f.has_nan:
            for ov in ("default", "saturate"):
                assert F.classify(f, F.encode(f, math.nan, ov)) == "nan", f.name
        else:
            with pytest.raises(F.CodecInputError, match="has no NaN"):
                F.encode(f, math.nan)


def test_signed_zero_survives():
    for f in F.FORMATS:
        if f.signed:
            assert F.encode(f, -0.0) == f.sign_bit, f.name
            assert F.encode(f, 0.0) == 0
            assert F.encode(f, -f.min_subnormal / 4) == f.sign_bit


# ------------------------------------------------------------------ the bit view and neighbours


def test_fields_classify_expression():
    d = F.describe("E4M3", 0x7E)
    assert (d["sign_bits"], d["exponent_bits"], d["mantissa_bits"]) == ("0", "1111", "110")
    assert d["expression"] == "1.75 × 2^8" and d["cls"] == "normal" and d["value"] == 448
    assert F.power_of_two("E4M3", 0x81) == "-0.125 × 2^-6"
    assert F.power_of_two("E8M0", 0) == "2^-127"
    assert F.power_of_two("fp16", 0x7C00) == "inf"
    assert F.power_of_two("fp32", 0x3F800001) == "1.00000011920928955078125 × 2^0"
    assert [F.classify("E5M2", c) for c in (0, 1, 4, 0x7C, 0x7D)] == [
        "zero",
        "subnormal",
        "normal",
        "infinity",
        "nan",
    ]
    assert F.fields("E8M0", 0x7F)["sign"] is None


@pytest.mark.parametrize("name", SMALL)
def test_expression_evaluates_to_the_value(name):
    f = F.get_format(name)
    for c in range(0, f.n_codes, max(1, f.n_codes // 512)):
        if F.classify(f, c) in ("nan", "infinity", "zero"):
            continue
        s = F.power_of_two(f, c)
        sig, _, e = s.rpartition("2^")
        sig = Fraction(sig.replace("×", "").strip() or "1")
        assert sig * Fraction(2) ** int(e) == Fraction(F.decode(f, c)), f"{name} code {c:#x}"


@pytest.mark.parametrize("name", SMALL)
def test_next_up_down_walk_all_values_in_order(name):
    f = F.get_format(name)
    lowest = f.max_code | f.sign_bit if f.signed else 0
    if f.has_inf:
        lowest = f.inf_code | f.sign_bit
    seen, c = [], lowest
    while c is not None:
        seen.append(F.decode(f, c))
        n = F.next_up(f, c)
        if n == c:
            break
        if n is not None and F.decode(f, c) != 0:
            assert F.next_down(f, n) == c, f"{name}: next_down(next_up({c:#x}))"
        c = n
    finite = sorted({v for v in F.code_points(f) if v == v})
    assert sorted(set(seen)) == finite and seen == sorted(seen)


def test_ulp_and_interval():
    assert F.ulp("fp32", 1.0) == 2.0**-23 and F.ulp("bf16", 1.0) == 1 / 128
    assert F.ulp("E4M3", 448) == 32 and F.ulp("E4M3", 0) == 2.0**-9
    assert F.interval("E4M3", 0x7E).text() == "[432, 464]"
    assert F.interval("E4M3", 0x7E, "saturate").text() == "[432, inf]"
    assert F.interval("fp16", 0x7C00).text() == "[65520, inf]"
    assert F.interval("bf16", 0x4380).text() == "[255.5, 257]"
    assert F.interval("E2M1", 0x7).text() == "(5, inf]"
    assert F.interval("E2M1", 0x0).text() == "[0, 0.25]"
    assert F.interval("E8M0", 0x80).text() == "[1.5, 3)"
    iv = F.interval("E8M0", 0x00)  # no zero: every tiny positive value rounds here
    assert (iv.lo, iv.lo_closed, iv.hi, iv.hi_closed) == (0, False, Fraction(3, 2**128), False)
    assert F.interval("E4M3", 0x7F) is None


@pytest.mark.parametrize(
    "name", ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "float6_e3m2fn", "float8_e8m0fnu"]
)
def test_interval_ends_round_as_stated(name):
    f = F.get_format(name)
    for c in range(f.n_codes):
        iv = F.interval(f, c)
        if iv is None:
            continue
        for end, closed in ((iv.lo, iv.lo_closed), (iv.hi, iv.hi_closed)):
            if isinstance(end, float) or (end == 0 and not f.has_zero):
                continue
            if end == 0:
                continue
            assert (F.encode(f, end) == c) == closed, f"{name} code {c:#x} end {end}"


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: F.decode("E4M3", 256), "out of range"),
        (lambda: F.decode("E4M3", -1), "out of range"),
        (lambda: F.decode("E4M3", 1.0), "must be an int"),
        (lambda: F.encode("E4M3", "1.5"), "not a number"),
        (lambda: F.encode("E4M3", None), "not a number"),
        (lambda: F.encode("E4M3", True), "not a number"),
        (lambda: F.encode("E4M3", 1.0, overflow="clip"), "overflow must be"),
        (lambda: F.parse_code("E4M3", "0x1FF"), "cannot read"),
        (lambda: F.ulp("E4M3", math.inf), "finite"),
    ],
)
def test_bad_input_raises_clear_errors_with_chinese(call, match):
    with pytest.raises(F.CodecInputError, match=match) as ei:
        call()
    assert ei.value.message_zh and any("\u4e00" <= ch <= "\u9fff" for ch in ei.value.message_zh)


def test_parse_code():
    assert F.parse_code("E4M3", "0x7E") == 0x7E
    assert F.parse_code("E4M3", "0.1111.110") == 0x7E
    assert F.parse_code("E4M3", "0b01111110") == 0x7E
    assert F.parse_code("fp16", "0d15360") == 0x3C00
    assert F.parse_code("fp16", "3C00") == 0x3C00  # a bare code is hex, as the field says
    assert F.parse_code("E4M3", "7e") == 0x7E
    assert F.parse_code("fp16", "10") == 0x10
    assert F.parse_code("fp16", "-0") == 0  # a minus is read (−1 is out of range); a second sign is not
    for text in ("--1", "+1", "0x-1", "0d-5", "-"):
        with pytest.raises(F.CodecInputError, match="cannot read"):
            F.parse_code("fp16", text)
