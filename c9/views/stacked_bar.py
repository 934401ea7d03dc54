"""A horizontal stacked bar chart as SVG markup, drawn the same way at build time and in the page.

Lesson 5's memory bar is seven rectangles and a dashed line; Plotly.js took 21–37 ms to redraw it in
a software-rendered browser, more than a frame, and drew nothing without JavaScript. This SVG is
written into the page by the build (so a reader without JavaScript sees the bar) and swapped in
whole by the widget after each Python answer.

Geometry: x positions are percentages of the chart's width and font sizes are CSS pixels, so the
text keeps its size on a phone while the bars stretch (no viewBox scaling). Heights are pixels.
"""

from __future__ import annotations

import math
from html import escape

from c9.base import units
from c9.base.palette import var
from c9.views.svg_pattern import pattern_def, pattern_id

# % of the width kept free so the end tick labels, centred on their lines, fit: half of 「1.5×10¹⁰」 on the
# narrowest chart (3 % let the last label run 13 px past a phone's chart)
PAD_LEFT, PAD_RIGHT = 2.0, 9.0
NARROWEST = 300  # px: the chart on a 360 px phone
CHAR = 7.5  # px: at most, a character of a tick label (13 px text)
ROW_LABEL, BAR, GAP = 18, 34, 10  # px
AXIS = 48  # px below the last bar: ticks, their labels, the axis title
TOP = 22  # px above the first bar: the reference line's label
# A reference line beyond FAR times the longest bar is not drawn to scale: the axis fits the bars and the
# line is marked off the chart's right end. (The lab's 64 MB bar against an 80 GB card took 0.08 % of
# the width: no bar was left to see.)
FAR = 4


def nice_ticks(top: float, most: int = 6) -> list[float]:
    """Tick values 0, step, 2·step, … covering ``top`` with a 1-2-5 step and at most ``most`` + 1 ticks.
    nice_ticks(162.5) == [0, 50, 100, 150, 200]. Raises ValueError if top is not a positive finite number."""
    if not (math.isfinite(top) and top > 0):
        raise ValueError(f"axis top must be positive and finite, got {top!r}")
    base = 10 ** math.floor(math.log10(top / most))
    step = next(m * base for m in (1, 2, 5, 10) if top / (m * base) <= most)
    n = math.ceil(top / step - 1e-9)
    return [i * step for i in range(n + 1)]


COMPACT_FROM = (
    10**6
)  # from here tick labels read 2×10⁹, 4×10⁹, …: "2,000,000,000" overlapped its neighbours at 390 px


def tick_texts(ticks: list[float]) -> list[str]:
    """The tick labels: grouped digits ("1,500"), or, once the axis reaches COMPACT_FROM, each value in
    scientific notation as the site writes it ("0", "2×10⁹", …, "8×10⁹", "1×10¹⁰"; not "10×10⁹")."""
    if ticks[-1] < COMPACT_FROM:
        return [units.number(v, 0 if v == int(v) else 1 if v * 10 == int(v * 10) else 2) for v in ticks]
    return [units.sci(v) for v in ticks]


def axis_ticks(top: float) -> tuple[list[float], list[str]]:
    """The ticks and their labels for an axis up to ``top``: as many as leave a gap between neighbouring labels
    on the narrowest chart (seven, 「50,000」 next to 「60,000」, ran together on a phone)."""
    for most in (6, 5, 4, 3, 2):
        ticks = nice_ticks(top, most)
        texts = tick_texts(ticks)
        room = NARROWEST * (100 - PAD_LEFT - PAD_RIGHT) / 100 / (len(ticks) - 1)
        if max(map(len, texts)) * CHAR + 6 <= room:
            break
    return ticks, texts


def longest(rows: list[dict]) -> float:
    """The longest bar's total, in axis units."""
    return max(sum(s["value"] for s in r["segments"]) for r in rows)


def to_scale(rows: list[dict], line: dict | None) -> bool:
    """Whether the reference line is drawn where it falls (False: it is far off the axis, see FAR)."""
    return line is None or line["value"] <= FAR * longest(rows)


