"""Every page, laid out and drawn once per width, then measured by every whole-page check.

Two widths: a phone (390 × 844 CSS px, touch, 2× pixels, dark palette) and a desktop (1280 × 900, light). Each page is opened
once per width (by test_each_page_opens_and_draws_whole, each page within its own time limit), every chart
drawn and every table's scroll cue made (scroll_through), as a reader who only reads (no Python
started: conftest.READS_ONLY), and the checks below read that same page: the page never scrolls sideways and every control of a widget is at least
44 × 44 CSS px to hit (phone); charts stay legible (text ≥ 10 px, no label running into another); every
trace of every build-time view is drawn; text that points at a mark has it on the chart; what a page
opens on needs only the first font slice; every Chinese text can fall back to the web font; axe finds no serious violation, on both palettes; the bit flippers' digits keep their contrast; tooltips of figures near
the edges stay in the viewport; plot areas, tables and drawings are legible; each exponent is drawn by
one font (desktop). The checks that change a page (open every <details>, wrap text in spans) run last."""

from __future__ import annotations

import re

import pytest
from conftest import evaluate_within, new_page, python_view, reading_context, scroll_through
from test_charts_drawn import CHART_DRAWN, CHART_HEIGHTS, MARKS, TRACES
from test_figure_provenance import EDGE_FIGURES, TOOLTIP_COLOURS
from test_fonts import FONT_STACKS, ON_SCREEN, SCRIPTS, WRAP_SCRIPTS, _faces, _shown
from test_site_quality import AXE, BIT_PAGES, bits_keep_their_contrast, page_paths

PAGES = ["", "lesson-1/", "lesson-2/", "lesson-3/", "lesson-4/", "fp4/", "lesson-5/", "lab/"]
PHONE = 390  # the laid-out pages' phone
WIDTH = 375  # the narrowest phone, for the checks with a page of their own
MIN_TARGET = 44  # CSS px (WCAG 2.5.5; Apple's and Google's touch guidelines say the same)
MIN_FONT = 10  # CSS px, as the glyphs are drawn (SVG text is scaled with its drawing)

# The controls of our widgets, as the reader's finger meets them.
# - A radio button or checkbox is hit through its <label> too (clicking the label toggles it), so its hit
#   box is the input's box joined with its label's.
# - Exempt: `.fig`, the figures quoted in running text (they open their formula on focus or hover). They
#   are words inside a sentence, and WCAG 2.5.8 exempts inline targets whose size is set by the line of
#   text; making them 44 px tall would break the paragraph. None of them sits inside a widget today, but a
#   widget summary may quote one.
# - tabindex="-1" marks an element that scripts focus, not a target (except on real controls).
TARGETS = """(min) => {
  const sel = ':is(button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"]))';
  const out = [];
  for (const el of document.querySelectorAll(`.c9-widget ${sel}, .c9-widget${sel}`)) {
    if (el.closest('.fig, .c9-sr, .c9-pt-sr')) continue;
    const cs = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || cs.visibility === 'hidden' || el.type === 'hidden') continue;
    let [x0, y0, x1, y1] = [r.left, r.top, r.right, r.bottom];
    if (el.type === 'radio' || el.type === 'checkbox') {
      for (const lab of el.labels || []) {
        const b = lab.getBoundingClientRect();
        x0 = Math.min(x0, b.left); y0 = Math.min(y0, b.top); x1 = Math.max(x1, b.right); y1 = Math.max(y1, b.bottom);
      }
    }
    const w = x1 - x0, h = y1 - y0;
    if (w < min - 0.5 || h < min - 0.5) {
      const name = el.getAttribute('aria-label') || el.name || el.textContent.trim().slice(0, 16) || el.className;
      out.push(`${el.closest('[data-widget]')?.dataset.widget} ${el.tagName.toLowerCase()}${el.type ? '[' + el.type + ']' : ''} `
               + `"${name}" ${Math.round(w)}×${Math.round(h)}`);
    }
  }
  return out;
}"""

# Charts: Plotly's (div.js-plotly-plot, several SVG layers) and the SVGs the build draws. For each text,
# its drawn font size and its ink box: the text's box in its own coordinates (so rotated labels work),
# trimmed of the line gap above and below the glyphs, then mapped to the page.
CHARTS = """(minFont) => {
  const charts = [...document.querySelectorAll('.js-plotly-plot')];
  for (const svg of document.querySelectorAll('article svg')) {
    if (!svg.closest('.js-plotly-plot') && !svg.parentElement.closest('svg') && svg.querySelector('text')
        && svg.getClientRects().length) charts.push(svg);
  }
  const ink = (t) => {
    const b = t.getBBox(), m = t.getScreenCTM();
    const pts = [[b.x + 0.5, b.y + 0.15 * b.height], [b.x + b.width - 0.5, b.y + 0.15 * b.height],
                 [b.x + 0.5, b.y + 0.9 * b.height], [b.x + b.width - 0.5, b.y + 0.9 * b.height]]
      .map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
    const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  };
  const meet = (a, b) => Math.min(a[2], b[2]) - Math.max(a[0], b[0]) > 1 && Math.min(a[3], b[3]) - Math.max(a[1], b[1]) > 1;
  const role = (t) => {
    for (const c of ['legendtext', 'xtitle', 'ytitle', 'gtitle', 'annotation-text']) if (t.classList.contains(c)) return c;
    const tick = t.closest('.xtick, .ytick'); if (tick) return tick.classList.contains('xtick') ? 'xtick' : 'ytick';
    return t.getAttribute('class') || 'text';
  };
  const out = [];
  for (const chart of charts) {
    const name = chart.closest('[data-widget]')?.dataset.widget || chart.closest('figure')?.className || 'svg';
    const texts = [...chart.querySelectorAll('text')].filter((t) => t.textContent.trim() && t.getBBox().width > 0
      && getComputedStyle(t).visibility !== 'hidden' && getComputedStyle(t).display !== 'none');
    if (!texts.length) { out.push(`${name}: no text drawn`); continue; }
    const items = texts.map((t) => {
      const m = t.getScreenCTM();
      return {t, s: t.textContent.trim().slice(0, 20), role: role(t), box: ink(t),
              px: parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b)};
    });
    for (const it of items) if (it.px < minFont - 0.05) out.push(`${name}: "${it.s}" is ${it.px.toFixed(1)} px`);
    const plotly = chart.classList.contains('js-plotly-plot');
    for (let i = 0; i < items.length; i++) for (let j = i + 1; j < items.length; j++) {
      const a = items[i], b = items[j];
      // Plotly spaces the tick labels of one axis itself (it tilts them when they crowd, and a tilted
      // label's box is no guide to its ink), so those pairs are left to it.
      if (plotly && a.role === b.role && /tick$/.test(a.role)) continue;
      if (meet(a.box, b.box)) out.push(`${name}: "${a.s}" (${a.role}) runs into "${b.s}" (${b.role})`);
    }
    if (plotly) {   // the legend as a whole against the x-axis title (an earlier phone bug)
      const legend = chart.querySelector('.legend'), xtitle = chart.querySelector('.xtitle');
      if (legend && xtitle) {
        const r = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
        if (meet(r(legend), r(xtitle))) out.push(`${name}: the legend covers the x-axis title`);
      }
    }
  }
  return {count: charts.length, problems: out};
}"""

