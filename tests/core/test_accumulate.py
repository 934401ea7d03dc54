"""Stochastic rounding and Kahan summation (c9.core.accumulate) against an independent oracle: the formats'
values enumerated from ml_dtypes (every bit pattern), rounding by search with exact fractions, FP32 rounding
by numpy's float32; the seeded runs replayed with the same random.Random draws."""

import bisect
import math
import random
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from c9.core import accumulate as A

pytestmark = pytest.mark.timeout(180)

DTYPES = {"bfloat16": ml_dtypes.bfloat16, "float16": np.float16}


def _grid(name):
    """Finite non-negative values of the format, sorted, with their codes (even code = even mantissa)."""
    codes = np.arange(0, 0x8000, dtype=np.uint16)
    with np.errstate(invalid="ignore"):  # the NaN patterns
        vals = codes.view(DTYPES[name]).astype(np.float64)
    keep = np.isfinite(vals)
    return [float(v) for v in vals[keep]], [int(c) for c in codes[keep]]


GRIDS = {name: _grid(name) for name in DTYPES}


def sr_oracle(name, x: Fraction, u: float) -> float:
    vals, _ = GRIDS[name]
    a = abs(x)
    k = bisect.bisect_right(vals, a) - 1
    lo = vals[k]
    if a == lo:
        mag = lo
    else:
        hi = vals[k + 1] if k + 1 < len(vals) else math.inf
        if hi == math.inf:
            mag = math.inf if Fraction(u) < Fraction(1, 2) else lo  # not reached by the tests
        else:
            mag = hi if Fraction(u) < (a - Fraction(lo)) / (Fraction(hi) - Fraction(lo)) else lo
    return -mag if x < 0 else mag


def rn_oracle(name, x: Fraction) -> float:
    """Round to nearest, ties to the even code; past the max by half a step: ∞."""
    vals, codes = GRIDS[name]
    a = abs(x)
    k = bisect.bisect_right(vals, a) - 1
    if k + 1 == len(vals):
        top, step = vals[-1], vals[-1] - vals[-2]
        mag = math.inf if a >= Fraction(top) + Fraction(step) / 2 else top
    else:
        lo, hi = Fraction(vals[k]), Fraction(vals[k + 1])
        if a - lo < hi - a or (a - lo == hi - a and codes[k] % 2 == 0):
            mag = vals[k]
        else:
            mag = vals[k + 1]
    return -mag if x < 0 else mag


def f32(x: Fraction) -> float:
    fx = float(x)
    assert Fraction(fx) == x  # the test's values are float64-exact: numpy rounds them once
    return float(np.float32(fx))


@pytest.mark.parametrize("name", sorted(DTYPES))
def test_stochastic_round_matches_oracle(name):
    rng = random.Random(4)
    for _ in range(3000):
        x = Fraction(rng.uniform(-3, 3)) * Fraction(2) ** rng.randint(-20, 12)
        if name == "float16" and abs(x) > 60000:
            continue
        for u in (0.0, rng.random(), 0.999999):
            assert A.stochastic_round(name, x, u) == sr_oracle(name, x, u), (x, u)
    # u exactly at the probability rounds toward zero: 1 + 1/4 ulp of BF16 at 1 with u = 1/4
    assert A.stochastic_round("bfloat16", Fraction(1) + Fraction(1, 512), 0.25) == 1.0
    assert A.stochastic_round("bfloat16", Fraction(1) + Fraction(1, 512), 0.2499) == 1.0078125


@pytest.mark.parametrize(
    "name,w0,delta,steps,runs,seed",
    [
        ("bfloat16", 1.0, float(np.float32(1e-4)), 300, 6, 1),
        ("float16", 0.5, float(np.float32(3e-5)), 200, 4, 7),
    ],
)
def test_seeded_runs_replayed(name, w0, delta, steps, runs, seed):
    """Each run is the oracle's sequence with the same draws, value for value."""
    got = A.stochastic_runs(name, w0, delta, steps, runs, seed)
    for r in range(runs):
        draw = random.Random(seed * 1000 + r).random
        w = w0
        want = [w]
        for _ in range(steps):
            w = sr_oracle(name, Fraction(w) + Fraction(delta), draw())
            want.append(w)
        assert got[r] == want


@pytest.mark.parametrize(
    "name,w0,delta,steps",
    [("bfloat16", 1.0, float(np.float32(1e-4)), 400), ("float16", 2.0, float(np.float32(3e-4)), 300)],
)
def test_seeded_mean_tracks_exact_sum(name, w0, delta, steps):
    """Over 300 runs the mean lands within 4 standard errors of w₀ + kΔ, while round-to-nearest does not
    move w at all."""
    runs = A.stochastic_runs(name, w0, delta, steps, 300, 3)
    ends = [r[-1] for r in runs]
    mean = math.fsum(ends) / len(ends)
    sd = math.sqrt(math.fsum((e - mean) ** 2 for e in ends) / (len(ends) - 1))
    expect = w0 + steps * delta
    assert sd > 0 and abs(mean - expect) < 4 * sd / math.sqrt(len(ends))
    assert rn_oracle(name, Fraction(w0) + Fraction(delta)) == w0  # the update RN swallows


def kahan_oracle(name, w0, delta, steps):
    w, c = w0, 0.0
    ws, cs = [w], [c]
    for _ in range(steps):
        y = f32(Fraction(delta) - Fraction(c))
        t = rn_oracle(name, Fraction(w) + Fraction(y))
        c = rn_oracle(name, Fraction(f32(Fraction(f32(Fraction(t) - Fraction(w))) - Fraction(y))))
        w = t
        ws.append(w)
        cs.append(c)
    return ws, cs


@pytest.mark.parametrize(
    "name,w0,delta,steps",
    [
        ("bfloat16", 1.0, float(np.float32(1e-4)), 1000),
        ("float16", 1.0, float(np.float32(1e-4)), 700),
        ("bfloat16", 0.0, 1.0, 600),
    ],
)
def test_kahan_matches_exact_recomputation(name, w0, delta, steps):
    ws, cs = A.kahan_run(name, w0, delta, steps)
    assert (ws, cs) == kahan_oracle(name, w0, delta, steps)
    master = w0
    for _ in range(steps):
        master = float(np.float32(master + delta))
    # the compensated sum w − c stays near the FP32 master where RN alone stays at w₀ (or stops at 256)
    assert abs((ws[-1] - cs[-1]) - master) / master < 0.005
