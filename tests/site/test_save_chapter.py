"""The whole chapter saved for offline reading: the manifest the build writes (hooks/offline.py: offline.json),
the footer's 「保存整章」 (save-chapter.js) that states its size before it starts, shows its progress and its
outcome, and the service worker (sw.js) that stores the files and, after a new build, keeps those that did not
change and replaces the rest. Served under the sub-path, with the strict CSP."""

from __future__ import annotations

import json
import re
import shutil
import time
from decimal import ROUND_HALF_UP, Decimal

from conftest import PYTHON_TIMEOUT, ROOT, SiteServer, evaluate_within, python_view, wait_until
from playwright.sync_api import expect
from test_offline import collect_errors, flip_last_fp16_bit, move_b, nav_pages, sw_build

ALL_CACHED = """async (urls) => {
    const missing = [];
    for (const url of urls) if (!(await caches.match(url))) missing.push(url);
    return missing;
}"""
# The counts the footer shows while it saves: 「第 n / N 个文件，已存 x / y MB」.
PROGRESS = re.compile(r"^第 (\d+) / (\d+) 个文件，已存 ([\d.]+) MB / ([\d.]+) MB$")
PYTHON_SETTLED = """async () => {
    const { c9 } = await import(new URL('assets/js/course.js', document.baseURI).href);
    return c9.python.state !== 'booting';
}"""
RECORD_PROGRESS = """() => {
    window.__progress = [];
    const count = document.querySelector('[data-c9-save] .c9-save-count');
    new MutationObserver(() => window.__progress.push(count.textContent))
        .observe(count, { childList: true, characterData: true, subtree: true });
}"""


def chapter(site):
    return json.loads((site / "offline.json").read_text())


def about(n_bytes: int) -> str:
    """The size as a reader reads it: MB = 10⁶ bytes, to a tenth below 10 MB, whole from there; halves round
    up; thousands separated by commas."""
    tenths = (Decimal(n_bytes) / 10**6).quantize(Decimal("0.1"), ROUND_HALF_UP)
    if tenths < 10:
        return f"约 {tenths} MB"
    return f"约 {(Decimal(n_bytes) / 10**6).quantize(Decimal(1), ROUND_HALF_UP):,} MB"


def url_of(path: str) -> str:
    return re.sub(r"(^|/)index\.html$", r"\1", path)


def test_size_text_reads_megabytes_of_a_million_bytes():
    from hooks.offline import size_text

    for n in (23_509_786, 9_949_999, 9_950_000, 10_500_000, 123_456, 1_000_000_000):
        assert size_text(n) == about(n), n
    assert [size_text(n) for n in (23_509_786, 9_949_999, 9_950_000, 1_000_000_000)] == [
        "约 24 MB",
        "约 9.9 MB",
        "约 10 MB",
        "约 1,000 MB",
    ]


def test_the_stated_size_includes_the_pages_that_state_it(tmp_path):
    """A page's own bytes count in the total it states; where writing the text in moves the total across a
    rounding step, the build states the total with the text written in."""
    from hooks.offline import SIZE_MARK, write_size_into_pages

    for filler in (9_949_950, 9_949_900, 12_000_000):
        site = tmp_path / str(filler)
        site.mkdir()
        (site / "big.bin").write_bytes(b"\0" * filler)
        (site / "index.html").write_text(f"<p>共{SIZE_MARK}。</p>" + "x" * 40)
        text = write_size_into_pages(site, ["big.bin", "index.html"])
        total = filler + (site / "index.html").stat().st_size
        assert text == about(total) and text in (site / "index.html").read_text(), (filler, text, total)


def test_the_manifest_lists_the_chapter_and_totals_its_sizes(built_site):
    listed = chapter(built_site)
    files = {f["path"]: f["bytes"] for f in listed["files"]}
    on_disk = {path: (built_site / path).stat().st_size for path in files}
    assert files == on_disk
    assert listed["bytes"] == sum(on_disk.values())
    assert listed["text"] == about(listed["bytes"])

    # What a reader needs offline is all there: every page of the nav, every widget's script and answer cache,
    # the Python zip and Pyodide, both Plotly bundles, the fonts, the styles and the search index.
    needed = {f"{url}index.html" for _, url in nav_pages()}
    needed |= {f"assets/js/widgets/{p.name}" for p in (ROOT / "c9" / "views").glob("*.js")}
    needed |= {
        p.relative_to(built_site).as_posix() for p in (built_site / "assets" / "answers").glob("*.json")
    }
    needed |= {
        p.relative_to(built_site).as_posix() for p in (built_site / "vendor" / "fonts").rglob("*.woff2")
    }
    needed |= {
        "assets/course-py.zip",
        "assets/css/course.css",
        "assets/js/py-worker.js",
        "search/search_index.json",
        "offline.html",
        "vendor/plotly/plotly-basic.min.js",
        "vendor/plotly/plotly-cartesian.min.js",
        "vendor/katex/katex.min.css",
        *(
            f"vendor/pyodide/{n}"
            for n in (
                "pyodide.mjs",
                "pyodide.asm.mjs",
                "pyodide.asm.wasm",
                "python_stdlib.zip",
                "pyodide-lock.json",
            )
        ),
    }
    # … and each script and stylesheet a page links.
    for _, url in nav_pages():
        html = (built_site / url / "index.html").read_text()
        for ref in re.findall(r'<(?:script|link)\b[^>]*?(?:src|href)="([^"]+\.(?:js|css))"', html):
            needed.add(re.sub(r"^(\.\./)*", "", ref))
    assert needed <= set(files), sorted(needed - set(files))
    assert not [p for p in files if p.endswith((".map", ".ttf", ".woff"))]
    # Every page states that total before the reader saves, on its button.
    for page in [*(built_site / url / "index.html" for _, url in nav_pages()), built_site / "offline.html"]:
        assert f"保存整章（{listed['text']}）" in page.read_text(), page


