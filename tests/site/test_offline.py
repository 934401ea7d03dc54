"""Offline use after a first visit (docs/sw.js): the service worker caches what a reader used, so with
the network cut the pages open again and Python in the page still recomputes the widgets; a reader who
never used a widget online gets the usual Chinese message. Served under the sub-path, with the strict CSP.

The network is cut twice over: the browser context goes offline, and the server answers 404 to
everything (site_server.block), so a request that still went out would break the page instead of passing."""

from __future__ import annotations

import json
import re

import pytest
from conftest import PYTHON_TIMEOUT, ROOT, evaluate_within, python_view, wait_for_python, wait_until
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# Set at document start: was this page controlled by a service worker the moment it was created?
CONTROLLED_AT_START = "window.__c9ControlledAtStart = !!navigator.serviceWorker.controller;"
CACHED = "async (url) => !!(await caches.match(new URL(url, location.href).href))"
CACHE_NAMES = "async () => await caches.keys()"


def wait_cached(page, *urls):
    """Until each URL is in one of the page's caches."""
    for url in urls:
        wait_until(page, CACHED, url, ms=PYTHON_TIMEOUT, every=200)


def move_b(page, presses):
    widget = page.locator('[data-widget="memory-bar"]')
    b = widget.locator('input[name="b_stop"]')  # b's log slider: one press, one stop (1, 2, 3, 4, 6, …)
    b.focus()
    for _ in range(presses):
        b.press("ArrowRight")
    return widget


def flip_last_fp16_bit(page):
    widget = page.locator('[data-widget="bit-flipper"]').first
    row = widget.locator('.c9-bf-row[data-format="float16"]')
    row.locator(".c9-bit").first.focus()
    page.keyboard.press("End")
    page.keyboard.press("Space")
    return widget


