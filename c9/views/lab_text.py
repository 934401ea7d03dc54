"""The lab's measurements as the lab page writes them (c9.core.lab_results reads them): the names of the
snapshot points, a snapshot's parts in MiB, small fractions, the throughput cell. The page's charts and
tables (c9/views/lab_charts.py) and the figures its prose quotes (c9/figures/lab.py) both write through
here, so a table cell and the sentence quoting it are the same text.
"""

from __future__ import annotations

import math
from fractions import Fraction

from c9.base import units
from c9.core.lab_results import PARTS, throughput

POINT_LABELS = {
    "after_build": "建好模型后",
    "after_forward": "前向之后",
    "after_backward": "反向之后",
    "after_step": "第一次优化器更新后",
}


def snapshot_texts(snap: dict) -> tuple[dict, str, bool]:
    """A snapshot's parts and total in MiB at two decimals as the table shows them and the prose quotes
    them: the shown parts add up to the shown total (units.apportion); the flag says a last digit moved."""
    shown, total, adjusted = units.apportion([snap["parts"][k] for k in PARTS], "MiB", 2)
    return {k: f"{x:,.2f} MiB" for k, x in zip(PARTS, shown)}, f"{total:,.2f} MiB", adjusted


def sci(x: float, digits: int = 2) -> str:
    """x as a·10^b with Unicode superscripts, spaced ('1.2 × 10⁻⁴', x > 0), or '0'."""
    if x == 0:
        return "0"
    e = math.floor(math.log10(abs(x)))
    m = units.round_half_up(Fraction(x) / Fraction(10) ** e, digits - 1)
    if abs(m) >= 10:
        e, m = e + 1, units.round_half_up(Fraction(x) / Fraction(10) ** (e + 1), digits - 1)
    sup = str(e).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return f"{m} × 10{sup}"


def frac_text(x: float) -> str:
    """A fraction as a percentage with two decimals, or in a·10^b form (as a fraction) when below 0.01%."""
    if x == 0:
        return "0"
    if x < 1e-4:
        return sci(x)
    return units.percent(Fraction(x), 1, 2)


def throughput_rows(d: dict) -> dict:
    """Per run: tokens per CPU-second (c9.core.lab_results.throughput: median, lowest and highest) and the
    table's cell "median（lowest–highest）"."""
    out = {}
    for name, r in throughput(d).items():
        cell = f"{units.number(r['median'])}（{units.number(r['min'])}–{units.number(r['max'])}）"
        out[name] = {**r, "cell": cell}
    return out
