"""Lesson 5 in headless Chromium, served under a sub-path as GitHub Pages does: the figures are in
the HTML before any script, Python in the page recomputes the memory bar, instant navigation keeps
working, and nothing is requested from another origin."""

from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest
from conftest import PYTHON_TIMEOUT, new_page, wait_until
from conftest import python_view as view
from playwright.sync_api import expect
from svg_chart import bar_values

pytestmark = pytest.mark.browser


def python_view(**params):
    return view("memory-bar", **params)


class Watch:
    """Collects console errors, page errors, failed requests and requests to other origins."""

    def __init__(self, page, origin):
        self.errors, self.failed, self.foreign = [], [], []
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        # A request cancelled by navigation (net::ERR_ABORTED) is not a failure; a refused or missing one is.
        page.on(
            "requestfailed",
            lambda r: "ERR_ABORTED" not in (r.failure or "") and self.failed.append(f"{r.url} {r.failure}"),
        )
        page.on("response", lambda r: r.status >= 400 and self.failed.append(f"{r.url} {r.status}"))

        def on_request(r):
            u = urlparse(r.url)
            if u.scheme in ("http", "https", "ws", "wss") and f"{u.scheme}://{u.netloc}" != origin:
                self.foreign.append(r.url)

        page.on("request", on_request)
        # Requests made by the module worker (Pyodide and the course zip) are seen by the context.
        page.context.on("request", on_request)

    def assert_clean(self):
        assert self.errors == [], self.errors
        assert self.failed == [], self.failed
        assert self.foreign == [], self.foreign


def test_lesson_5_reads_complete_without_javascript(browser, site_server):
    ctx = browser.new_context(java_script_enabled=False)
    page = ctx.new_page()
    page.goto(site_server.url + "lesson-5/")
    body = page.text_content("article")  # includes collapsed answers, which open without scripts
    default = python_view()
    for text in ["162.5 GiB", "73.8%", "42.5 GiB", "2.5 GiB", "72.5 GiB", "402,653,184", default["summary"]]:
        assert text in body, text
    table = page.text_content(".c9-segments")
    for seg in default["segments"]:
        assert seg["text"] in table
    # The bar itself is drawn by the build: visible, seven segments as long as the ledger says.
    chart = page.locator(".c9-memory-bar .c9-chart")
    expect(chart.locator("svg")).to_be_visible()
    assert [k for k, _ in bar_values(chart.inner_html())] == [seg["key"] for seg in default["segments"]]
    ctx.close()