WIDTHS = {
    # The phone reads in the dark palette, the desktop in the light one: axe and the bits' contrast see both.
    "phone": dict(
        viewport={"width": PHONE, "height": 844},
        is_mobile=True,
        has_touch=True,
        device_scale_factor=2,
        color_scheme="dark",
    ),
    "desktop": dict(viewport={"width": 1280, "height": 900}, color_scheme="light"),
}


class LaidOut:
    """The eight pages at one width, each opened once (when a check first asks for it), drawn whole, and kept
    open for the checks. Its pages start no Python: nothing here needs it (conftest.READS_ONLY)."""

    def __init__(self, browser, base: str, name: str):
        self.name, self.width, self.base = name, WIDTHS[name]["viewport"]["width"], base
        # No service worker: it would serve the widgets' scripts from its cache, past the page's routes.
        self.ctx = reading_context(browser, service_workers="block", **WIDTHS[name])
        self.pages = {}

    def page(self, path: str):
        if path not in self.pages:
            page = self.ctx.new_page()
            page.errors = []
            page.on("pageerror", lambda e, page=page: page.errors.append(str(e)))
            page.on("console", lambda m, page=page: m.type == "error" and page.errors.append(m.text))
            page.bring_to_front()
            # Each widget's and task's script held back until the page's fonts are in (their heights then are
            # what a reader on a slow machine sees before the scripts arrive), then Plotly and the code editor
            # until every widget has mounted (test_nothing_moves_when_the_widgets_scripts_arrive).
            held = {"widgets": [], "vendor": []}

            def hold(kind):
                return lambda route: held[kind].append(route) if held[kind] is not None else route.continue_()

            def release(kind):
                routes, held[kind] = held[kind], None
                for route in routes:
                    route.continue_()

            page.route("**/assets/js/widgets/*.js", hold("widgets"))
            page.route(re.compile(r"/vendor/(plotly|codemirror)/"), hold("vendor"))
            page.goto(self.base + path)
            page.wait_for_function("() => document.fonts.status === 'loaded'")
            page.heights_before_scripts = page.evaluate(HEIGHTS)
            release("widgets")
            page.wait_for_function(ALL_MOUNTED, timeout=30_000)
            page.heights_at_mount = page.evaluate(HEIGHTS)
            page.chart_boxes_before_plotly = page.evaluate(CHART_HEIGHTS)
            release("vendor")
            page.wait_for_function("() => document.fonts.status === 'loaded'")
            _draw_charts(page)
            page.first_screen = page.evaluate(ON_SCREEN)  # before any scrolling: what the page opens on
            scroll_through(page)  # the checks below look at the whole page at once, every table's cue made
            self.pages[path] = page
        return self.pages[path]

    def each(self):
        """(path, page) for every page, each brought to the front first: Chromium draws frames (and so runs
        the observers that place the tables' scroll cues and draw the parts) only for the page in front."""
        for path in PAGES:
            page = self.page(path)
            page.bring_to_front()
            yield path, page

    def errors(self) -> dict:
        return {path: page.errors for path, page in self.pages.items() if page.errors}


@pytest.fixture(scope="module", params=list(WIDTHS))
def laid_out(request, browser, site_server):
    pages = LaidOut(browser, site_server.url, request.param)
    yield pages
    pages.ctx.close()


def at(name):
    """Run this check at one width only."""
    return pytest.mark.parametrize("laid_out", [name], indirect=True)


@pytest.fixture(scope="module")
def phone(browser):
    """A fresh phone page, for the checks that change what they measure."""
    ctx, page = new_page(
        browser,
        python=False,
        viewport={"width": WIDTH, "height": 812},
        is_mobile=True,
        has_touch=True,
        device_scale_factor=2,
    )
    yield page
    ctx.close()


# Every widget whose charts Plotly draws has said they are all drawn (charts.js: data-chart, set once the
# last draw, and the fit of its plot area after it, is done).
ALL_DRAWN = """() => [...document.querySelectorAll('.c9-widget')].filter((w) => w.querySelector('.js-plotly-plot'))
  .every((w) => w.dataset.chart === 'drawn')"""


def _draw_charts(page) -> None:
    """Charts are drawn as they come near the screen: stop at each visible one until it is drawn, then until
    every widget has drawn all of its charts; back to the top after."""
    for chart in page.locator(".c9-js .c9-chart").all():
        if chart.is_visible():
            chart.scroll_into_view_if_needed()
            page.wait_for_function(CHART_DRAWN, arg=chart.element_handle(), timeout=30_000)
    page.wait_for_function(ALL_DRAWN, timeout=30_000)
    page.evaluate("() => window.scrollTo(0, 0)")


def _open(page, url: str) -> None:
    if page.url != url:
        page.goto(url)
    page.wait_for_function("() => document.fonts.status === 'loaded'")
    _draw_charts(page)
    scroll_through(page)  # the checks below look at the whole page at once, every table's cue made


def test_the_pages_checked_are_all_the_pages(built_site):
    assert sorted(PAGES) == sorted(page_paths(built_site))


@pytest.mark.parametrize("path", PAGES)
def test_each_page_opens_and_draws_whole(laid_out, path):
    """Each page at each width, opened and drawn for the checks below (each with its own time limit, so that
    the checks find their pages open): every visible chart drawn, no script or console error."""
    page = laid_out.page(path)
    assert page.evaluate(ALL_DRAWN)
    assert page.errors == []


# Every widget and prediction task of the article has mounted, or said why it could not (course.js).
ALL_MOUNTED = """() => [...document.querySelectorAll('article :is([data-widget], .admonition.task)')]
  .every((w) => w.dataset.mounted || w.dataset.state)"""
# The height of every widget and prediction task of the article, by kind and place.
HEIGHTS = """() => Object.fromEntries([...document.querySelectorAll('article :is(.c9-widget, .admonition.task)')]
  .map((w, i) => [`${i} ${w.dataset.widget || 'task'}`, Math.round(w.getBoundingClientRect().height * 10) / 10]))"""


def test_nothing_moves_when_the_widgets_scripts_arrive(laid_out):
    """A widget or task laid out before its script arrives is as tall as once it has mounted: on a slow
    machine the script comes after the reader's jump to a heading below it, and a task that grew by its
    radios and check button (115 px), an exercise by its buttons and text (24 px) or lesson 5's formula
    by its term cards (1,420 px on a phone) moved the heading away."""
    moved, checked = {}, 0
    for path, page in laid_out.each():
        before, after = page.heights_before_scripts, page.heights_at_mount
        assert after.keys() == before.keys(), path
        checked += len(before)
        diff = {k: (h, after[k]) for k, h in before.items() if abs(h - after[k]) > 0.5}
        if diff:
            moved[path] = diff
    assert checked >= 50 and not moved, (laid_out.name, checked, moved)


def test_a_chart_box_holds_its_charts_height_before_plotly_draws(laid_out):
    """Plotly is fetched and each chart drawn as the reader comes near it; the empty box holds the height the
    chart is drawn at, so nothing below it moves then (every box had 300 px: lesson 1's ledger grew by 240,
    each of lesson 4's seven heat maps by 33, the lab's charts by 60; on a phone, where a legend wraps, the
    ledger then grew by 195 px more and the lab's memory chart by 110)."""
    grown, checked = [], 0
    for path, page in laid_out.each():
        empty, drawn = page.chart_boxes_before_plotly, page.evaluate(CHART_HEIGHTS)
        assert len(empty) == len(drawn), (path, empty, drawn)
        checked += len(drawn)
        grown += [(path, i, e, d) for i, (e, d) in enumerate(zip(empty, drawn)) if abs(e - d) > 1]
    assert checked >= 15 and not grown, (laid_out.name, checked, grown)