def test_save_the_chapter_then_every_page_and_widget_works_offline(browser, site_server, built_site):
    """From the guide, at 390 px: the footer's button states the size, saves every file of the manifest with
    its progress shown, and says so; then, offline, every page of the chapter opens with its widgets mounted,
    and Python recomputes on two pages never opened before (lesson 2's bit flipper, lesson 5's memory bar)."""
    listed = chapter(built_site)
    n, text = len(listed["files"]), listed["text"]
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme="light")
    page = ctx.new_page()
    errors = collect_errors(page)
    try:
        page.goto(site_server.url)
        save = page.locator("[data-c9-save]")
        expect(save).to_be_visible(timeout=60_000)
        # What the guide fetches by itself (its widgets' answer caches, Python if a widget is near) is kept as
        # it arrives; once that is done, the guide opened again states what is left.
        wait_until(page, PYTHON_SETTLED, ms=PYTHON_TIMEOUT)
        page.wait_for_timeout(1_000)
        page.reload()
        expect(save).to_be_visible(timeout=60_000)
        status = save.locator(".c9-save-status")
        # Before it starts it states the size: the chapter's, and what is left to download beside what the
        # service worker already keeps (the fallback page's shell, kept at install).
        urls = [site_server.url + url_of(f["path"]) for f in listed["files"]]
        missing = set(evaluate_within(page, ALL_CACHED, urls))
        kept = [f for f, url in zip(listed["files"], urls) if url not in missing]
        assert 0 < len(kept) < n
        left = about(sum(f["bytes"] for f, url in zip(listed["files"], urls) if url in missing))
        expect(status).to_have_text(
            f"把整章存到本机：全部页面、组件的脚本、Python 和字体，共 {n} 个文件，{text}，其中 {len(kept)} 个已在本机，"
            f"还要下载{left}。存好后断网也能读每一页、用每个组件。"
        )
        button = save.get_by_role("button", name=f"保存整章（{left}）")
        box = button.bounding_box()
        assert (
            box["height"] >= 44 and box["width"] >= 44 and box["x"] >= 0 and box["x"] + box["width"] <= 390
        ), box
        page.evaluate(RECORD_PROGRESS)
        started = time.monotonic()
        button.focus()
        page.keyboard.press("Enter")
        expect(status).to_have_text(
            f"整章已存到本机（{n} 个文件，{text}）：断网也能读每一页、用每个组件。", timeout=PYTHON_TIMEOUT
        )
        seconds = time.monotonic() - started
        expect(button).to_be_hidden()
        # Progress was shown: files counted up to N of N, bytes up to the total, never backwards.
        seen = [PROGRESS.match(s) for s in page.evaluate("window.__progress")]
        seen = [(int(m[1]), int(m[2]), float(m[3]), float(m[4])) for m in seen if m]
        assert len(seen) >= 3, seen
        total_mb = round(listed["bytes"] / 10**6, 1)
        assert all(of == n and y == total_mb for _, of, _, y in seen), seen[:3]
        assert [d for d, *_ in seen] == sorted(d for d, *_ in seen) and seen[-1][0] == n
        assert [x for *_, x, _ in seen] == sorted(x for *_, x, _ in seen) and seen[-1][2] == total_mb
        assert evaluate_within(page, ALL_CACHED, urls) == []
        print(f"\nsaved {n} files, {listed['bytes']:,} bytes ({text}) in {seconds:.1f} s")

        site_server.block("/c9/")
        ctx.set_offline(True)
        for title, url in nav_pages():
            page.goto(site_server.url + url)
            assert url == "" or page.title().startswith(title), (url, page.title())
            assert page.locator("article h1").first.inner_text() != "现在是离线状态"
            names = page.evaluate(
                """() => [...new Set([...document.querySelectorAll('.c9-widget[data-widget]')].map((w) => w.dataset.widget)
                    .concat(document.querySelector('.admonition.task') ? ['task'] : []))]"""
            )
            wait_until(
                page,
                "async (names) => names.every((n) => performance.getEntriesByName('c9:mount:' + n).length > 0)",
                names,
            )
            assert page.locator('[data-state="offline"]').count() == 0, url
        # Python, from the saved copy, on pages never opened before the save.
        page.goto(site_server.url + "lesson-2/")
        widget = flip_last_fp16_bit(page)
        expected = python_view("bit-flipper", formats="float16,float32", source="float16", code=0x3C01)
        expect(widget.locator(".c9-summary")).to_have_text(expected["summary"], timeout=PYTHON_TIMEOUT)
        page.goto(site_server.url + "lesson-5/")
        widget = move_b(page, 3)
        expect(widget.locator(".c9-summary")).to_have_text(
            python_view("memory-bar", b=4)["summary"], timeout=PYTHON_TIMEOUT
        )
        expect(widget.locator(".c9-status")).to_contain_text("已算出这一状态")
        # A later visit knows the chapter is saved.
        expect(page.locator("[data-c9-save] .c9-save-status")).to_contain_text("整章已存到本机")
        assert errors == [], errors
    finally:
        ctx.set_offline(False)
        site_server.block()
        ctx.close()


