"""Each Plotly chart's default state without JavaScript (hooks/static_charts.py): the build draws every chart
into its box inside <noscript>, from the very figure the page's script draws. Read back here from the built
pages as a reader reads a chart (lines and bars against their tick labels, heatmap cells from the PNG's own
pixels) and compared with the widget's build-time figure; then shown in Chromium with scripts off."""

from __future__ import annotations

import json
import re
import struct
import zlib
from pathlib import Path

import pytest
from conftest import new_page
from page_text import parse

from c9.base import palette
from c9.views import block_lab

PLOTLY_WIDGETS = {"ledger", "loss-scale", "repeated-update", "timeline", "lab-charts", "block-lab"}
SUP = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹−", "-0123456789-")


def widgets(site: Path):
    """(page, widget root node) for every widget with Plotly charts on every built page."""
    for html in sorted(site.rglob("index.html")):
        for node in parse(html.read_text(encoding="utf-8")).iter():
            if node.attrs.get("data-widget") in PLOTLY_WIDGETS:
                yield html, node


def charts(html: Path, root):
    """The widget's chart boxes, each with the figure the page's script draws into it (the block lab's
    heat maps: from the file its data-figures names, relative to the page `html`)."""
    name = root.attrs["data-widget"]
    boxes = [n for n in root.iter() if "c9-chart" in n.classes]
    view = json.loads(root.attrs["data-default"]) if root.attrs.get("data-default") else {}
    if name == "block-lab":
        views = json.loads(root.attrs["data-defaults"])
        figures = json.loads((html.parent / root.attrs["data-figures"]).read_text(encoding="utf-8"))
        return list(zip(boxes, [figures["abs_figure"]] + [figures[v["scheme"]] for v in views]))
    return list(zip(boxes, [view["figure"]])) if boxes else []


def drawing(box):
    """The static drawing in a chart's box: (the plot's <svg>, the y axis's <svg>) or None."""
    plot = next((n for n in box.iter() if "c9-static-plot" in n.classes), None)
    yaxis = next((n for n in box.iter() if "c9-static-y" in n.classes), None)
    inside_noscript = plot is not None and any(a.tag == "noscript" for a in _ancestors(plot))
    return (plot, yaxis) if inside_noscript else None


def _ancestors(n):
    while n.parent is not None:
        n = n.parent
        yield n


def number(text: str) -> float:
    """A tick label as a number: "1,500", "−0.5", or a power of ten "10⁻⁵"."""
    if re.fullmatch("10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+", text):
        return 10.0 ** int(text[2:].translate(SUP))
    return float(text.translate(SUP).replace(",", ""))


def fit(pairs):
    """A straight line through (drawn position, value) pairs: position → value."""
    (p0, v0), (p1, v1) = pairs[0], pairs[-1]
    return lambda p: v0 + (p - p0) * (v1 - v0) / (p1 - p0)


def x_scale(plot):
    ticks = [
        (float(t.attrs["x"].rstrip("%")), number(t.text()))
        for t in plot.iter()
        if "c9-static-xtick" in t.classes
    ]
    return fit(ticks)


def y_scale(plot, yaxis):
    grid = [float(g.attrs["y1"]) for g in plot.iter() if "c9-static-grid" in g.classes]
    labels = [number(t.text()) for t in yaxis.iter() if "c9-static-ytick" in t.classes]
    assert len(grid) == len(labels) >= 2
    return fit(list(zip(grid, labels)))


def test_every_plotly_chart_has_its_default_state_drawn_for_a_reader_without_scripts(built_site):
    """Reviewer: with JavaScript off, text and tables were complete but the Plotly charts were missing."""
    seen = {}
    for html, root in widgets(built_site):
        for box, _ in charts(html, root):
            assert drawing(box) is not None, (html.parent.name, root.attrs["data-widget"])
            seen[root.attrs["data-widget"]] = seen.get(root.attrs["data-widget"], 0) + 1
    assert set(seen) == PLOTLY_WIDGETS and sum(seen.values()) >= 15, seen


def test_lines_read_back_as_the_figures_data(built_site):
    """Lesson 2's repeated update: every line, read against the drawn tick labels, is the trace's data."""
    html = built_site / "lesson-2" / "index.html"
    root = next(
        r for h, r in widgets(built_site) if h == html and r.attrs["data-widget"] == "repeated-update"
    )
    ((box, figure),) = charts(html, root)
    plot, yaxis = drawing(box)
    to_x, to_y = x_scale(plot), y_scale(plot, yaxis)
    inner = next(n for n in plot.iter() if n.tag == "svg" and n.attrs.get("viewbox") == "0 0 1000 1000")
    top, height = float(inner.attrs["y"]), float(inner.attrs["height"])
    paths = [n for n in inner.iter() if n.tag == "path"]
    lines = [t for t in figure["data"] if "lines" in t["mode"]]
    assert len(paths) == len(lines) == 4
    for path, trace in zip(paths, lines):
        pts = [tuple(map(float, p.split(","))) for p in re.findall(r"[-\d.]+,[-\d.]+", path.attrs["d"])]
        xs = [to_x(a / 10) for a, _ in pts]
        ys = [to_y(top + b / 1000 * height) for _, b in pts]
        want = dict(zip(trace["x"], trace["y"]))
        span = max(max(t["y"]) for t in lines) - min(min(t["y"]) for t in lines)
        for x, y in zip(xs, ys):
            k = min(want, key=lambda key: abs(key - x))
            assert abs(k - x) < 0.01 * max(want), (trace["name"], x)
            if trace["line"].get("shape") != "hv":
                assert y == pytest.approx(want[k], abs=0.005 * span), (trace["name"], x)
        assert path.attrs["stroke"] == trace["line"]["color"]


