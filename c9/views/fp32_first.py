"""The seed's rule for a typed block or tensor (the MX/NV block, the block lab's typed tensor): every
number is stored as FP32 first, as a training framework holds it, and the FP32 tensor is quantised. Where
quantising the exact numbers would recover another value (a double rounding), :func:`quantize` names the
first such number and how many there are, in Chinese, with the numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from c9.base import units
from c9.core import blockscale as B
from c9.core import formats as F

SHORT = 24  # characters: a longer exact decimal is written in scientific notation


def stored(values: list) -> list:
    """A 1-D or 2-D list of exact numbers as FP32 holds them (floats, each the FP32 value exactly)."""
    if values and isinstance(values[0], list):
        return [[F.as_float32(v) for v in row] for row in values]
    return [F.as_float32(v) for v in values]


def typed_text(v) -> str:
    """A typed number for a message: its exact decimal when short ("2.5000000001"), else 12 digits."""
    fr = Fraction(v)
    d = fr.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d == 1:
        text = format(Decimal(fr.numerator) / Decimal(fr.denominator), "f")
        if len(text) <= SHORT:
            return text.replace("-", "−")
    return units.sci(fr, 12)


def _cells(grid: list):
    """(row, column, value) of a 1-D (one row) or 2-D grid."""
    rows = grid if grid and isinstance(grid[0], list) else [grid]
    for i, row in enumerate(rows):
        for j, v in enumerate(row):
            yield i, j, v


@dataclass
class Stored:
    """A typed tensor stored as FP32 and quantised: ``q`` the result (on the FP32 values), ``rel`` the
    relative errors against the numbers as typed (input shape), ``flushed`` how many non-zero typed numbers
    FP32 already holds as 0, ``note`` the double-rounding note or None."""

    q: B.QuantResult
    rel: list
    flushed: int
    note: str | None


def quantize(values: list, scheme: str, label: str, where) -> Stored:
    """``values`` (exact typed numbers, 1-D or 2-D) stored as FP32 and quantised by ``scheme``. A number
    that became 0 lost 100% of itself, one typed as 0 nothing. The note says where quantising the exact
    numbers would give another element code (the first such number, and how many); ``label`` names the
    scheme and ``where(i, j)`` a number in it ("第 3 个数", "第 2 行第 1 列")."""
    held = stored(values)
    q = B.quantize(held, scheme)
    cells = list(zip(_cells(values), _cells(held), _cells(q.dequantized), _cells(q.rel_error)))
    rel = [_against(v, h, d, r) for (_, _, v), (_, _, h), (_, _, d), (_, _, r) in cells]
    if values and isinstance(values[0], list):
        width = len(values[0])
        rel = [rel[k : k + width] for k in range(0, len(rel), width)]
    flushed = sum(1 for (_, _, v), (_, _, h), _, _ in cells if v != 0 and h == 0)
    if all(v == h for (_, _, v), (_, _, h), _, _ in cells):
        return Stored(q, rel, flushed, None)  # every number is an FP32 value already: one rounding either way
    direct = B.quantize(values, scheme)
    moved = [
        (i, j, v, h, d, e)
        for ((i, j, v), (_, _, h), (_, _, d), _), (_, _, c), (_, _, c1), (_, _, e) in zip(
            cells, _cells(q.codes), _cells(direct.codes), _cells(direct.dequantized)
        )
        if c != c1
    ]
    if not moved:
        return Stored(q, rel, flushed, None)
    i, j, v, h, d, e = moved[0]
    f32 = "0（下溢）" if h == 0 else units.sci(h, 9)
    more = f"；这样的数共 {len(moved):,} 个" if len(moved) > 1 else ""
    note = (
        f"两次舍入：{where(i, j)}的 {typed_text(v)} 先存成 FP32 是 {f32}，{label}{' ' if label[-1].isascii() else ''}"
        f"还原为 {units.sci(d, 6)}；"
        f"若直接量化精确值，会还原为 {units.sci(e, 6)}{more}。"
    )
    return Stored(q, rel, flushed, note)


def _against(v, held: float, dequantized: float, rel: float) -> float:
    """The relative error of one number against its typed value ``v`` (``rel`` is against ``held``), in
    float64: the FP32 step moves it by at most 2⁻²⁴ of v, far below the digits the widgets show."""
    if v == held:
        return rel
    if v == 0:
        return 0.0
    fv = float(v)
    return abs(dequantized - fv) / abs(fv) if fv else 1.0