def test_a_save_cut_short_says_so_and_goes_on_where_it_stopped(browser, site_server, built_site):
    """A file the server will not give (here: one Plotly bundle) leaves the chapter unsaved: the footer says in
    Chinese how many files did not arrive and what is left, its button goes on; once the file is there, one
    more press saves the rest and says so."""
    listed = chapter(built_site)
    bundle = next(f for f in listed["files"] if f["path"] == "vendor/plotly/plotly-basic.min.js")
    ctx = browser.new_context(color_scheme="dark")
    page = ctx.new_page()
    try:
        page.goto(site_server.url + "lesson-1/")
        save = page.locator("[data-c9-save]")
        expect(save).to_be_visible(timeout=60_000)
        site_server.block("plotly-basic.min.js")
        save.locator(".c9-save-button").click()
        status = save.locator(".c9-save-status")
        kept = len(listed["files"]) - 1
        expect(status).to_have_text(
            f"没有存完：有 1 个文件没能下载，可能是网络断了。已存的 {kept} 个文件留在本机；联网后再点一次，"
            f"会接着存剩下的{about(bundle['bytes'])}。",
            timeout=PYTHON_TIMEOUT,
        )
        button = save.get_by_role("button", name=f"接着保存（还差{about(bundle['bytes'])}）")
        site_server.block()
        button.click()
        expect(status).to_contain_text(
            f"整章已存到本机（{len(listed['files'])} 个文件", timeout=PYTHON_TIMEOUT
        )
    finally:
        site_server.block()
        ctx.close()


def test_an_updated_build_replaces_what_changed_and_keeps_the_rest(browser, built_site, tmp_path):
    """A reader saved the chapter; a new build changes lesson 1. On the next visit the new service worker
    carries every unchanged file over without asking the server, drops the old caches, and the page saves
    the new lesson 1 by itself: offline, lesson 1 is the new one and every other page still opens."""
    from hooks import offline

    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    server = SiteServer(site)
    ctx = browser.new_context()
    page = ctx.new_page()
    try:
        page.goto(server.url + "lesson-3/")
        saved = page.locator("[data-c9-save] .c9-save-status")
        page.locator("[data-c9-save] .c9-save-button").click()
        expect(saved).to_contain_text("整章已存到本机", timeout=PYTHON_TIMEOUT)
        old = sw_build(site)["site"]

        # The new build: lesson 1 changes; the build's last step writes the manifest and sw.js again.
        lesson = site / "lesson-1" / "index.html"
        lesson.write_text(lesson.read_text().replace("<h1", '<p id="c9-new-build">新的一版</p><h1', 1))
        pyodide = json.loads((ROOT / "package.json").read_text())["dependencies"]["pyodide"]
        offline.write(site, pyodide)
        new = sw_build(site)["site"]
        assert new != old
        server.httpd.requests.clear()

        page.goto(server.url + "lesson-3/")
        wait_until(
            page,
            "async ([now, gone]) => { const k = await caches.keys(); return k.some((n) => n.endsWith(now)) && !k.some((n) => n.endsWith(gone)); }",
            [f"site-{new}", f"site-{old}"],
            ms=PYTHON_TIMEOUT,
        )
        expect(saved).to_contain_text("整章已存到本机", timeout=PYTHON_TIMEOUT)
        asked = set(server.httpd.requests)
        assert "/c9/lesson-1/" in asked
        untouched = {
            f"/c9/{p}"
            for p in (
                "lesson-2/",
                "lesson-4/",
                "lesson-5/",
                "fp4/",
                "lab/",
                "vendor/pyodide/pyodide.asm.wasm",
                "vendor/plotly/plotly-cartesian.min.js",
            )
        }
        assert not asked & untouched, sorted(asked & untouched)

        server.block("/c9/")
        ctx.set_offline(True)
        page.goto(server.url + "lesson-1/")
        expect(page.locator("#c9-new-build")).to_have_text("新的一版")
        for _, url in nav_pages():
            page.goto(server.url + url)
            assert page.locator("article h1").first.inner_text() != "现在是离线状态", url
    finally:
        ctx.set_offline(False)
        ctx.close()
        server.close()
