"""Two ways to keep a small update in a 16-bit weight that round-to-nearest would swallow: stochastic
rounding and compensated (Kahan) summation, each step's results stored in the 16-bit format.

- Stochastic rounding: a value x between neighbours lo < x < hi of the format is stored as hi with
  probability (x − lo) / (hi − lo), else lo, so its expected value is x exactly (Gupta et al. 2015,
  "Deep Learning with Limited Numerical Precision", §3; the pure-BF16 training of Zamirai et al. 2020,
  "Revisiting BFloat16 Training", arXiv:2010.06192). Runs are seeded (``random.Random``), the comparison
  ``u < p`` is exact (u a dyadic float, p exact).
- Kahan summation (Kahan 1965, "Further remarks on reducing truncation errors"; used with a BF16
  compensation buffer by Zamirai et al. 2020, §4): ``y = Δ − c; t = w + y; c = (t − w) − y; w = t``,
  every result rounded once, to nearest, ties to even, to the 16-bit format; ``c`` keeps the part of
  the update that w could not hold and adds it back at the next step.

Standard library only (the page's Python runs it).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

from c9.core import formats as F

__all__ = ["stochastic_round", "stochastic_runs", "kahan_run"]


def _neighbours(fmt: F.Format, a):
    """(lo, ulp) with lo ≤ a < lo + ulp on fmt's grid, for a ≥ 0 (float or Fraction): the grid step
    ulp = 2^(max(⌊log2 a⌋, emin) − mantissa bits), lo = ⌊a / ulp⌋ · ulp."""
    if a == 0:
        return a, math.ldexp(1.0, fmt.emin - fmt.mantissa_bits)
    e = (math.frexp(a)[1] - 1) if type(a) is float else _floor_log2(a)
    ulp = math.ldexp(1.0, max(e, fmt.emin) - fmt.mantissa_bits)
    if type(a) is float:
        return math.floor(a / ulp) * ulp, ulp  # exact: scaling by a power of two, a floor
    return Fraction(math.floor(a / Fraction(ulp))) * Fraction(ulp), ulp


def _floor_log2(fr: Fraction) -> int:
    n, d = fr.numerator, fr.denominator
    e = n.bit_length() - d.bit_length()
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    return e


def stochastic_round(fmt, x, u: float) -> float:
    """x (float or Fraction, exact) stored in ``fmt`` by stochastic rounding, with the uniform draw
    u ∈ [0, 1): rounded away from zero when u < (|x| − lo) / ulp. Past the format's max: ±∞
    (FP16's and BF16's overflow)."""
    f = F.get_format(fmt)
    a = abs(x)
    lo, ulp = _neighbours(f, a)
    frac = (a - lo) / ulp  # exact: a − lo is exact (Sterbenz), ulp a power of two
    mag = lo + ulp if u < frac else lo
    mag = float(mag)
    if mag > f.max:
        mag = math.inf
    return -mag if x < 0 else mag


def _exact_sum(a: float, b: float):
    """a + b exactly: the float when it is exact, else a Fraction."""
    s = a + b
    if math.isfinite(s) and s - a == b and s - b == a:
        return s
    return Fraction(a) + Fraction(b)


def stochastic_runs(fmt, w0: float, delta: float, steps: int, runs: int, seed: int) -> list[list[float]]:
    """``runs`` sequences of ``steps + 1`` values: w₀ (a value of fmt), then w ← SR(w + Δ), the sum
    exact before the one stochastic rounding; run r draws from ``random.Random(seed · 1000 + r)``.
    The loop is :func:`stochastic_round` inlined on floats (a Fraction only when w + Δ is not exact)."""
    f = F.get_format(fmt)
    emin, mb, top = f.emin, f.mantissa_bits, f.max
    frexp, ldexp, floor = math.frexp, math.ldexp, math.floor
    out = []
    for r in range(runs):
        draw = random.Random(seed * 1000 + r).random
        w = w0
        seq = [w]
        for _ in range(steps):
            s = w + delta
            if s - w != delta or s - delta != w or not math.isfinite(s):
                w = w if math.isinf(w) else stochastic_round(f, _exact_sum(w, delta), draw())
                seq.append(w)
                continue
            a = -s if s < 0 else s
            if a == 0:
                w = s
            else:
                ulp = ldexp(1.0, max(frexp(a)[1] - 1, emin) - mb)
                lo = floor(a / ulp) * ulp
                mag = lo + ulp if draw() < (a - lo) / ulp else lo
                if mag > top:
                    mag = math.inf
                w = -mag if s < 0 else mag
            seq.append(w)
        out.append(seq)
    return out


def kahan_run(fmt, w0: float, delta: float, steps: int) -> tuple[list[float], list[float]]:
    """Kahan summation of Δ onto w₀, w and the compensation c stored in ``fmt`` between steps, the
    arithmetic in FP32 as an optimizer's kernel does it: y = FP32(Δ − c), t = fmt(w + y),
    c = fmt(FP32(FP32(t − w) − y)), w = t; each result is the exact one rounded once, to nearest,
    ties to even. Returns (w, c), each ``steps + 1`` values; w − c is the compensated sum."""
    f = F.get_format(fmt)
    rn, f32 = F.round_value, F.as_float32
    w, c = w0, 0.0
    ws, cs = [w], [c]
    for _ in range(steps):
        if math.isinf(w):
            ws.append(w)
            cs.append(c)
            continue
        y = f32(_exact_sum(delta, -c))
        t = rn(f, _exact_sum(w, y))
        if math.isinf(t):
            w, c = t, 0.0
        else:
            c = rn(f, f32(_exact_sum(f32(_exact_sum(t, -w)), -y)))
            w = t
        ws.append(w)
        cs.append(c)
    return ws, cs
