"""c9.core.blockscale against an independent numpy/ml_dtypes oracle, the chapter's figures, and
the codec figures the build imports (c9.figures.codecs)."""

import json
import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from c9.core import blockscale as B
from c9.core import formats as F
from c9.figures.codecs import figures as codec_figures

ML = {
    "float8_e4m3fn": ml_dtypes.float8_e4m3fn,
    "float8_e5m2": ml_dtypes.float8_e5m2,
    "float4_e2m1fn": ml_dtypes.float4_e2m1fn,
    "float6_e2m3fn": ml_dtypes.float6_e2m3fn,
    "float6_e3m2fn": ml_dtypes.float6_e3m2fn,
}


def _table(name):
    """Finite values of a format sorted by value, with their codes (from ml_dtypes, not ours)."""
    dt = ML[name]
    bits = np.dtype(dt).itemsize * 8
    n = {"float4_e2m1fn": 16, "float6_e2m3fn": 64, "float6_e3m2fn": 64}.get(name, 256)
    codes = np.arange(n, dtype=np.uint8 if bits == 8 else np.uint16)
    with np.errstate(invalid="ignore"):
        vals = codes.view(dt).astype(np.float64)
    keep = np.isfinite(vals) & ~((vals == 0) & np.signbit(vals))  # one zero (+0)
    order = np.argsort(vals[keep], kind="stable")
    return vals[keep][order], codes[keep][order].astype(np.int64)


def nearest(x, name):
    """Oracle: saturating round-to-nearest-even by searching the sorted value table (float64 x)."""
    vals, codes = _table(name)
    x = np.clip(np.asarray(x, np.float64), vals[0], vals[-1])
    i = np.clip(np.searchsorted(vals, x), 1, len(vals) - 1)
    lo, hi = vals[i - 1], vals[i]
    pick_hi = (x - lo > hi - x) | ((x - lo == hi - x) & (codes[i] % 2 == 0))
    q = np.where(pick_hi, codes[i], codes[i - 1])
    v = np.where(pick_hi, hi, lo)
    # negative values: codes from the table are already signed; −0 for negative underflow
    sign = (
        1 << (np.dtype(ML[name]).itemsize * 8 - 1)
        if name.startswith("float8")
        else (8 if name == "float4_e2m1fn" else 32)
    )
    q = np.where((v == 0) & (np.signbit(x)), sign, q)
    return q, v


def tiles(shape, tile):
    R, C = shape
    br, bc = tile or shape
    for r0 in range(0, R, br):
        for c0 in range(0, C, bc):
            yield slice(r0, min(r0 + br, R)), slice(c0, min(c0 + bc, C))


def oracle(x, scheme):
    """Independent reimplementation in numpy (float32 data): codes, dequantised, scales."""
    bf = B.get_block_format(scheme)
    el = bf.element
    emax_val = float(ml_dtypes.finfo(ML[el]).max)
    codes = np.zeros(x.shape, np.int64)
    deq = np.zeros(x.shape, np.float64)
    scales = []
    x64 = x.astype(np.float64)
    if bf.scale_rule == "two_level":
        amax_t = float(np.max(np.abs(x64)))
        t = float(np.float32(Fraction(amax_t) / Fraction(448 * 6))) if amax_t else 1.0
    for rs, cs in tiles(x.shape, bf.tile):
        blk = x64[rs, cs]
        amax = float(np.max(np.abs(blk)))
        if bf.scale_rule == "max_over_amax":
            s = float(np.float32(Fraction(emax_val) / Fraction(amax))) if amax else 1.0
            q, v = nearest(blk * s, el)  # blk·s is exact in float64 (24 + 24 bits)
            dq = v / s
        elif bf.scale_rule == "mx_pow2":
            e = (np.frexp(amax)[1] - 1 - int(np.frexp(emax_val)[1] - 1)) if amax else -127
            s = math.ldexp(1.0, max(-127, int(e)))
            y = (blk / s).astype(np.float32)  # exact: power-of-two scaling of float32 data
            q = np.clip(y, -emax_val, emax_val).astype(ML[el]).view(np.uint8).astype(np.int64) & (
                15 if el == "float4_e2m1fn" else 63 if "float6" in el else 255
            )
            dq = np.clip(y, -emax_val, emax_val).astype(ML[el]).astype(np.float64) * s
        else:
            b = nearest(np.array([amax / (6 * t)]), "float8_e4m3fn")[1][0] if amax else 0.0
            s = b
            if b:
                q, v = nearest(blk / (b * t), el)
                dq = v * b * t
            else:
                q, dq = np.where(np.signbit(blk), 8, 0), np.zeros_like(blk)
        codes[rs, cs] = q
        deq[rs, cs] = dq
        scales.append(s)
    return codes, deq, scales