def test_memory_bar_is_recomputed_by_python_in_the_page(browser, site_server):
    ctx = browser.new_context()
    page = ctx.new_page()
    origin = site_server.url.split("/c9/")[0]
    watch = Watch(page, origin)
    page.goto(site_server.url + "lesson-5/")
    widget = page.locator('[data-widget="memory-bar"]')
    summary = widget.locator(".c9-summary")
    expect(summary).to_have_text(python_view()["summary"])
    expect(widget.locator(".c9-chart svg rect[data-key]")).to_have_count(7)  # drawn by the build

    # s from 4,096 to 8,192 with the keyboard (the slider's stops are …, 4,096, 6,144, 8,192, …).
    s_slider = widget.locator('input[name="s_stop"]')
    s_slider.focus()
    s_slider.press("ArrowRight")
    s_slider.press("ArrowRight")
    expect(widget.locator('input[name="s"]')).to_have_value("8192")
    b_slider = widget.locator('input[name="b_stop"]')
    b_slider.focus()
    b_slider.press("ArrowRight")
    expected = python_view(s=8192, b=2)
    expect(summary).to_have_text(expected["summary"], timeout=PYTHON_TIMEOUT)
    expect(widget).to_have_attribute("data-state", "live")
    assert "1,130.0 GiB" in summary.inner_text()
    # The chart was redrawn from Python's figure: the activation bars carry the new sizes.
    bars = bar_values(widget.locator(".c9-chart").inner_html())
    assert bars == [(k, pytest.approx(x, rel=1e-4)) for k, x in bar_values(expected["chart"])]
    assert dict(bars)["act_scores"] == pytest.approx(
        64 * 5 * 24 * 8192**2 * 2 / 10**9, rel=1e-4
    )  # L·5as²b, in GB

    # Switch the storage mode.
    widget.get_by_label("全量重计算").check()
    expect(summary).to_have_text(
        python_view(s=8192, b=2, mode="full_recompute")["summary"], timeout=PYTHON_TIMEOUT
    )

    # A segment explains itself on click.
    widget.locator('button[data-key="act_scores"]').click()
    expect(widget.locator(".c9-explain")).to_contain_text("激活·注意力分数")

    # Bad typed input: a Chinese message, the last good state stays.
    box = widget.locator('input[name="s"]')
    box.fill("0")
    box.press("Enter")
    expect(widget.locator(".c9-status")).to_contain_text(
        "序列长度 s 要在 1 到 1,048,576 之间", timeout=PYTHON_TIMEOUT
    )
    expect(summary).to_have_text(python_view(s=8192, b=2, mode="full_recompute")["summary"])
    # A value typed in another notation is shown as Python read it.
    box.fill("1e3")
    box.press("Enter")
    expect(summary).to_have_text(
        python_view(s=1000, b=2, mode="full_recompute")["summary"], timeout=PYTHON_TIMEOUT
    )
    expect(box).to_have_value("1000")
    # The keys move from a typed value between two stops to the stop on either side of it. The knob rests on
    # the nearer stop, 1,024: → went past it to 1,536, and End did nothing where 1,024 was the last stop.
    s_slider.focus()
    s_slider.press("ArrowRight")
    expect(box).to_have_value("1024")
    box.fill("1000")
    box.press("Enter")
    expect(summary).to_have_text(
        python_view(s=1000, b=2, mode="full_recompute")["summary"], timeout=PYTHON_TIMEOUT
    )
    s_slider.focus()
    s_slider.press("ArrowLeft")
    expect(box).to_have_value("768")
    expect(summary).to_have_text(
        python_view(s=768, b=2, mode="full_recompute")["summary"], timeout=PYTHON_TIMEOUT
    )

    # Instant navigation away and back: the widget mounts again and Python answers at once.
    page.locator("nav.md-nav--primary a", has_text="章导读").first.click()
    page.wait_for_url(re.compile(r"/c9/$"))
    page.locator("article a", has_text="第 5 课").first.click()
    page.wait_for_url(re.compile(r"/c9/lesson-5/$"))
    widget = page.locator('[data-widget="memory-bar"]')
    widget.get_by_label("FlashAttention").check()
    expect(widget.locator(".c9-summary")).to_have_text(
        python_view(mode="flash")["summary"], timeout=PYTHON_TIMEOUT
    )
    # A click on a bar segment explains it, as the table's buttons do.
    widget.locator('.c9-chart rect[data-key="act_linear"]').click()
    expect(widget.locator(".c9-explain")).to_contain_text("激活·")

    watch.assert_clean()
    ctx.close()


FAILED = (
    "async () => (await import(new URL('../assets/js/worker.js', location.href))).python.state === 'failed'"
)


# Pyodide's files missing (the worker's module cannot load), or only the course's zip (Pyodide boots, then fails).
@pytest.mark.parametrize("missing", ["vendor/pyodide/", "course-py.zip"])
def test_widget_says_so_when_python_cannot_load(browser, site_server, missing):
    site_server.block(missing)
    try:
        ctx, page = new_page(browser)
        page.goto(site_server.url + "lesson-5/")
        widget = page.locator('[data-widget="memory-bar"]')
        # Touched, it starts Python; the failed boot is known at once, before any request reaches Python.
        widget.locator('input[name="s"]').focus()
        wait_until(page, FAILED, ms=PYTHON_TIMEOUT)
        assert any("Python could not start" in w for w in page.warnings), page.warnings
        # A state the build's answer cache does not hold (one slider step would be answered from it).
        widget.locator('input[name="s"]').fill("5000")
        widget.locator('input[name="s"]').press("Enter")
        expect(widget.locator(".c9-status")).to_contain_text("Python 没能加载", timeout=PYTHON_TIMEOUT)
        expect(widget.locator(".c9-summary")).to_have_text(python_view()["summary"])  # the default stays
        assert "162.5 GiB" in page.inner_text("article")
        # The files are back (the reader's network returned): a later request boots Python again and is
        # answered, without a reload.
        site_server.block()
        page.wait_for_timeout(3_000)  # worker.js: RETRY_AFTER_MS
        widget.locator('input[name="s"]').fill("5001")
        widget.locator('input[name="s"]').press("Enter")
        expect(widget.locator(".c9-summary")).to_have_text(
            python_view(s=5001)["summary"], timeout=PYTHON_TIMEOUT
        )
        expect(widget.locator(".c9-status")).not_to_contain_text("没能加载")
        ctx.close()
    finally:
        site_server.block()


def timeline_view(**params):
    return view("timeline", **params)