def test_widgets_recompute_offline_after_a_first_visit(browser, site_server, built_site):
    ctx = browser.new_context()
    ctx.add_init_script(CONTROLLED_AT_START)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        # First visit, online: the page is not controlled yet; the worker takes it over (clients.claim).
        page.goto(site_server.url + "lesson-5/")
        assert page.evaluate("window.__c9ControlledAtStart") is False
        page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=30_000)
        scope = page.evaluate("() => navigator.serviceWorker.controller.scriptURL")
        assert scope == site_server.url + "sw.js"
        widget = move_b(page, 1)
        expect(widget.locator(".c9-summary")).to_have_text(
            python_view("memory-bar", b=2)["summary"], timeout=PYTHON_TIMEOUT
        )
        # That first touch is answered from the build's answer cache; Python boots (and is cached) behind it.
        wait_for_python(page)
        # Lesson 2 is read online too (its widget untouched).
        page.goto(site_server.url + "lesson-2/")
        assert page.evaluate("window.__c9ControlledAtStart") is True
        # What the first page loaded before the worker was in control, Pyodide and the course's Python.
        wait_cached(
            page,
            "../lesson-5/",
            "../lesson-2/",
            "../assets/js/course.js",
            "../assets/js/worker.js",  # course.js's modules and a widget's (the memory bar's request loop)
            "../assets/js/answers.js",
            "../assets/js/live-view.js",
            "../assets/js/py-worker.js",
            "../assets/course-py.zip",
            "../vendor/pyodide/pyodide.mjs",
            "../vendor/pyodide/pyodide.asm.mjs",
            "../vendor/pyodide/pyodide.asm.wasm",
            "../vendor/pyodide/python_stdlib.zip",
            "../vendor/pyodide/pyodide-lock.json",
            "../assets/js/widgets/bit-flipper.js",
        )
        # Without a CJK system font (this Chromium has none) the pages fetched the web font's first slice and
        # those their text needed: every slice is kept, so pages not yet read draw offline too.
        slices = sorted(
            f.name for f in (built_site / "vendor" / "fonts" / "files").glob("noto-sans-sc-*.woff2")
        )
        assert len(slices) == 3, slices
        wait_cached(page, *(f"../vendor/fonts/files/{name}" for name in slices))
        names = evaluate_within(page, CACHE_NAMES)
        # Caches named by the scope and the versions the build wrote into sw.js: the site, and one per vendor
        # folder used so far (the web font only where the system has no CJK font; KaTeX's CSS on every page).
        pyodide = json.loads((ROOT / "package.json").read_text())["dependencies"]["pyodide"]
        kinds = {re.sub(r"-[0-9a-f]{10}$", "-HASH", n.removeprefix(f"c9 {site_server.url} ")) for n in names}
        assert (
            {"site-HASH", f"vendor-pyodide-{pyodide}-HASH", "vendor-katex-HASH"}
            <= kinds
            <= {
                "site-HASH",
                f"vendor-pyodide-{pyodide}-HASH",
                "vendor-katex-HASH",
                "vendor-fonts-HASH",
                "vendor-plotly-HASH",
                "vendor-codemirror-HASH",  # lesson 2's exercise editor
            }
        ), names

        # Another browser context (as every other test opens) is not served by this worker or its caches:
        # the tests that block Pyodide see no Pyodide.
        other = browser.new_context()
        other.add_init_script(CONTROLLED_AT_START)
        stranger = other.new_page()
        stranger.goto(site_server.url + "lesson-2/")
        assert stranger.evaluate("window.__c9ControlledAtStart") is False
        assert not evaluate_within(stranger, CACHED, "../vendor/pyodide/pyodide.asm.wasm")
        other.close()

        # The network is cut.
        site_server.block("/c9/")
        ctx.set_offline(True)
        # A page never visited does not open (the cut is real, for the service worker's requests too): the
        # worker answers with its fallback page saying so, not the browser's error page.
        probe = ctx.new_page()
        probe.goto(site_server.url + "lesson-3/")
        expect(probe.locator("article h1")).to_have_text("现在是离线状态")
        assert "162.5" not in probe.inner_text("body")
        probe.close()

        # Lesson 5 again, a fresh document: Python boots from the cache and recomputes.
        page.goto(site_server.url + "lesson-5/")
        assert page.evaluate("window.__c9ControlledAtStart") is True
        widget = move_b(page, 3)
        expect(widget.locator('input[name="b"]')).to_have_value("4")
        expect(widget.locator(".c9-summary")).to_have_text(
            python_view("memory-bar", b=4)["summary"], timeout=PYTHON_TIMEOUT
        )
        expect(widget).to_have_attribute("data-state", "live")
        expect(widget.locator(".c9-status")).to_contain_text("已算出这一状态")
        widget.get_by_label("全量重计算").check()
        expect(widget.locator(".c9-summary")).to_have_text(
            python_view("memory-bar", b=4, mode="full_recompute")["summary"], timeout=PYTHON_TIMEOUT
        )

        # Lesson 2, visited before the cut: a bit flipped in its widget is recomputed by Python.
        page.goto(site_server.url + "lesson-2/")
        widget = flip_last_fp16_bit(page)
        expected = python_view("bit-flipper", formats="float16,float32", source="float16", code=0x3C01)
        expect(widget.locator(".c9-summary")).to_have_text(expected["summary"], timeout=PYTHON_TIMEOUT)
        expect(widget.locator('.c9-bf-row[data-format="float32"] input[name="hex"]')).to_have_value(
            "0x3F802000"
        )
        assert errors == [], errors
    finally:
        ctx.set_offline(False)
        site_server.block()
        ctx.close()


def test_python_unused_before_the_cut_says_so_offline(browser, site_server):
    """Pyodide is cached on first use, not ahead: a reader who opened lesson 5 but never used a widget gets
    the page from the cache and the widget's Chinese message; nothing throws."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 400})
    ctx.add_init_script(CONTROLLED_AT_START)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(site_server.url + "lesson-5/")
        page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=30_000)
        # The first page loaded before the worker was in control; what it (and Material's search worker) loaded is
        # cached all the same.
        wait_cached(
            page,
            "../lesson-5/",
            "../assets/js/course.js",
            "../assets/javascripts/lunr/min/lunr.zh.min.js",
            "../assets/javascripts/lunr/min/lunr.stemmer.support.min.js",
        )
        state = evaluate_within(
            page,
            "() => import(new URL('../assets/js/course.js', location.href)).then(m => m.c9.python.state)",
        )
        assert state == "idle"  # no widget came near the screen
        assert not evaluate_within(page, CACHED, "../vendor/pyodide/pyodide.asm.wasm")

        site_server.block("/c9/")
        ctx.set_offline(True)
        page.goto(site_server.url + "lesson-5/")
        assert page.evaluate("window.__c9ControlledAtStart") is True
        assert "162.5 GiB" in page.inner_text("article")  # the page itself, from the cache
        widget = move_b(page, 1)
        expect(widget.locator(".c9-status")).to_contain_text("Python 没能加载", timeout=PYTHON_TIMEOUT)
        expect(widget.locator(".c9-summary")).to_have_text(python_view("memory-bar")["summary"])
        assert errors == [], errors
    finally:
        ctx.set_offline(False)
        site_server.block()
        ctx.close()


def nav_pages() -> list[tuple[str, str]]:
    """(title, address under the site) of each page of mkdocs.yml's nav, read from the file itself."""
    block = (ROOT / "mkdocs.yml").read_text().split("\nnav:\n")[1].split("\n\n")[0]
    pages = re.findall(r"^  - (.+): (\S+)\.md$", block, re.M)
    return [(title, "" if name == "index" else f"{name}/") for title, name in pages]


