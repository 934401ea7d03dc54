"""Every in-page jump lands where Material puts its target, on a freshly loaded page, at 1280 × 800 and on a
390 × 844 phone: each entry of the table of contents, a heading's own ¶ link, an address with #id (with
JavaScript on and off), a footnote and its back-link, a search result opened from another page; no jump within a page fetches the page again; and the page is as tall when it loads as once it
has been read through. (Back and Forward between fragments are not checked here: Chromium's Back skips
the steps a script added once a click's activation has expired, so a scripted history is no reader's.)

The oracle is the browser's own rule: a target's top lands its `scroll-margin-top` below the viewport's
top (Material gives `:target` a margin that clears its sticky header), unless the page cannot scroll that
far. A target Material has put in afresh is not `:target`, so the margin is read by applying Material's
`:target` rules to the target under another selector (WANT). The table of contents and search results are
clicked as a reader does (on a phone through the drawer); a ¶ link and a footnote far from the reader's
place with element.click(), the same click event as a reader's.

Material's instant navigation only takes links its sitemap lists; the test build's sitemap names the
site without the test server's port, so the sitemap is served here with the port (as a deployed site's
matches its address), and a search result is opened by instant navigation as a reader's is.
"""

from __future__ import annotations

import re
import time
from urllib.parse import quote

import pytest
from conftest import SUB_PATH, WIDGETS_MOUNTED, evaluate_within, new_page
from playwright.sync_api import expect

LESSONS = ["lesson-2/", "lesson-4/", "lesson-5/"]
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
TOLERANCE = 3  # px: a jump lands on a whole pixel, a margin may be fractional
# The table of contents: the sidebar's on a desktop, the one in the navigation drawer on a phone.
TOC = {
    "desktop": ".md-sidebar--secondary nav.md-nav--secondary a.md-nav__link",
    "phone": ".md-nav--primary nav.md-nav--secondary a.md-nav__link",
}

# Shared by the scripts below. frame: two animation frames, or 100 ms if the page paints none. settle: until
# the place and the page's height have held for three frames (a smooth scroll, a widget mounting), at most
# ~4 s. want(id): where the target's top is against where it should be, Material's :target rules applied to
# it under [data-c9-target].
LIB = """
const frame = () => new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(r)); setTimeout(r, 100); });
const settle = async () => {
  const now = () => `${Math.round(scrollY)} ${document.scrollingElement.scrollHeight}`;
  let last = '', same = 0;
  for (let i = 0; i < 40 && same < 3; i++) { await frame(); same = now() === last ? same + 1 : 0; last = now(); }
};
const want = (id) => {
  const el = document.getElementById(id);
  let sheet = document.getElementById('c9-test-target');
  if (!sheet) {
    const copy = (rules) => [...rules].map((r) => {
      if (r.selectorText) return r.selectorText.includes(':target') ? r.cssText.replaceAll(':target', '[data-c9-target]') : '';
      return r.cssRules && r.conditionText !== undefined ? `@media ${r.conditionText} { ${copy(r.cssRules)} }` : '';
    }).join('\\n');
    sheet = Object.assign(document.createElement('style'), {id: 'c9-test-target'});
    sheet.textContent = [...document.styleSheets].map((s) => copy(s.cssRules)).join('\\n');
    document.head.append(sheet);
  }
  el.setAttribute('data-c9-target', '');
  const margin = parseFloat(getComputedStyle(el).scrollMarginTop);
  el.removeAttribute('data-c9-target');
  const top = el.getBoundingClientRect().top, root = document.scrollingElement;
  // At the foot of the page the target stops lower, and it is still on screen.
  const atFoot = scrollY >= root.scrollHeight - innerHeight - 1 && top > margin && top < innerHeight;
  return {id, margin, top: Math.round(top), miss: atFoot ? 0 : Math.round(top - margin)};
};
"""
SETTLE = "async () => {" + LIB + "await settle(); }"
WANT = "(id) => {" + LIB + "return want(id); }"
# Clicks the links selector[i] for i in order, each once the last jump has settled: [want(id), ...].
JUMPS = (
    "async ([selector, order]) => {"
    + LIB
    + """
  const out = [];
  for (const i of order) {
    const link = document.querySelectorAll(selector)[i];
    link.click();
    await settle();
    out.push(want(decodeURIComponent(new URL(link.href).hash.slice(1))));
  }
  return out;
}"""
)