@at("phone")
def test_no_sideways_scroll_and_every_widget_control_is_big_enough(laid_out):
    failures = {}
    checked = 0
    for path, phone in laid_out.each():
        width = phone.evaluate("() => document.scrollingElement.scrollWidth")
        small = phone.evaluate(TARGETS, MIN_TARGET)
        checked += phone.evaluate(
            "() => document.querySelectorAll('.c9-widget :is(button, input, select)').length"
        )
        if width > laid_out.width:
            failures.setdefault(path, []).append(f"page is {width} px wide")
        if small:
            failures.setdefault(path, []).extend(
                small[:10] + ([f"… {len(small) - 10} more"] if len(small) > 10 else [])
            )
    assert failures == {}, failures
    assert checked > 100  # the bits, sliders, selects and buttons of every widget were there to check
    assert laid_out.errors() == {}


def test_no_sideways_scroll_with_scripts_off(browser, site_server):
    """With JavaScript off, lesson 5's long title in the header (its hidden second copy, slid right
    until Material's script shows it) made the page 3 px wider than a 390 px phone."""
    ctx, page = new_page(browser, viewport={"width": WIDTH, "height": 812}, java_script_enabled=False)
    wide = {}
    for path in PAGES:
        page.goto(site_server.url + path)
        width = page.evaluate("() => document.scrollingElement.scrollWidth")
        if width > WIDTH:
            wide[path] = width
    ctx.close()
    assert wide == {}


def test_controls_shown_only_on_a_choice_fit_the_phone_too(phone, site_server):
    """QA: the block lab's 「自己输入」 box (hidden until chosen, cols="40") made lesson 4 410 px wide."""
    _open(phone, site_server.url + "lesson-4/")
    phone.locator('[data-widget="block-lab"] input[name="source"][value="typed"]').check()
    phone.locator('[data-widget="block-lab"] textarea').wait_for(state="visible")
    assert phone.evaluate("() => document.scrollingElement.scrollWidth") <= WIDTH


# Each widget's caption brought to just under the header, where Material put 「回到页面顶部」 (the header's height
# + 16 px), the page scrolled down and back up so that the button shows: then every caption, control, summary
# and chart text of the widget that is on screen (below the header), and the part of it that is, is not under
# the button's box. Also: the button is in the header, 44 px or more, and on none of the header's own items.
BACK_TO_TOP = """async (i) => {
    const frame = () => new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(r)); setTimeout(r, 100); });
    const top = document.querySelector('.md-top'), header = document.querySelector('.md-header').getBoundingClientRect();
    const w = document.querySelectorAll('article .c9-widget')[i];
    const y = scrollY + w.getBoundingClientRect().top - header.bottom - 20;
    scrollTo(0, y + 400); await frame(); scrollTo(0, y); await frame();
    for (let k = 0; k < 30 && (top.hidden || getComputedStyle(top).opacity !== '1'); k++) await frame();
    if (top.hidden) return {shown: false};
    const b = top.getBoundingClientRect(), meet = (r, clipTop) => {
        const t = Math.max(r.top, clipTop, b.top), bottom = Math.min(r.bottom, innerHeight, b.bottom);
        return Math.min(r.right, b.right) - Math.max(r.left, b.left) > 0 && bottom - t > 0;
    };
    const covered = [];
    for (const el of w.querySelectorAll('figcaption, caption, button, input, select, textarea, label, summary, text, .c9-summary, .c9-status')) {
        if (!el.getClientRects().length || getComputedStyle(el).visibility === 'hidden') continue;
        if ([...el.getClientRects()].some((r) => r.width && meet(r, header.bottom))) {
            covered.push(`${w.dataset.widget} ${el.tagName.toLowerCase()}: ${el.textContent.trim().slice(0, 16)}`);
        }
    }
    const items = [...document.querySelectorAll('.md-header__inner > *, .md-header__topic')].filter((e) => e.getClientRects().length
        && !e.contains(top)).map((e) => e.getBoundingClientRect()).filter((r) => r.width && r.height);
    return {shown: true, covered, box: [b.left, b.top, b.right, b.bottom], header: [header.top, header.bottom],
            onHeaderItem: items.filter((r) => meet(r, -Infinity)).length};
}"""


def test_back_to_top_covers_no_widget_caption_or_control(laid_out):
    """Reader check: Material's 「回到页面顶部」, shown once a reader scrolls back up, floated over the article
    just under the header and covered the figure captions and chart text that passed beneath it (1280 and
    390 px). Now it sits in the header's own slot: on every page, for every widget brought under the header,
    the button shows, lies in the header, is 44 px or more, meets no header item, and covers nothing of the
    widget; its words are its tooltip (it shows only the arrow)."""
    covered, widgets = [], 0
    for path, page in laid_out.each():
        for i in range(page.locator("article .c9-widget").count()):
            got = evaluate_within(page, BACK_TO_TOP, i)
            assert got["shown"], (path, i)
            left, top, right, bottom = got["box"]
            assert top >= got["header"][0] - 0.5 and bottom <= got["header"][1] + 0.5, (path, got)
            assert right - left >= 44 and bottom - top >= 44 and got["onHeaderItem"] == 0, (path, got)
            covered += [f"{path} {c}" for c in got["covered"]]
            widgets += 1
        assert (
            page.get_attribute(".md-top", "title") == page.text_content(".md-top").strip() == "回到页面顶部"
        )
        # In the Tab order where it is drawn: after the header's own controls, before the page's navigation
        # and article (it came after the footnotes). The order is the document's: nothing here sets a tabindex.
        assert page.evaluate(
            """() => { const top = document.querySelector('.md-top');
            const after = (a, b) => Boolean(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_PRECEDING);
            return after(top, document.querySelector('.md-header'))
                && after(document.querySelector('.md-container'), top)
                && [...document.querySelectorAll('[tabindex]')].every((e) => Number(e.tabIndex) <= 0); }"""
        ), path
        page.evaluate("() => scrollTo(0, 0)")
    assert covered == [] and widgets >= 20, (widgets, covered[:12])
    assert laid_out.errors() == {}


def test_charts_are_legible(laid_out):
    """At both widths (on a desktop the E2M1 line's "±0" ran into "0.5")."""
    failures = {}
    charts = 0
    for path, page in laid_out.each():
        found = page.evaluate(CHARTS, MIN_FONT)
        charts += found["count"]
        if found["problems"]:
            failures[path] = found["problems"]
    assert failures == {}, failures
    assert charts >= 15  # every Plotly chart and every drawn SVG on the eight pages was measured
    assert laid_out.errors() == {}


# Tick labels Plotly drew but hid: by default it hides a label that would stick out of the chart's box
# (ticklabeloverflow "hide past div"), so a right margin too narrow for the last label drops it silently.
HIDDEN_TICKS = """() => [...document.querySelectorAll('.js-plotly-plot')].flatMap((plot) =>
  [...plot.querySelectorAll('.xtick text, .ytick text')]
    .filter((t) => t.textContent && getComputedStyle(t).display === 'none')
    .map((t) => ({widget: plot.closest('.c9-widget')?.dataset.widget, tick: t.textContent})))"""


