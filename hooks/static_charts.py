"""Each Plotly chart's build-time state as a static inline SVG, for a reader without JavaScript.

A chart's figure (Python's Plotly spec, the very one the page's script draws) is drawn here once, at build
time, into the chart's box inside ``<noscript>``: with scripts on, the browser never parses it (no cost but
its bytes); with scripts off, the reader sees the default state the text around it describes. This is not
Plotly: it draws the subset our figures use (scatter lines and markers, bars stacked or overlaid and
horizontal ones, heatmaps; linear, log and category axes; line, rect and path shapes; text annotations) and
puts the title and the legend around the drawing as HTML.

Geometry as in c9/views/stacked_bar.py: x in % of the plot's width, y and text in CSS px, so the text keeps
its size on a phone while the plot stretches; lines are drawn in a stretched inner viewBox with strokes that
do not scale. The y-axis labels sit in a drawing of their own, as wide as they need, left of the plot. A
heatmap is a PNG of one pixel per cell that the build writes beside the pages (``files()``), so a reader
with scripts never fetches it. Colours are the palette's CSS variables (the PNG's: the light palette's, the
only one a page without scripts shows).
"""

from __future__ import annotations

import hashlib
import math
import re
import struct
import zlib
from collections.abc import Callable
from html import escape

from c9.base import palette, units
from c9.views.svg_pattern import pattern_def, pattern_id

FOLDER = "assets/static"
TOP, BOTTOM = 14, 44  # px above the plot (a label over a line) and below it (ticks and the axis title)
FONT = 12  # px, the labels' size (course.css)
MIN_PLOT = 150  # px: the plot area's least height
KEY_TILES = (
    6,
    3,
)  # a patterned bar's legend key: whole tiles across and down, in a box twice as wide as tall
DASHES = {"dot": "2 3", "dash": "6 4", "dashdot": "6 3 2 3", "longdash": "10 4"}
_files: dict[str, bytes] = {}


def reset() -> None:
    """A new build."""
    _files.clear()


def files() -> dict[str, bytes]:
    """The heatmaps' PNGs, path under the site → bytes."""
    return dict(_files)


# ---- text -------------------------------------------------------------------------------------------
def text_width(text: str, size: float = FONT) -> float:
    """A label's width in px, estimated: a CJK or full-width character is 1 em, others about 0.6 em."""
    return sum(size if ord(c) > 0x2E80 else 0.6 * size for c in text)


def _attr(v: float) -> str:
    return f"{v:.3f}".rstrip("0").rstrip(".")


# ---- axes -------------------------------------------------------------------------------------------
def nice_step(span: float, most: int = 6) -> float:
    """A 1-2-5 step giving at most ``most`` intervals over ``span`` (> 0)."""
    base = 10 ** math.floor(math.log10(span / most))
    return next(m * base for m in (1, 2, 5, 10) if span / (m * base) <= most)


