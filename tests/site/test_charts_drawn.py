"""What Python returns is what the reader sees, in any palette (headless Chromium, every page).

- Every trace of every chart's view is drawn, with all its points: at build time (the view in the
  widget's data-default) and after a Python answer (lesson 5's timeline with our small model, whose
  third trace, the lab's four measured snapshots, the front end once dropped).
- Text that points at a mark on the chart (「黑点」「虚线」「红色虚线」「红色」「橙色」 in a caption, a
  summary or a chart's label) has that mark on the chart.
- A palette switch at run time (Material's toggle) re-colours every chart and drawing: axis titles,
  ticks, labels and reference lines keep their contrast against the new background.
"""

from __future__ import annotations

import re

import pytest
from conftest import PYTHON_TIMEOUT, new_page, python_view
from playwright.sync_api import expect

from c9.base import palette

pytestmark = pytest.mark.browser

PAGES = ["", "lesson-1/", "lesson-2/", "lesson-3/", "lesson-4/", "fp4/", "lesson-5/", "lab/"]
# Drawn: Plotly's SVG is in, or the failure message (not the <noscript> drawing a page without scripts shows,
# which a page with scripts holds as text).
CHART_DRAWN = """(chart) => chart.querySelector('svg')
  || [...chart.childNodes].some((n) => n.nodeName !== 'NOSCRIPT' && n.textContent.trim())"""

# Each chart div beside the figure its widget's view holds: {drawn, view} per trace, as counts of points.
TRACES = """async () => {
  const points = (t) => (t.type === 'heatmap' ? (t.z || []).flat().length : (t.x || t.y || []).length);
  const out = [];
  for (const root of document.querySelectorAll('.c9-widget[data-default], .c9-widget[data-defaults]')) {
    const views = root.dataset.defaults ? JSON.parse(root.dataset.defaults) : [JSON.parse(root.dataset.default)];
    if (root.dataset.figures) { // the block lab's heat maps come in a file: the abs map, then one per scheme
      const figures = await (await fetch(new URL(root.dataset.figures, document.baseURI))).json();
      views.forEach((v) => { v.figure = figures[v.scheme]; });
      views[0].abs_figure = figures.abs_figure;
    }
    // A chart marked data-figure draws that key of the first view (the block lab's |x| map); the
    // others draw the views' `figure`, in order.
    const charts = [...root.querySelectorAll('.js-plotly-plot')].filter((c) => !c.closest('[data-figure]'));
    views.forEach((v, i) => {
      if (!v.figure) return;
      const gd = charts[i];
      out.push({widget: root.dataset.widget, view: v.figure.data.map(points),
                drawn: gd ? gd.data.map(points) : null});
    });
    for (const el of root.querySelectorAll('[data-figure]')) {
      const gd = el.querySelector('.js-plotly-plot');
      out.push({widget: root.dataset.widget, view: views[0][el.dataset.figure].data.map(points),
                drawn: gd ? gd.data.map(points) : null});
    }
  }
  return out;
}"""


def _open(page, url):
    page.goto(url)
    for chart in page.locator(".c9-js .c9-chart").all():
        if chart.is_visible():
            chart.scroll_into_view_if_needed()
            page.wait_for_function(CHART_DRAWN, arg=chart.element_handle(), timeout=30_000)


