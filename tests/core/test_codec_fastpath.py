"""The float fast paths (formats.codes16 behind encode_many and blockscale.quantize) against the
exact per-element paths, on their own edge cases: rounding midpoints (ties) found by the
zero-byte search, more than 64 candidate hits (the set-test fallback), ±0, subnormals of the
element format and of float64, saturation, all-zero blocks."""

import math
import random
from fractions import Fraction

import pytest

from c9.core import blockscale as B
from c9.core import formats as F

SMALL = ("float8_e4m3fn", "float8_e5m2", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn")


def edge_values(name, rng):
    vals = sorted({v for v in F.code_points(name) if v == v and not math.isinf(v) and v > 0})
    mids = [(a + b) / 2 for a, b in zip(vals, vals[1:])] + [vals[0] / 2, vals[-1] * 1.25, vals[-1] * 1.0625]
    xs = [0.0, -0.0, 5e-324, -5e-324, 2.0**-1022, vals[0], vals[-1], 1e300, -1e300]
    for m in mids:
        xs += [m, -m, math.nextafter(m, 0), math.nextafter(m, math.inf), -math.nextafter(m, 0)]
    xs += [rng.gauss(0, 1) * 2.0 ** rng.randint(-30, 30) for _ in range(500)]
    return xs


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("overflow", ["default", "saturate"])
def test_encode_many_matches_encode_on_edges(name, overflow):
    rng = random.Random(name + overflow)
    xs = edge_values(name, rng)
    f = F.get_format(name)
    if not f.has_nan and overflow == "default":
        overflow = "saturate"
    for few in (xs, [x for x in xs if x != 0.0 and x * 4 != round(x * 4)]):  # many hits / few hits
        rng.shuffle(few)
        assert F.encode_many(f, few, overflow) == [F.encode(f, x, overflow) for x in few]


def _rows_general(T):
    """T plus one extra row holding a tiny non-float Fraction: forces the exact Fraction path
    without changing any tile's (or the tensor's) amax."""
    return T + [[Fraction(1, 3) * Fraction(1, 2**40)] * len(T[0])]


@pytest.mark.parametrize("scheme", B.block_format_names())
def test_quantize_float_path_matches_exact_path(scheme):
    rng = random.Random(scheme)
    ef = B.get_block_format(scheme).element_format
    vals = sorted({v for v in F.code_points(ef) if v == v and not math.isinf(v) and v > 0})
    mids = [(a + b) / 2 for a, b in zip(vals, vals[1:])]
    T = []
    for _r in range(6):
        row = [rng.choice(mids) * rng.choice([-1, 1]) for _ in range(64)]  # ties after scaling
        row[:8] = [vals[-1], 0.0, -0.0, 2.0**-130, -(2.0**-149), vals[-1] * 1.75, -vals[-1] * 1.9, -1.0]
        T.append(row)
    T.append([0.0] * 32 + [-0.0] * 32)  # all-zero blocks
    T.append([rng.gauss(0, 1) * 2.0 ** rng.randint(-8, 8) for _ in range(64)])
    # (Not covered: an NVFP4 block whose E4M3 scale underflows to 0 although the block is not all
    # zero; there the float path and the exact path have always disagreed.)
    fast = B.quantize(T, scheme)
    exact = B.quantize(_rows_general(T), scheme)
    n = len(T)
    assert fast.codes == exact.codes[:n]
    for a, b in zip(fast.dequantized, exact.dequantized[:n]):
        assert [x.hex() for x in a] == [y.hex() for y in b]
    assert fast.abs_error == exact.abs_error[:n]
    assert fast.rel_error == exact.rel_error[:n]
    if B.get_block_format(scheme).tile == (1, 32) or B.get_block_format(scheme).tile == (1, 16):
        assert fast.scale_codes == exact.scale_codes[:n]


def test_nvfp4_block_whose_scale_rounds_to_zero_holds_zeros_on_both_paths():
    """Tensor amax 10^6 gives t = 10^6 / 2688; the second block's amax 1 needs a block scale
    1 / (6 t) ≈ 4.5 × 10^-4, below E4M3's smallest subnormal 2^-9 / 2, so b = 0 and q · b · t = 0."""
    from fractions import Fraction

    from c9.core import blockscale as B

    rows = [[1e6] + [0.5] * 15 + [1.0] + [-0.25] * 15]
    fast = B.quantize(rows, "nvfp4")
    exact = B.quantize([[Fraction(x) for x in r] for r in rows], "nvfp4")
    assert fast.scale_codes == [[126, 0]] and fast.scales == [[448.0, 0.0]]
    assert fast.codes == exact.codes
    assert fast.dequantized == exact.dequantized
    assert fast.dequantized[0][16:] == [0.0] + [-0.0] * 15
    assert [str(x) for x in fast.dequantized[0][17:]] == ["-0.0"] * 15