class Axis:
    """One axis of a figure: where a value falls (0 … 1 from the start, left or bottom) and its ticks."""

    def __init__(self, spec: dict, values: list, bars: bool = False, padded: bool = False):
        self.spec = spec
        self.log = spec.get("type") == "log"
        present = [v for v in values if v is not None]
        self.categories = None
        if any(isinstance(v, str) for v in present):
            if spec.get("categoryorder") == "array":
                self.categories = list(spec["categoryarray"])
            else:
                self.categories = list(dict.fromkeys(present))
            self.lo, self.hi = -0.5, len(self.categories) - 0.5
            return
        if "range" in spec:
            self.lo, self.hi = spec["range"]
            return
        nums = [float(v) for v in present if not self.log or v > 0]
        if self.log:
            nums = [math.log10(v) for v in nums] or [0.0]
        lo, hi = (min(nums), max(nums)) if nums else (0.0, 1.0)
        if (bars or spec.get("rangemode") == "tozero") and not self.log:
            lo, hi = min(lo, 0.0), max(hi, 0.0)
        if hi == lo:
            hi = lo + 1
        if bars and not self.log:  # room over the tallest bar, as Plotly leaves
            hi += 0.04 * (hi - lo)
        if padded:
            pad = 0.04 * (hi - lo)
            lo, hi = lo - (0 if lo == 0 and bars else pad), hi + pad
        self.lo, self.hi = lo, hi

    def at(self, v) -> float:
        """Where ``v`` falls, 0 … 1 along the axis (outside for a value beyond the range)."""
        if self.categories is not None:
            v = self.categories.index(v) if isinstance(v, str) else v
        elif self.log:
            v = math.log10(v) if v > 0 else self.lo
        return (v - self.lo) / (self.hi - self.lo)

    def span(self, v0, v1) -> tuple[float, float]:
        return self.at(v0), self.at(v1)

    def ticks(self) -> list[tuple[float, str]]:
        """(position 0 … 1, label) of each tick inside the axis."""
        s = self.spec
        if "tickvals" in s:
            texts = s.get("ticktext") or [self._label(v) for v in s["tickvals"]]
            pairs = list(zip(s["tickvals"], texts))
        elif self.categories is not None:
            pairs = [(i, c) for i, c in enumerate(self.categories)]
        elif self.log:
            lo, hi = sorted((self.lo, self.hi))
            powers = list(range(math.ceil(lo - 1e-9), math.floor(hi + 1e-9) + 1))
            every = max(1, math.ceil(len(powers) / 6))
            pairs = [(10.0**p, self._power(p)) for p in powers[::every]]
        else:
            lo, hi = sorted((self.lo, self.hi))
            step = nice_step(hi - lo)
            first = math.ceil(lo / step - 1e-9)
            pairs = []
            for k in range(first, first + 100):
                v = k * step
                if v > hi + 1e-9 * step:
                    break
                pairs.append((v, self._label(v, step)))
        return [(self.at(v), t) for v, t in pairs if -1e-9 <= self.at(v) <= 1 + 1e-9]

    def _power(self, p: int) -> str:
        if self.spec.get("exponentformat") == "power" or not -4 <= p <= 6:
            return units.superscript_powers(f"10^{p}").replace("-", "−")
        return units.number(10.0**p, max(0, -p))

    def _label(self, v: float, step: float | None = None) -> str:
        fmt = self.spec.get("tickformat", "")
        if fmt == ",d":
            return units.number(round(v))
        if fmt.endswith("~g"):
            text = units.sci(v, int(fmt.lstrip(",")[1:-2]))
            if fmt.startswith(",") and "×" not in text:  # ",.6~g": thousands grouped, as Plotly draws it
                sign, digits = ("−", text[1:]) if text[:1] in "−-" else ("", text)
                head, dot, tail = digits.partition(".")
                text = f"{sign}{int(head):,}{dot}{tail}"
            return text
        decimals = 0 if step is None or step >= 1 else min(6, -math.floor(math.log10(step) + 1e-9))
        return units.number(v, decimals)


# ---- the drawing ------------------------------------------------------------------------------------
class Plot:
    """The plot area being drawn: x in % of its width, y in px of the drawing (top … top + height)."""

    def __init__(self, x: Axis, y: Axis, top: float, height: float):
        self.x, self.y, self.top, self.h = x, y, top, height
        self.out: list[str] = []  # the plot's SVG, in drawing order
        self.lines: list[str] = []  # paths in the stretched viewBox (0 … 1000 both ways)

    def px(self, f: float) -> float:  # y position for 0 … 1 up the axis
        return self.top + (1 - f) * self.h

    def pct(self, f: float) -> float:
        return 100 * f

    def ref(self, axis: str, ref: str, v) -> float:
        """0 … 1 along the axis for a shape or annotation coordinate (``paper`` or data)."""
        if ref == "paper":
            return float(v)
        return (self.x if axis == "x" else self.y).at(v)


def _colour(value: str | None, fallback: str = "var(--md-default-fg-color)") -> str:
    return value or fallback


def _stroke(line: dict | None, default_width: float = 2) -> str:
    line = line or {}
    out = f'stroke="{escape(_colour(line.get("color")))}" stroke-width="{line.get("width", default_width)}"'
    if line.get("dash") in DASHES:
        out += f' stroke-dasharray="{DASHES[line["dash"]]}"'
    return out


