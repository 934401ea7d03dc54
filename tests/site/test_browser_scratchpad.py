"""In headless Chromium, the Python scratchpad as a reader uses it (c9/views/scratchpad.*, reader-code.js):
the example runs and shows what it printed and its last value (the same as CPython's answer), Ctrl+Enter
runs a print and a last expression, a syntax error names its line in Chinese, a loop that never ends is
stopped and the next run is answered by a fresh worker, the code survives a reload; a run that eats memory
is stopped or fails cleanly, the page says so in Chinese, the worker is replaced and the page's exercise
still answers; without JavaScript the scratchpad says that it needs scripts."""

from __future__ import annotations

import pytest
from conftest import PYTHON_TIMEOUT, evaluate_within, new_page, python_view
from playwright.sync_api import expect

from c9.core import exercises
from c9.views import scratchpad

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

WORKER = "new URL('../assets/js/worker.js', location.href)"
STOPPED = PYTHON_TIMEOUT + 15_000  # a run stopped after its 5 s, then a fresh worker's boot


def _scratchpad(page, url, page_id="lesson-4"):
    page.goto(url)
    w = page.locator(f'[data-widget="scratchpad"][data-page="{page_id}"]')
    w.locator("summary").click()
    expect(w).to_have_attribute("data-editor", "codemirror")
    expect(w.locator("textarea")).to_be_hidden()
    return w


def _stored(page, page_id="lesson-4") -> str:
    return page.evaluate(f"JSON.parse(localStorage.getItem('c9:scratchpad:{page_id}')).code")


def _type(w, code: str) -> None:
    # as a reader pastes: the whole text replaced in the editor (typing key by key would auto-indent)
    w.locator(".cm-content").click()
    w.page.keyboard.press("Control+A")
    w.page.keyboard.insert_text(code)
    assert _stored(w.page) == code


def _run(w, code: str | None, runs: int, ms: int = PYTHON_TIMEOUT, keys: bool = False) -> None:
    if code is not None:
        _type(w, code)
    if keys:
        w.locator(".cm-content").press("Control+Enter")
    else:
        w.locator(".c9-scratch-run").click()
    expect(w).to_have_attribute("data-runs", str(runs), timeout=ms)


def _shown(code: str) -> str:
    v = python_view("scratchpad", code=code)
    return v["output"] + v["value"]


def test_example_print_syntax_error_and_a_loop_that_never_ends(browser, site_server):
    ctx, page = new_page(browser, viewport={"width": 390, "height": 844})
    try:
        w = _scratchpad(page, site_server.url + "lesson-4/")
        out, summary = w.locator(".c9-scratch-out"), w.locator(".c9-scratch-summary")
        expect(w.locator(".cm-content")).to_have_attribute("aria-label", "草稿本的代码（Python）")
        _run(w, None, 1)  # the example as the page gives it
        expect(out).to_have_text(_shown(scratchpad.EXAMPLES["lesson-4"]))
        expect(summary).to_have_text("运行完毕，输出在下面。")

        code = 'from c9.core import formats\nprint("最大值", formats.decode("E4M3FN", 0x7E))\nhex(formats.encode("E4M3FN", 1.0))'
        _run(w, code, 2, keys=True)
        expect(out).to_have_text(_shown(code))
        assert _shown(code) == "最大值 448.0\n'0x38'"

        _run(w, "x = 1\nprint((x\n", 3)
        expect(summary).to_have_text(python_view("scratchpad", code="x = 1\nprint((x\n")["summary"])
        expect(summary).to_contain_text("第 2 行有语法错误")
        expect(out).to_be_hidden()

        # kept across a reload; 「清空」 empties it
        page.reload()
        w = _scratchpad(page, site_server.url + "lesson-4/")
        expect(w.locator(".cm-content")).to_contain_text("print((x")
        w.locator(".c9-scratch-clear").click()
        assert _stored(page) == ""

        # a loop that never ends: stopped, said so, and the next run is answered by a fresh worker
        _run(w, "while True:\n    pass\n", 1, ms=STOPPED)
        expect(w.locator(".c9-scratch-summary")).to_contain_text("已被停下")
        expect(w.locator(".c9-scratch-summary")).to_contain_text("Python 已重新启动")
        _run(w, "print(6 * 7)\n", 2, ms=STOPPED)
        expect(w.locator(".c9-scratch-out")).to_have_text("42\n")
        w.locator(".c9-scratch-reset").click()
        assert _stored(page) == scratchpad.EXAMPLES["lesson-4"]
        assert page.errors == []
    finally:
        ctx.close()


MEMORY_EATER = "xs = []\nwhile True:\n    xs.append(bytearray(100_000_000))\n"