HEIGHT = "() => document.scrollingElement.scrollHeight"
# Until the element matched has not changed for 500 ms.
QUIET = """(sel) => new Promise((done) => {
  let timer = setTimeout(finish, 500);
  const observer = new MutationObserver(() => { clearTimeout(timer); timer = setTimeout(finish, 500); });
  observer.observe(document.querySelector(sel), {childList: true, subtree: true, characterData: true});
  function finish() { observer.disconnect(); done(true); }
})"""
SCROLL_THROUGH = """async () => {
  const frame = () => new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(r)); setTimeout(r, 100); });
  for (let y = 0; y < document.scrollingElement.scrollHeight; y += innerHeight) { scrollTo(0, y); await frame(); }
  scrollTo(0, 0);
  await frame();
}"""


def _settle(page) -> None:
    evaluate_within(page, SETTLE, ms=10_000)


def _land(page, id_: str) -> dict:
    """Where the target stands once the page is still (after instant navigation, once Material has put the
    page in)."""
    page.wait_for_function("(id) => document.getElementById(id)", arg=id_)
    _settle(page)
    return page.evaluate(WANT, id_)


def _open(page, url: str) -> None:
    """A fresh load, as a reader sees it: the page and its fonts in, no scrolling yet."""
    page.goto(url)
    page.wait_for_load_state("load")
    evaluate_within(page, "() => document.fonts.ready.then(() => true)")
    _settle(page)


def _hash(page) -> str:
    return page.evaluate("() => decodeURIComponent(location.hash.slice(1))")


def _click(page, selector: str, index: int = 0) -> str:
    """Clicks the index-th match and returns the id its link points to."""
    return page.evaluate(
        """([sel, i]) => { const a = document.querySelectorAll(sel)[i]; a.click();
           return decodeURIComponent(new URL(a.href).hash.slice(1)); }""",
        [selector, index],
    )


def _toc_click(page, size: str, index: int) -> str:
    """A reader's click on the index-th entry of the table of contents (on a phone: through the drawer);
    returns the id it points to."""
    if size == "phone":
        page.locator('label.md-header__button[for="__drawer"]').click()
        if not page.evaluate("() => document.getElementById('__toc').checked"):
            page.locator('.md-nav--primary label.md-nav__link[for="__toc"]').click()
    link = page.locator(TOC[size]).nth(index)
    id_ = link.evaluate("(a) => decodeURIComponent(new URL(a.href).hash.slice(1))")
    link.click()
    return id_


def _sitemap_with_port(ctx, built_site, site_server) -> None:
    """Serves sitemap.xml with the test server's own address (see the module docstring)."""
    text = (built_site / "sitemap.xml").read_text(encoding="utf-8")
    host = re.search(r"<loc>(https?://[^/]+/[^<]*?)</loc>", text)[1]
    root = host[: host.index(SUB_PATH) + len(SUB_PATH)]
    body = text.replace(root, site_server.url)
    ctx.route("**/sitemap.xml", lambda route: route.fulfill(body=body, content_type="application/xml"))