def _scatter(p: Plot, t: dict) -> None:
    mode = t.get("mode", "lines+markers")
    xs, ys = t.get("x", []), t.get("y", [])
    colour = (t.get("line") or {}).get("color") or (t.get("marker") or {}).get("color")
    if "lines" in mode:
        step = (t.get("line") or {}).get("shape") == "hv"
        runs, run = [], []
        for x, y in zip(xs, ys):
            if y is None or (p.y.log and y <= 0):
                if run:
                    runs.append(run)
                run = []
                continue
            pt = (1000 * p.x.at(x), 1000 * (1 - p.y.at(y)))
            if step and run:
                run.append((pt[0], run[-1][1]))
            run.append(pt)
        runs.append(run)
        d = " ".join(
            "M" + " L".join(f"{a:.1f},{b:.1f}" for a, b in straightened(r)) for r in runs if len(r) > 1
        )
        if d:
            line = {**(t.get("line") or {}), "color": colour}
            p.lines.append(
                f'<path d="{d}" fill="none" {_stroke(line)} vector-effect="non-scaling-stroke" '
                'stroke-linejoin="round"/>'
            )
    if "markers" in mode or "text" in mode:
        m = t.get("marker") or {}
        size, symbol = m.get("size", 6), m.get("symbol", "circle")
        fill = escape(_colour(m.get("color"), colour or "var(--md-default-fg-color)"))
        for i, (x, y) in enumerate(zip(xs, ys)):
            if y is None or (p.y.log and y <= 0):
                continue
            cx, cy = p.pct(p.x.at(x)), p.px(p.y.at(y))
            if "markers" in mode:
                p.out.append(_marker(cx, cy, size, symbol, fill, (m.get("line") or {}).get("width", 2)))
            label = (t.get("text") or [None] * len(xs))[i] if "text" in mode else None
            if label:
                p.out.append(
                    f'<text x="{_attr(cx)}%" y="{_attr(cy - size / 2 - 4)}" text-anchor="middle">{escape(label)}</text>'
                )


def straightened(points: list[tuple[float, float]], tolerance: float = 0.3) -> list[tuple[float, float]]:
    """The points of a line less those lying on the straight line between their neighbours (within
    ``tolerance`` viewBox units): a steady climb over 201 steps is two points, not 201."""
    out = points[:1]
    for i in range(1, len(points) - 1):
        (x0, y0), (x1, y1), (x2, y2) = out[-1], points[i], points[i + 1]
        length = math.hypot(x2 - x0, y2 - y0)
        off = abs((x2 - x0) * (y0 - y1) - (x0 - x1) * (y2 - y0)) / length if length else 0.0
        between = min(x0, x2) <= x1 <= max(x0, x2) and min(y0, y2) <= y1 <= max(y0, y2)
        if off > tolerance or not between:
            out.append(points[i])
    return out + points[-1:]


def _marker(cx: float, cy: float, size: float, symbol: str, fill: str, width: float) -> str:
    r = size / 2
    if symbol == "circle":  # the common one: a circle takes % for its centre itself
        return f'<circle cx="{cx:.2f}%" cy="{cy:.1f}" r="{_attr(r)}" fill="{fill}"/>'
    at = f'x="{_attr(cx)}%" y="{_attr(cy)}" overflow="visible"'
    if symbol == "diamond":
        shape = f'<path d="M0,{-r}L{r},0L0,{r}L{-r},0Z" fill="{fill}"/>'
    elif symbol == "x":
        shape = f'<path d="M{-r},{-r}L{r},{r}M{-r},{r}L{r},{-r}" stroke="{fill}" stroke-width="2.5"/>'
    elif symbol.startswith("line-ew"):
        shape = f'<path d="M{-r},0H{r}" stroke="{fill}" stroke-width="{width}"/>'
    else:
        raise ValueError(f"no static drawing for the marker symbol {symbol!r}")
    return f"<svg {at}>{shape}</svg>"


