"""Oracles for the seed's rule (a value stored as FP32 first, then in the format), independent of c9:

- :func:`f32_oracle`: the float32 nearest an exact value, from numpy's float32 grid by exact Fraction
  distance (ties to the even pattern), so no double rounding through float64 hides in it;
- :func:`lib_code`: what ml_dtypes (numpy for FP16) stores of one float32 value (one rounding there);
- :func:`nearest_code`: one rounding of the exact value, the nearest of the library's decoded values.
"""

from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np

ORACLE = {
    "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
    "float8_e4m3fn": ml_dtypes.float8_e4m3fn,
    "float8_e5m2": ml_dtypes.float8_e5m2,
    "float4_e2m1fn": ml_dtypes.float4_e2m1fn,
    "float8_e8m0fnu": ml_dtypes.float8_e8m0fnu,
}
UINT = {4: np.uint8, 8: np.uint8, 16: np.uint16}


def f32_oracle(x) -> float:
    """The float32 nearest the exact ``x`` (ties to the even pattern). From the largest float32 plus half its
    spacing up, ±∞, as IEEE 754's overflow under round-to-nearest-even gives (the largest value's last bit is
    odd, so the tie there goes up)."""
    x = Fraction(x)
    top = Fraction(float(np.finfo(np.float32).max))
    if abs(x) >= top + Fraction(2) ** 103:  # half the spacing at the top, 2^104 / 2
        return float("inf") if x > 0 else float("-inf")
    with np.errstate(over="ignore"):  # float(x) just below the threshold may still round to ∞ in one cast
        c = np.float32(float(x))
        if not np.isfinite(c):
            c = np.float32(np.finfo(np.float32).max) * np.float32(1 if x > 0 else -1)
        cands = {c, np.nextafter(c, np.float32(np.inf)), np.nextafter(c, np.float32(-np.inf))}
    cands = [v for v in cands if np.isfinite(v)]
    best = min(abs(Fraction(float(v)) - x) for v in cands)
    near = [v for v in cands if abs(Fraction(float(v)) - x) == best]
    if len(near) > 1:
        near = [v for v in near if int(np.array([v], np.float32).view(np.uint32)[0]) % 2 == 0]
    return float(near[0])


def f32_bits(x32: float) -> int:
    return int(np.array([x32], np.float32).view(np.uint32)[0])


def lib_code(fmt: str, x32: float) -> int:
    """What ml_dtypes (numpy for FP16) stores of one float32 value: the code, as an int."""
    if fmt == "float32":
        return f32_bits(x32)
    dt = ORACLE[fmt]
    with np.errstate(invalid="ignore", over="ignore"):
        y = np.array([x32], dtype=np.float32).astype(dt)
    return int(y.view(UINT[np.dtype(dt).itemsize * 8])[0])


def _values(fmt: str) -> tuple[np.ndarray, np.ndarray]:
    """The finite non-negative values of ``fmt`` in order, decoded by the library, and their codes."""
    dt = ORACLE[fmt]
    width = np.dtype(dt).itemsize * 8
    n = 16 if fmt == "float4_e2m1fn" else 1 << width
    codes = np.arange(n, dtype=np.int64)
    with np.errstate(invalid="ignore"):  # the NaN codes
        v = codes.astype(UINT[width]).view(dt).astype(np.float64)
    keep = np.isfinite(v) & (v >= 0) & ~np.signbit(v)
    order = np.argsort(v[keep], kind="stable")
    return v[keep][order], codes[keep][order]


def nearest_code(fmt: str, x) -> int:
    """One rounding of the exact ``x`` into ``fmt``: the nearest value (ties: to the even code, or up
    where the format has no mantissa bit). Past the largest value by more than half the top spacing, what
    the library makes of a huge float32 (∞, NaN, or the largest value). FP32: f32_oracle."""
    if fmt == "float32":
        return f32_bits(f32_oracle(x))
    x = Fraction(x)
    if fmt == "float8_e8m0fnu" and x <= 0:  # no sign and no zero: what the library makes of it (NaN)
        return lib_code(fmt, -1.0 if x else 0.0)
    vals, codes = _values(fmt)
    a = abs(x)
    top, below = Fraction(float(vals[-1])), Fraction(float(vals[-2]))
    if a > top + (top - below) / 2 or (a == top + (top - below) / 2 and int(codes[-1]) % 2):
        return lib_code(fmt, 3e38 if x > 0 else -3e38)
    i = int(np.searchsorted(vals, float(a)))
    cands = [(Fraction(float(vals[j])), int(codes[j])) for j in range(max(0, i - 2), min(len(vals), i + 2))]
    best = min(abs(v - a) for v, _ in cands)
    near = [(v, c) for v, c in cands if abs(v - a) == best]
    if len(near) > 1:
        near = [max(near)] if fmt == "float8_e8m0fnu" else [(v, c) for v, c in near if c % 2 == 0]
    code = near[0][1]
    if x < 0 and fmt != "float8_e8m0fnu":
        code |= 1 << ((4 if fmt == "float4_e2m1fn" else np.dtype(ORACLE[fmt]).itemsize * 8) - 1)
    return code
