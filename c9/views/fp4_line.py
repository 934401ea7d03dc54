"""The FP4 lesson's number line: the 16 codes of E2M1 and the interval of reals each one takes.

Built at build time as SVG plus a table (no script): every value, bit pattern and rounding interval
comes from :mod:`c9.core.formats` (``code_points``, ``fields``, ``interval``), rounding to nearest,
ties to even, saturating at ±6 (OCP MX v1.0 §5.3.3: E2M1 has no infinity and no NaN).
"""

from __future__ import annotations

from html import escape

from c9.base import units
from c9.base.palette import var
from c9.core import formats as F

WIDGET = "fp4-line"
FMT = "float4_e2m1fn"
LO, HI = -7.0, 7.0  # drawn range (the wide drawing)
X0, X1 = 30.0, 870.0  # drawn x of LO and HI
BAND = (var("rounding-band-a"), var("rounding-band-b"))
NOTES = (
    "上面的色带：落在带里的实数都舍入到带下方的那个点（两端外侧饱和到 ±6）",
    "刻度是实数，圆点是 E2M1 能表示的值",
)
# A phone gets the line in two halves, one above the other, each as wide as the screen: the whole line in
# one drawing would scale its labels down to 6 px, and a drawing wider than the screen hid −0.5 … 6.
HALVES = (("negative", -6.8, 0.8), ("positive", -0.8, 6.8))
HALF_WIDTH = 440.0


def x_of(v: float, lo: float = LO, hi: float = HI, x0: float = X0, x1: float = X1) -> float:
    v = max(lo, min(hi, v))
    return x0 + (v - lo) * (x1 - x0) / (hi - lo)


def _num(v) -> str:
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return "+∞" if v > 0 else "−∞"
    return units.exact_decimal(v) if not isinstance(v, float) else f"{v:g}".replace("-", "−")


def rows() -> list[dict]:
    """One row per code 0 … 15: hex, bits, value, interval text, and the interval's ends as floats."""
    out = []
    for code in range(16):
        d = F.describe(FMT, code)
        iv = F.interval(FMT, code)
        out.append(
            {
                "code": code,
                "hex": d["hex"],
                "bits": d["bits"],
                "value": d["value"],
                "value_text": "−0" if code == 8 else _num(d["value"]),
                "interval": iv.text()
                .replace("-", "−")
                .replace("inf", "∞")
                .replace("∞]", "∞)")
                .replace("[−∞", "(−∞"),
                "lo": float(iv.lo),
                "hi": float(iv.hi),
                "cls": d["cls"],
            }
        )
    return out