def test_bars_read_back_as_the_figures_data(built_site):
    """Lesson 1's ledger: each stacked segment's length, against the drawn ticks, is the trace's value."""
    html, root = next(
        (h, r)
        for h, r in widgets(built_site)
        if h.parent.name == "lesson-1" and r.attrs["data-widget"] == "ledger"
    )
    ((box, figure),) = charts(html, root)
    plot, _ = drawing(box)
    to_x = x_scale(plot)
    patterns = {n.attrs["id"]: n for n in plot.iter() if n.tag == "pattern"}
    rects = iter([n for n in plot.iter() if n.tag == "rect" and n.parent.tag != "pattern"])
    values = [t["x"][0] for t in figure["data"]]
    top = max(values) * 4
    keys = {}  # legend name → the pattern its key is drawn with
    for item in (n for n in box.iter() if n.tag == "li"):
        fills = [
            n.attrs["fill"] for n in item.iter() if n.tag == "rect" and n.attrs["fill"].startswith("url(")
        ]
        keys[item.text().strip()] = fills[0][5:-1] if fills else None
        if fills:  # reader check: one tile, cut by the key's box, read as a blot; the key shows 6 × 3 tiles
            (key,) = [n for n in item.iter() if n.tag == "svg"]
            tile = patterns[fills[0][5:-1]]
            _, _, w, h = (float(v) for v in key.attrs["viewbox"].split())
            assert (w / float(tile.attrs["width"]), h / float(tile.attrs["height"])) == (6, 3), item.text()
    for trace in figure["data"]:
        rect = next(rects)
        x, w = float(rect.attrs["x"].rstrip("%")), float(rect.attrs["width"].rstrip("%"))
        assert to_x(x + w) - to_x(x) == pytest.approx(trace["x"][0], abs=0.003 * top), trace["name"]
        assert rect.attrs["fill"] == trace["marker"]["color"]
        shape = trace["marker"].get("pattern", {}).get("shape")
        if (
            shape
        ):  # its pattern over the same box, drawn from a tile of that shape, and the same in its legend key
            over = next(rects)
            assert {k: over.attrs[k] for k in ("x", "width")} == {k: rect.attrs[k] for k in ("x", "width")}
            tile = patterns[over.attrs["fill"][5:-1]]
            assert ("rotate" in tile.attrs.get("patterntransform", "")) == (shape in "/\\x"), trace["name"]
            assert any(n.tag == "circle" for n in tile.iter()) == (shape == "."), trace["name"]
            assert keys[trace["name"]] == tile.attrs["id"], trace["name"]
        else:
            assert keys[trace["name"]] is None, trace["name"]
    assert next(rects, None) is None
    assert len(patterns) == 7  # the ledger's seven shapes
    # the 80 GB card's dashed line, where the figure puts it
    (card,) = [n for n in plot.iter() if n.tag == "line" and n.attrs.get("stroke-dasharray")]
    assert to_x(float(card.attrs["x1"].rstrip("%"))) == pytest.approx(
        figure["layout"]["shapes"][0]["x0"], rel=0.005
    )