def test_no_tick_label_is_hidden_for_want_of_room(laid_out):
    """At 390 and 1280 px the block lab's channel axes stopped at 192 of 256: the label at the right edge
    did not fit a right margin of 8 px."""
    hidden = {path: found for path, page in laid_out.each() if (found := page.evaluate(HIDDEN_TICKS))}
    assert hidden == {}


# Each caption of a table that scrolls sideways: its width against its scroll box's, and where it stands once
# the box is scrolled to its end (put back after).
CAPTIONS = """() => [...document.querySelectorAll('.c9-widget caption')].flatMap((c) => {
  let box = c.closest('table');
  while (box && !(box.scrollWidth > box.clientWidth + 1 && getComputedStyle(box).overflowX !== 'visible')) {
    box = box.parentElement.closest('.c9-widget *');
  }
  if (!box || !c.getClientRects().length) return [];
  // the fade at the cut edge (.c9-more-right, 2.5rem) while columns are out of view on the right
  const fade = box.classList.contains('c9-more-right') ? 2.5 * parseFloat(getComputedStyle(document.documentElement).fontSize) : 0;
  const right = c.getBoundingClientRect().right - box.getBoundingClientRect().left;
  const was = box.scrollLeft;
  box.scrollLeft = box.scrollWidth;
  const at = c.getBoundingClientRect(), edge = box.getBoundingClientRect();
  box.scrollLeft = was;
  return [{table: c.closest('table').className, caption: c.textContent.slice(0, 12), width: Math.round(at.width),
           box: box.clientWidth, left: Math.round(at.left - edge.left), clear: box.clientWidth - fade - right}];
})"""


@at("phone")
def test_a_scrolling_tables_caption_stays_in_its_box(laid_out):
    """At 390 px the MX/NV table's caption ran 825 px wide and lesson 5's 「激活·按式 1」 626 px in a 310 px box:
    the reader scrolled sideways to read a sentence, which then left with the columns. Later: its last
    characters lay under the fade at the box's cut edge."""
    seen = []
    for path, page in laid_out.each():
        for c in page.evaluate(CAPTIONS):
            seen.append(c["table"])
            assert c["width"] <= c["box"] and abs(c["left"]) <= 1 and c["clear"] >= -1, (path, c)
    assert {"c9-mn-table", "c9-act-eq1"} <= set(seen), seen


# Each field a reader types into whose text is under 16 px: a phone's browser zooms the page into it.
SMALL_FIELDS = """() => [...document.querySelectorAll(
    'article :is(input:not([type=radio], [type=checkbox], [type=range], [type=file], [type=hidden]), select, textarea, [contenteditable=true])')]
  .filter((e) => parseFloat(getComputedStyle(e).fontSize) < 16)
  .map((e) => `${e.closest('[data-widget]')?.dataset.widget} ${e.name}: ${getComputedStyle(e).fontSize}`)"""


@at("phone")
def test_a_field_reads_at_16px_so_a_phone_does_not_zoom(laid_out):
    """The bit flipper's and the repeated update's boxes were 13.3 px (a field's default), the config box
    15 px and the code editors 13.6 px: tapping one zooms a phone's page, which the reader then has to undo."""
    small = {path: found for path, page in laid_out.each() if (found := page.evaluate(SMALL_FIELDS))}
    assert small == {}


# Each box with a scroll cue, scrolled to its end and back: how far its top moved on the page, in px, and its
# caption's height before and at the end.
CUE_JUMPS = """async () => {
  const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const out = [];
  for (const cue of document.querySelectorAll('.c9-scroll-cue:not([hidden])')) {
    const box = cue.nextElementSibling, caption = box.querySelector('caption');
    const at = () => [box.getBoundingClientRect().top + scrollY, caption ? caption.getBoundingClientRect().height : 0];
    const [top, cap] = at();
    box.scrollLeft = box.scrollWidth;
    await frames();
    const [endTop, endCap] = at();
    box.scrollLeft = 0;
    await frames();
    out.push({table: box.querySelector('table')?.className || box.className, moved: endTop - top, caption: [cap, endCap]});
  }
  return out;
}"""


@at("phone")
def test_a_table_scrolled_to_its_end_stays_where_it_is(laid_out):
    """At 390 px the MX/NV table jumped 23 px up when scrolled to its end: its cue went from 「还有 3 列在右边…」
    on two lines to one line, and its caption, no longer kept clear of the fade, from two lines to one."""
    seen, moved = [], []
    for path, page in laid_out.each():
        for t in evaluate_within(page, CUE_JUMPS):
            seen.append(t["table"])
            if abs(t["moved"]) > 0.5 or abs(t["caption"][0] - t["caption"][1]) > 0.5:
                moved.append((path, t))
    assert len(seen) >= 5 and moved == [], moved


# Each widget table, or the box it scrolls in, that is wider than the room it has.
SCROLLING_TABLES = """() => [...document.querySelectorAll('.c9-widget table')].filter((t) => t.getClientRects().length)
  .flatMap((t) => {
    const box = t.scrollWidth > t.clientWidth + 1 ? t : t.parentElement;
    return box.scrollWidth > box.clientWidth + 1 ? [{table: t.className, over: box.scrollWidth - box.clientWidth}] : [];
  })"""


@at("desktop")
def test_at_1280_px_no_lesson_table_scrolls(laid_out):
    """The MX/NV table scrolled by 18 px at 1280 px (its 「每个数几位」 sentence on one line): the reader
    scrolled to see the NVFP4 columns. The lab's measurement tables still scroll there (seven columns of
    MiB to four decimals, the fewest at which their rows add up): left as they are."""
    found = {
        path: t
        for path, page in laid_out.each()
        if (t := [x for x in page.evaluate(SCROLLING_TABLES) if "c9-lab-table" not in x["table"]])
    }
    assert found == {}


# Each choice of each menu on the page, measured in the menu's own font, against the room the closed menu
# gives its text (its width less padding and Chromium's arrow, 20 px).
MENU_CHOICES = """() => [...document.querySelectorAll('select')].filter((s) => s.getClientRects().length)
  .flatMap((s) => [...s.options].map((o) => {
    const cs = getComputedStyle(s), probe = document.createElement('span');
    Object.assign(probe.style, {fontFamily: cs.fontFamily, fontSize: cs.fontSize, fontWeight: cs.fontWeight,
      whiteSpace: 'pre', position: 'absolute', visibility: 'hidden'});
    probe.textContent = o.textContent;
    document.body.append(probe);
    const width = probe.getBoundingClientRect().width;
    probe.remove();
    return {menu: s.name, choice: o.textContent, width: Math.round(width),
            room: Math.round(s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20)};
  }))"""


@at("phone")
def test_a_closed_menu_shows_its_whole_choice(laid_out):
    """At 390 px lesson 1's menu read 「ZeRO 论文（16 字节）：2Ψ + 2Ψ + KΨ，K =」 and lesson 5's
    「Transformer Engine MXFP8（块缩放，Blackw」: a closed menu cuts its text where the box ends."""
    seen = []
    for path, page in laid_out.each():
        for c in page.evaluate(MENU_CHOICES):
            seen.append(c["menu"])
            assert c["width"] <= c["room"], (path, c)
    assert {"convention", "recipe", "rule", "model", "preset"} <= set(seen), seen