def _bars(p: Plot, traces: list[dict], layout: dict) -> None:
    """Bars of every bar trace: stacked per position (barmode "stack"), else each from the axis start."""
    horizontal = traces[0].get("orientation") == "h"
    pos_axis, len_axis = (p.y, p.x) if horizontal else (p.x, p.y)
    stack = layout.get("barmode") == "stack"
    gap = layout.get("bargap", 0.2)
    positions = [v for t in traces for v in (t["y"] if horizontal else t["x"])]
    if pos_axis.categories is not None:
        slot = 1.0
    else:
        distinct = sorted(set(positions))
        slot = min((b - a for a, b in zip(distinct, distinct[1:])), default=1.0)
    floor = len_axis.lo if len_axis.log else 0.0
    tops: dict = {}
    defined: set[str] = set()
    for t in traces:
        width = t.get("width", slot * (1 - gap))
        fill = escape(_colour((t.get("marker") or {}).get("color")))
        pattern = (t.get("marker") or {}).get("pattern")
        if pattern and pattern.get("shape") and pattern_id(pattern) not in defined:
            defined.add(pattern_id(pattern))
            p.out.insert(0, f"<defs>{pattern_def(pattern)}</defs>")
        opacity = t.get("opacity")
        for pos, n in zip(t["y"] if horizontal else t["x"], t["x"] if horizontal else t["y"]):
            if n is None or n == 0 or (len_axis.log and n <= 0):
                continue
            key = pos if stack else None
            base = tops.get(key, None) if stack else None
            v0 = base if base is not None else (10.0**floor if len_axis.log else 0.0)
            v1 = v0 + n if stack else n
            if stack:
                tops[key] = v1
            centre = pos_axis.at(pos)
            half = width / 2 / (pos_axis.hi - pos_axis.lo)
            a0, a1 = sorted(len_axis.span(v0, v1))
            b0, b1 = centre - half, centre + half
            op = f' fill-opacity="{opacity}"' if opacity is not None else ""
            if horizontal:
                x, w = p.pct(a0), p.pct(a1 - a0)
                y, h = p.px(b1), (b1 - b0) * p.h
            else:
                x, w = p.pct(b0), p.pct(b1 - b0)
                y, h = p.px(a1), (a1 - a0) * p.h
            box = f'x="{_attr(x)}%" y="{_attr(y)}" width="{_attr(w)}%" height="{_attr(h)}"'
            p.out.append(f'<rect {box} fill="{fill}"{op}/>')
            if pattern and pattern.get("shape"):
                p.out.append(f'<rect {box} fill="url(#{pattern_id(pattern)})"/>')


def _scale_colour(colorscale: list, f: float) -> tuple[int, int, int]:
    """The colour at 0 … 1 along a Plotly colourscale of role variables, on the light palette."""
    f = min(1.0, max(0.0, f))
    stops = [(at, _rgb(palette.colour(c))) for at, c in colorscale]
    for (a0, c0), (a1, c1) in zip(stops, stops[1:]):
        if f <= a1 or (a0, c0) == stops[-2]:
            k = 0 if a1 == a0 else (f - a0) / (a1 - a0)
            return tuple(round(u + (v - u) * min(1.0, max(0.0, k))) for u, v in zip(c0, c1))
    return stops[-1][1]


