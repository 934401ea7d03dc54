"""Display helpers. Units: GB = 10^9 bytes, GiB = 2^30 bytes, MB = 10^6 bytes, MiB = 2^20 bytes.

Rounding is half-up on the exact decimal of the value (not binary float rounding), so the page shows
what a reader computing by hand would get.
"""
from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

GB = 10**9
GiB = 2**30
MB = 10**6
MiB = 2**20

UNITS = {"GB": GB, "GiB": GiB, "MB": MB, "MiB": MiB, "TB": 10**12, "TiB": 2**40, "B": 1}


def round_half_up(x: int | float | Fraction, digits: int) -> Decimal:
    """``x`` rounded to ``digits`` decimals, ties away from zero, computed exactly (integer arithmetic on
    the exact fraction; raises ValueError/OverflowError for NaN/infinities)."""
    fr = Fraction(x) * 10**digits
    q, r = divmod(abs(fr.numerator), fr.denominator)
    q += 2 * r >= fr.denominator
    return Decimal(-q if fr < 0 else q).scaleb(-digits)


def number(x: int | float | Fraction, digits: int = 0) -> str:
    """``x`` with thousands separators and ``digits`` decimals: number(402653184) == '402,653,184'."""
    return f"{round_half_up(x, digits):,.{digits}f}"


def size(n_bytes: int | float, unit: str, digits: int = 1) -> str:
    """A byte count in ``unit`` (GB, GiB, MB, MiB, TB, TiB, B): size(174483046400, 'GiB') == '162.5 GiB'.

    Raises KeyError for an unknown unit.
    """
    return f"{number(Fraction(n_bytes) / UNITS[unit], digits)} {unit}"


def auto_size(n_bytes: int | float, binary: bool = True, digits: int = 1) -> str:
    """A byte count in the largest unit that keeps the number at or above 1 (binary: KiB…TiB)."""
    base, names = (1024, ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]) if binary else (1000, ["B", "KB", "MB", "GB", "TB", "PB"])
    value, i = Fraction(n_bytes), 0
    while abs(value) >= base and i < len(names) - 1:
        value /= base
        i += 1
    return f"{number(value, 0 if i == 0 else digits)} {names[i]}"


def percent(part: int | float | Fraction, whole: int | float | Fraction, digits: int = 1) -> str:
    """``part / whole`` as a percentage: percent(1, 8) == '12.5%' (the rule of :func:`share`).
    Raises ZeroDivisionError if whole is 0."""
    return share(Fraction(part) / Fraction(whole), digits)


def share(ratio: int | float | Fraction, digits: int = 1) -> str:
    """A ratio as a percentage rounded to ``digits`` decimals that never reads as 0% or 100% when it is
    not: share(1/20000) == '< 0.1%', share(19999/20000) == '> 99.9%', share(1.0004) == '> 100.0%';
    exactly 0 and 1 read '0.0%' and '100.0%'. The one rule for every share the site prints."""
    x = Fraction(ratio) * 100
    shown = round_half_up(x, digits)
    step = Decimal(1).scaleb(-digits)
    if x > 0 and shown == 0:
        return f"< {step}%"
    if shown == 100 and x != 100:
        return f"> {100 - step}%" if x < 100 else f"> {shown:.{digits}f}%"
    return f"{shown:,.{digits}f}%"


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def superscript_powers(text: str) -> str:
    """Integer powers written ASCII-style as typeset ones: "2^-24" → "2⁻²⁴", "3.4×10^38" → "3.4×10³⁸".
    A fractional power ("2^-9.8") stays as written: a superscript decimal point reads badly."""
    return re.sub(r"\^(-?\d+)(?![\d.])", lambda m: m.group(1).translate(_SUPERSCRIPT), text)