def test_the_lab_models_measured_snapshots_are_drawn_as_black_dots(page, site_server):
    _open(page, site_server.url + "lesson-5/")
    tl = page.locator('[data-widget="timeline"]')
    tl.locator('select[name="model"]').select_option("lab")
    want = python_view("timeline", model="lab")
    expect(tl.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    assert "黑点" in want["summary"] and len(want["figure"]["data"]) == 3
    drawn = tl.locator(".js-plotly-plot").evaluate(
        "gd => gd.data.map(t => [t.name, (t.x || []).length, t.marker && t.marker.color])"
    )
    # Python names each colour by role; the page draws the role's colour on its (light) palette.
    marker = lambda t: t.get("marker", {}).get("color")
    assert drawn == [
        [t["name"], len(t["x"]), marker(t) and palette.colour(marker(t))] for t in want["figure"]["data"]
    ]
    assert drawn[2] == ["实测", 4, "#111111"]
    # …and on the chart, four markers in that trace (Plotly draws one path per point).
    assert tl.locator(".scatterlayer .trace").nth(2).locator("path.point").count() == 4
    tl.get_by_role("button", name="单步").click()  # the step line speaks the chart's unit (MiB here)
    expect(tl.locator(".c9-now")).to_have_text(re.compile(r"^第 0 步（共 10 步）：.*，14\.1 MiB。$"))
    # The caption names only what this chart draws: no card line for the small model.
    assert (
        "虚线" not in tl.locator("figcaption").inner_text()
        and "黑点" in tl.locator("figcaption").inner_text()
    )
    assert page.errors == []


# A phrase in a widget's caption, summary or chart label, and what must then be on its chart.
MARKS = r"""() => {
  const rgb = (c) => {
    if (!c) return null;
    const m = String(c).match(/^#([0-9a-f]{3}|[0-9a-f]{6})$/i);
    if (m) { const h = m[1].length === 3 ? [...m[1]].map((x) => x + x).join('') : m[1];
             return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)); }
    const n = String(c).match(/rgba?\(([^)]*)\)/);
    return n ? n[1].split(',').slice(0, 3).map(Number) : null;
  };
  const is = {
    black: (c) => { const v = rgb(c); return v && Math.max(...v) < 60; },
    red: (c) => { const v = rgb(c); return v && v[0] > 150 && v[1] < 110 && v[2] < 110; },
    orange: (c) => { const v = rgb(c); return v && v[0] > 180 && v[1] > 100 && v[1] < 180 && v[2] < 90; },
  };
  const out = [];
  for (const root of document.querySelectorAll('.c9-widget')) {
    const text = [root.querySelector('figcaption'), root.querySelector('.c9-summary'), root.querySelector('[role=img]')]
      .map((e) => (e ? e.textContent + ' ' + (e.getAttribute('aria-label') || '') : '')).join(' ');
    const gd = root.querySelector('.js-plotly-plot');
    const svgDash = [...root.querySelectorAll('svg line, svg path')].filter((l) => getComputedStyle(l).strokeDasharray !== 'none');
    const dashes = [];   // [colour] of every dashed line drawn
    if (gd) {
      for (const s of gd.layout.shapes || []) if (s.line && s.line.dash && s.line.dash !== 'solid') dashes.push(s.line.color);
      for (const t of gd.data) if (t.line && t.line.dash && t.line.dash !== 'solid' && (t.x || []).length) dashes.push(t.line.color);
    }
    for (const l of svgDash) dashes.push(getComputedStyle(l).stroke);
    const fills = gd ? (gd.layout.shapes || []).map((s) => s.fillcolor).filter(Boolean) : [];
    const dots = gd ? gd.data.filter((t) => /markers/.test(t.mode || '') && (t.x || []).length).map((t) => t.marker && t.marker.color) : [];
    const check = (phrase, ok) => { if (text.includes(phrase)) out.push({widget: root.dataset.widget, phrase, ok}); };
    check('黑点', dots.some(is.black));
    check('虚线', dashes.length > 0);
    check('红色虚线', dashes.some(is.red));
    check('橙色虚线', dashes.some(is.orange));
    check('左边红色', fills.some(is.red));
    check('橙色是次正规区', fills.some(is.orange));
  }
  return out;
}"""


def test_text_that_points_at_a_mark_has_it_on_the_chart_in_a_live_view(page, site_server):
    """The timeline's lab model, live: its summary promises black dots. (Every page's build-time views:
    tests/site/test_layout.py.)"""
    _open(page, site_server.url + "lesson-5/?tl.model=lab")
    tl = page.locator('[data-widget="timeline"]')
    expect(tl).to_have_attribute("data-state", "live", timeout=PYTHON_TIMEOUT)
    checked = page.evaluate(MARKS)
    assert all(c["ok"] for c in checked), checked
    assert "黑点" in {c["phrase"] for c in checked if c["widget"] == "timeline"}, checked
    assert page.errors == []


# ---- The palette switched at run time -----------------------------------------------------
CONTRAST = r"""() => {
  const parse = (c) => { const n = String(c).match(/rgba?\(([^)]*)\)/); return n ? n[1].split(',').map(Number) : null; };
  const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
                               return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const bg = parse(getComputedStyle(document.body).backgroundColor);
  const out = {bg, texts: 0, lines: 0, low: []};
  const texts = document.querySelectorAll(
    '.js-plotly-plot :is(.xtitle, .ytitle, .xtick text, .ytick text, .legendtext, .gtitle, .annotation-text), article svg:not(.js-plotly-plot svg) text');
  for (const t of texts) {
    if (!t.getClientRects().length || !t.textContent.trim()) continue;
    const fill = parse(getComputedStyle(t).fill);
    if (!fill || (fill.length > 3 && fill[3] === 0)) continue;
    out.texts += 1;
    const r = ratio(fill, bg);
    if (r < 4.5) out.low.push(`text "${t.textContent.trim().slice(0, 16)}" ${getComputedStyle(t).fill} ${r.toFixed(2)}`);
  }
  // Reference lines (the 80 GB card, the probe's 2⁻²⁴): Plotly's shapes and the SVG bar's line, 3:1 (WCAG 1.4.11).
  for (const l of document.querySelectorAll('.js-plotly-plot .shapelayer path, .c9-bar-svg .c9-bar-ref, .c9-svg .c9-fl-axis, .c9-svg rect[stroke]')) {
    const cs = getComputedStyle(l), stroke = parse(cs.stroke);
    if (!stroke || !l.getClientRects().length || !(parseFloat(cs.strokeWidth) > 0) || Number(cs.strokeOpacity) === 0) continue;
    out.lines += 1;
    const r = ratio(stroke, bg);
    if (r < 3) out.low.push(`line ${getComputedStyle(l).stroke} ${r.toFixed(2)}`);
  }
  // The charts' own lines (curves, steps), 3:1 as well.
  for (const l of document.querySelectorAll('.js-plotly-plot .scatterlayer .js-line')) {
    const stroke = parse(getComputedStyle(l).stroke);
    if (!stroke || !l.getClientRects().length || !l.getAttribute('d')) continue;
    out.lines += 1;
    const r = ratio(stroke, bg);
    if (r < 3) out.low.push(`curve ${getComputedStyle(l).stroke} ${r.toFixed(2)}`);
  }
  return out;
}"""


@pytest.mark.parametrize("path", ["lesson-1/", "lesson-2/", "lesson-5/", "fp4/", "lab/"])
def test_charts_follow_a_palette_switched_at_run_time(browser, site_server, path):
    ctx, page = new_page(browser, python=False, viewport={"width": 1280, "height": 900}, color_scheme="light")
    try:
        _open(page, site_server.url + path)
        before = page.evaluate(CONTRAST)
        assert before["low"] == [] and before["texts"] > 10, before
        page.locator('form[data-md-component="palette"] label:visible').click()  # Material's moon toggle
        expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
        page.wait_for_timeout(500)
        after = page.evaluate(CONTRAST)
        assert after["bg"] != before["bg"] and after["texts"] == before["texts"], (before, after)
        assert after["low"] == [], after["low"]
        page.locator('form[data-md-component="palette"] label:visible').click()  # and back to light
        expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "default")
        page.wait_for_timeout(500)
        assert page.evaluate(CONTRAST)["low"] == []
        assert page.errors == []
    finally:
        ctx.close()


