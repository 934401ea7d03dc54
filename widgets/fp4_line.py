"""The FP4 lesson's number line: the 16 codes of E2M1 and the interval of reals each one takes.

Built at build time as SVG plus a table (no script): every value, bit pattern and rounding interval
comes from :mod:`widgets.formats` (``code_points``, ``fields``, ``interval``), rounding to nearest,
ties to even, saturating at ±6 (OCP MX v1.0 §5.3.3: E2M1 has no infinity and no NaN).
"""
from __future__ import annotations

from html import escape

from . import formats as F

WIDGET = "fp4-line"
FMT = "float4_e2m1fn"
LO, HI = -7.0, 7.0                         # drawn range
X0, X1 = 30.0, 870.0                       # drawn x of LO and HI
BAND = ("#3a78c2", "#e08a1e")


def x_of(v: float) -> float:
    v = max(LO, min(HI, v))
    return X0 + (v - LO) * (X1 - X0) / (HI - LO)


def _num(v) -> str:
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return "+∞" if v > 0 else "−∞"
    return F._num_text(v).replace("-", "−") if not isinstance(v, float) else f"{v:g}".replace("-", "−")


def rows() -> list[dict]:
    """One row per code 0 … 15: hex, bits, value, interval text, and the interval's ends as floats."""
    out = []
    for code in range(16):
        d = F.describe(FMT, code)
        iv = F.interval(FMT, code)
        out.append({"code": code, "hex": d["hex"], "bits": d["bits"], "value": d["value"],
                    "value_text": "−0" if code == 8 else _num(d["value"]),
                    "interval": iv.text().replace("-", "−").replace("inf", "∞").replace("∞]", "∞)").replace("[−∞", "(−∞"),
                    "lo": float(iv.lo), "hi": float(iv.hi), "cls": d["cls"]})
    return out


def svg() -> str:
    parts = []
    axis_y = 120
    parts.append(f'<line x1="{X0}" y1="{axis_y}" x2="{X1}" y2="{axis_y}" class="c9-fl-axis"/>')
    for t in range(-6, 7):
        x = x_of(t)
        parts.append(f'<line x1="{x:.1f}" y1="{axis_y - 4}" x2="{x:.1f}" y2="{axis_y + 4}" class="c9-fl-axis"/>')
        parts.append(f'<text x="{x:.1f}" y="{axis_y + 46}" class="c9-fl-tick">{_num(float(t))}</text>')
    rs = rows()
    positive = sorted((r for r in rs if r["code"] < 8), key=lambda r: r["value"])
    negative = sorted((r for r in rs if r["code"] >= 8), key=lambda r: r["value"])
    for k, r in enumerate(negative + positive):
        lo, hi = x_of(r["lo"]), x_of(r["hi"])
        y = 70 if r["code"] < 8 else 86                      # +0 and −0 share x, so two lanes
        colour = BAND[k % 2]
        parts.append(f'<rect x="{lo:.1f}" y="{y}" width="{max(hi - lo, 1):.1f}" height="12" fill="{colour}" '
                     f'opacity="0.55"><title>{escape(r["hex"] + " " + r["bits"] + ":" + r["interval"] + " → " + r["value_text"])}</title></rect>')
    for r in rs:
        if r["code"] in (8,):
            continue
        x = x_of(r["value"])
        parts.append(f'<circle cx="{x:.1f}" cy="{axis_y}" r="5" class="c9-fl-dot"><title>{escape(r["hex"] + " = " + r["bits"] + " → " + ("±0" if r["code"] == 0 else r["value_text"]))}</title></circle>')
        if r["value"] > 0:
            parts.append(f'<text x="{x:.1f}" y="{axis_y + 22}" class="c9-fl-val">{r["value_text"]}</text>')
        elif r["code"] == 0:   # "±0" ends at the dot: centred on it, it ran into "0.5" (the left side is free)
            parts.append(f'<text x="{x + 6:.1f}" y="{axis_y + 22}" class="c9-fl-val c9-fl-end">±0</text>')
    parts.append(f'<text x="{X0}" y="58" class="c9-fl-note">上面的色带：落在带里的实数都舍入到带下方的那个点（两端外侧饱和到 ±6）</text>')
    parts.append(f'<text x="{X1}" y="{axis_y + 70}" class="c9-fl-note" text-anchor="end">刻度是实数，圆点是 E2M1 能表示的值</text>')
    return ('<svg class="c9-svg c9-fl-svg" viewBox="0 0 900 200" role="img" xmlns="http://www.w3.org/2000/svg" '
            'aria-label="E2M1 的 16 个编码在数轴上：±0、±0.5、±1、±1.5、±2、±3、±4、±6，以及每个编码接住的实数区间">'
            '<title>E2M1 的码点与舍入区间</title>' + "".join(parts) + "</svg>")


def page_context() -> dict:
    f = F.get_format(FMT)
    return dict(svg=svg(), rows=rows(), fmt_name=f.name, distinct=len(set(F.code_points(f))))