def _zigzag(n: int) -> list[int]:
    """n - 1, 0, n - 2, 1, …: every jump a long one, the first from the top of a fresh page to its foot."""
    lo, hi, out = 0, n - 1, []
    while lo <= hi:
        out.append(hi)
        if lo < hi:
            out.append(lo)
        lo, hi = lo + 1, hi - 1
    return out


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("lesson", LESSONS)
def test_every_jump_lands_on_a_fresh_page(browser, built_site, site_server, lesson, size):
    """On a desktop Python boots beside the reading, as it does for a reader near a widget; the phone reads
    with Save-Data on (conftest.READS_ONLY), as many phones do, and starts no Python: the boot was two thirds
    of these tests' CPU time, and no jump waits for it."""
    phone = size == "phone"
    ctx, page = new_page(browser, python=not phone, viewport=SIZES[size], is_mobile=phone, has_touch=phone)
    _sitemap_with_port(ctx, built_site, site_server)
    url = site_server.url + lesson
    landed = {}  # kind: [(id, miss)]
    fetched = []  # the lesson's page, fetched by a script (Material's instant navigation)
    page.on(
        "request",
        lambda r: (
            r.resource_type in ("xhr", "fetch") and r.url.split("?")[0] == url and fetched.append(r.url)
        ),
    )

    def check(kind: str, id_: str) -> None:
        landed.setdefault(kind, []).append((id_, _land(page, id_)["miss"]))

    try:
        # 1. A fresh load and a click in the table of contents at its foot (the page's first click, on which
        # Material used to fetch the page again); then every entry, each jump a long one.
        _open(page, url)
        at_load = page.evaluate(HEIGHT)
        entries = page.eval_on_selector_all(TOC[size], "els => els.length")
        assert entries >= 10, entries
        check("toc", _toc_click(page, size, entries - 1))
        for got in evaluate_within(page, JUMPS, [TOC[size], _zigzag(entries)], ms=90_000):
            landed["toc"].append((got["id"], got["miss"]))
        # 2. An address with #id, loaded fresh (the last heading but one: far down); then a footnote far
        # down and its back-link, the page's first clicks.
        target = page.eval_on_selector_all("article h2[id]", "els => els.at(-2).id")
        _open(page, f"{url}#{quote(target)}")
        check("#id", target)
        refs = page.eval_on_selector_all("article a.footnote-ref", "els => els.length")
        assert refs >= 5, refs
        note = _click(page, "article a.footnote-ref", refs * 2 // 3)
        check("footnote", note)
        back = page.evaluate(
            "(id) => document.getElementById(id).querySelector('a.footnote-backref').href", note
        )
        check("footnote back", _click(page, f'article a.footnote-backref[href="{back}"]'))
        in_page = fetched[:]  # what the jumps within the page fetched: nothing

        # 3. A search result, opened from the guide: Material's instant navigation to page#id; then a
        # heading's own ¶ link on the page it brought in, far from where the reader is.
        # The longest heading in the page's second half: words of its own, so the lesson is among the results.
        titles = page.eval_on_selector_all(TOC[size], "els => els.map((e) => e.textContent.trim())")
        query = max(titles[len(titles) // 2 :], key=len)
        _open(page, site_server.url)
        page.locator('label.md-header__button[for="__search"]' if phone else "input.md-search__input").click()
        box = page.locator("input.md-search__input")
        box.fill(query)
        box.press("End")  # Material reads the box on keyup (see test_search.py)
        hit = page.locator(
            f'.md-search-result__list a.md-search-result__link[href*="/{lesson}?"][href*="#"]'
        ).first
        expect(hit).to_be_visible(timeout=20_000)
        # Material may draw the list again as more results arrive; a click during that redraw lands on a link
        # that is then replaced (a loaded full run stayed on the guide): click once the list is still.
        evaluate_within(page, QUIET, ".md-search-result__list", ms=15_000)
        found = page.evaluate(
            "(a) => decodeURIComponent(new URL(a.href).hash.slice(1))", hit.element_handle()
        )
        hit.click()
        expect(page).to_have_url(re.compile(re.escape(url) + r"\?h=.*#" + re.escape(quote(found)) + "$"))
        check("search", found)
        arrival = fetched[len(in_page) :]  # the page, brought in by instant navigation
        links = page.eval_on_selector_all("article a.headerlink", "els => els.length")
        # the page instant navigation brought in has its widgets in place before the reader's next click:
        # one mounting under the click moved its heading by 7 px in a loaded full run
        page.wait_for_function(WIDGETS_MOUNTED, timeout=30_000)
        check("¶", _click(page, "article a.headerlink", links // 3))
        in_page += fetched[len(in_page) + len(arrival) :]

        # 4. The page's height once read through, against its height at load.
        evaluate_within(page, SCROLL_THROUGH, ms=60_000)
        read = page.evaluate(HEIGHT)
        misses = {kind: [(i, m) for i, m in v if abs(m) > TOLERANCE] for kind, v in landed.items()}
        misses = {kind: v for kind, v in misses.items() if v}
        assert not misses, (lesson, size, misses)
        assert in_page == [] and len(arrival) == 1, (in_page, arrival)
        assert abs(at_load - read) <= 0.03 * read, (lesson, size, at_load, read)
        assert page.errors == []
    finally:
        ctx.close()


# The pages with a code box (an exercise or the scratchpad), whose editor arrives as the box nears the screen.
CODE_PAGES = ["lesson-1/", "lesson-2/", "lesson-3/", "lesson-4/", "fp4/", "lesson-5/"]
# The first heading after each code box (its editor is fetched just after a jump there lands).
HEADINGS_BELOW_CODE = """() => [...document.querySelectorAll('article .c9-widget:is(.c9-exercise, [data-widget="scratchpad"])')]
  .map((w) => { let el = w; while (el && !el.nextElementSibling) el = el.parentElement;
    for (el = el?.nextElementSibling; el && !/^H[2-4]$/.test(el.tagName); el = el.nextElementSibling);
    return el?.id; }).filter(Boolean)"""


_BELOW_CODE: dict[str, list[str]] = {}


def _headings_below_code(page, url: str) -> list[str]:
    """The ids of the headings under the code boxes of the page at url: read from the page once a run (they are
    the same at every width), so that each width loads only the addresses it checks."""
    if url not in _BELOW_CODE:
        _open(page, url)
        _BELOW_CODE[url] = page.evaluate(HEADINGS_BELOW_CODE)
    return _BELOW_CODE[url]


@pytest.mark.timeout(240)
@pytest.mark.parametrize("size", SIZES)
def test_an_address_with_the_heading_under_a_code_box_lands_and_stays(browser, built_site, site_server, size):
    """The editor (CodeMirror) replaces its box once the box nears the screen, which is just after a jump to
    the heading under it: the heading must land and stay there once the editor is in (read at once, and again
    after the editor has arrived)."""
    phone = size == "phone"
    # The editor is fetched as its box nears the screen, Save-Data or not; Python plays no part here.
    ctx, page = new_page(browser, python=False, viewport=SIZES[size], is_mobile=phone, has_touch=phone)
    got = []
    try:
        for lesson in CODE_PAGES:
            ids = _headings_below_code(page, site_server.url + lesson)
            assert ids, lesson
            for id_ in ids:
                _open(page, f"{site_server.url}{lesson}#{quote(id_)}")
                first = page.evaluate(WANT, id_)["miss"]
                page.wait_for_function(
                    "() => [...document.querySelectorAll('.c9-widget[data-editor]')].length > 0",
                    timeout=30_000,
                )
                _settle(page)
                got.append((lesson, id_, first, page.evaluate(WANT, id_)["miss"]))
        missed = [g for g in got if abs(g[2]) > TOLERANCE or abs(g[3]) > TOLERANCE]
        assert len(got) >= len(CODE_PAGES) and not missed, (size, missed)
    finally:
        ctx.close()


@pytest.mark.parametrize("size", SIZES)
def test_an_address_whose_target_a_late_widget_moves_still_lands(browser, built_site, site_server, size):
    """An exercise folds its answer away as it mounts, 15 px just above lesson 2's 「先自己设计」. Opened with
    that #id on a machine slow enough that the exercise mounts after the browser's jump (its script held
    back 1.5 s here, as a loaded CI machine did), the heading must still land: it once stopped 14 px high."""
    phone = size == "phone"
    ctx, page = new_page(browser, python=False, viewport=SIZES[size], is_mobile=phone, has_touch=phone)
    try:

        def late(route):
            time.sleep(1.5)
            route.continue_()

        page.route("**/widgets/exercise.js", late)
        id_ = "先自己设计"
        _open(page, f"{site_server.url}lesson-2/#{quote(id_)}")
        w = page.locator('[data-exercise="fp16-encode"]')
        expect(w).to_have_attribute("data-mounted", "yes", timeout=30_000)
        expect(w.locator(".c9-exercise-solution")).to_be_hidden()
        _settle(page)
        landed = page.evaluate(WANT, id_)
        assert abs(landed["miss"]) <= TOLERANCE, (size, landed)
        assert page.errors == []
    finally:
        ctx.close()


@pytest.mark.parametrize("size", SIZES)
def test_an_address_with_id_lands_without_javascript(browser, site_server, built_site, size):
    """Without scripts the browser's own jump is the only one: headings far down each lesson, each address
    loaded fresh, land; and each lesson is as tall when it loads as once scrolled through (lesson 4 was
    3.5 times taller with the parts' placeholders). Timers do not run in such a page, so the waits poll
    from here."""
    ctx, page = new_page(browser, viewport=SIZES[size], java_script_enabled=False)
    missed, checked, heights = [], 0, {}
    try:
        for lesson in LESSONS:
            html = (built_site / lesson / "index.html").read_text(encoding="utf-8")
            ids = [h for h in ("一句话", "下一个缺口", "证据三问", "常见误解") if f'<h2 id="{h}"' in html]
            assert len(ids) >= 3, (lesson, ids)
            for id_ in ids:
                # One second try: on a starved CPU Chromium now and then scrolls to the fragment before the
                # page's final layout and does not scroll again (one in ten loads with three busy loops on
                # two cores, 60 px); estimated placeholders missed on every load.
                for _ in range(2):
                    page.goto(f"{site_server.url}{lesson}#{quote(id_)}")
                    page.wait_for_load_state("load")
                    _poll_until_still(page, "() => document.fonts.status === 'loaded' && scrollY")
                    got = page.evaluate(WANT, id_)
                    if abs(got["miss"]) <= TOLERANCE:
                        break
                checked += 1
                if abs(got["miss"]) > TOLERANCE:
                    missed.append((lesson, got))
            # The height as it loads, against the height once scrolled through a screen at a time.
            page.goto(site_server.url + lesson)
            page.wait_for_load_state("load")
            _poll_until_still(page, "() => document.fonts.status === 'loaded' && document.body.scrollHeight")
            at_load, y = page.evaluate(HEIGHT), 0
            while y < page.evaluate(HEIGHT):
                y += SIZES[size]["height"]
                page.evaluate("(y) => scrollTo(0, y)", y)
                page.wait_for_timeout(30)
            heights[lesson] = (at_load, page.evaluate(HEIGHT))
        assert checked >= 9 and not missed, missed
        assert all(abs(a - b) <= 0.03 * b for a, b in heights.values()), heights
    finally:
        ctx.close()


def _poll_until_still(page, value: str, ms: int = 10_000) -> None:
    """Until value (a synchronous script) reads the same three times 150 ms apart, for at most ms."""
    last, same, end = None, 0, time.monotonic() + ms / 1000
    while same < 3 and time.monotonic() < end:
        page.wait_for_timeout(150)
        now = page.evaluate(value)
        same = same + 1 if now is not False and now == last else 0
        last = now


def _luminance(rgb: str) -> float:
    def channel(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(int(x)) for x in re.findall(r"\d+", rgb)[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


ROW = """() => { const r = document.getElementById('ledger-bf16_pure_sr'); const s = getComputedStyle(r);
  const box = r.getBoundingClientRect();
  return { target: r.matches(':target, .c9-target'), outline: s.outlineStyle, width: parseFloat(s.outlineWidth),
    color: s.outlineColor, page: getComputedStyle(document.body).backgroundColor,
    inView: box.top >= 0 && box.bottom <= innerHeight, hash: location.hash, path: location.pathname, top: box.top }; }"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_link_to_a_ledger_row_marks_the_row_and_keeps_its_address(browser, built_site, site_server, scheme):
    ctx, page = new_page(browser, python=False, viewport=SIZES["desktop"], color_scheme=scheme)
    _sitemap_with_port(ctx, built_site, site_server)
    try:
        page.goto(site_server.url + "lesson-3/")  # lesson 3 links to the row
        assert page.locator('article a[href$="lesson-1/#ledger-bf16_pure_sr"]').count() >= 1
        page.goto(site_server.url + "lesson-1/#ledger-bf16_pure_sr")  # the address, opened as a copied one is
        wait = "await settle(); await new Promise((r) => setTimeout(r, 1500));"  # Material's tracking has run
        evaluate_within(page, f"async () => {{ {LIB} {wait} }}")
        row = evaluate_within(page, ROW)
        assert row["hash"] == "#ledger-bf16_pure_sr", row  # not rewritten to the section's heading
        assert row["target"] and row["inView"], row
        assert row["outline"] == "solid" and row["width"] >= 2, row
        a, b = sorted((_luminance(row["color"]), _luminance(row["page"])), reverse=True)
        assert (a + 0.05) / (b + 0.05) >= 3, row
    finally:
        ctx.close()


# Lesson 3's link to the ledger row, clicked as the page scrolls to it: Material records the place scrolled to
# 100 ms after the scroll, and that record fell on the step its click had just added, so on arrival it restored
# that place instead of jumping to the row (3,611 px off on desktop, 3,000 to 5,000 px on a phone).
SCROLL_AND_CLICK = """(sel) => { const a = document.querySelector(sel), steps = history.length;
  a.scrollIntoView({block: 'center'}); a.click(); return steps; }"""


@pytest.mark.parametrize("size", SIZES)
def test_a_link_to_a_ledger_row_from_another_page_lands(browser, built_site, site_server, size):
    phone = size == "phone"
    ctx, page = new_page(browser, python=False, viewport=SIZES[size], is_mobile=phone, has_touch=phone)
    _sitemap_with_port(ctx, built_site, site_server)
    row = "ledger-bf16_pure_sr"
    try:
        _open(page, site_server.url + "lesson-3/")
        steps = page.evaluate(SCROLL_AND_CLICK, f'article a[href$="lesson-1/#{row}"]')
        page.wait_for_url(re.compile(re.escape(site_server.url) + "lesson-1/"), timeout=20_000)
        got = _land(page, row)
        assert abs(got["miss"]) <= TOLERANCE, (size, got)
        state = page.evaluate(ROW)
        assert state["hash"] == f"#{row}" and state["target"], state  # the address names the row, marked
        assert page.evaluate("() => history.length") == steps + 1  # the link's one step, no other
        assert page.errors == []
    finally:
        ctx.close()


CODE_BOX_HEIGHTS = """() => [...document.querySelectorAll('article .c9-exercise')].map((w) => w.getBoundingClientRect().height)"""


@pytest.mark.parametrize("size", SIZES)
def test_a_code_box_keeps_its_height_when_the_editor_replaces_it(browser, site_server, size):
    """The plain text box sat in a line box of its own (an inline-block on the text's baseline), 6.6 px
    taller than the editor that replaces it, so everything below moved up as the editor arrived."""
    phone = size == "phone"
    ctx, page = new_page(browser, python=False, viewport=SIZES[size], is_mobile=phone, has_touch=phone)
    try:
        for lesson in ("lesson-1/", "lesson-3/"):
            _open(page, site_server.url + lesson)
            before = page.evaluate(CODE_BOX_HEIGHTS)
            assert before, lesson
            page.evaluate("() => document.querySelector('article .c9-exercise').scrollIntoView()")
            page.wait_for_function(
                "() => [...document.querySelectorAll('article .c9-exercise')].every((w) => w.dataset.editor)",
                timeout=30_000,
            )
            _settle(page)
            after = page.evaluate(CODE_BOX_HEIGHTS)
            assert after == pytest.approx(before, abs=0.5), (lesson, size, before, after)
    finally:
        ctx.close()