def _rgb(hexcolour: str) -> tuple[int, int, int]:
    h = hexcolour.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def png(rows: list[list[tuple[int, int, int] | None]]) -> bytes:
    """An indexed-colour PNG, one pixel per cell (None: transparent)."""
    colours = sorted({c for r in rows for c in r if c is not None})
    index = {c: i + 1 for i, c in enumerate(colours)}  # 0 is the transparent entry
    if len(index) > 255:
        raise ValueError("a heatmap of more than 255 colours")

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\0" + bytes(0 if c is None else index[c] for c in r) for r in rows)
    plte = bytes([0, 0, 0]) + b"".join(bytes(c) for c in colours)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", len(rows[0]), len(rows), 8, 3, 0, 0, 0))
        + chunk(b"PLTE", plte)
        + chunk(b"tRNS", b"\0")
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def _heatmap(p: Plot, t: dict, url_of: Callable[[str], str]) -> None:
    z = t["z"]
    n, m = len(z), len(z[0])

    def edges(key: str, count: int) -> list[float]:
        if key in t and len(t[key]) == count + 1:
            return [float(v) for v in t[key]]
        start, step = t.get(key + "0", 0), t.get("d" + key, 1)
        return [start + (i - 0.5) * step for i in range(count + 1)]

    xe, ye = edges("x", m), edges("y", n)
    zmin, zmax = t["zmin"], t["zmax"]
    cols = sorted(range(m), key=lambda j: p.x.at((xe[j] + xe[j + 1]) / 2))
    rows = sorted(range(n), key=lambda i: -p.y.at((ye[i] + ye[i + 1]) / 2))  # top of the drawing first
    cells = [
        [
            None if z[i][j] is None else _scale_colour(t["colorscale"], (z[i][j] - zmin) / (zmax - zmin))
            for j in cols
        ]
        for i in rows
    ]
    data = png(cells)
    path = f"{FOLDER}/{hashlib.sha256(data).hexdigest()[:12]}.png"
    _files[path] = data
    x0, x1 = sorted(p.x.span(xe[0], xe[-1]))
    y0, y1 = sorted(p.y.span(ye[0], ye[-1]))
    # xlink:href, not href: Material's instant navigation re-sets every [href] of the page it fetched, and an
    # SVG image's href is read-only (its DOMParser copy parses <noscript> as elements).
    p.out.append(
        f'<image xlink:href="{escape(url_of(path))}" x="{_attr(p.pct(x0))}%" y="{_attr(p.px(y1))}" '
        f'width="{_attr(p.pct(x1 - x0))}%" height="{_attr((y1 - y0) * p.h)}" preserveAspectRatio="none" '
        'class="c9-static-cells"/>'
    )


def _path_in_box(p: Plot, d: str, xref: str, yref: str) -> str:
    """A shape's path ("M x,y V y H x L x,y", absolute) in the stretched viewBox's 0 … 1000 units."""
    out, x, y = [], 0.0, 0.0
    for cmd, args in _commands(d):
        if cmd in "ML":
            x, y = args
            out.append(f"{cmd}{_attr(1000 * p.ref('x', xref, x))},{_attr(1000 * (1 - p.ref('y', yref, y)))}")
        elif cmd == "V":
            (y,) = args
            out.append(f"V{_attr(1000 * (1 - p.ref('y', yref, y)))}")
        elif cmd == "H":
            (x,) = args
            out.append(f"H{_attr(1000 * p.ref('x', xref, x))}")
    return "".join(out)


def _commands(d: str):
    for m in re.finditer(r"([MLVH])\s*([-\d.,\s]+)", d):
        yield m.group(1), [float(v) for v in re.split(r"[\s,]+", m.group(2).strip())]


def _shape(p: Plot, s: dict) -> None:
    xref, yref = s.get("xref", "x"), s.get("yref", "y")
    line = s.get("line") or {}
    opacity = f' opacity="{s["opacity"]}"' if "opacity" in s else ""
    if s.get("type") == "path":
        p.lines.append(
            f'<path d="{_path_in_box(p, s["path"], xref, yref)}" fill="none" {_stroke(line, 1)} '
            f'vector-effect="non-scaling-stroke"{opacity}/>'
        )
        return
    x0, x1 = p.ref("x", xref, s["x0"]), p.ref("x", xref, s["x1"])
    y0, y1 = p.ref("y", yref, s["y0"]), p.ref("y", yref, s["y1"])
    if s.get("type") == "rect":
        a, b = sorted((x0, x1))
        lo, hi = sorted((y0, y1))
        p.out.append(
            f'<rect x="{_attr(p.pct(a))}%" y="{_attr(p.px(hi))}" width="{_attr(p.pct(b - a))}%" '
            f'height="{_attr((hi - lo) * p.h)}" fill="{escape(_colour(s.get("fillcolor"), "none"))}"{opacity}/>'
        )
    else:
        p.out.append(
            f'<line x1="{_attr(p.pct(x0))}%" x2="{_attr(p.pct(x1))}%" y1="{_attr(p.px(y0))}" '
            f'y2="{_attr(p.px(y1))}" {_stroke(line)}{opacity}/>'
        )