def svg(
    lo: float = LO,
    hi: float = HI,
    width: float = 900.0,
    codes=range(16),
    notes: bool = True,
    cls: str = "c9-fl-wide",
    label: str = "E2M1 的 16 个编码在数轴上：±0、±0.5、±1、±1.5、±2、±3、±4、±6，以及每个编码接住的实数区间",
) -> str:
    """The number line from lo to hi in a drawing `width` units wide: the given codes' points and rounding
    bands, integer ticks inside the range and, if `notes`, the two reading notes inside the drawing."""
    x0, x1 = 30.0, width - 30.0

    def x(v: float) -> float:
        return x_of(v, lo, hi, x0, x1)

    parts = []
    axis_y = 120
    # Without the notes (a phone's halves) the points are close together: the halves (±0.5, ±1.5) get a
    # second row of labels, and the ticks' numbers move below both.
    stagger = not notes
    tick_y = axis_y + (66 if stagger else 46)
    parts.append(f'<line x1="{x0}" y1="{axis_y}" x2="{x1}" y2="{axis_y}" class="c9-fl-axis"/>')
    for t in range(-6, 7):
        if not lo <= t <= hi:
            continue
        parts.append(
            f'<line x1="{x(t):.1f}" y1="{axis_y - 4}" x2="{x(t):.1f}" y2="{axis_y + 4}" class="c9-fl-axis"/>'
        )
        parts.append(f'<text x="{x(t):.1f}" y="{tick_y}" class="c9-fl-tick">{_num(float(t))}</text>')
    rs = [r for r in rows() if r["code"] in codes]
    positive = sorted((r for r in rs if r["code"] < 8), key=lambda r: r["value"])
    negative = sorted((r for r in rs if r["code"] >= 8), key=lambda r: r["value"])
    for k, r in enumerate(negative + positive):
        left, right = x(r["lo"]), x(r["hi"])
        y = 70 if r["code"] < 8 else 86  # +0 and −0 share x, so two lanes
        colour = BAND[(k + (8 - len(negative))) % 2]  # the colours alternate along the whole line
        parts.append(
            f'<rect x="{left:.1f}" y="{y}" width="{max(right - left, 1):.1f}" height="12" fill="{colour}" '
            f'opacity="0.55"><title>{escape(r["hex"] + " " + r["bits"] + ":" + r["interval"] + " → " + r["value_text"])}</title></rect>'
        )
    for r in rs:
        if r["code"] == 8 and 0 in codes:
            continue  # −0 sits under +0's dot and label
        v = r["value"]
        parts.append(
            f'<circle cx="{x(v):.1f}" cy="{axis_y}" r="5" class="c9-fl-dot"><title>{escape(r["hex"] + " = " + r["bits"] + " → " + ("±0" if r["code"] == 0 else r["value_text"]))}</title></circle>'
        )
        if r["code"] in (
            0,
            8,
        ):  # "±0" ends at the dot: centred on it, it ran into "0.5" (the left side is free)
            zero = "±0" if 0 in codes and 8 in codes else "+0" if r["code"] == 0 else "−0"
            anchor = "c9-fl-end" if r["code"] == 0 else "c9-fl-start"
            parts.append(
                f'<text x="{x(v) + (6 if r["code"] == 0 else -6):.1f}" y="{axis_y + 22}" class="c9-fl-val {anchor}">{zero}</text>'
            )
        elif v > 0 or 0 not in codes:
            row = 44 if stagger and v != int(v) else 22
            parts.append(
                f'<text x="{x(v):.1f}" y="{axis_y + row}" class="c9-fl-val">{r["value_text"]}</text>'
            )
    if notes:
        parts.append(f'<text x="{x0}" y="58" class="c9-fl-note">{NOTES[0]}</text>')
        parts.append(
            f'<text x="{x1}" y="{axis_y + 70}" class="c9-fl-note" text-anchor="end">{NOTES[1]}</text>'
        )
    top = 0 if notes else 56  # the halves have no note above the bands
    return (
        f'<svg class="c9-svg c9-fl-svg {cls}" viewBox="0 {top} {width:.0f} {200 - top}" role="img" xmlns="http://www.w3.org/2000/svg" '
        f'aria-label="{escape(label)}"><title>E2M1 的码点与舍入区间</title>' + "".join(parts) + "</svg>"
    )


def halves() -> list[str]:
    """The phone's drawing: the negative codes (8 … 15) on −6 … 0, the positive ones (0 … 7) on 0 … 6."""
    label = {
        "negative": "E2M1 的负半边：−0、−0.5、−1、−1.5、−2、−3、−4、−6 和各自接住的实数区间",
        "positive": "E2M1 的正半边：+0、0.5、1、1.5、2、3、4、6 和各自接住的实数区间",
    }
    return [
        svg(
            lo,
            hi,
            HALF_WIDTH,
            range(8, 16) if side == "negative" else range(8),
            notes=False,
            cls="c9-fl-half",
            label=label[side],
        )
        for side, lo, hi in HALVES
    ]


def page_context() -> dict:
    f = F.get_format(FMT)
    return dict(
        svg=svg(),
        halves=halves(),
        notes=NOTES,
        rows=rows(),
        fmt_name=f.name,
        tie_rule=f.tie_rule_zh,
        distinct=len(set(F.code_points(f))),
    )
