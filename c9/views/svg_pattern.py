"""Plotly's bar patterns (marker.pattern) as SVG tiles, for the drawings that are not Plotly's: lesson 5's
memory bar (c9/views/stacked_bar.py) and every chart's drawing for a reader without scripts
(hooks/static_charts.py). One tile per pattern, named by its content, so a page that draws a pattern twice
names one tile."""

from __future__ import annotations

import hashlib
import math
from html import escape

# The shapes as tiles: lines ("-", "|", and both, "+"), turned 45° for "/", "\\" and "x";
# "." a dot. ``solidity`` is the share of the tile the ink covers, as in Plotly.
_TURN = {"/": 45, "\\": -45, "x": 45}


def _n(v: float) -> str:
    return f"{v:.3f}".rstrip("0").rstrip(".")


def pattern_id(pattern: dict) -> str:
    """The tile's element id, from what it draws: "c9-pattern-" and 10 hex digits."""
    key = "|".join(str(pattern.get(k, "")) for k in ("shape", "fgcolor", "fgopacity", "size", "solidity"))
    return "c9-pattern-" + hashlib.sha1(key.encode()).hexdigest()[:10]


def pattern_def(pattern: dict) -> str:
    """One ``<pattern>`` element for a Plotly marker.pattern (shape, fgcolor, fgopacity, size, solidity)."""
    shape, size = pattern["shape"], pattern.get("size", 8)
    ink = escape(pattern.get("fgcolor") or "currentColor")
    paint = f'fill="{ink}" fill-opacity="{pattern.get("fgopacity", 1)}"'
    if shape == ".":
        r = size * math.sqrt(pattern.get("solidity", 0.3) / math.pi)
        body = f'<circle cx="{_n(size / 2)}" cy="{_n(size / 2)}" r="{_n(r)}" {paint}/>'
    else:
        w = size * pattern.get("solidity", 0.3)
        across = f'<rect x="0" y="{_n((size - w) / 2)}" width="{size}" height="{_n(w)}" {paint}/>'
        along = f'<rect x="{_n((size - w) / 2)}" y="0" width="{_n(w)}" height="{size}" {paint}/>'
        body = {"-": across, "|": along, "/": along, "\\": along}.get(shape, across + along)
    turn = f' patternTransform="rotate({_TURN[shape]})"' if shape in _TURN else ""
    return (
        f'<pattern id="{pattern_id(pattern)}" patternUnits="userSpaceOnUse" width="{size}" height="{size}"{turn}>'
        f"{body}</pattern>"
    )
