"""Offline use after a first visit (docs/sw.js): the service worker caches what a reader used, so with
the network cut the pages open again and Python in the page still recomputes the widgets; a reader who
never used a widget online gets the usual Chinese message. Served under the sub-path, with the strict CSP.

The network is cut twice over: the browser context goes offline, and the server answers 404 to
everything (site_server.block), so a request that still went out would break the page instead of passing."""

from __future__ import annotations

import json
import re

import pytest
from conftest import PYTHON_TIMEOUT, ROOT, evaluate_within, python_view, wait_until
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
        page.wait_for_function(
            "() => performance.getEntriesByName('c9:python-ready').length > 0", timeout=PYTHON_TIMEOUT
        )
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
        # worker answers with a short Chinese page saying so, not the browser's error page.
        probe = ctx.new_page()
        response = probe.goto(site_server.url + "lesson-3/")
        assert response.status == 503
        expect(probe.locator("h1")).to_have_text("现在是离线状态")
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
        expect(widget.locator(".c9-status")).to_contain_text("Python 已算出")
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


def test_the_build_writes_the_cache_versions_into_sw_js(built_site, tmp_path):
    import os
    import zipfile

    from hooks.course import _tree_hash

    line = re.search(r"^const BUILD = (\{.*\}); // c9:build$", (built_site / "sw.js").read_text(), re.M)
    build = json.loads(line.group(1))
    pyodide = json.loads((ROOT / "package.json").read_text())["dependencies"]["pyodide"]
    folders = sorted(d.name for d in (built_site / "vendor").iterdir() if d.is_dir())
    assert sorted(build["vendor"]) == folders and {"pyodide", "katex", "fonts"} <= set(folders), build
    assert build["vendor"]["pyodide"] == f"{pyodide}-{_tree_hash(built_site / 'vendor' / 'pyodide')}"
    assert build["vendor"]["fonts"] == _tree_hash(built_site / "vendor" / "fonts")
    assert build["site"] == _tree_hash(built_site / "assets")
    assert build["search"] == [
        "assets/javascripts/lunr/min/lunr.stemmer.support.min.js",
        "assets/javascripts/lunr/min/lunr.zh.min.js",
    ]
    assert all((built_site / p).is_file() for p in build["search"])

    # The site hash follows the course's code, not the zip's file times.
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "a.js").write_text("1")
    src = tmp_path / "m.py"
    src.write_text("x = 1\n")

    def zip_it():
        with zipfile.ZipFile(tmp_path / "course-py.zip", "w") as z:
            z.write(src, "c9/m.py")
        return _tree_hash(tmp_path)

    first = zip_it()
    os.utime(src, (1_000_000_000, 1_000_000_000))  # another file time (2001), the same bytes
    assert zip_it() == first
    src.write_text("x = 2\n")
    second = zip_it()
    assert second != first
    (tmp_path / "js" / "a.js").write_text("2")
    assert zip_it() not in (first, second)