# Elements whose own text holds Chinese and that are drawn slanted.
SLANTED_CHINESE = r"""() => [...document.querySelectorAll('body *')].filter((el) =>
  [...el.childNodes].some((n) => n.nodeType === 3 && /[\u4e00-\u9fff]/.test(n.textContent))
  && getComputedStyle(el).fontStyle !== 'normal').map((el) => el.tagName + ': ' + el.textContent.slice(0, 20))"""


@at("desktop")
def test_no_chinese_text_is_slanted(laid_out):
    """Material sets figure captions in italic, which slanted every widget's caption, and a Chinese title in
    *…* was slanted too: Chinese has no italic; titles take 《》."""
    slanted = {path: found for path, page in laid_out.each() if (found := page.evaluate(SLANTED_CHINESE))}
    assert slanted == {}


# Each widget table's row headers (the pinned column): the width their text gets, in characters of their font.
ROW_HEADS = """() => [...document.querySelectorAll('.c9-widget table tr > th:first-child[scope=row]')]
  .filter((th) => th.getClientRects().length).map((th) => {
    const cs = getComputedStyle(th);
    const width = th.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    // The header's text line by line, as drawn: each character goes to the line at its top.
    const lines = new Map(), walk = document.createTreeWalker(th, NodeFilter.SHOW_TEXT), range = document.createRange();
    for (let node; (node = walk.nextNode());) {
      for (let i = 0; i < node.length; i++) {
        range.setStart(node, i); range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (rect) { const top = Math.round(rect.top); lines.set(top, (lines.get(top) || '') + node.data[i]); }
      }
    }
    return {table: th.closest('table').className, head: th.textContent.slice(0, 12),
            chars: Math.round(10 * width / parseFloat(cs.fontSize)) / 10,
            lines: [...lines.entries()].sort((a, b) => a[0] - b[0]).map(([, t]) => t.trim()).filter(Boolean)};
  })"""


@at("phone")
def test_a_pinned_row_header_holds_five_characters_a_line(laid_out):
    """At 390 px 「每个数几位」 ran to three lines (每个 / 数几 / 位) and a recipe name to five."""
    narrow, seen = [], set()
    for path, page in laid_out.each():
        for h in page.evaluate(ROW_HEADS):
            seen.add(h["table"].split()[0])
            if h["chars"] < 5:
                narrow.append((path, h))
    assert narrow == []
    assert {"c9-ledger-bars", "c9-mn-table", "c9-bl-table"} <= seen, seen


@at("phone")
def test_no_row_header_leaves_one_character_on_a_line(laid_out):
    """At 390 px the block lab's 「每 128×128 一个缩放」 broke as 每 / 128×128 / 一个缩放, lesson 1's recipe as
    「纯 BF16 + / AdamW，随机舍 / 入」, lesson 5's rows as 「dropout 掩 / 码」. (A header of one character, 「V」,
    is one line.)"""
    lone = [
        (path, h["head"], h["lines"])
        for path, page in laid_out.each()
        for h in page.evaluate(ROW_HEADS)
        if len(h["lines"]) > 1 and any(len(line) == 1 for line in h["lines"])
    ]
    assert lone == [], "\n".join(map(str, lone))


# Each text of a bar chart that leaves its <svg>, by how many px, and each tick label less than 4 px from the
# next one.
BAR_TEXT_OUT = """() => [...document.querySelectorAll('svg.c9-bar-svg')].filter((svg) => svg.getClientRects().length)
  .flatMap((svg) => { const box = svg.getBoundingClientRect();
    const out = [...svg.querySelectorAll('text')].map((t) => { const r = t.getBoundingClientRect();
      return {text: t.textContent, out: Math.max(box.left - r.left, r.right - box.right)}; })
      .filter((t) => t.out > 0.25);
    const ticks = [...svg.querySelectorAll('text.c9-bar-tick')].map((t) => t.getBoundingClientRect());
    const near = ticks.slice(1).map((r, i) => ({text: svg.querySelectorAll('text.c9-bar-tick')[i + 1].textContent,
      gap: r.left - ticks[i].right})).filter((t) => t.gap < 4);
    return [...out, ...near]; })"""


# The memory bar's chart swapped for the one Python draws for other controls (put back after).
SWAP_BAR = """(svg) => { const old = document.querySelector('[data-widget="memory-bar"] svg.c9-bar-svg');
  const html = old.outerHTML; old.outerHTML = svg; return html; }"""


def test_a_bar_charts_labels_stay_inside_it(laid_out):
    """A reader check: on lesson 5 at 390 px the axis's last label, 「800」, ran 0.7 px past the chart's right
    edge, and at s = 1,048,576, b = 1,024 「10×10⁹」 ran 13.5 px past it (3.9 px at 1280 px) and read 「10×1」.
    The next: ended at its line, the last label ran into its neighbour (「50,00060,000」 at s = 2,048)."""
    out = {path: found for path, page in laid_out.each() if (found := page.evaluate(BAR_TEXT_OUT))}
    page = laid_out.page("lesson-5/")
    page.bring_to_front()
    for s, b in [(1048576, 1024), (131072, 8), (64, 2), (2048, 1024), (32768, 1024), (1048576, 3)]:
        before = page.evaluate(SWAP_BAR, python_view("memory-bar", s=s, b=b)["chart"])
        if found := page.evaluate(BAR_TEXT_OUT):
            out[f"s = {s}, b = {b}"] = found
        page.evaluate(SWAP_BAR, before)
    assert out == {}


# Every block of text drawn (a table's head row kept for screen readers only is a 1 px box): its own text,
# line by line; text inside a nested block of these kinds counts for that block.
TEXT_BLOCKS = (
    "article :is(p, li, dd, th, td, caption, figcaption, summary, label, legend, h1, h2, h3, h4),"
    " .md-nav--secondary .md-nav__link"
)
BLOCK_LINES = """(sel) => [...document.querySelectorAll(sel)]
  .filter((el) => !el.closest('thead') || el.closest('thead').getBoundingClientRect().height > 1).map((el) => {
    const lines = new Map(), walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT), range = document.createRange();
    for (let node; (node = walk.nextNode());) {
      if (node.parentElement.closest(sel) !== el || node.parentElement.closest('.katex, sup, .c9-sr')) continue;
      for (let i = 0; i < node.length; i++) {
        range.setStart(node, i); range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (rect && rect.width) { const mid = Math.round((rect.top + rect.height / 2) / 6); lines.set(mid, (lines.get(mid) || '') + node.data[i]); }
      }
    }
    return [...lines.entries()].sort((a, b) => a[0] - b[0]).map(([, t]) => t.trim()).filter(Boolean);
  }).filter((lines) => lines.length > 1)"""
LONE = re.compile(r"[（「『]?[\u4e00-\u9fff][）」』，。；：？！、]*")


