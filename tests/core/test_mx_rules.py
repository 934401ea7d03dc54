"""The MX scale rules (c9.core.blockscale.MX_RULES) against an independent re-implementation of torchao's
definitions (pytorch/ao, torchao/prototype/mx_formats/mx_tensor.py, ``to_mx`` and ``_to_mx_rceil``): the
same bit operations on numpy's float32/int32 views, numpy's correctly rounded float32 division, and
exact fractions for the logarithms; element formats from ml_dtypes. Several block sizes and the element
formats E4M3, E5M2 and E2M1; the clipped blocks and their share."""

import math
import random
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from c9.core import blockscale as B

pytestmark = pytest.mark.timeout(120)

ELEMENTS = {
    "float8_e4m3fn": (ml_dtypes.float8_e4m3fn, 3),
    "float8_e5m2": (ml_dtypes.float8_e5m2, 2),
    "float4_e2m1fn": (ml_dtypes.float4_e2m1fn, 1),
}


def _elem_max(name) -> float:
    return float(ml_dtypes.finfo(ELEMENTS[name][0]).max)


def _max_pow2(name) -> int:
    """torchao's F8E4M3_MAX_POW2 etc.: the exponent of the element format's largest value."""
    fr = Fraction(_elem_max(name))
    e = 0
    while Fraction(2) ** (e + 1) <= fr:
        e += 1
    return e


def _ceil_log2(fr: Fraction) -> int:
    e = 0
    while Fraction(2) ** e < fr:
        e += 1
    while Fraction(2) ** (e - 1) >= fr:
        e -= 1
    return e


def torchao_exponent(amax: float, name: str, rule: str) -> int:
    """The unbiased E8M0 exponent torchao's to_mx gives a block with FP32 amax ``amax``."""
    mbits = ELEMENTS[name][1]
    a = np.array([amax], dtype=np.float32)
    if rule == "rceil":
        descale = a / np.float32(_elem_max(name))  # float32 / float32: IEEE, rounded once
        d = Fraction(float(descale[0]))
        e = -127 if d == 0 else _ceil_log2(d)
        return max(-127, min(127, e))
    bits = a.view(np.int32).astype(np.int64)
    if rule == "even":
        bits = (bits + (1 << (23 - mbits - 1))) & (((1 << 9) - 1) << 23)
    pow2 = int((bits[0] >> 23) & 0xFF) - 127
    if rule == "ceil":
        pow2 += int((bits[0] & 0x7FFFFF) > 0)
    return max(-127, min(128, pow2 - _max_pow2(name)))


def _amaxes_near_edges(rng, name):
    """FP32 amaxes at and around every rule's edges (powers of two, the element max, EVEN's carry
    point), plus random ones over a wide range."""
    top = _elem_max(name)
    mbits = ELEMENTS[name][1]
    out = []
    for k in range(-20, 21, 3):
        for base in (1.0, top / 2 ** _max_pow2(name), 2 - 2.0 ** -(mbits + 1), 1.5, 1.75, 1.875):
            x = np.float32(math.ldexp(base, k))
            out += [
                float(x),
                float(np.nextafter(x, np.float32(0))),
                float(np.nextafter(x, np.float32(np.inf))),
            ]
    out += [float(np.float32(10.0 ** rng.uniform(-30, 30))) for _ in range(300)]
    out += [float(np.float32(2.0**-140)), float(np.float32(3e38))]
    return out


@pytest.mark.parametrize("name", sorted(ELEMENTS))
@pytest.mark.parametrize("rule", ["floor", "rceil", "ceil", "even"])
def test_exponent_matches_torchao_definition(name, rule):
    from c9.core import formats as F

    ef = F.get_format(name)
    rng = random.Random(23)
    amaxes = _amaxes_near_edges(rng, name)
    for amax in amaxes:
        assert B.mx_exponent(amax, ef, rule) == torchao_exponent(amax, name, rule), (amax, rule)
    # the rules do differ on this set (a test of four copies of one rule would pass too)
    if rule != "floor":
        assert any(B.mx_exponent(a, ef, rule) != torchao_exponent(a, name, "floor") for a in amaxes), rule


def _saturation_cut(x: Fraction, name) -> bool:
    """Oracle: x rounded to nearest, ties to even, on the element grid continued past its top (spacing
    2^(emax − mantissa bits), from ml_dtypes' finfo) lands above the element max."""
    fi = ml_dtypes.finfo(ELEMENTS[name][0])
    ulp = Fraction(2) ** (_max_pow2(name) - int(fi.nmant))
    return round(x / ulp) * ulp > Fraction(float(fi.max))  # round() of a Fraction: ties to even


def _fmt(name, k, rows=1):
    return B.BlockFormat(f"test_{name}_{rows}x{k}", name, (rows, k), "float8_e8m0fnu", "mx_pow2")


