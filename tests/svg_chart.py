"""Reading a stacked-bar SVG (c9/views/stacked_bar.py) back as a reader would: bar lengths measured
against the axis's tick labels, not against the module's own scale."""

from __future__ import annotations

import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def _pct(v: str) -> float:
    assert v.endswith("%"), v
    return float(v[:-1])


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg"
    return root


def tick_value(text: str) -> float:
    """A tick label read as a number: "1,500", "0.5" or "4×10⁹"."""
    if "×10" in text:
        m, e = text.split("×10")
        return float(m) * 10 ** int(e.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")))
    return float(text.replace(",", ""))


def axis_scale(svg: str) -> tuple[float, float]:
    """(x% of the value 0, axis units per % of width), from the tick labels."""
    ticks = [
        (_pct(t.get("x")), tick_value(t.text))
        for t in parse(svg).iter(NS + "text")
        if t.get("class") == "c9-bar-tick"
    ]
    assert len(ticks) >= 2 and ticks[0][1] == 0
    (x0, v0), (x1, v1) = ticks[0], ticks[-1]
    return x0, (v1 - v0) / (x1 - x0)


def bar_values(svg: str) -> list[tuple[str, float]]:
    """Every segment as (data-key, length in axis units), top row first, left to right."""
    _, per_pct = axis_scale(svg)
    return [
        (r.get("data-key"), _pct(r.get("width")) * per_pct)
        for r in parse(svg).iter(NS + "rect")
        if r.get("data-key")
    ]


def bar_rows(svg: str) -> list[str]:
    """The row labels drawn above the bars (empty for a single unlabelled bar)."""
    return [t.text for t in parse(svg).iter(NS + "text") if t.get("class") == "c9-bar-row"]


def reference_line(svg: str) -> tuple[float, str] | None:
    """(value in axis units, label) of the dashed reference line, if any."""
    root = parse(svg)
    line = next((e for e in root.iter(NS + "line") if e.get("class") == "c9-bar-ref"), None)
    if line is None:
        return None
    x0, per_pct = axis_scale(svg)
    label = next(t.text for t in root.iter(NS + "text") if t.get("class") == "c9-bar-ref-label")
    return (_pct(line.get("x1")) - x0) * per_pct, label