def random_tensor(shape, seed, outliers=True):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * np.exp2(rng.integers(-8, 8, shape))
    if outliers:
        x.flat[rng.integers(0, x.size, 5)] *= 1000
    x[0, :3] = 0.0  # some zeros
    return x.astype(np.float32)


SCHEMES = B.block_format_names()


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("shape", [(130, 200), (3, 50)])
def test_against_numpy_oracle_with_ragged_edges(scheme, shape):
    x = random_tensor(shape, seed=sum(map(ord, scheme)) + shape[0])
    r = B.quantize(x.astype(np.float64).tolist(), scheme)
    codes, deq, scales = oracle(x, scheme)
    ours = np.array(r.codes)
    bad = np.argwhere(ours != codes)
    assert not len(bad), (
        f"{scheme} element {tuple(bad[0])}: code {ours[tuple(bad[0])]:#x}, oracle {codes[tuple(bad[0])]:#x}"
    )
    assert np.array_equal(np.array(r.dequantized), deq)
    assert [v for row in r.scales for v in row] == scales
    assert np.all(np.isfinite(np.array(r.scales)))
    assert np.array(r.dequantized).shape == shape and np.array(r.abs_error).shape == shape


def test_tiles_have_the_stated_shapes_and_ragged_edges():
    x = random_tensor((130, 200), 1).astype(np.float64).tolist()
    assert np.array(B.quantize(x, "1x128").scales).shape == (130, 2)
    assert np.array(B.quantize(x, "128x128").scales).shape == (2, 2)
    assert np.array(B.quantize(x, "mxfp4").scales).shape == (130, 7)
    assert np.array(B.quantize(x, "nvfp4").scales).shape == (130, 13)
    assert np.array(B.quantize(x, "per_tensor").scales).shape == (1, 1)


# ------------------------------------------------------------------ the chapter's figures


def test_outlier_tensor_per_tensor_vs_block():
    whole = B.quantize([1000, 0.01, 0.02, 0.5], "per_tensor_e4m3")
    assert whole.scales[0][0] == float(np.float32(0.448))
    assert round(whole.rel_error[1] * 100, 1) == 12.8
    block = B.quantize([0.01, 0.02, 0.5], "per_tensor_e4m3")
    assert block.scales[0][0] == 896.0 and block.codes[0] == F.encode("E4M3", 9)
    assert round(block.rel_error[0] * 100, 2) == 0.45


def test_mx_block_where_0_05_becomes_zero():
    r = B.quantize([0.3, -1.2, 2.7, 0.05], "mxfp4")
    assert r.scales == [[0.5]] and r.scale_codes == [[126]]  # 2^(floor(log2 2.7) − 2)
    assert r.dequantized == [0.25, -1.0, 3.0, 0.0]
    n = B.quantize([0.3, -1.2, 2.7, 0.05], "nvfp4")
    assert n.dequantized[3] == 0.0 and n.scales == [[448.0]]


def test_bits_per_element():
    assert B.bits_per_element("MXFP4") == 4.25
    assert B.bits_per_element("NVFP4") == 4.5
    assert B.bits_per_element("MXFP8") == 8.25
    assert B.bits_per_element("per_tensor") == 8
    r = B.quantize([[1.0] * 64] * 2, "nvfp4")
    assert r.bits_actual == (128 * 4 + 8 * 8 + 32) / 128