def test_no_text_leaves_one_chinese_character_on_a_line(laid_out):
    """At 390 px 96 lines held one character and its punctuation: paragraphs ending 「…怎 / 样？」, the
    config fold 「…从文件读 / 入」, the block lab's column head 每个 / 数几 / 位, the lab's 「第 1 / 步」 and
    「Mixtral / （混合专 / 家）」, the index's 「…随 s² / 涨；」 (a mid line, before a long word). Then headings
    (「…的编解码 / 器」) and the table of contents (「…都留 / 着」)."""
    lone = [
        (path, lines)
        for path, page in laid_out.each()
        for lines in page.evaluate(BLOCK_LINES, TEXT_BLOCKS)
        if any(LONE.fullmatch(line) for line in lines)
    ]
    assert lone == [], "\n".join(map(str, lone))


# The collapsed borders on either side of each pinned cell of a widget table, in px: the cell's own left and
# right and its neighbour's left.
PINNED_SIDES = """() => [...document.querySelectorAll('.c9-widget table tr > :first-child')]
  .filter((c) => getComputedStyle(c).position === 'sticky' && getComputedStyle(c.closest('table')).borderCollapse === 'collapse')
  .map((c) => ({table: c.closest('table').className, cell: c.textContent.slice(0, 8),
    sides: [getComputedStyle(c).borderLeftWidth, getComputedStyle(c).borderRightWidth,
            c.nextElementSibling ? getComputedStyle(c.nextElementSibling).borderLeftWidth : '0px']}))
  .filter((c) => c.sides.some((w) => w !== '0px'))"""


@at("phone")
def test_nothing_scrolled_shows_beside_a_pinned_cell(laid_out):
    """Reader checks at 390 px: scrolled sideways, the MX/NV table showed a red 「0」 left of 「0.05」 and a
    character right of 「每个数几位」. Half of a collapsed border lies outside the pinned cell and is not covered
    by it, so the columns scrolled under it show through; a pinned cell has no side borders (its rule on the
    right is its own shadow)."""
    found = {path: c for path, page in laid_out.each() if (c := page.evaluate(PINNED_SIDES))}
    assert found == {}


# For each widget table with a pinned first column: each row's rule, in CSS px from the table's top, and the x
# of a point just inside the pinned cell and inside its neighbour (their left padding: no text there).
ROW_RULES = """(t) => {
  const box = t.getBoundingClientRect(), rows = [...t.querySelectorAll('tr')]
    .filter((r) => r.cells.length > 1 && r.cells[1].getClientRects().length);
  return rows.slice(1).map((r) => {
    const [pin, next] = [r.cells[0].getBoundingClientRect(), r.cells[1].getBoundingClientRect()];
    return {row: r.cells[0].textContent.trim().slice(0, 10), y: next.top - box.top,
            xs: [pin.left - box.left + 3, next.left - box.left + 3]};
  });
}"""


def test_a_pinned_columns_rules_are_its_rows_rules(laid_out):
    """Reader checks at 390 px: the pinned column's rules between rows were doubled on some rows and missing on
    every other row of lesson 5's memory table, and off its row's rule by a pixel elsewhere. Read from the
    screen: at each row's rule, the pixel just inside the pinned cell matches the one just inside its
    neighbour (both a rule, drawn once)."""
    from png_pixels import grey

    scale = 2 if laid_out.name == "phone" else 1
    off, checked, lines = [], 0, 0
    for path, page in laid_out.each():
        tables = page.locator(".c9-widget table:not(.c9-pt-grid)")
        for i in range(tables.count()):
            t = tables.nth(i)
            if (
                not t.is_visible()
                or t.evaluate("(t) => getComputedStyle(t.rows[0].cells[0]).position") != "sticky"
            ):
                continue
            t.scroll_into_view_if_needed()
            png = t.screenshot(animations="disabled")
            px, height = grey(png), int.from_bytes(png[20:24], "big")
            for r in t.evaluate(ROW_RULES):
                assert (r["y"] + 2.5) * scale <= height, (path, r, height)
                # the column of pixels from a pixel above the rule to 2.5 px below it, just inside the pinned cell
                # and just inside its neighbour: one rule, drawn once and in line, reads the same in both
                ys = range(max(0, round((r["y"] - 1) * scale)), round((r["y"] + 2.5) * scale))
                pin, nb = ([round(px(round(x * scale), y)) for y in ys] for x in r["xs"])
                checked, lines = checked + 1, lines + (max(nb) - min(nb) > 8)
                if any(abs(a - b) > 8 for a, b in zip(pin, nb)):
                    off.append((path, r["row"], pin, nb))
    assert checked > 40 and lines > checked / 2, (checked, lines)  # the rules are seen at all
    assert off == [], "\n".join(map(str, off))


# Each ruled widget table whose last row shown has no rule under it.
OPEN_BOTTOMS = """() => [...document.querySelectorAll('.c9-widget table:not(.c9-pt-grid)')]
  .filter((t) => t.getClientRects().length).flatMap((t) => {
    const rows = [...t.rows].filter((r) => r.getClientRects().length && r.cells.length);
    const last = rows.at(-1)?.cells[0];
    if (!last || getComputedStyle(last).borderTopWidth === '0px') return [];  // an unruled table
    return getComputedStyle(last).borderBottomWidth === '0px' ? [t.className] : [];
  })"""


def test_the_last_row_shown_closes_the_table(laid_out):
    """Reader check: lesson 5's parts table hides 6 of its 14 rows by default, and the bottom rule belonged to
    the last row, hidden: the table's frame was open at the bottom."""
    found = {path: t for path, page in laid_out.each() if (t := page.evaluate(OPEN_BOTTOMS))}
    assert found == {}


def test_every_trace_of_every_build_time_view_is_drawn(laid_out):
    seen = []
    for path, page in laid_out.each():
        for chart in evaluate_within(page, TRACES):
            assert chart["drawn"] == chart["view"], (path, chart)
            seen.append(chart["widget"])
    assert len(seen) >= 15 and {"timeline", "ledger", "lab-charts", "block-lab", "loss-scale"} <= set(seen)


def test_text_that_points_at_a_mark_has_it_on_the_chart(laid_out):
    """The build-time views; lesson 5 with the lab's model, live: tests/site/test_charts_drawn.py."""
    checked = []
    for path, page in laid_out.each():
        for c in page.evaluate(MARKS):
            assert c["ok"], (path, c)
            checked.append((path, c["widget"], c["phrase"]))
    assert {"虚线", "红色虚线", "左边红色", "橙色是次正规区"} <= {p for _, _, p in checked}, checked


def test_the_first_screen_of_every_page_needs_the_first_slice_only(laid_out, built_site):
    """What a page shows when it opens, on a phone and a desktop, is drawn from the first slice, the one the
    head asks for before the page is laid out: the build picks it by where text stands in the page
    (hooks/fonts.py; counting a figure's hidden formula, 1,500 characters missed 「报粒」 at 1280 px). The text
    is read as each page opened, every widget mounted and no scrolling yet (LaidOut.page)."""
    noto = [codes for _, family, codes in _faces(built_site) if family == "Noto Sans SC"]
    later = set().union(*noto[1:])
    missing = {}
    for path, page in laid_out.each():
        assert len(page.first_screen) > 500, (path, page.first_screen)
        if {ord(c) for c in page.first_screen} & later:
            missing[path] = "".join(sorted({c for c in page.first_screen if ord(c) in later}))
    assert missing == {}, missing


