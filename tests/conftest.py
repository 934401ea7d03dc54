"""Shared fixtures: the built site (one strict build per run, shared by the xdist workers), a static server
that serves it under a sub-path as GitHub Pages does, and one headless Chromium whose every wait is
bounded. Each test is marked with its folder, and a test that opens Chromium with `browser`."""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
# The tests mirror the package's layers (c9/base < core < views < figures), then the built site (build and
# browser) and the lab (its smoke run and the checks against torch); each test is marked with its folder.
LAYERS = ("base", "core", "views", "figures", "site", "lab")
# A test module may use another's check scripts (from test_text_rules import RULES), in any folder.
sys.path[:0] = [str(ROOT)] + [str(TESTS / layer) for layer in LAYERS]

# Each xdist worker has one of the two cores: torch's own thread pool (two threads, OpenMP's spinning
# waits) would fight the other worker for it. Set before any test module imports torch.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")

SUB_PATH = "/c9/"
# Debian's Chromium (Playwright cannot download browsers here); runners may put it elsewhere.
CHROMIUM = os.environ.get("C9_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
PYTHON_TIMEOUT = 120_000  # ms; Pyodide boots in a few seconds, a loaded CI machine can be slow
# Every Playwright wait is bounded: actions, navigations and expect() by these defaults (set on every context,
# see ChromiumWithTimeouts), page.evaluate's promises by evaluate_within. pytest-timeout (pyproject.toml)
# is the last resort for a wait that escapes them.
ACTION_TIMEOUT = 30_000  # ms: a click, a fill, wait_for_function without its own timeout
NAVIGATION_TIMEOUT = 60_000  # ms: goto, reload, go_back on a loaded 2-core machine
EVALUATE_TIMEOUT = 30_000  # ms: a promise awaited inside page.evaluate
EXPECT_TIMEOUT = 15_000  # ms: expect(…) without its own timeout (Playwright's 5 s is tight with two workers)
# Hypothesis judges by value only: its per-example deadline (200 ms) and its too-slow check time the
# examples, and failed here whenever the machine was busy (a decimal parsed in 449 ms under load). Each test
# keeps its time limit (pyproject.toml: timeout).
# `make check`, the quick look before a commit, sets C9_QUICK=1: each property test there draws a fifth of
# its examples (at least 20; the profile's 100 becomes 20), so that everything that needs no browser runs in
# about a minute and a half; `make test` and CI draw them all.
QUICK = os.environ.get("C9_QUICK") == "1"
settings.register_profile("c9", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("c9-quick", settings.get_profile("c9"), max_examples=20)
settings.load_profile("c9-quick" if QUICK else "c9")


def examples(n: int) -> int:
    """How many examples a property test that asks for `n` draws in this run (QUICK)."""
    return max(20, n // 5) if QUICK else n


# Every response carries the strict policy the site is built for, so every browser test runs under it
# (the pages also carry it as a <meta>; the header covers the Web Worker too).
CSP = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self'; object-src 'none'"
)


# The files that take longest, slowest first (CPU seconds measured on 2 cores, browser and not). Under
# `--dist loadfile` a file runs whole on one worker, and a worker takes the next file in this order as it
# frees up, so the long files start first, the short ones fill in around them, and both workers finish
# together instead of one running a long browser file alone at the end. (pyproject.toml turns off xdist's
# own order, which puts the files with most tests first.) A file not named here keeps its place after these.
SLOWEST_FIRST = (
    "site/test_url_state.py",
    "site/test_layout.py",
    "site/test_bad_input.py",
    "site/test_browser_estimator.py",
    "site/test_charts_drawn.py",
    "site/test_site_quality.py",
    "site/test_browser_answer_cache.py",
    "site/test_browser_codec_lab.py",
    "lab/test_lab.py",
    "views/test_fuzz_views.py",
    "site/test_browser_block_lab.py",
    "site/test_offline.py",
    "site/test_browser.py",
    "figures/test_figure_provenance.py",
    "site/test_browser_lesson4_fp4.py",
    "site/test_browser_lessons123.py",
    "views/test_step_stages.py",
    "base/test_palette.py",
    "lab/test_codec_check_torch.py",
    "lab/test_activation_check.py",
)


def pytest_collection_modifyitems(items):
    """Each test is marked with its folder (`-m core`, `-m "site and not browser"`). A test that opens Chromium
    (the browser fixture, itself or through another fixture) is a browser test: `-m "not browser"` leaves
    it out, whatever file it is in. The files are put in SLOWEST_FIRST's order (each file's tests keep theirs)."""
    for item in items:
        folder = item.path.relative_to(TESTS).parts[0] if TESTS in item.path.parents else None
        if folder in LAYERS:
            item.add_marker(getattr(pytest.mark, folder))
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}

    def place(item):
        name = item.path.relative_to(TESTS).as_posix() if TESTS in item.path.parents else ""
        return rank.get(name, len(rank))

    items.sort(key=place)


BUILD_TIMEOUT = 900  # s: the strict build takes about 20 s, minutes on a loaded machine


def _build_site(out: Path) -> None:
    """A strict MkDocs build into `out`; the build log is kept beside it (out/../build.log), then its return
    code (out/../build.returncode, written last, whole: its presence says the build is over)."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": f"http://127.0.0.1{SUB_PATH}"}
    config = os.environ.get("C9_MKDOCS_CONFIG", "mkdocs.yml")
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out), "-f", config],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT,
        )
        log, code = proc.stdout + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired:
        log, code = f"the build did not finish within {BUILD_TIMEOUT} s", 124
    (out.parent / "build.log").write_text(log)
    (out.parent / "build.returncode.part").write_text(str(code))
    (out.parent / "build.returncode.part").rename(out.parent / "build.returncode")


def _shared_build(basetemp: Path, wait: bool = True) -> Path:
    """The site, built once for the whole run into a temporary folder, whose build log is kept beside it.
    Under pytest-xdist the workers share one build: the first to take the lock on a folder they all share
    starts it on a thread of its own (the worker's process does not end before that thread does), so that
    every worker goes on with tests that need no site meanwhile. wait: return once the build is over."""
    import fcntl

    shared = (basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp) / "built-site"
    shared.mkdir(exist_ok=True)
    with open(shared / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # held only while one worker claims the build
        if not (shared / "build.started").exists():
            (shared / "build.started").write_text(str(os.getpid()))
            threading.Thread(target=_build_site, args=(shared / "site",), name="site-build").start()
    end = time.monotonic() + BUILD_TIMEOUT + 60
    while wait and not (shared / "build.returncode").exists():
        assert time.monotonic() < end, f"the site's build did not end within {BUILD_TIMEOUT + 60} s"
        time.sleep(0.2)
    return shared


def _needs_site(item) -> bool:
    return "built_site" in getattr(item, "fixturenames", ())


def pytest_collection_finish(session):
    """Start the site's build as soon as the tests are known, so that the build is not charged to the time
    limit of the first test that needs it; a run that needs no site builds none. xdist hands out the first
    tests only once every worker has collected, so the build runs beside the tests, not before them (a test
    that needs the site waits for the build before its time limit starts: pytest_runtest_protocol)."""
    if any(_needs_site(item) for item in session.items):
        _shared_build(session.config._tmp_path_factory.getbasetemp(), wait=False)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    """Outside pytest-timeout's own wrapper (tryfirst): a test that needs the site waits here for the
    build another worker is running (itself bounded: _build_site's timeout)."""
    if _needs_site(item):
        _shared_build(item.config._tmp_path_factory.getbasetemp())
    yield


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The strictly built site (pytest_collection_finish built it). C9_MKDOCS_CONFIG points at another
    config (for trying a draft docs folder)."""
    shared = _shared_build(tmp_path_factory.getbasetemp())
    assert int((shared / "build.returncode").read_text()) == 0, (shared / "build.log").read_text()
    return shared / "site"


class _SubPathHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site only under SUB_PATH; `blocked` paths answer 404 (for failure tests). Each path asked
    for is noted in the server's `requests`."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
        ".woff2": "font/woff2",
        "": "application/octet-stream",
    }
    blocked: tuple[str, ...] = ()

    def translate_path(self, path):
        if not path.startswith(SUB_PATH):
            return "/nonexistent"
        return super().translate_path("/" + path[len(SUB_PATH) :])

    def do_GET(self):
        self.server.requests.append(self.path)
        if any(b in self.path for b in self.server.blocked):
            self.send_error(404, "blocked by test")
            return
        super().do_GET()

    def end_headers(self):
        self.send_header("Content-Security-Policy", CSP)
        super().end_headers()

    def log_message(self, *args):
        pass


class SiteServer:
    def __init__(self, directory: Path, handler_class=None):
        handler = functools.partial(handler_class or _SubPathHandler, directory=str(directory))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.blocked = ()
        self.httpd.requests = []
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}{SUB_PATH}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def block(self, *fragments: str) -> None:
        self.httpd.blocked = fragments

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="session")
def site_server(built_site):
    server = SiteServer(built_site)
    yield server
    server.close()


# A reader who only reads: Save-Data on, so no widget fetches its answer cache or starts Python ahead of a
# touch (course.js; tests/site/test_browser_answer_cache.py checks that it does not). For the checks of
# what the pages show before any input (layout, contrast, fonts, tooltips): Python changes nothing there,
# and its boot is the costliest thing a page does (about 5 s of CPU, on six of the eight pages).
# Every widget of the page on screen has mounted, or said why it could not (data-state): a page_wait predicate.
WIDGETS_MOUNTED = "() => [...document.querySelectorAll('article [data-widget]')].every((w) => w.dataset.mounted || w.dataset.state)"
READS_ONLY = "Object.defineProperty(navigator, 'connection', {value: {saveData: true}})"


def reading_context(browser, **context_options):
    """A browser context whose pages start no Python until a request needs it (READS_ONLY)."""
    ctx = browser.new_context(**context_options)
    ctx.add_init_script(READS_ONLY)
    return ctx


def new_page(browser, python: bool = True, **context_options):
    """A fresh browser context and page; page.errors collects page errors and console errors.
    python=False: a reading_context. Returns (context, page); close the context when done."""
    ctx = browser.new_context(**context_options) if python else reading_context(browser, **context_options)
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
    page.warnings = []  # the page's own warnings (worker.js says there why Python could not start)
    page.on("console", lambda m: m.type == "warning" and page.warnings.append(m.text))
    return ctx, page


def wait_for_python(page, ms: int = PYTHON_TIMEOUT) -> None:
    """Until the page's Python is ready (worker.js marks c9:python-ready); past `ms`, fails with what the
    page warned meanwhile (a boot that failed says why) rather than a bare timeout."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function("() => performance.getEntriesByName('c9:python-ready').length > 0", timeout=ms)
    except PlaywrightTimeout as e:
        started = page.evaluate("() => performance.getEntriesByName('c9:python-start').length > 0")
        raise AssertionError(
            f"Python not ready within {ms} ms ({'started' if started else 'never started'});"
            f" the page warned: {getattr(page, 'warnings', [])}"
        ) from e


def evaluate_within(target, script: str, arg=None, ms: int = EVALUATE_TIMEOUT):
    """target.evaluate(script, arg) for a script that awaits something (a frame, a fetch, Python): Playwright's
    evaluate has no timeout of its own and would wait forever for a promise that never settles, so the script
    races a timer and fails after `ms`. target is a page, a frame, a locator or an element handle."""
    bounded = f"""async (...args) => {{
        let timer;
        const limit = new Promise((_, fail) => {{
            timer = setTimeout(() => fail(new Error('evaluate did not settle within {ms} ms')), {ms});
        }});
        try {{ return await Promise.race([({script})(...args), limit]); }} finally {{ clearTimeout(timer); }}
    }}"""
    return target.evaluate(bounded, arg)


def wait_until(page, predicate: str, arg=None, ms: int = ACTION_TIMEOUT, every: int = 100) -> None:
    """Until an async predicate (a script whose value is a promise) resolves truthy, polled every `every` ms
    for at most `ms`. page.wait_for_function takes a returned promise itself as truthy and passes at once."""
    found = evaluate_within(
        page,
        f"""async (arg) => {{
            const end = Date.now() + {ms};
            while (Date.now() < end) {{
                if (await ({predicate})(arg)) return true;
                await new Promise((r) => setTimeout(r, {every}));
            }}
            return false;
        }}""",
        arg,
        ms + 5_000,
    )
    assert found, f"not true within {ms} ms: {predicate}"


def scroll_through(page) -> None:
    """Scrolls past every table of the article as a reader would, and back: a table's scroll cue is made when
    the table nears the screen (course.js, table-cues.js); checks of the whole page's layout (sizes, overlaps,
    scroll cues, axe) need them all."""
    evaluate_within(
        page,
        """async () => {
        // Two frames, or 100 ms if the page paints no frame (a headless page may not).
        const frame = () => new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(r)); setTimeout(r, 100); });
        const y = scrollY;
        for (const el of document.querySelectorAll('article table')) { el.scrollIntoView(); await frame(); }
        scrollTo(0, y);
        await frame();
    }""",
    )


@pytest.fixture(scope="module")
def page(browser):
    """One desktop-sized page (1280 × 900, light palette) shared by a test module's tests."""
    ctx, pg = new_page(browser, viewport={"width": 1280, "height": 900}, color_scheme="light")
    yield pg
    ctx.close()


def python_view(widget: str, **params) -> dict:
    """What a widget must show for these controls: the same Python, run here in CPython."""
    from c9.views import api

    out = json.loads(api.handle(json.dumps({"widget": widget, "params": params})))
    assert out["ok"], out
    return out["view"]


CJK = re.compile(r"[\u4e00-\u9fff]")


def python_error(widget: str, **params) -> str:
    """The Chinese message Python gives for these parameters (run here in CPython)."""
    from c9.views import api

    out = json.loads(api.handle(json.dumps({"widget": widget, "params": params})))
    assert not out["ok"], f"{widget} {params} should be refused: {out}"
    assert CJK.search(out["error"]) and "Error" not in out["error"], out["error"]
    return out["error"]


class ChromiumWithTimeouts:
    """The session's Chromium; every context it opens has the default timeouts above, whoever opens it."""

    def __init__(self, browser):
        self._browser = browser

    def new_context(self, **options):
        ctx = self._browser.new_context(**options)
        ctx.set_default_timeout(ACTION_TIMEOUT)
        ctx.set_default_navigation_timeout(NAVIGATION_TIMEOUT)
        return ctx

    def new_page(self, **options):
        raise TypeError("open a context with new_context (or conftest.new_page), and close it when done")

    def __getattr__(self, name):
        return getattr(self._browser, name)


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the whole session; each test opens its own context."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=EXPECT_TIMEOUT)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, timeout=NAVIGATION_TIMEOUT)
        yield ChromiumWithTimeouts(b)
        b.close()