def test_a_run_that_eats_memory_is_stopped_and_the_pages_exercise_still_answers(browser, site_server):
    ctx, page = new_page(browser, viewport={"width": 1280, "height": 900})
    try:
        w = _scratchpad(page, site_server.url + "lesson-4/")
        _run(w, "print(1)", 1)  # Python is up
        evaluate_within(
            page, f"() => import({WORKER}).then((m) => {{ window.c9FirstWorker = m.python.worker; }})"
        )
        _run(w, MEMORY_EATER, 2, ms=STOPPED)
        said = w.locator(".c9-scratch-summary").text_content()
        print("memory run said:", said)  # noqa: T201 — the report quotes which way it ended
        assert ("已被停下" in said or "内存不够" in said or "崩溃" in said) and "重新启动" in said, said
        expect(w.locator(".c9-scratch-summary")).to_have_attribute("data-kind", "error")

        # another widget on the page answers, from a worker that is not the one that ate the memory
        ex = page.locator(f'[data-exercise="{exercises.E4M3.id}"]')
        ex.scroll_into_view_if_needed()
        expect(ex).to_have_attribute("data-editor", "codemirror")
        ex.locator(".cm-content").click()
        page.keyboard.press("Control+A")
        page.keyboard.insert_text(exercises.E4M3.solution)
        ex.locator(".c9-exercise-run").click()
        expect(ex).to_have_attribute("data-runs", "1", timeout=STOPPED)
        expect(ex.locator(".c9-exercise-summary")).to_contain_text("通过")
        fresh = evaluate_within(
            page,
            f"() => import({WORKER}).then((m) => [Boolean(m.python.worker), m.python.worker !== window.c9FirstWorker, m.python.state])",
        )
        assert fresh == [True, True, "ready"], fresh
        _run(w, "print(6 * 7)\n", 3)  # and the scratchpad itself
        expect(w.locator(".c9-scratch-out")).to_have_text("42\n")

        # Python's own MemoryError (here raised: a real one takes longer than the limit to reach) is said,
        # and the worker, whose grown heap would never shrink, is replaced without counting as a crash.
        evaluate_within(
            page, f"() => import({WORKER}).then((m) => {{ window.c9FirstWorker = m.python.worker; }})"
        )
        _run(w, "xs = [1]\nraise MemoryError\n", 4)
        expect(w.locator(".c9-scratch-summary")).to_have_text(
            python_view("scratchpad", code="xs = [1]\nraise MemoryError\n")["summary"]
        )
        expect(w.locator(".c9-scratch-summary")).to_contain_text("第 2 行出错：内存不够了")
        renewed = f"() => import({WORKER}).then((m) => [m.python.worker !== window.c9FirstWorker, m.python.restarts])"
        assert evaluate_within(page, renewed) == [True, 0]
        _run(w, "print(6 * 7)\n", 5)
        expect(w.locator(".c9-scratch-out")).to_have_text("42\n")
        assert page.errors == []
    finally:
        ctx.close()


def test_without_javascript_it_says_it_needs_scripts(browser, site_server):
    ctx = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    try:
        page = ctx.new_page()
        for page_id in scratchpad.EXAMPLES:
            page.goto(site_server.url + ("fp4/" if page_id == "fp4" else f"{page_id}/"))
            w = page.locator(f'[data-widget="scratchpad"][data-page="{page_id}"]')
            w.locator("summary").click()
            expect(w.locator(".c9-scratch-noscript")).to_be_visible()
            expect(w.locator(".c9-scratch-noscript")).to_contain_text("需要打开 JavaScript")
            expect(w.locator(".c9-scratch-live")).to_be_hidden()
            expect(w.locator("noscript pre")).to_have_text(scratchpad.EXAMPLES[page_id].rstrip("\n"))
    finally:
        ctx.close()


def test_input_and_stdin_say_there_is_no_keyboard_without_a_console_error(browser, site_server):
    # Pyodide's default stdin calls prompt(), which a worker lacks: an I/O error and a console error
    ctx, page = new_page(browser, viewport={"width": 1280, "height": 800})
    try:
        w = _scratchpad(page, site_server.url + "lesson-4/")
        summary = w.locator(".c9-scratch-summary")
        _run(w, "print('前')\ninput('?')\n", 1, ms=STOPPED)
        expect(summary).to_have_text(
            "运行时，第 2 行出错：页面里的 Python 读不到键盘输入（input() 用不了）。"
        )
        _run(w, "import sys\nprint(repr(sys.stdin.readline()))\n", 2)
        expect(w.locator(".c9-scratch-out")).to_have_text("''\n")
        assert not [e for e in page.errors if "prompt" in e or "read" in e], page.errors
    finally:
        ctx.close()
