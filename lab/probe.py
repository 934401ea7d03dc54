"""The underflow probe: how many real gradient elements FP16 would lose, before and after loss scaling.

FP16's smallest positive number is 2⁻²⁴ (a subnormal). The probe takes the FP32 gradients of our model
(FP32 run, no autocast, so nothing has been rounded away yet), bins their magnitudes by powers of two
(bin k holds 2^k ≤ |g| < 2^(k+1)), and counts the elements below 2⁻²⁴ and the elements still below it
after multiplying by 65,536 = 2¹⁶ (that is, |g| < 2⁻⁴⁰).
"""

from __future__ import annotations

import math

import torch

LO, HI = -48, 4  # bins 2^LO … 2^(HI-1); anything smaller goes to the first bin, larger to the last
FP16_TINY_EXP = -24
SCALE = 65536


def histogram(grads: list[torch.Tensor]) -> dict:
    g = torch.cat([t.detach().reshape(-1).double().abs() for t in grads])
    n = g.numel()
    zero = int((g == 0).sum())
    nz = g[g > 0]
    e = torch.floor(torch.log2(nz)).clamp(LO, HI - 1).to(torch.int64)
    counts = torch.bincount(e - LO, minlength=HI - LO).tolist()
    below = int((g < 2.0**FP16_TINY_EXP).sum()) - zero
    below_scaled = int((g * SCALE < 2.0**FP16_TINY_EXP).sum()) - zero
    return {
        "elements": n,
        "exact_zero": zero,
        "bins_log2": list(range(LO, HI)),
        "counts": counts,
        "below_2^-24": below,
        "frac_below_2^-24": below / n,
        "below_2^-24_after_x65536": below_scaled,
        "frac_below_2^-24_after_x65536": below_scaled / n,
        "median_log2": float(torch.log2(nz.median())) if nz.numel() else -math.inf,
        "min_log2": float(torch.log2(nz.min())) if nz.numel() else -math.inf,
        "max_log2": float(torch.log2(nz.max())) if nz.numel() else -math.inf,
    }
