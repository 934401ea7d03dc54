"""In headless Chromium, lesson 4's E4M3FN exercise as a reader uses it: a wrong answer (the IEEE-style
encoder that stops at 240) is named at its first differing case with its own hint, a right one passes and
opens the reference solution, the code survives a reload and the reset button brings the stub back, Tab
leaves the editor, and a loop that never ends is stopped, after which the page's Python answers again."""

from __future__ import annotations

import pytest
from conftest import PYTHON_TIMEOUT, new_page
from playwright.sync_api import expect

from c9.core import exercises

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

EX = exercises.E4M3


def _exercise(page, url):
    page.goto(url)
    w = page.locator(f'[data-exercise="{EX.id}"]')
    w.scroll_into_view_if_needed()
    expect(w.locator(".c9-exercise-run")).to_be_visible()
    expect(w).to_have_attribute("data-editor", "codemirror")
    expect(w.locator("textarea")).to_be_hidden()
    return w


def _stored(page) -> str:
    return page.evaluate(f"JSON.parse(localStorage.getItem('c9:exercise:{EX.id}')).code")


def _run(w, code: str, runs: int, ms: int = PYTHON_TIMEOUT):
    # as a reader pastes: the whole text replaced in the editor (typing key by key would auto-indent)
    w.locator(".cm-content").click()
    w.page.keyboard.press("Control+A")
    w.page.keyboard.insert_text(code)
    assert _stored(w.page) == code
    w.locator(".c9-exercise-run").click()
    expect(w).to_have_attribute("data-runs", str(runs), timeout=ms)


def test_a_wrong_then_a_right_answer_then_a_loop_that_never_ends(browser, site_server):
    ctx, page = new_page(browser, viewport={"width": 390, "height": 844})
    try:
        w = _exercise(page, site_server.url + "lesson-4/")
        solution = w.locator(".c9-exercise-solution")
        expect(solution).to_be_hidden()
        ieee = next(m for m in EX.mistakes if m.key == "ieee_240")
        _run(w, ieee.source, 1)
        expect(w.locator(".c9-exercise-summary")).to_contain_text("还不对")
        expect(w.locator(".c9-exercise-in")).to_have_text("256")
        expect(w.locator(".c9-exercise-got")).to_have_text("0x77（240）")
        expect(w.locator(".c9-exercise-want")).to_have_text("0x78（256）")
        expect(w.locator(".c9-exercise-hint")).to_have_text("提示：" + ieee.hint)
        expect(solution).to_be_hidden()

        _run(w, EX.solution, 2)
        expect(w.locator(".c9-exercise-summary")).to_have_text(
            f"通过：全部 {len(EX.cases)} 个情形都与本章的 Python 一致。"
        )
        expect(w.locator(".c9-exercise-hint")).to_be_hidden()
        expect(solution).to_be_visible()

        # kept across a reload; the reset button brings the stub back
        page.reload()
        w = _exercise(page, site_server.url + "lesson-4/")
        expect(w.locator(".cm-content")).to_contain_text("return sign | min(code, 0x7E)")
        expect(w.locator(".c9-exercise-solution")).to_be_visible()  # solved stays solved
        w.locator(".c9-exercise-reset").click()
        assert _stored(page) == EX.stub
        expect(w.locator(".cm-content")).not_to_contain_text("min(code")
        # the editor is labelled; Tab indents in it, Escape then Tab leaves it for the run button
        content = w.locator(".cm-content")
        expect(content).to_have_attribute("aria-label", "你的代码（Python，函数名保持 encode_e4m3）")
        content.click()
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.classList.contains('cm-content')")
        page.keyboard.press("Escape")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.classList.contains('c9-exercise-run')")

        # a loop that never ends: stopped, said so, and the next run is answered by a fresh worker
        _run(w, "def encode_e4m3(x):\n    while True:\n        pass\n", 1, ms=PYTHON_TIMEOUT + 10_000)
        expect(w.locator(".c9-exercise-summary")).to_contain_text("已被停下")
        _run(w, EX.solution, 2, ms=PYTHON_TIMEOUT + 10_000)
        expect(w.locator(".c9-exercise-summary")).to_contain_text("通过")
        assert page.errors == []
    finally:
        ctx.close()