@pytest.mark.parametrize("name", sorted(ELEMENTS))
@pytest.mark.parametrize("rule", ["floor", "rceil", "ceil", "even"])
@pytest.mark.parametrize("tile", [(1, 8), (1, 32), (2, 16), (1, 64)])
def test_quantize_scales_elements_and_clipped(name, rule, tile):
    """Whole tensors: each block's scale code is torchao's, each element is ml_dtypes' saturating
    cast of v / X, and a block is marked clipped exactly when saturation cut amax / X."""
    rng = random.Random(hash((name, rule, tile)) & 0xFFFF)
    n_rows, n_cols = 4, 128
    t = [
        [float(np.float32(rng.choice((-1, 1)) * 10.0 ** rng.uniform(-3, 3))) for _ in range(n_cols)]
        for _ in range(n_rows)
    ]
    t[0][3] = 0.0
    q = B.quantize(t, _fmt(name, tile[1], tile[0]), mx_rule=rule)
    dt, _ = ELEMENTS[name]
    top = Fraction(_elem_max(name))
    n_clipped = 0
    for bi, r0 in enumerate(range(0, n_rows, tile[0])):
        for bj, c0 in enumerate(range(0, n_cols, tile[1])):
            block = [t[i][j] for i in range(r0, r0 + tile[0]) for j in range(c0, c0 + tile[1])]
            amax = max(map(abs, block))
            e = torchao_exponent(amax, name, rule)
            assert q.scale_codes[bi][bj] == e + 127
            x = math.ldexp(1.0, e)
            want = _saturation_cut(Fraction(amax) / Fraction(x), name)
            assert q.clipped[bi][bj] is want
            n_clipped += want
            for i in range(r0, r0 + tile[0]):
                for j in range(c0, c0 + tile[1]):
                    scaled = np.clip(np.float64(t[i][j]) / x, -float(top), float(top))
                    assert q.dequantized[i][j] == float(scaled.astype(dt).astype(np.float64)) * x
    n_blocks = (n_rows // tile[0]) * (n_cols // tile[1])
    assert q.clipped_share == n_clipped / n_blocks


def test_clipped_share_e4m3_480():
    """amax 480 with E4M3 elements is stored as 448 under OCP's floor rule,
    kept under RCEIL; a tensor of five blocks with amax 480, 448, 300, 500, 460 has 2 of 5 clipped by
    floor (480 and 500 pass 464, half way to 480; 460 rounds to 448 anyway) and none under RCEIL."""
    t = [0.5] * 160
    for k, amax in enumerate((480.0, 448.0, 300.0, 500.0, 460.0)):
        t[32 * k + 5] = amax
    floor = B.quantize(t, "mxfp8_e4m3")
    rceil = B.quantize(t, "mxfp8_e4m3", mx_rule="rceil")
    assert floor.clipped == [[True, False, False, True, False]] and floor.clipped_share == 2 / 5
    assert floor.dequantized[5] == 448.0 and floor.dequantized[101] == 448.0
    assert rceil.clipped == [[False] * 5] and rceil.clipped_share == 0.0
    assert rceil.dequantized[5] == 480.0 and rceil.dequantized[101] == 512.0  # 250 · 2 rounds to 256 · 2
    assert floor.mx_rule == "floor" and rceil.mx_rule == "rceil"


def test_e2m1_clipped_share_over_mantissas():
    """E2M1 under the floor rule: amax / X = 4 · (amax's significand) lies in [4, 8); saturation cuts it
    from 7 up (half way to 8; the tie rounds to 8, 6 being odd): over amax = (1 + i/64) · 2^k,
    i = 0 … 63, the 16 with i ≥ 48. EVEN carries exactly there (significand ≥ 2 − 1/4): none."""
    t = []
    for i in range(64):
        block = [0.25] * 32
        block[7] = (1 + i / 64) * 2.0 ** (i % 5)
        t += block
    q = B.quantize(t, "mxfp4")
    assert sum(q.clipped[0]) == 16 and q.clipped_share == 16 / 64
    assert q.clipped[0].index(True) == 48
    assert B.quantize(t, "mxfp4", mx_rule="rceil").clipped_share == 0.0
    assert B.quantize(t, "mxfp4", mx_rule="even").clipped_share == 0.0


def test_per_tensor_and_nvfp4_scales_do_not_count_as_clipped():
    """A scale rounded to FP32 or E4M3 can leave amax · s a hair past the element max; rounding takes
    it to the max anyway, so no block is counted (NVFP4: amax / (b·t) ≤ 6 / (1 − 2⁻⁴) < 7)."""
    rng = random.Random(5)
    t = [[rng.uniform(-300, 300) for _ in range(64)] for _ in range(8)]
    for scheme in ("per_tensor_e4m3", "deepseek_1x128", "nvfp4"):
        q = B.quantize(t, scheme)
        assert q.clipped_share == 0.0 and not any(map(any, q.clipped)), scheme


def test_unknown_rule_refused():
    with pytest.raises(ValueError):
        B.quantize([1.0, 2.0], "mxfp4", mx_rule="nearest")
