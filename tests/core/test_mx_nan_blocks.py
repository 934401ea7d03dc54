"""MX blocks holding NaN or ±∞ (c9.core.blockscale.quantize, QuantResult.nan_blocks) against an independent
oracle: each block re-derived from float32 inputs with ml_dtypes (float8_e8m0fnu for the scale, the element
dtype for the codes) and exact fractions for the exponent. OCP MX: a block whose amax is NaN or ∞ gets the
E8M0 NaN scale (0xFF) and every element reads back as NaN; the other blocks are quantised as if alone.
Several block sizes and shapes (ragged edge blocks too), elements E4M3, E5M2 and E2M1, every MX rule for
the NaN blocks."""

import math
import random
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from c9.core import blockscale as B
from c9.core import formats as F

pytestmark = pytest.mark.timeout(120)

ELEMENTS = {
    "float8_e4m3fn": ml_dtypes.float8_e4m3fn,
    "float8_e5m2": ml_dtypes.float8_e5m2,
    "float4_e2m1fn": ml_dtypes.float4_e2m1fn,
}
E8M0_NAN = int(np.array([np.nan], dtype=ml_dtypes.float8_e8m0fnu).view(np.uint8)[0])  # 0xFF
SPECIALS = (math.nan, math.inf, -math.inf)


def _fmt(elem: str, tile) -> B.BlockFormat:
    return B.BlockFormat(f"mx_{elem}_{tile}", elem, tile, "float8_e8m0fnu", "mx_pow2")


def _oracle_block(values: list[float], elem: str):
    """(E8M0 code, element codes, dequantised values) of one block by OCP's floor rule, independently."""
    dt = ELEMENTS[elem]
    if any(not math.isfinite(v) for v in values):
        return E8M0_NAN, None, [math.nan] * len(values)
    amax = max(abs(Fraction(v)) for v in values)
    emax = int(math.log2(float(ml_dtypes.finfo(dt).max)))  # E4M3 448 → 8, E5M2 57344 → 15, E2M1 6 → 2
    if amax == 0:
        e = -127
    else:
        fl = amax.numerator.bit_length() - amax.denominator.bit_length()
        if Fraction(2) ** fl > amax:
            fl -= 1
        e = min(max(fl - emax, -127), 127)
    code = int(np.array([2.0**e], dtype=ml_dtypes.float8_e8m0fnu).view(np.uint8)[0])
    top = float(ml_dtypes.finfo(dt).max)
    scaled = np.array(
        [min(max(v / 2.0**e, -top), top) for v in values], dtype=np.float64
    )  # exact: a power of 2
    q = scaled.astype(dt)
    return code, q.view(np.uint8).tolist(), (q.astype(np.float64) * 2.0**e).tolist()


def _tensor(rng: random.Random, n_rows: int, n_cols: int, n_special: int) -> list[list[float]]:
    t = [
        [float(np.float32(rng.choice((-1, 1)) * 10 ** rng.uniform(-3, 3))) for _ in range(n_cols)]
        for _ in range(n_rows)
    ]
    for _ in range(n_special):
        t[rng.randrange(n_rows)][rng.randrange(n_cols)] = rng.choice(SPECIALS)
    return t


CASES = [  # (shape, tile, specials): one row and several, ragged edges, MX's own 1×32 and others
    ((1, 40), (1, 32), 1),
    ((1, 64), (1, 8), 3),
    ((3, 64), (1, 32), 4),
    ((4, 20), (2, 16), 3),
    ((5, 33), (1, 16), 6),
]


@pytest.mark.parametrize("elem", list(ELEMENTS))
@pytest.mark.parametrize("shape,tile,specials", CASES)
def test_nan_blocks_match_the_oracle(elem, shape, tile, specials):
    rng = random.Random(f"{elem} {shape} {tile}")
    t = _tensor(rng, *shape, specials)
    r = B.quantize(t, _fmt(elem, tile))
    ef = F.get_format(elem)
    n_nan = 0
    for bi, r0 in enumerate(range(0, shape[0], tile[0])):
        for bj, c0 in enumerate(range(0, shape[1], tile[1])):
            cells = [
                (i, j)
                for i in range(r0, min(r0 + tile[0], shape[0]))
                for j in range(c0, min(c0 + tile[1], shape[1]))
            ]
            code, qs, deq = _oracle_block([t[i][j] for i, j in cells], elem)
            assert r.scale_codes[bi][bj] == code, (bi, bj)
            assert r.nan_blocks[bi][bj] == (code == E8M0_NAN)
            got = [r.dequantized[i][j] for i, j in cells]
            if code == E8M0_NAN:
                n_nan += 1
                assert math.isnan(r.scales[bi][bj]) and all(math.isnan(d) for d in got)
                assert all(math.isnan(r.rel_error[i][j]) for i, j in cells)
                assert not r.clipped[bi][bj]
                for i, j in cells:  # what is stored: v / ∞ (±0, or the element's NaN where it has one)
                    v = t[i][j]
                    want = (
                        (ef.nan_code if ef.has_nan else 0)
                        if not math.isfinite(v)
                        else (ef.sign_bit if v < 0 else 0)
                    )
                    assert r.codes[i][j] == want
            else:
                assert [r.codes[i][j] for i, j in cells] == [c & (2**ef.bits - 1) for c in qs]
                assert got == deq
    assert n_nan >= 1
    finite_err = [e for row in r.abs_error for e in row if e == e]
    assert r.max_abs_error == max(finite_err)


@pytest.mark.parametrize("rule", list(B.MX_RULES))
@pytest.mark.parametrize("scheme", ["mxfp8_e4m3", "mxfp8_e5m2", "mxfp4"])
@pytest.mark.parametrize("special", SPECIALS)
def test_every_rule_gives_a_nan_block_the_nan_scale(rule, scheme, special):
    t = [[1.5] * 32 + [2.0] * 31 + [special], [3.0] * 64]
    r = B.quantize(t, scheme, rule)
    assert r.scale_codes[0][0] != E8M0_NAN and r.scale_codes[0][1] == E8M0_NAN
    assert r.nan_blocks == [[False, True], [False, False]]
    assert r.scale_codes[1] == B.quantize([[3.0] * 64], scheme, rule).scale_codes[0]
    assert all(math.isnan(d) for d in r.dequantized[0][32:]) and r.dequantized[0][:32] == [1.5] * 32


@pytest.mark.parametrize("scheme", ["nvfp4", "per_tensor_e4m3", "deepseek_1x128"])
@pytest.mark.parametrize("special", SPECIALS)
def test_other_schemes_still_refuse_nan_and_infinity(scheme, special):
    with pytest.raises(F.CodecInputError, match="finite") as ei:
        B.quantize([1.0, special], scheme)
    assert "有限数" in ei.value.message_zh


def test_fraction_entries_beside_a_nan_block():
    r = B.quantize([Fraction(1, 3)] * 32 + [math.nan] + [Fraction(1, 3)] * 31, "mxfp8_e4m3")
    ref = B.quantize([Fraction(1, 3)] * 32, "mxfp8_e4m3")
    assert r.codes[:32] == ref.codes and r.scale_codes == [[ref.scale_codes[0][0], E8M0_NAN]]