def test_formula_timeline_and_tasks_work_in_the_page(browser, site_server):
    ctx = browser.new_context(reduced_motion="reduce")
    page = ctx.new_page()
    watch = Watch(page, site_server.url.split("/c9/")[0])
    page.goto(site_server.url + "lesson-5/")

    # The formula: a term explains itself on click and on keyboard focus.
    f = page.locator('[data-widget="formula"]')
    expect(f).to_have_attribute("data-mounted", "yes")  # a click before that does nothing
    f.locator('button[data-term="5as/h"]').click()
    expect(f.locator('.c9-term-item[data-term="5as/h"]')).to_be_visible()
    expect(f.locator('.c9-term-item[data-term="s"]')).to_be_hidden()
    expect(f.locator('.c9-term-item[data-term="5as/h"] .c9-term-value')).to_have_text(
        re.compile(r"^5as/h = 96\.0")
    )
    f.locator('button[data-term="s"]').focus()
    expect(f.locator('.c9-term-item[data-term="s"]')).to_be_visible()
    # …and follows the model chosen in the memory bar.
    page.locator('[data-widget="memory-bar"] select[name="model"]').select_option("qwen3-8b")
    expect(f.locator('.c9-term-item[data-term="5as/h"] .c9-term-value')).to_have_text(
        re.compile(r"^5as/h = 160\.0"), timeout=PYTHON_TIMEOUT
    )

    # The timeline: iteration 2 from Python; play under reduced motion jumps to the end.
    t = page.locator('[data-widget="timeline"]')
    t.scroll_into_view_if_needed()  # Plotly loads when a chart comes near the screen
    expect(t).to_have_attribute("data-chart", "drawn", timeout=30_000)
    t.get_by_label("第 2 次").check()
    expect(t.locator(".c9-summary")).to_have_text(
        timeline_view(iteration=2)["summary"], timeout=PYTHON_TIMEOUT
    )
    t.get_by_role("button", name="播放一次迭代").click()
    expect(t.locator(".c9-now")).to_contain_text("zero_grad()")
    t.get_by_role("button", name="单步").click()
    expect(t.locator(".c9-now")).to_contain_text("第 0 步")
    t.get_by_label("全量重计算").check()
    expect(t.locator(".c9-summary")).to_have_text(
        timeline_view(iteration=2, mode="full_recompute")["summary"], timeout=PYTHON_TIMEOUT
    )

    # A guided task: no answer picked, a wrong one, then the right one.
    task = page.locator(".admonition.task").first
    task.get_by_role("button", name="核对").click()
    expect(task.locator(".c9-verdict")).to_have_text("先选一个你的预测。")
    task.locator("input[type=radio]").nth(0).check()
    task.get_by_role("button", name="核对").click()
    expect(task.locator(".c9-verdict")).to_contain_text("不一样")
    expect(task.locator("details")).to_have_attribute("open", "")
    task.locator("input[type=radio]").nth(2).check()
    task.get_by_role("button", name="核对").click()
    expect(task.locator(".c9-verdict")).to_contain_text("预测对了")

    watch.assert_clean()
    ctx.close()


@pytest.mark.timeout(300)
def test_memory_bar_recipe_select_shows_an_fp8_recipes_rows(browser, site_server):
    """Choosing Transformer Engine's FP8 recipe: its FP8 weight copy and transpose appear as rows, each
    Ψ bytes, and the activations shrink by the Linear inputs cached in FP8 (L · 7sbh bytes)."""
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(site_server.url + "lesson-5/")
    widget = page.locator('[data-widget="memory-bar"]')
    expect(widget.locator('tr[data-key="fp8_weights"]')).to_be_hidden()
    widget.locator('select[name="recipe"]').select_option("te_fp8_delayed")
    expected = python_view(recipe="te_fp8_delayed")
    expect(widget.locator(".c9-summary")).to_have_text(expected["summary"], timeout=PYTHON_TIMEOUT)
    for key in ("fp8_weights", "fp8_transpose"):
        expect(widget.locator(f'tr[data-key="{key}"]')).to_be_visible()
    # The table lists the parts in the bar's order, each swatch in its part's colour and pattern (a reader
    # check found the FP8 rows after the activations'): read back as the page shows them.
    shown = widget.locator(".c9-segments tbody").evaluate(
        """(tbody) => [...tbody.rows].filter((r) => !r.hidden).map((r) => {
             const swatch = r.querySelector('.c9-swatch');
             return [r.dataset.key, swatch.style.backgroundColor, swatch.dataset.pattern]; })"""
    )
    assert shown == [[seg["key"], seg["color"], seg["pattern"]] for seg in expected["segments"]]
    assert {"fp8_transpose": "|", "gradients": "/"}.items() <= {k: p for k, _, p in shown}.items()
    base = python_view()
    assert base["activation_bytes"] - expected["activation_bytes"] == 64 * 7 * 4096 * 5120
    assert expected["states_bytes"] == 18 * 27_781_427_952
    ctx.close()