def test_every_chinese_text_can_fall_back_to_the_web_font(laid_out):
    """Every element that shows Chinese (prose, code blocks, chart labels, drawings) has the web font in its
    computed font stack: the lab's code block fell back to a system font (boxes)."""
    problems, seen = {}, 0
    for path, page in laid_out.each():
        found = page.evaluate(FONT_STACKS)
        seen += found["n"]
        if found["out"]:
            problems[path] = found["out"][:8]
    assert problems == {}, problems
    assert seen > 500
    code = laid_out.page("lab/").locator("article pre code").filter(has_text="#").first  # 「自己跑一遍」
    assert "Noto Sans SC" in code.evaluate("e => getComputedStyle(e).fontFamily")


@at("desktop")
def test_axe_finds_no_serious_or_critical_violation(laid_out):
    """axe-core on every page as a reader who scrolled through it has it (what is off screen is drawn only
    then); axe is evaluated into the page, so the page keeps its Content-Security-Policy."""
    axe = AXE.read_text(encoding="utf-8")
    failures = {}
    scheme = "slate" if laid_out.name == "phone" else "default"
    for path, page in laid_out.each():
        assert page.get_attribute("body", "data-md-color-scheme") == scheme, path
        page.evaluate(axe)
        result = evaluate_within(page, "async () => await axe.run(document, {resultTypes: ['violations']})")
        bad = [
            (v["id"], v["impact"], len(v["nodes"]), v["nodes"][0]["target"])
            for v in result["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        if bad:
            failures[path] = bad
    assert failures == {}, failures
    assert laid_out.errors() == {}


def test_the_bit_flippers_digits_keep_their_contrast(laid_out):
    """axe skips one-character text, so the bit flippers' digits are read here: light on the desktop, dark on
    the phone. (On slate, Material's indigo buttons had read 2.3:1 and the evolution map's stage links 3.4:1:
    axe on the phone, above, reads the dark palette.)"""
    scheme = "dark" if laid_out.name == "phone" else "light"
    for path, page in laid_out.each():
        if path in BIT_PAGES:
            bits_keep_their_contrast(page, path, scheme)


def test_tooltips_of_figures_near_both_edges_stay_in_the_viewport(laid_out):
    """The figures nearest the left and right edges of the text column, and the last ones of a page: each
    one's tooltip, shown by keyboard focus, lies inside the viewport (it ran off a phone)."""
    width = laid_out.width
    checked, bad = 0, []
    for path, page in laid_out.each():
        figs = page.locator("article .fig")
        for i in page.evaluate(EDGE_FIGURES, width):
            fig = figs.nth(i)
            fig.focus()
            tip = fig.locator(".fig-how")
            tip.wait_for(state="visible")
            evaluate_within(  # focus draws the figure's part of the page if it was not drawn yet
                page,
                "() => new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(r)); setTimeout(r, 100); })",
            )
            fig_box, tip_box = fig.bounding_box(), tip.bounding_box()
            checked += 1
            if tip_box["x"] < 0 or tip_box["x"] + tip_box["width"] > width + 0.5:
                bad.append(f"{path} {fig.get_attribute('data-fig')}: {tip_box}")
            # it opens under its figure, not somewhere else on the page
            assert tip_box["y"] >= fig_box["y"], (path, fig_box, tip_box)
            fig.blur()
    assert checked >= 40 and not bad, bad


def test_chart_check_catches_an_overlap_and_small_text(phone, site_server):
    """The checks above can fail: a legend moved onto the x-axis title and a 7 px tick are reported."""
    _open(phone, site_server.url + "lesson-1/")
    evaluate_within(
        phone,
        """async () => {
        const plot = document.querySelector('[data-widget="ledger"] .js-plotly-plot');
        await Plotly.relayout(plot, {'legend.yref': 'paper', 'legend.y': 0, 'legend.yanchor': 'top',
                                     'legend.xref': 'paper', 'legend.x': 0, 'xaxis.tickfont.size': 7});
    }""",
    )
    problems = phone.evaluate(CHARTS, MIN_FONT)["problems"]
    assert any("legend covers the x-axis title" in p for p in problems), problems
    assert any(" is 7.0 px" in p for p in problems), problems
    phone.evaluate("""() => { const s = document.querySelector('[data-widget="ledger"] select').style;
                              s.setProperty('min-height', '0', 'important'); s.setProperty('height', '30px', 'important'); }""")
    small = phone.evaluate(TARGETS, MIN_TARGET)
    assert (
        len(small) == 1 and small[0].startswith("ledger select[select-one]") and small[0].endswith("×30")
    ), small


# ---- Legible at 390 px and at 1280 px: plot areas, tables, drawings ----------------------------------
MIN_PLOT = 150  # CSS px of plot area, whatever the legend takes (charts.js grows a chart to 180)

PLOTS = """(minPlot) => [...document.querySelectorAll('.js-plotly-plot')].filter((gd) => gd.getClientRects().length).map((gd) => {
  const name = gd.closest('[data-widget]')?.dataset.widget;
  const plot = gd._fullLayout._size.h;
  const legend = gd.querySelector('.legend')?.getBoundingClientRect().height || 0;
  return plot >= minPlot && plot >= legend ? null : `${name}: plot area ${Math.round(plot)} px under a ${Math.round(legend)} px legend`;
})"""

# A table either fits its column, or it scrolls in its own box with a visible cue above the box and its
# first column pinned while the rest scrolls under it. The boxes are found by what they do, not by the
# rule course.js uses to place its cue: every box around the table that hides part of it (overflow not
# visible and content wider than the box). Taking the nearest scroll box, as course.js did, found
# Material's Markdown tables themselves (overflow:auto, never wider than themselves), so tables that their
# wrapper (.md-typeset__scrollwrap) cut mid-word at the screen's edge passed with no cue.
TABLES = """() => {
  const out = []; let n = 0;
  const screen = document.documentElement.clientWidth;
  for (const table of document.querySelectorAll('article table')) {
    if (!table.getClientRects().length) continue;
    n += 1;
    const name = (table.closest('[data-widget]')?.dataset.widget || 'page') + ' "'
      + (table.caption?.textContent || table.rows[0]?.textContent || '').trim().slice(0, 16) + '"';
    const hiding = [];
    for (let el = table; el && el !== document.body; el = el.parentElement) {
      if (getComputedStyle(el).overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1) hiding.push(el);
    }
    if (!hiding.length) {
      if (table.getBoundingClientRect().right > screen + 1) out.push(`${name}: wider than the page`);
      continue;
    }
    const cue = hiding[0].previousElementSibling;
    if (!cue?.classList.contains('c9-scroll-cue') || cue.hidden || !cue.getClientRects().length || !/滑动/.test(cue.textContent)) {
      out.push(`${name}: wider than its box, no scroll cue`);
    }
    if (hiding.length > 1) out.push(`${name}: ${hiding.length} boxes scroll it`);
    const first = table.rows[table.rows.length - 1].cells[0];
    const before = first.getBoundingClientRect().left;
    hiding[0].scrollLeft = 120;
    const moved = first.getBoundingClientRect().left - before;
    hiding[0].scrollLeft = 0;
    if (Math.abs(moved) > 1) out.push(`${name}: the first column scrolls away`);
  }
  return {n, out};
}"""

# Text in two cells side by side keeps a gap (「56.296.7357」 was three cells without padding).
RUN_TOGETHER = """(minGap) => {
  const out = [];
  // The visible text's box (a cell's clipped screen-reader text is not drawn).
  const ink = (cell) => {
    let [l, t, r, b] = [Infinity, Infinity, -Infinity, -Infinity];
    const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      if (!n.textContent.trim() || n.parentElement.closest('.c9-sr, .c9-pt-sr')) continue;
      const range = document.createRange(); range.selectNodeContents(n);
      const k = range.getBoundingClientRect();
      if (!k.width) continue;
      l = Math.min(l, k.left); t = Math.min(t, k.top); r = Math.max(r, k.right); b = Math.max(b, k.bottom);
    }
    return r > l ? {left: l, top: t, right: r, bottom: b, width: r - l} : {width: 0};
  };
  for (const table of document.querySelectorAll('article table')) {
    if (!table.getClientRects().length) continue;
    for (const row of table.rows) {
      const cells = [...row.cells].filter((c) => c.textContent.trim());
      for (let i = 1; i < cells.length; i++) {
        const a = ink(cells[i - 1]), b = ink(cells[i]);
        if (!a.width || !b.width || Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) < 2) continue;
        if (b.left - a.right < minGap) {
          out.push(`"${cells[i - 1].textContent.trim().slice(0, 12)}" | "${cells[i].textContent.trim().slice(0, 12)}": ${(b.left - a.right).toFixed(1)} px`);
        }
      }
    }
  }
  return out;
}"""

# Every label of a drawing is inside what the reader can see of it: the drawing's box, clipped by any
# scrolling or clipping box around it and by the screen.
SVG_LABELS = """() => {
  const out = []; let n = 0;
  const svgs = [...document.querySelectorAll('article svg')].filter((s) => !s.parentElement.closest('svg') && s.getClientRects().length
    && s.querySelector('text'));
  for (const svg of svgs) {
    n += 1;
    let [l, t, r, b] = (({left, top, right, bottom}) => [left, top, right, bottom])(svg.getBoundingClientRect());
    for (let el = svg.parentElement; el && el !== document.body; el = el.parentElement) {
      if (getComputedStyle(el).overflowX !== 'visible') {
        const c = el.getBoundingClientRect();
        l = Math.max(l, c.left); r = Math.min(r, c.right);
      }
    }
    l = Math.max(l, 0); r = Math.min(r, document.documentElement.clientWidth);
    const name = svg.closest('[data-widget]')?.dataset.widget || svg.getAttribute('class') || 'svg';
    for (const text of svg.querySelectorAll('text')) {
      const k = text.getBoundingClientRect();
      if (!text.textContent.trim() || !k.width || getComputedStyle(text).visibility === 'hidden') continue;
      if (k.left < l - 1 || k.right > r + 1) out.push(`${name}: "${text.textContent.trim().slice(0, 16)}" at ${Math.round(k.left)}–${Math.round(k.right)} px, seen ${Math.round(l)}–${Math.round(r)}`);
    }
  }
  return {n, out};
}"""


def _tables_once_cued(page, tries: int = 10) -> dict:
    """TABLES, read again while it finds a problem, for up to about 3 s: a table's cue is made a frame or two
    after the table nears the screen (table-cues.js), and on a loaded machine those frames come late (a run
    beside another Chromium found lesson fp4's table in a just-opened <details> still without its cue)."""
    for _ in range(tries):
        t = page.evaluate(TABLES)
        if not t["out"]:
            break
        page.wait_for_timeout(300)
    return t


# ---- The checks that change the page they measure: last -------------------------------------------
def test_plots_tables_and_drawings_are_legible(laid_out):
    """At both widths, every page with every <details> open: plot areas at least MIN_PLOT and the legend's
    height; tables fit or scroll with a cue and a pinned first column; no two cells' text run together;
    every label of a drawing in view."""
    failures, tables, svgs = {}, 0, 0
    for path, page in laid_out.each():
        page.evaluate("() => document.querySelectorAll('article details').forEach((d) => { d.open = true; })")
        _draw_charts(page)  # the charts in what was closed
        scroll_through(page)  # again: the tables in what was closed get their cues as a reader scrolls past
        problems = [p for p in page.evaluate(PLOTS, MIN_PLOT) if p]
        t = _tables_once_cued(page)
        s = page.evaluate(SVG_LABELS)
        problems += t["out"] + page.evaluate(RUN_TOGETHER, 4) + s["out"]
        tables, svgs = tables + t["n"], svgs + s["n"]
        if problems:
            failures[path] = problems[:12]
    assert failures == {}, failures
    assert tables >= 20 and svgs >= 8, (tables, svgs)
    assert laid_out.errors() == {}


def test_tooltips_are_opaque_and_legible_in_both_palettes(laid_out):
    """Lesson 5 at 390 px in the dark palette: the tooltip's background was Material's translucent text
    colour (rgba(226, 228, 233, 0.82)), so the 例句 table under it showed through. Every figure's tooltip,
    on every page, with every <details> open, light on the desktop and dark on the phone: an opaque
    background, text at WCAG AA contrast (4.5:1) over it, the tooltip drawn over whatever it covers, and its
    colours those of the palette."""
    bad, seen, backgrounds = [], 0, set()
    for path, page in laid_out.each():
        page.evaluate("() => document.querySelectorAll('article details').forEach((d) => { d.open = true; })")
        for t in page.evaluate(TOOLTIP_COLOURS):
            seen += 1
            backgrounds.add(t["bg"])
            if t["alpha"] < 1 or t["contrast"] < 4.5 or not t["onTop"]:
                bad.append((path, t["fig"], t["alpha"], round(t["contrast"], 1), t["over"]))
    assert seen > 100 and bad == [], (seen, bad[:8])
    # the palette's own background: white in the light palette, Material's slate in the dark one
    assert backgrounds == ({"rgb(30, 33, 41)"} if laid_out.name == "phone" else {"rgb(255, 255, 255)"})
    assert laid_out.errors() == {}


@at("desktop")
def test_each_exponent_is_drawn_by_one_font(laid_out):
    """In Chromium (no CJK or other system fonts beyond the basics), every run of super- and subscripts
    on every page is drawn by exactly one font, the site's DejaVu Sans cut: 「2¹²⁷」 on lesson 3 drew ¹²
    with Noto Sans SC and ⁷ with a system font. (Each run is wrapped in a span of the test's own.)"""
    bad, runs, fonts = {}, 0, set()
    for path, page in laid_out.each():
        cdp = laid_out.ctx.new_cdp_session(page)
        page.evaluate("() => document.querySelectorAll('article details').forEach((d) => { d.open = true; })")
        runs += page.evaluate(WRAP_SCRIPTS, SCRIPTS + "ᵀ")
        scroll_through(page)  # frames: the text that was closed is laid out and its fonts asked for
        page.wait_for_function("() => document.fonts.status === 'loaded'")
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        for node in cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": ".c9-test-scripts"})[
            "nodeIds"
        ]:
            used = {
                f["familyName"] for f in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
            }
            if not used and not _shown(cdp, node):
                continue  # a widget's build-time text, hidden or rewritten since Python answered
            fonts |= used
            if len(used) != 1:
                text = cdp.send("DOM.getOuterHTML", {"nodeId": node})["outerHTML"]
                bad.setdefault(path, []).append((text, sorted(used)))
        cdp.detach()
    assert bad == {}, bad
    assert runs > 20 and fonts == {"DejaVu Sans"}, (runs, fonts)
