"""Lesson 4's table of every 8-bit pattern: the 256 codes of an FP8 format as a 16×16 grid.

Rows are the high nibble of the code, columns the low nibble, so the cell in row ``0x3_`` and
column ``_C`` is code ``0x3C``. Each cell carries its class (zero, subnormal, normal, infinity,
NaN), its value and its bits, all decoded by :mod:`c9.core.formats` at build time: the table is
plain HTML and needs no script.
"""

from __future__ import annotations

import math
from fractions import Fraction

from c9.base import units
from c9.base.errors import InputError
from c9.core import formats as F

WIDGET = "pattern-table"

#: The formats this table draws (lesson 4 compares exactly these two).
TABLE_FORMATS = ("float8_e4m3fn", "float8_e5m2")

#: Class → (Chinese label, marker shown in the cell besides the colour, so colour is never alone).
CLASSES = {
    "zero": ("零", "○"),
    "subnormal": ("次正规数", "△"),
    "normal": ("正规数", ""),
    "infinity": ("无穷大", "∞"),
    "nan": ("NaN（非数）", "×"),
}


def short_value(v: float) -> str:
    """A value short enough for a table cell: 3 significant digits, exponent without padding."""
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "+∞" if v > 0 else "−∞"
    if v == 0:
        return "−0" if str(v).startswith("-") else "0"
    if abs(v) >= 100 and v == int(v):  # no thousands comma: a 16-column grid has narrow cells
        return str(int(v)).replace("-", "−")
    return units.sci(v, 3)  # 1.53×10⁻⁵, 0.00195


CELL_CHARS = 5  # a value wider than this (sign aside) splits into two short lines: 16 columns fit 1280 px


def cell_lines(v: float) -> tuple[str, str]:
    """A cell's value in at most two short lines, (lead, power): short_value's text when it is at most
    CELL_CHARS wide besides the sign and not under 0.1 ("0.125", "−57344", "NaN"), else 3 significant digits and the power of
    ten below them, cell_lines(0.0009765625) == ("9.77", "×10⁻⁴"). The exact value is in the cell's title."""
    text = short_value(v)
    # Under 0.1 most values need six characters ("0.0391"): all of them take the power line, so that one row
    # does not read 3.91×10⁻² beside 0.043.
    if "×" not in text and len(text.lstrip("−")) <= CELL_CHARS and (abs(v) >= 0.1 or v != v or v == 0):
        return text, ""
    e = math.floor(math.log10(abs(v)))
    # Three significant digits always, zeros kept: 0.04296875 reads 4.30 beside 4.69, not 4.3 (as if exact).
    lead = units.sci(Fraction(v) / Fraction(10) ** e, 3, zeros=True)
    if lead.lstrip("−") == "10.0":  # 9.995… rounds up to the next power
        e, lead = e + 1, lead.replace("10.0", "1.00")
    return lead, "×" + units.superscript_powers(f"10^{e}").replace("-", "−")


def cell(fmt, code: int) -> dict:
    """Everything one cell shows: hex, bits, class, exact value, the short text and a sentence."""
    d = F.describe(fmt, code)
    label, mark = CLASSES[d["cls"]]
    value = _exact(d["value"])
    if d["cls"] == "infinity":
        value = "+∞" if d["sign"] == 0 else "−∞"
    info = f"{d['hex']} = {d['bits']}：{label}，值 {value}"
    if d["cls"] in ("normal", "subnormal"):  # "−1.75 × 2⁸": the site's minus and powers
        info += f"（= {units.superscript_powers(d['expression']).replace('-', '−')}）"
    return {
        "code": code,
        "hex": d["hex"],
        "bits": d["bits"],
        "cls": d["cls"],
        "label": label,
        "mark": mark,
        "short": short_value(d["value"]),
        "lines": cell_lines(d["value"]),
        "value": value,
        "info": info,
    }


def _exact(v: float) -> str:
    """The exact decimal of a code's value in reader notation: "−448", "0.0000152587890625", "−0"."""
    if v != v or v in (float("inf"), float("-inf")):
        return short_value(v)
    if v == 0 or v == int(v):
        return short_value(v) if v == 0 else units.number(int(v))
    return units.exact_decimal(v)


def table(fmt) -> dict:
    """The 16×16 grid and the class counts for an 8-bit format."""
    f = F.get_format(fmt)
    if f.bits != 8:
        raise InputError(f"这张表只画 8 位格式，{f.label} 是 {f.bits} 位")
    rows = [[cell(f, (hi << 4) | lo) for lo in range(16)] for hi in range(16)]
    counts = {k: 0 for k in CLASSES}
    for row in rows:
        for c in row:
            counts[c["cls"]] += 1
    finite = [v for v in F.code_points(f) if v == v and abs(v) != float("inf")]
    return {
        "format": f.name,
        "exponent_bits": f.exponent_bits,
        "mantissa_bits": f.mantissa_bits,
        "bias": f.bias,
        "rows": rows,
        "counts": counts,
        "max": f.max,
        "max_text": short_value(f.max),
        "min_normal": f.min_normal,
        "min_subnormal": f.min_subnormal,
        "distinct_finite": len(set(finite)),
    }


def summary(t: dict) -> str:
    c = t["counts"]
    return (
        f"{t['format']}（1 位符号、{t['exponent_bits']} 位指数、{t['mantissa_bits']} 位尾数，偏置 {t['bias']}）："
        f"256 个位型里正规数 {c['normal']} 个、次正规数 {c['subnormal']} 个、零 {c['zero']} 个（+0 与 −0）、"
        f"无穷大 {c['infinity']} 个、NaN {c['nan']} 个；最大有限值 {_exact(F.decode(t['format'], F.get_format(t['format']).max_code))}，"
        f"最小正规数 {_pow2(t['min_normal'])}，最小次正规数 {_pow2(t['min_subnormal'])}。"
    )


def _pow2(v: float) -> str:
    """A power of two with the decimal beside it: 2⁻⁹ ≈ 0.00195, 2⁻¹⁴ ≈ 6.1×10⁻⁵."""
    return f"{units.power_of_two(int(math.log2(v)))} ≈ {units.sci(v, 3)}"


def page_context(format: str = "float8_e4m3fn") -> dict:
    """Template context for c9/views/pattern-table.html."""
    name = F.get_format(format).name
    if name not in TABLE_FORMATS:
        raise ValueError(f"pattern-table draws {TABLE_FORMATS}, not {format!r}")
    t = table(name)
    return dict(t=t, classes=CLASSES, summary=summary(t), uid=name.replace("float8_", "pt-"))