def test_every_row_of_a_live_view_is_in_its_table(page, site_server):
    """Tables drawn from a view show each of its rows, no more: lesson 5 with our small model (the memory
    bar has no master weights then; the timeline has other key moments)."""
    _open(page, site_server.url + "lesson-5/")
    for name, field, rows in (
        ("memory-bar", "segments", ".c9-segments tbody tr:not([hidden])"),
        ("timeline", "marks", ".c9-marks tbody tr"),
    ):
        w = page.locator(f'[data-widget="{name}"]')
        w.locator('select[name="model"]').select_option("lab")
        want = python_view(name, model="lab")
        expect(w.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
        shown = w.locator(rows)
        expect(shown).to_have_count(len(want[field]))
        texts = [r["text"] for r in want[field]]
        assert [
            shown.nth(i).locator("td").last.inner_text()
            if name == "timeline"
            else shown.nth(i).locator("td").first.inner_text()
            for i in range(len(texts))
        ] == texts
    assert page.errors == []


# Plotly's chart boxes (each holds its static drawing in <noscript>; the memory bar is an SVG of its own).
PLOTLY_BOX = "article .c9-widget .c9-chart:has(> noscript)"
CHART_HEIGHTS = (
    f"() => [...document.querySelectorAll('{PLOTLY_BOX}')].map((c) => c.getBoundingClientRect().height)"
)