def _annotation(p: Plot, a: dict) -> str:
    x = p.pct(p.ref("x", a.get("xref", "x"), a["x"]))
    y = p.px(p.ref("y", a.get("yref", "y"), a["y"])) - a.get("yshift", 0)
    anchor = {"left": "start", "right": "end"}.get(a.get("xanchor"), "middle")
    y += {"bottom": -4, "top": FONT + 2}.get(a.get("yanchor"), FONT / 3)
    dx = {"start": 3, "end": -3}.get(anchor, 0)
    return (
        f'<text class="c9-static-note" x="{_attr(x)}%" dx="{dx}" y="{_attr(y)}" text-anchor="{anchor}">'
        f"{escape(a['text'])}</text>"
    )


def _values(traces: list[dict], axis: str) -> list:
    out = []
    for t in traces:
        if t.get("type") == "heatmap":
            continue
        out += list(t.get(axis) or [])
    return out


def _legend(traces: list[dict], layout: dict) -> str:
    if layout.get("showlegend") is False or len(traces) < 2:
        return ""
    items, seen = [], set()
    for t in traces:
        if (
            t.get("showlegend") is False
            or not t.get("name")
            or t["name"] in seen
            or t.get("type") == "heatmap"
        ):
            continue
        seen.add(t["name"])
        colour = escape(_colour((t.get("marker") or {}).get("color") or (t.get("line") or {}).get("color")))
        mode = t.get("mode", "")
        pattern = (t.get("marker") or {}).get("pattern") or {}
        if t.get("type") == "bar" and pattern.get("shape"):
            # The plot's own <pattern> (_bars) over the colour, KEY_TILES tiles across: one tile alone, cut by
            # a 13 px key, read as a blot or a flag rather than as dots or rules.
            size = pattern.get("size", 8)
            across, down = KEY_TILES
            key = (
                f'<svg class="c9-static-key c9-static-bar" viewBox="0 0 {size * across} {size * down}" '
                f'aria-hidden="true"><rect width="100%" height="100%" fill="{colour}"/>'
                f'<rect width="100%" height="100%" fill="url(#{pattern_id(pattern)})"/></svg>'
            )
        elif t.get("type") == "bar":
            key = f'<span class="c9-static-key c9-static-bar" style="background:{colour}"></span>'
        else:
            dash = "dashed" if (t.get("line") or {}).get("dash") in ("dash", "dot") else "solid"
            style = f"border-top:3px {dash} {colour}" if "lines" in mode else f"background:{colour}"
            key = f'<span class="c9-static-key c9-static-{"line" if "lines" in mode else "dot"}" style="{style}"></span>'
        items.append(f"<li>{key}{escape(t['name'])}</li>")
    return f'<ul class="c9-static-legend">{"".join(items)}</ul>' if items else ""