def svg(rows: list[dict], axis_title: str, line: dict | None = None, label: str = "") -> str:
    """The chart as one ``<svg>`` element.

    rows: [{"label": str | None (drawn above the bar), "segments": [{"key", "label", "value" (in axis units),
    "text" (the value as the page quotes it), "color": a CSS colour (a palette role: c9/base/palette.py), "hatch": bool,
    "pattern": a Plotly marker.pattern or None (c9.views.svg_pattern)}]}], drawn top to bottom.
    line: {"value", "label", "far"}, a dashed reference line across all rows (e.g. the 80 GB card), or None;
    when it lies beyond FAR times the longest bar (:func:`to_scale`), the axis fits the bars and the text
    ``far`` is written at the axis's right end instead ("80 GB 卡容量在右侧很远处 →").
    label: the accessible name of the chart. Zero-width segments are kept (a reader can still find them
    in the table beside the chart) but draw nothing.
    """
    scaled = to_scale(rows, line)
    top_value = max(longest(rows), line["value"] if line and scaled else 0)
    ticks, texts = axis_ticks(top_value)
    span = ticks[-1]

    def x(v: float) -> float:  # % of the width
        return PAD_LEFT + (100 - PAD_LEFT - PAD_RIGHT) * v / span

    row_h = (ROW_LABEL if any(r["label"] for r in rows) else 0) + BAR + GAP
    plot_bottom = TOP + row_h * len(rows)
    height = plot_bottom + AXIS
    out = [
        f'<svg class="c9-bar-svg" width="100%" height="{height}" role="img" aria-label="{escape(label)}" '
        f'xmlns="http://www.w3.org/2000/svg">',
        '<defs><pattern id="c9-hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
        f'patternTransform="rotate(45)"><rect width="6" height="6" fill="{var("hatch")}" fill-opacity="0.35"/>'
        f'<line x1="0" y1="0" x2="0" y2="6" stroke="{var("hatch")}" stroke-width="2"/></pattern></defs>',
    ]
    tiles = {pattern_id(s["pattern"]): s["pattern"] for r in rows for s in r["segments"] if s.get("pattern")}
    if tiles:
        out.append(f"<defs>{''.join(pattern_def(t) for t in tiles.values())}</defs>")
    for v, text in zip(ticks, texts):
        out.append(
            f'<line class="c9-bar-grid" x1="{x(v):.4f}%" x2="{x(v):.4f}%" y1="{TOP}" y2="{plot_bottom}"/>'
        )
        out.append(f'<text class="c9-bar-tick" x="{x(v):.4f}%" y="{plot_bottom + 16}">{text}</text>')
    out.append(f'<text class="c9-bar-title" x="50%" y="{plot_bottom + 38}">{escape(axis_title)}</text>')
    y = TOP
    for r in rows:
        if r["label"]:
            out.append(f'<text class="c9-bar-row" x="{PAD_LEFT}%" y="{y + 13}">{escape(r["label"])}</text>')
            y += ROW_LABEL
        left = 0.0
        for s in r["segments"]:
            w = x(left + s["value"]) - x(left)
            tip = escape(f"{s['label']}：{s['text']}")
            out.append(
                f'<rect data-key="{escape(s["key"])}" x="{x(left):.4f}%" y="{y}" width="{w:.4f}%" '
                f'height="{BAR}" fill="{s["color"]}"><title>{tip}</title></rect>'
            )
            if s.get("pattern") and w > 0:  # the part's pattern over its colour (c9.views.part_colors)
                out.append(
                    f'<rect x="{x(left):.4f}%" y="{y}" width="{w:.4f}%" height="{BAR}" '
                    f'fill="url(#{pattern_id(s["pattern"])})" pointer-events="none"/>'
                )
            if s.get("hatch") and w > 0:
                out.append(
                    f'<rect x="{x(left):.4f}%" y="{y}" width="{w:.4f}%" height="{BAR}" '
                    'fill="url(#c9-hatch)" pointer-events="none"/>'
                )
            left += s["value"]
        y += BAR + GAP
    out.append(
        f'<line class="c9-bar-axis" x1="{x(0):.4f}%" x2="{x(span):.4f}%" y1="{plot_bottom}" '
        f'y2="{plot_bottom}"/>'
    )
    if line and not scaled:
        out.append(
            f'<text class="c9-bar-far" x="{x(span):.4f}%" y="{TOP - 8}" text-anchor="end">{escape(line["far"])}</text>'
        )
    elif line:
        lx = x(line["value"])
        anchor = "end" if lx > 60 else "start"  # keep the label inside the chart on either side
        out.append(
            f'<line class="c9-bar-ref" x1="{lx:.4f}%" x2="{lx:.4f}%" y1="{TOP - 4}" y2="{plot_bottom}"/>'
        )
        out.append(
            f'<text class="c9-bar-ref-label" x="{lx:.4f}%" dx="{-4 if anchor == "end" else 4}" y="{TOP - 8}" '
            f'text-anchor="{anchor}">{escape(line["label"])}</text>'
        )
    out.append("</svg>")
    return "".join(out)