def read_png(data: bytes) -> list[list[tuple | None]]:
    """An indexed PNG's pixels, decoded here (not by the module that wrote it): RGB, None if transparent."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        chunks[kind] = chunks.get(kind, b"") + data[pos + 8 : pos + 8 + n]
        pos += 12 + n
    w, h, depth, colour_type = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert (depth, colour_type) == (8, 3)
    plte = [tuple(chunks[b"PLTE"][i : i + 3]) for i in range(0, len(chunks[b"PLTE"]), 3)]
    alpha = chunks.get(b"tRNS", b"")
    raw = zlib.decompress(chunks[b"IDAT"])
    rows = []
    for r in range(h):
        line = raw[r * (w + 1) : (r + 1) * (w + 1)]
        assert line[0] == 0  # no filter
        rows.append([None if i < len(alpha) and alpha[i] == 0 else plte[i] for i in line[1:]])
    return rows


def _rgb(css: str) -> tuple:
    h = palette.colour(css).lstrip("#")
    return tuple(int(h[i : i + 2], 16) for i in (0, 2, 4))


def test_heatmaps_are_the_figures_cells_pixel_for_pixel(built_site):
    """Lesson 4's block lab: each error map is a PNG of one pixel per number, token 0 at the top, whose
    colour is the colour of that number's error class; blank where the figure has none."""
    html = built_site / "lesson-4" / "index.html"
    root = next(r for h, r in widgets(built_site) if h == html and r.attrs["data-widget"] == "block-lab")
    colours = [_rgb(f"var(--c9-{role})") for role in block_lab.CLASS_ROLES]
    boxes = charts(html, root)
    assert len(boxes) == 1 + len(block_lab.SCHEMES)
    for box, figure in boxes[1:]:
        plot, _ = drawing(box)
        (image,) = [n for n in plot.iter() if n.tag == "image"]
        href = image.attrs["xlink:href"]
        assert not re.match(r"[a-z]+:", href), href  # a file of the site, never another origin
        pixels = read_png((html.parent / href).read_bytes())
        z = figure["data"][0]["z"]
        assert len(pixels) == block_lab.ROWS and {len(r) for r in pixels} == {block_lab.COLS}
        assert pixels == [[None if c is None else colours[c] for c in row] for row in z]
    # the |x| map: as many pixels as numbers, darker where |x| is larger
    plot, _ = drawing(boxes[0][0])
    (image,) = [n for n in plot.iter() if n.tag == "image"]
    pixels = read_png((html.parent / image.attrs["xlink:href"]).read_bytes())
    z = boxes[0][1]["data"][0]["z"]
    assert len(pixels) == len(z) and len(pixels[0]) == len(z[0])
    cells = [(z[i][j], sum(pixels[i][j])) for i in range(len(z)) for j in range(len(z[0]))]
    lo, hi = min(map(min, z)), max(map(max, z))
    light = {shade for x, shade in cells if x == lo}
    dark = {shade for x, shade in cells if x == hi}
    assert min(light) > max(dark)


def test_the_drawings_hold_no_script_and_fetch_nothing_from_elsewhere(built_site):
    """CSP-safe: no <script>, no event handler, no javascript: address; every address is a file of the site."""
    for html, root in widgets(built_site):
        for box, _ in charts(html, root):
            for n in box.iter():
                assert n.tag != "script"
                assert not any(k.startswith("on") for k in n.attrs), (html, n.tag, n.attrs)
                for k in ("href", "src", "xlink:href"):
                    if k in n.attrs:
                        assert not re.match(r"[a-z]+:", n.attrs[k]), (html, n.attrs[k])
                        assert (html.parent / n.attrs[k]).resolve().is_file(), (html, n.attrs[k])


@pytest.mark.parametrize("width", [390, 1280])
def test_without_scripts_each_chart_is_drawn_in_view(browser, site_server, width):
    """In Chromium with JavaScript off: every chart of lessons 2, 4 and 5 and the lab is drawn, as wide as
    its box and no wider than the screen, its text at least 10 px, its heatmap images loaded."""
    ctx, page = new_page(browser, viewport={"width": width, "height": 900}, java_script_enabled=False)
    try:
        for path in ("lesson-2/", "lesson-4/", "lesson-5/", "lab/"):
            page.goto(site_server.url + path)
            got = page.evaluate(
                """() => [...document.querySelectorAll('.c9-static')].map((s) => {
                    const r = s.getBoundingClientRect(), plot = s.querySelector('.c9-static-plot').getBoundingClientRect();
                    const small = [...s.querySelectorAll('text')].filter((t) => parseFloat(getComputedStyle(t).fontSize) < 10).length;
                    const images = [...s.querySelectorAll('image')].map((i) => i.getBBox().width > 0);
                    return {w: r.width, h: plot.height, plotW: plot.width, right: r.right, small, images};
                })"""
            )
            assert got, path
            for g in got:
                assert g["h"] >= 150 and g["plotW"] >= 0.4 * g["w"] and g["right"] <= width, (path, g)
                assert g["small"] == 0 and all(g["images"]), (path, g)
            # every heatmap's PNG was fetched (and only without scripts: see the next test)
            hrefs = page.evaluate(
                "() => new Set([...document.querySelectorAll('.c9-static image')].map((i) => i.href.baseVal)).size"
            )
            fetched = page.evaluate(
                "() => performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.png') && e.responseStatus === 200).length"
            )
            assert fetched >= hrefs, (path, fetched, hrefs)
            assert page.evaluate("() => document.scrollingElement.scrollWidth") <= width, path
    finally:
        ctx.close()


def test_with_scripts_the_drawings_cost_nothing_but_their_bytes(browser, site_server):
    """With JavaScript on, <noscript> is never parsed: no drawing in the page, no PNG fetched."""
    ctx, page = new_page(browser, python=False, viewport={"width": 1280, "height": 900})
    try:
        page.goto(site_server.url + "lesson-4/")
        page.wait_for_load_state("load")
        assert page.evaluate("() => document.querySelectorAll('.c9-static').length") == 0
        assert (
            page.evaluate(
                "() => performance.getEntriesByType('resource').filter((e) => e.name.includes('/static/')).length"
            )
            == 0
        )
        assert page.errors == [], page.errors
    finally:
        ctx.close()