def collect_errors(page) -> list[str]:
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    return errors


# The fallback page's own sentences may name these; anything else in Latin letters would be English.
NAMES = {"Python", "MB"}


def test_a_page_never_opened_gets_the_sites_fallback_offline(browser, site_server, built_site):
    """Offline, a page never opened nor saved gets the fallback page the build rendered with the site's
    template: the site's styles (dark palette here, 390 px wide), its web font served from the service
    worker's cache (kept at install), the chapter's pages from the nav as links marked saved or not, its own
    text in Chinese with full-width punctuation, a link that works offline, and no error."""
    from test_text_rules import violations

    ctx = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme="dark")
    page = ctx.new_page()
    try:
        page.goto(site_server.url + "lesson-1/")
        page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=30_000)
        wait_cached(page, "../lesson-1/", "../offline.html")
        site_server.block("/c9/")
        ctx.set_offline(True)
        probe = ctx.new_page()
        errors = collect_errors(probe)
        fonts = []
        probe.on(
            "response",
            lambda r: r.url.endswith(".woff2") and fonts.append((r.url, r.status, r.from_service_worker)),
        )
        response = probe.goto(site_server.url + "lesson-3/")
        assert response.from_service_worker
        expect(probe.locator("article h1")).to_have_text("现在是离线状态")
        # The site's look: Material's header with the site's name, the dark palette, the course's font stack.
        name = re.search(r"^site_name: (.+)$", (ROOT / "mkdocs.yml").read_text(), re.M)[1]
        expect(probe.locator(".md-header__topic").first).to_have_text(name)
        ground = probe.evaluate("getComputedStyle(document.body).backgroundColor")
        assert sum(map(int, re.findall(r"\d+", ground)[:3])) < 3 * 80, (
            ground
        )  # the slate palette's dark ground
        family = probe.evaluate("getComputedStyle(document.querySelector('article p')).fontFamily")
        assert "Noto Sans SC" in family, family
        # This Chromium has no CJK font: the web font draws the text, from the cache (the network is cut).
        wait_until(
            probe,
            """async () => document.fonts.check('16px "Noto Sans SC"', '离线状态')
                && [...document.fonts].some((f) => f.family.includes('Noto Sans SC') && f.status === 'loaded')""",
        )
        assert fonts and all(status == 200 and from_sw for _, status, from_sw in fonts), fonts

        # The chapter's pages, in the nav's order, as links to their addresses; lesson 1 (read before the cut)
        # is saved, the page asked for is named.
        links = probe.locator("[data-c9-pages] a")
        expected = [(title, site_server.url + url) for title, url in nav_pages()]
        assert len(expected) == 8
        assert links.evaluate_all("as => as.map((a) => [a.textContent.trim(), a.href])") == [
            list(e) for e in expected
        ]
        marks = probe.locator("[data-c9-pages] .c9-saved-mark")
        expect(marks).to_have_text(
            ["未存", "已存", "未存", "未存 · 你要打开的", "未存", "未存", "未存", "未存"]
        )
        # Material's own navigation is there too (in the drawer on a phone).
        assert probe.locator(".md-nav--primary a.md-nav__link[href]").count() >= 8

        # Its own text: Chinese, full-width punctuation, no English (the page titles are the site's).
        own = probe.evaluate(
            """() => [...document.querySelectorAll('article h1, article h2, article > p, .c9-save-status, .c9-save-button, title')]
                .map((e) => e.textContent.trim())"""
        )
        assert len(own) >= 6, own
        for text in own:
            assert violations(text) == [], (text, violations(text))
            assert set(re.findall(r"[A-Za-z]+", text)) <= NAMES, text
        assert "Made with" not in probe.inner_text("body")

        # A link to a saved page opens it, offline.
        probe.locator("[data-c9-pages] a", has_text="第 1 课").click()
        expect(probe.locator("article h1").first).to_contain_text("训练一个参数要几字节")
        assert errors == [], errors
    finally:
        ctx.set_offline(False)
        site_server.block()
        ctx.close()