# One exercise per page beyond lesson 4: a typical wrong answer typed in is named at its first differing
# case with its own hint, and the reference solution then passes (checked against the Python-side answer).
PER_PAGE = [
    ("lesson-2/", exercises.FP16, "saturate_65504"),
    ("lesson-4/", exercises.TILE_1X128, "ieee_240"),
    ("fp4/", exercises.E2M1, "no_saturation"),
    ("fp4/", exercises.NVFP4, "no_tensor_scale"),
    ("lesson-5/", exercises.ACTIVATIONS, "flash_keeps_s2"),
]


@pytest.mark.parametrize("path,ex,key", PER_PAGE, ids=[e.id for _, e, _ in PER_PAGE])
def test_each_page_names_a_typical_wrong_answer_and_passes_the_right_one(browser, site_server, path, ex, key):
    mistake = next(m for m in ex.mistakes if m.key == key)
    want = exercises.check(ex, mistake.source)
    ctx, page = new_page(browser)
    try:
        page.goto(site_server.url + path)
        w = page.locator(f'[data-exercise="{ex.id}"]')
        w.scroll_into_view_if_needed()
        expect(w).to_have_attribute("data-editor", "codemirror")
        for runs, code in ((1, mistake.source), (2, ex.solution)):
            w.locator(".cm-content").click()
            page.keyboard.press("Control+A")
            page.keyboard.insert_text(code)
            w.locator(".c9-exercise-run").click()
            expect(w).to_have_attribute("data-runs", str(runs), timeout=PYTHON_TIMEOUT)
            if runs == 1:
                expect(w.locator(".c9-exercise-in")).to_have_text(want.case["input"])
                expect(w.locator(".c9-exercise-got")).to_have_text(want.case["got"])
                expect(w.locator(".c9-exercise-want")).to_have_text(want.case["want"])
                expect(w.locator(".c9-exercise-hint")).to_have_text("提示：" + mistake.hint)
        expect(w.locator(".c9-exercise-summary")).to_have_text(
            f"通过：全部 {len(ex.cases)} 个情形都与本章的 Python 一致。"
        )
        expect(w.locator(".c9-exercise-solution")).to_be_visible()
        assert page.errors == []
    finally:
        ctx.close()


def test_a_box_focused_before_its_editor_arrives_hands_the_editor_its_focus_and_text(browser, site_server):
    """The editor is fetched when the box nears the screen or is focused; a reader who clicked into the box
    first and typed keeps both: the editor has the text typed and the focus (hiding the box had dropped it
    on the page's body)."""
    ctx, page = new_page(browser, python=False, viewport={"width": 1280, "height": 800})
    try:
        page.goto(site_server.url + "lesson-4/")
        w = page.locator(f'[data-exercise="{EX.id}"]')
        expect(w).to_have_attribute("data-mounted", "yes", timeout=30_000)
        assert w.get_attribute("data-editor") is None  # far below the first screen: not fetched yet
        area = w.locator("textarea")
        area.evaluate(
            "(a) => { a.focus({ preventScroll: true }); a.value += '\\n# 先写一行';"
            " a.selectionStart = a.selectionEnd = a.value.length; }"
        )
        expect(w).to_have_attribute("data-editor", "codemirror", timeout=30_000)
        assert page.evaluate("() => Boolean(document.activeElement.closest('.cm-editor'))")
        expect(w.locator(".cm-content")).to_contain_text("# 先写一行")
        page.keyboard.type("XYZ")  # the cursor is where the reader left it in the box: at the end
        assert w.locator(".cm-content").inner_text().rstrip().endswith("# 先写一行XYZ")
        assert page.errors == []
    finally:
        ctx.close()
