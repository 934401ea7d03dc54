"""Shared fixtures: the built site (one strict build per run, shared by the xdist workers), a static server
that serves it under a sub-path as GitHub Pages does, and one headless Chromium whose every wait is
bounded. Each test is marked with its folder, and a test that opens Chromium with `browser`."""

from __future__ import annotations

import functools
import http.server
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
# The tests mirror the package's layers (c9/base < core < views < figures), then the built site (build and
# browser) and the lab (its smoke run and the checks against torch); each test is marked with its folder.
LAYERS = ("base", "core", "views", "figures", "site", "lab")
# A test module may use another's check scripts (from test_text_rules import RULES), in any folder.
sys.path[:0] = [str(ROOT)] + [str(TESTS / layer) for layer in LAYERS]

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
# Every response carries the strict policy the site is built for, so every browser test runs under it
# (the pages also carry it as a <meta>; the header covers the Web Worker too).
CSP = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self'; object-src 'none'"
)


def pytest_collection_modifyitems(items):
    """Each test is marked with its folder (`-m core`, `-m "site and not browser"`). A test that opens Chromium
    (the browser fixture, itself or through another fixture) is a browser test: `-m "not browser"` leaves
    it out, whatever file it is in."""
    for item in items:
        folder = item.path.relative_to(TESTS).parts[0] if TESTS in item.path.parents else None
        if folder in LAYERS:
            item.add_marker(getattr(pytest.mark, folder))
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


def _build_site(out: Path) -> None:
    """A strict MkDocs build into `out`; the build log is kept beside it (out/../build.log)."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": f"http://127.0.0.1{SUB_PATH}"}
    config = os.environ.get("C9_MKDOCS_CONFIG", "mkdocs.yml")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out), "-f", config],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    (out.parent / "build.log").write_text(proc.stdout + proc.stderr)
    (out.parent / "build.returncode").write_text(str(proc.returncode))


def _shared_build(basetemp: Path) -> Path:
    """The site, built once for the whole run into a temporary folder, whose build log is kept beside it.
    Under pytest-xdist the workers share one build: the first builds it while holding a lock on a folder
    that all workers share, the others wait for the lock and take its result."""
    import fcntl

    shared = (basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp) / "built-site"
    shared.mkdir(exist_ok=True)
    with open(shared / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (shared / "build.returncode").exists():
            _build_site(shared / "site")
    return shared


def pytest_collection_finish(session):
    """Build the site before the first test that needs it starts, so that the build (about 20 s, minutes on
    a loaded machine) is not charged to that test's time limit; a run that needs no site builds none."""
    if any("built_site" in getattr(item, "fixturenames", ()) for item in session.items):
        _shared_build(session.config._tmp_path_factory.getbasetemp())


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The strictly built site (pytest_collection_finish built it). C9_MKDOCS_CONFIG points at another
    config (for trying a draft docs folder)."""
    shared = _shared_build(tmp_path_factory.getbasetemp())
    assert int((shared / "build.returncode").read_text()) == 0, (shared / "build.log").read_text()
    return shared / "site"


class _SubPathHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site only under SUB_PATH; `blocked` paths answer 404 (for failure tests)."""

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
    def __init__(self, directory: Path):
        handler = functools.partial(_SubPathHandler, directory=str(directory))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.blocked = ()
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


def new_page(browser, **context_options):
    """A fresh browser context and page; page.errors collects page errors and console errors.
    Returns (context, page); close the context when done."""
    ctx = browser.new_context(**context_options)
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
    return ctx, page


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