def test_a_widget_whose_script_was_never_saved_says_so_offline(browser, site_server):
    """A page saved without one widget's script (here: the server refused it on the first visit): offline that
    widget says in Chinese why it cannot work, the page's text and figures stay, nothing is logged as an error."""
    ctx = browser.new_context()
    page = ctx.new_page()
    try:
        site_server.block("assets/js/widgets/bit-flipper.js")
        page.goto(site_server.url + "lesson-2/")
        page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=30_000)
        wait_cached(page, "../lesson-2/", "../assets/js/widgets/loss-scale.js")
        assert not evaluate_within(page, CACHED, "../assets/js/widgets/bit-flipper.js")

        site_server.block("/c9/")
        ctx.set_offline(True)
        errors = collect_errors(page)
        page.goto(site_server.url + "lesson-2/")
        widget = page.locator('[data-widget="bit-flipper"]').first
        status = widget.locator(".c9-status")
        expect(status).to_have_text(re.compile("^现在断网，这个组件的脚本还没存到本机.*「保存整章」.*$"))
        expect(widget).to_have_attribute("data-state", "offline")
        # The build's default state stays, and so do the page's figures.
        default = json.loads(widget.get_attribute("data-default"))
        expect(widget.locator(".c9-summary")).to_have_text(default["summary"])
        assert page.locator("article .fig").count() > 10
        # The other widgets, saved, still mount.
        wait_until(page, "async () => performance.getEntriesByName('c9:mount:loss-scale').length > 0")
        assert errors == [], errors
    finally:
        ctx.set_offline(False)
        site_server.block()
        ctx.close()


def test_the_build_writes_the_cache_versions_into_sw_js(built_site, tmp_path):
    import hashlib
    import os
    import zipfile

    from hooks.offline import content_hash, folder_hash

    build = sw_build(built_site)
    pyodide = json.loads((ROOT / "package.json").read_text())["dependencies"]["pyodide"]
    folders = sorted(d.name for d in (built_site / "vendor").iterdir() if d.is_dir())
    assert sorted(build["vendor"]) == folders and {"pyodide", "katex", "fonts"} <= set(folders), build
    assert build["vendor"]["pyodide"] == f"{pyodide}-{folder_hash(built_site / 'vendor' / 'pyodide')}"
    assert build["vendor"]["fonts"] == folder_hash(built_site / "vendor" / "fonts")
    # The site's version covers every file of the chapter's manifest, pages included: a new build of any of
    # them is a new cache, and what did not change is carried over by its hash.
    chapter = json.loads((built_site / "offline.json").read_text())
    listed = "".join(f"{f['path']}\0{f['hash']}\n" for f in chapter["files"])
    assert build["site"] == hashlib.sha256(listed.encode()).hexdigest()[:10]
    page = next(f for f in chapter["files"] if f["path"] == "lesson-2/index.html")
    assert (
        page["hash"] == hashlib.sha256((built_site / "lesson-2" / "index.html").read_bytes()).hexdigest()[:12]
    )
    assert build["search"] == [
        "assets/javascripts/lunr/min/lunr.stemmer.support.min.js",
        "assets/javascripts/lunr/min/lunr.zh.min.js",
    ]
    assert all((built_site / p).is_file() for p in build["search"])

    # The zip's hash follows the course's code, not the zip's file times.
    src = tmp_path / "m.py"
    src.write_text("x = 1\n")

    def zip_it():
        with zipfile.ZipFile(tmp_path / "course-py.zip", "w") as z:
            z.write(src, "c9/m.py")
        return content_hash(tmp_path / "course-py.zip")

    first = zip_it()
    os.utime(src, (1_000_000_000, 1_000_000_000))  # another file time (2001), the same bytes
    assert zip_it() == first
    src.write_text("x = 2\n")
    assert zip_it() != first


def sw_build(site):
    line = re.search(r"^const BUILD = (\{.*\}); // c9:build$", (site / "sw.js").read_text(), re.M)
    return json.loads(line.group(1))