def svg(figure: dict, url_of: Callable[[str], str] = lambda path: path) -> str:
    """The figure's static drawing as HTML for a chart's box: ``<noscript>`` holding the title, the y-axis
    labels and the plot (two SVGs side by side) and the legend. ``url_of`` turns a file the build writes
    (a heatmap's PNG) into the address the page uses."""
    layout, traces = figure["layout"], figure["data"]
    bars = [t for t in traces if t.get("type") == "bar"]
    horizontal = bool(bars) and bars[0].get("orientation") == "h"
    xs, ys = _values(traces, "x"), _values(traces, "y")
    heat = [t for t in traces if t.get("type") == "heatmap"]
    if bars and layout.get("barmode") == "stack":  # the length axis must reach the stacks' tops
        tops: dict = {}
        for t in bars:
            for pos, n in zip(t["y"] if horizontal else t["x"], t["x"] if horizontal else t["y"]):
                tops[pos] = tops.get(pos, 0) + (n or 0)
        (xs if horizontal else ys).extend(tops.values())
    markers = any("markers" in t.get("mode", "") for t in traces if t.get("type", "scatter") == "scatter")
    x = Axis(layout.get("xaxis", {}), xs, bars=horizontal, padded=markers and not bars)
    y = Axis(layout.get("yaxis", {}), ys, bars=bool(bars) and not horizontal, padded=markers and not bars)
    if heat and "range" not in layout.get("xaxis", {}):
        raise ValueError("a heatmap's axes need their ranges (the block lab gives them)")
    margin = layout.get("margin", {})
    plot_h = max(MIN_PLOT, layout.get("height", 340) - margin.get("t", 20) - margin.get("b", 50) - 40)
    # room above the plot for the labels placed over it (paper y ≥ 1: "← 变成 0", a line's name)
    over = [
        (a["y"] - 1) * plot_h + a.get("yshift", 0) + FONT + 6
        for a in layout.get("annotations", [])
        if a.get("yref") == "paper" and a["y"] >= 1
    ]
    top = max([TOP] + over)
    p = Plot(x, y, top, plot_h)
    below = [s for s in layout.get("shapes", []) if s.get("layer") == "below"]
    above = [s for s in layout.get("shapes", []) if s.get("layer") != "below"]
    for s in below:
        _shape(p, s)
    # grid lines at the y ticks, the x axis's line
    yticks, xticks = y.ticks(), x.ticks()
    grid = "".join(
        f'<line class="c9-static-grid" x1="0" x2="100%" y1="{_attr(p.px(f))}" y2="{_attr(p.px(f))}"/>'
        for f, _ in yticks
    )
    p.out.insert(0, grid)
    for t in heat:
        _heatmap(p, t, url_of)
    if bars:
        _bars(p, bars, layout)
    for t in traces:
        if t.get("type", "scatter") == "scatter":
            _scatter(p, t)
    for s in above:
        _shape(p, s)
    notes = [_annotation(p, a) for a in layout.get("annotations", [])]
    height = top + plot_h + BOTTOM
    lines = (
        f'<svg x="0" y="{_attr(top)}" width="100%" height="{_attr(plot_h)}" viewBox="0 0 1000 1000" '
        f'preserveAspectRatio="none" overflow="visible">{"".join(p.lines)}</svg>'
        if p.lines
        else ""
    )
    ticks = "".join(
        f'<text class="c9-static-xtick" x="{_attr(p.pct(f))}%" y="{_attr(top + plot_h + 16)}" '
        f'text-anchor="middle">{escape(t)}</text>'
        for f, t in xticks
    )
    x_title = (layout.get("xaxis", {}).get("title") or {}).get("text", "")
    axis = (
        f'<line class="c9-static-axis" x1="0" x2="100%" y1="{_attr(top + plot_h)}" y2="{_attr(top + plot_h)}"/>'
        + ticks
        + (
            f'<text x="50%" y="{_attr(top + plot_h + 36)}" text-anchor="middle">{escape(x_title)}</text>'
            if x_title
            else ""
        )
    )
    plot = (
        f'<svg class="c9-static-plot" width="100%" height="{_attr(height)}" aria-hidden="true" '
        f'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">{"".join(p.out)}{lines}{axis}{"".join(notes)}</svg>'
    )
    y_title = (layout.get("yaxis", {}).get("title") or {}).get("text", "")
    label_w = max([text_width(t) for _, t in yticks] + [0]) + 8
    left = label_w + (FONT + 8 if y_title else 0)
    ylabels = "".join(
        f'<text class="c9-static-ytick" x="{_attr(left - 6)}" y="{_attr(p.px(f) + FONT / 3)}" '
        f'text-anchor="end">{escape(t)}</text>'
        for f, t in yticks
    )
    if y_title:
        cy = top + plot_h / 2
        ylabels += (
            f'<text x="{FONT}" y="{_attr(cy)}" text-anchor="middle" transform="rotate(-90 {FONT} {_attr(cy)})">'
            f"{escape(y_title)}</text>"
        )
    yaxis = (
        f'<svg class="c9-static-y" width="{_attr(left)}" height="{_attr(height)}" aria-hidden="true" '
        f'xmlns="http://www.w3.org/2000/svg">{ylabels}</svg>'
    )
    title = (layout.get("title") or {}).get("text", "")
    head = f'<p class="c9-static-title">{escape(title)}</p>' if title else ""
    return (
        f'<noscript><div class="c9-static">{head}<div class="c9-static-row">{yaxis}{plot}</div>'
        f"{_legend(traces, layout)}</div></noscript>"
    )