def test_codec_figures_complete_and_json():
    figs = codec_figures()
    by = {f["name"]: f for f in figs}
    assert len(by) == len(figs)
    expect = {
        "fp16_of_1e_minus_8": 0,
        "fp16_of_1_plus_1e_minus_4": 1,
        "fp16_of_70000": "inf",
        "fp16_window_powers_of_two": 40,
        "fp16_min_subnormal_exponent": -24,
        "fp16_max_exponent": 15,
        "bf16_of_257": 256,
        "bf16_of_1_plus_1e_minus_3": 1,
        "bf16_spacing_near_1": 1 / 128,
        "fp32_spacing_near_1": 2.0**-23,
        "e4m3_patterns": 256,
        "e4m3_max": 448,
        "e2m1_code_points": 16,
        "mxfp4_block_0_05_becomes": 0,
        "mxfp4_bits_per_element": 4.25,
        "nvfp4_bits_per_element": 4.5,
        "fp32_max": float(np.finfo(np.float32).max),
    }
    for k, v in expect.items():
        assert by[k]["value"] == v, k
    assert by["outlier_rel_error_per_tensor"]["text"] == "12.8%"
    assert by["outlier_rel_error_in_block"]["text"] == "0.45%"
    assert by["fp32_max"]["text"] == "±3.4×10³⁸"
    assert by["fp32_spacing_near_1"]["text"] == "2^-23 ≈ 1.2×10⁻⁷"
    assert by["bf16_spacing_near_1"]["text"] == "1/128"
    for f in figs:
        assert set(f) == {"name", "value", "text", "formula", "inputs"} and f["formula"]
        assert f["name"].isidentifier() and f["name"] == f["name"].lower()
    json.dumps(figs, allow_nan=False)


# ------------------------------------------------------------------ zeros, exactness, errors


@pytest.mark.parametrize("scheme", SCHEMES)
def test_all_zero_tensor_and_tile_give_zeros_and_finite_scales(scheme):
    r = B.quantize([[0.0] * 40, [-0.0] * 40], scheme)
    assert all(v == 0 for row in r.dequantized for v in row)
    assert all(math.isfinite(s) for row in r.scales for s in row)
    assert math.copysign(1, r.dequantized[1][0]) == -1  # −0 survives
    x = [[1.5] * 20 + [0.0] * 140]  # a zero block after data
    r = B.quantize(x, scheme)
    assert all(math.isfinite(v) for v in r.dequantized[0]) and r.dequantized[0][-1] == 0
    assert all(math.isfinite(s) for row in r.scales for s in row)
    assert max(r.rel_error[0]) < 0.2


@pytest.mark.parametrize("scheme", SCHEMES)
def test_ints_and_fractions_equal_their_float_values(scheme):
    xs = [1000, 0.01, Fraction(1, 50), 0.5, -3, Fraction(-7, 4)]
    a = B.quantize(xs, scheme)
    b = B.quantize([float(v) for v in xs], scheme)
    assert a.codes == b.codes and a.dequantized == b.dequantized
    c = B.quantize([Fraction(1, 3), Fraction(2, 3), 1], scheme)  # not floats: exact path
    d = B.quantize([1 / 3, 2 / 3, 1.0], scheme)
    assert c.codes == d.codes


def test_mx_scale_exponent_read_from_the_bits():
    assert B.quantize([4.0], "mxfp4").scale_codes == [[127]]  # 2^(2 − 2)
    assert B.quantize([math.nextafter(4.0, 0)], "mxfp4").scale_codes == [[126]]
    assert B.quantize([2.0**-140], "mxfp4").scale_codes == [[0]]  # clamped to 2^-127
    assert B.quantize([448.0], "mxfp8_e4m3").scales == [[1.0]]


def test_elements_saturate_to_the_element_max():
    r = B.quantize([7.99, 0.1], "mxfp4")  # X = 2^(2 − 2) = 1: 7.99 → 6 (clamped)
    assert r.dequantized[0] == 6.0
    r = B.quantize([1.0, 2.9], "nvfp4")
    assert max(map(abs, r.codes)) <= 15


@pytest.mark.parametrize(
    "bad,match",
    [
        ([], "empty tensor"),
        ([[1.0, 2.0], [3.0]], "ragged rows"),
        ([[1.0], []], "empty"),
        ([1.0, "x"], "non-numeric entry at index 1"),
        ([[1.0, None]], "non-numeric entry at row 0, column 1"),
        ([1e300], "FP32"),
        ("1,2", "must be a list"),
        ([[1.0], 2.0], "not a list"),
    ],
)
def test_bad_tensors_raise_clear_errors(bad, match):
    with pytest.raises(F.CodecInputError, match=match) as ei:
        B.quantize(bad, "mxfp4")
    assert ei.value.message_zh


def test_unknown_scheme():
    with pytest.raises(KeyError, match="unknown block-scaling scheme"):
        B.quantize([1.0], "mxfp3")
