"""The answer cache in the page: with the Python worker blocked, moving a slider,
flipping a bit or choosing an option redraws at once from the build's answers — the request the page's
script builds is the cache's key — and a state outside the cache waits for Python as before (here: says
Python could not load). Once Python is ready, its live answers equal the cached ones, request by request."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import PYTHON_TIMEOUT, evaluate_within, new_page, python_view, wait_for_python, wait_until
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

BUILT = "构建网站时由 Python 算好"
MB = {
    "model": "qwen3.8-27b",
    "config": "",
    "s": "4096",
    "b": "1",
    "mode": "store_all",
    "card": "h100-80gb",
    "s2_full_only": False,
}


@pytest.fixture
def no_python(browser, site_server):
    """A page whose Python cannot load (Pyodide's files answer 404): only the build's answers can redraw.
    No service worker, so that page.route sees every request the page makes."""
    site_server.block("vendor/pyodide/")
    ctx, page = new_page(browser, viewport={"width": 1280, "height": 900}, service_workers="block")
    try:
        yield page
    finally:
        ctx.close()
        site_server.block()


def answered_by_build(widget, summary: str, locator=".c9-summary"):
    expect(widget.locator(locator)).to_have_text(summary)
    expect(widget).to_have_attribute("data-answered-by", "build")
    expect(widget.locator(".c9-status")).to_contain_text(BUILT)
    expect(widget).to_have_attribute("data-state", "live")


def test_lesson_5_sliders_and_options_redraw_without_python(no_python, site_server):
    page = no_python
    page.goto(site_server.url + "lesson-5/")
    bar = page.locator('[data-widget="memory-bar"]')
    bar.locator('input[name="b_stop"]').focus()
    page.keyboard.press("ArrowRight")  # b: 1 → 2
    answered_by_build(bar, python_view("memory-bar", **{**MB, "b": 2})["summary"])
    bar.locator('input[name="s_stop"]').focus()
    page.keyboard.press("ArrowRight")  # s: 4096 → 6144, b stays 2
    expect(bar.locator('input[name="s"]')).to_have_value("6144")
    # Two controls from the default is outside the cache: it waits for Python, which cannot load here, and
    # the last answer stays on screen, as without a cache.
    expect(bar.locator(".c9-status")).to_contain_text("Python 没能加载")
    expect(bar.locator(".c9-summary")).to_have_text(python_view("memory-bar", **{**MB, "b": 2})["summary"])

    page.goto(site_server.url + "lesson-5/")
    bar = page.locator('[data-widget="memory-bar"]')
    bar.get_by_label("全量重计算").check()  # an option of a radio group
    answered_by_build(bar, python_view("memory-bar", **{**MB, "mode": "full_recompute"})["summary"])
    # The formula follows the bar (150 ms after it rests) with the bar's own parameters: cached as well.
    formula = page.locator('[data-widget="formula"]')
    answered_by_build(
        formula,
        python_view("formula", model=MB["model"], config="", s=4096, b=1)["summary"],
        ".c9-formula-summary",
    )
    timeline = page.locator('[data-widget="timeline"]')
    timeline.locator('input[name="iteration"][value="2"]').check()
    answered_by_build(
        timeline, python_view("timeline", model=MB["model"], iteration=2, mode="store_all")["summary"]
    )


def test_a_bit_flip_and_a_loss_scale_step_redraw_without_python(no_python, site_server):
    page = no_python
    page.goto(site_server.url + "lesson-2/")
    flipper = page.locator('[data-widget="bit-flipper"]').first
    # Keys move between bits only once the widget listens (a loaded machine may mount it late).
    expect(flipper).to_have_attribute("data-mounted", "yes", timeout=30_000)
    row = flipper.locator('.c9-bf-row[data-format="float16"]')
    row.locator(".c9-bit").first.focus()
    page.keyboard.press("End")
    page.keyboard.press("Space")  # 1.0 → 0x3C01
    expected = python_view(
        "bit-flipper", formats="float16,float32", source="float16", code="0x3C01", overflow="default"
    )
    answered_by_build(flipper, expected["summary"])
    expect(flipper.locator('.c9-bf-row[data-format="float32"] input[name="hex"]')).to_have_value("0x3F802000")

    scale = page.locator('[data-widget="loss-scale"]')
    scale.locator('input[name="k"]').focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")  # every stop of k is cached
    answered_by_build(scale, python_view("loss-scale", k=3, source="stand-in", fmt="float16")["summary"])


def test_ledger_and_block_lab_options_redraw_without_python(no_python, site_server):
    page = no_python
    page.goto(site_server.url + "lesson-1/")
    ledger = page.locator('[data-widget="ledger"]')
    # mounted first: input before the mount is tested on lesson 4 below
    expect(ledger).to_have_attribute("data-mounted", "yes", timeout=30_000)
    options = ledger.locator('select[name="convention"] option')
    other = next(
        v
        for v in options.evaluate_all("os => os.map(o => o.value)")
        if v != ledger.locator('select[name="convention"]').input_value()
    )
    ledger.locator('select[name="convention"]').select_option(other)
    answered_by_build(
        ledger, python_view("ledger", model="qwen3.8-27b", log10_params=10, convention=other)["summary"]
    )

    page.goto(site_server.url + "lesson-1/")
    ledger = page.locator('[data-widget="ledger"]')
    expect(ledger).to_have_attribute("data-mounted", "yes", timeout=30_000)
    ledger.locator('input[name="log10_params"]').focus()
    for _ in range(3):
        page.keyboard.press("ArrowLeft")  # 10 → 9.85: the browser's own stop text
    expect(ledger.locator('input[name="log10_params"]')).to_have_value("9.85")
    answered_by_build(
        ledger, python_view("ledger", model="custom", log10_params=9.85, convention="zero")["summary"]
    )

    # The lab's script held back until the switch has been flipped, as on a slow network: a change made
    # before the lab listens is still answered once it does (it was once lost, and the default stayed).
    held = []
    page.route("**/widgets/block-lab.js", lambda route: held.append(route))
    with page.expect_request("**/widgets/block-lab.js", timeout=30_000):
        page.goto(site_server.url + "lesson-4/", wait_until="domcontentloaded")
    lab = page.locator('[data-widget="block-lab"]')
    lab.locator('input[name="token"]').uncheck()  # a switch: six schemes, all cached
    lab.locator('input[name="seed"]').press("Enter")  # the browser's own submit once reloaded the page
    assert lab.get_attribute("data-mounted") is None and "seed=" not in page.url
    held[0].continue_()
    expect(lab).to_have_attribute("data-state", "live", timeout=30_000)
    # the status says it as every widget does: what was computed, by whom (here: the build, all six)
    expect(lab.locator(".c9-status")).to_have_text(
        re.compile(
            r"^已算出这一状态：这个张量按 6 种缩放各量化了一次，构建网站时由 Python 算好，读取用时 [\d,]+ ms。$"
        )
    )
    p = {
        "source": "generated",
        "seed": "9",
        "channels": 4,
        "magnitude": 1000,
        "token": False,
        "text": "1000, 0, 0\n0.01, 0.02, 0.5",
        "preset": "all",
    }
    for scheme in ("per_tensor_e4m3", "nvfp4"):
        expect(lab.locator(f'.c9-bl-panel[data-scheme="{scheme}"] .c9-bl-summary')).to_have_text(
            python_view("block-lab", **p, scheme=scheme)["summary"]
        )


# Resolves once the root is within course.js's warm-up margin (400 px) of the screen, as course.js's own
# observer sees it.
NEAR_THE_SCREEN = """(root) => new Promise((resolve) => {
  const seen = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) { seen.disconnect(); resolve(true); }
  }, { rootMargin: '400px' });
  seen.observe(root);
})"""

COMPARE = """async () => {
  const { python } = await import(new URL('../assets/js/worker.js', location.href));
  const { canonical } = await import(new URL('../assets/js/answers.js', location.href));
  const out = [];
  for (const root of document.querySelectorAll('[data-answers]')) {
    const file = await (await fetch(new URL(root.dataset.answers, location.href))).json();
    for (const [key, cached] of Object.entries(file.answers)) {
      const live = await python.ask(JSON.parse(key));
      if (canonical(live) !== canonical(cached)) out.push(key);
    }
    out.push(Object.keys(file.answers).length);
  }
  return out;
}"""


def test_python_in_the_page_answers_every_cached_request_of_lesson_5_alike(browser, site_server):
    """Pyodide (the page's Python, 3.14) gives the build's answer (CPython) for every request lesson 5 caches;
    a cached state is still taken from the cache once Python is ready, and any other goes to Python."""
    ctx, page = new_page(browser, viewport={"width": 1280, "height": 900})
    try:
        page.goto(site_server.url + "lesson-5/")
        evaluate_within(
            page, "() => import(new URL('../assets/js/worker.js', location.href)).then(m => m.python.start())"
        )
        wait_until(
            page,
            "() => import(new URL('../assets/js/worker.js', location.href)).then(m => m.python.state === 'ready')",
            ms=PYTHON_TIMEOUT,
            every=500,
        )
        result = evaluate_within(page, COMPARE, ms=PYTHON_TIMEOUT)
        mismatched = [k for k in result if isinstance(k, str)]
        assert mismatched == [], mismatched[:3]
        assert sum(n for n in result if isinstance(n, int)) > 80

        bar = page.locator('[data-widget="memory-bar"]')
        # Once Python is ready a touch does not wait for the cache file; here it has arrived (the widget was near).
        evaluate_within(
            bar,
            "root => import(new URL('../assets/js/answers.js', location.href)).then(m => m.answers.load(root))",
        )
        bar.locator('input[name="b_stop"]').focus()
        page.keyboard.press("ArrowRight")
        answered_by_build(bar, python_view("memory-bar", **{**MB, "b": 2})["summary"])
        box = bar.locator('input[name="s"]')
        box.fill("5000")
        box.press("Enter")  # not a stop: Python computes it
        expect(bar.locator(".c9-summary")).to_have_text(
            python_view("memory-bar", **{**MB, "b": 2, "s": "5000"})["summary"], timeout=PYTHON_TIMEOUT
        )
        expect(bar).to_have_attribute("data-answered-by", "python")
        expect(bar.locator(".c9-status")).not_to_contain_text(BUILT)
        assert page.errors == [], page.errors
    finally:
        ctx.close()


def test_save_data_fetches_nothing_ahead_and_python_only_for_a_state_the_cache_lacks(browser, site_server):
    """With Save-Data, a widget near the screen fetches nothing; a touch fetches its answer cache, which
    answers it without Python (and the formula, which follows the bar, fetches its own); Python starts for
    the first state outside the cache. Each check waits for the event it is about, not for a time."""
    ctx, page = new_page(browser, python=False, viewport={"width": 1280, "height": 900})
    state = "() => import(new URL('../assets/js/worker.js', location.href)).then(m => m.python.state)"
    # The answer files the page has asked for (answers.js records each before its fetch starts).
    files = """() => import(new URL('../assets/js/answers.js', location.href))
        .then(m => [...m.answers.files.keys()].map(u => new URL(u).pathname.split('/').pop()).sort())"""
    try:
        page.goto(site_server.url + "lesson-5/")
        bar = page.locator('[data-widget="memory-bar"]')
        page.wait_for_function(
            "() => performance.getEntriesByName('c9:mount:memory-bar').length > 0", timeout=30_000
        )  # mounted: course.js observes it for the warm-up from now on
        bar.scroll_into_view_if_needed()
        # An observer of ours reports the bar near the screen in the same round as course.js's (made earlier).
        assert evaluate_within(bar, NEAR_THE_SCREEN)
        assert evaluate_within(page, files) == [] and evaluate_within(page, state) == "idle"
        bar.locator('input[name="b_stop"]').focus()
        page.keyboard.press("ArrowRight")
        answered_by_build(bar, python_view("memory-bar", **{**MB, "b": 2})["summary"])
        formula = page.locator('[data-widget="formula"]')
        answered_by_build(
            formula,
            python_view("formula", model=MB["model"], config="", s=4096, b=2)["summary"],
            ".c9-formula-summary",
        )
        own = [Path(w.get_attribute("data-answers")).name for w in (bar, formula)]
        assert evaluate_within(page, files) == sorted(own) and evaluate_within(page, state) == "idle"
        bar.get_by_label("全量重计算").check()  # two steps away: Python is needed
        wait_until(page, f"() => ({state})().then(s => s !== 'idle')")
        expect(bar.locator(".c9-summary")).to_have_text(
            python_view("memory-bar", **{**MB, "b": 2, "mode": "full_recompute"})["summary"],
            timeout=PYTHON_TIMEOUT,
        )
        assert page.errors == [], page.errors
    finally:
        ctx.close()


def test_the_cache_answers_offline_after_a_first_visit_without_python(browser, site_server):
    """The service worker keeps a widget's answer cache like the page: offline, a reader who never had
    Python (here Pyodide could not load) still gets the cached states, and the rest says Python is missing."""
    from test_offline import wait_cached

    site_server.block("vendor/pyodide/")
    ctx, page = new_page(browser, viewport={"width": 1280, "height": 900})
    try:
        page.goto(site_server.url + "lesson-5/")
        page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=30_000)
        bar = page.locator('[data-widget="memory-bar"]')
        bar.scroll_into_view_if_needed()  # near the screen: its cache is fetched
        wait_cached(page, bar.get_attribute("data-answers"))

        ctx.set_offline(True)
        page.reload()
        # Mounted first: input before the mount is the lesson-4 block lab's test above.
        page.wait_for_function(
            "() => performance.getEntriesByName('c9:mount:memory-bar').length > 0", timeout=30_000
        )
        bar = page.locator('[data-widget="memory-bar"]')
        bar.locator('input[name="b_stop"]').focus()
        page.keyboard.press("ArrowRight")
        answered_by_build(bar, python_view("memory-bar", **{**MB, "b": 2})["summary"])
        bar.get_by_label("全量重计算").check()  # two steps away: only Python has it
        expect(bar.locator(".c9-status")).to_contain_text("Python 没能加载", timeout=PYTHON_TIMEOUT)
    finally:
        ctx.set_offline(False)
        ctx.close()
        site_server.block()


AHEAD_SAME_AS_LIVE = """async () => {
  const { python } = await import(new URL('../assets/js/worker.js', location.href));
  const { answers, canonical } = await import(new URL('../assets/js/answers.js', location.href));
  const out = [];
  for (const [key, text] of [...answers.ahead.entries()]) {
    const live = await python.ask(JSON.parse(key));
    if (canonical(live) !== canonical(JSON.parse(text))) out.push(key);
  }
  return [out, answers.ahead.size];
}"""
AHEAD_HAS = """async (key) => (await import(new URL('../assets/js/answers.js', location.href))).answers.ahead.has(key)"""


def test_once_python_is_ready_the_next_bit_flip_is_answered_ahead_and_equals_the_live_answer(
    browser, site_server
):
    """After each answer the worker answers the states one flip away in its idle time: the next flip is
    drawn from those (data-answered-by="ahead"), and every such answer is what Python answers live."""
    ctx, page = new_page(browser, viewport={"width": 1280, "height": 900})
    try:
        page.goto(site_server.url + "lesson-2/")
        flipper = page.locator('[data-widget="bit-flipper"]').first
        expect(flipper).to_have_attribute("data-mounted", "yes", timeout=30_000)
        row = flipper.locator('.c9-bf-row[data-format="float16"]')
        row.locator('.c9-bit[data-pos="0"]').focus()
        wait_for_python(page)
        base = {"formats": "float16,float32", "overflow": "default", "source": "float16"}
        row.locator('.c9-bit[data-pos="0"]').click()  # 1.0 → 0x3C01, from the build's cache
        expect(flipper).to_have_attribute("data-answered-by", "build")
        nxt = json.dumps(
            {"params": {**base, "code": "0x3C03"}, "widget": "bit-flipper"},
            separators=(",", ":"),
            sort_keys=True,
        )
        wait_until(
            page, AHEAD_HAS, nxt, ms=PYTHON_TIMEOUT
        )  # in the worker's idle time, however busy the machine
        row.locator('.c9-bit[data-pos="1"]').click()  # → 0x3C03, answered ahead
        expect(flipper).to_have_attribute("data-answered-by", "ahead")
        expect(flipper.locator(".c9-summary")).to_have_text(
            python_view("bit-flipper", **base, code="0x3C03")["summary"]
        )
        expect(flipper.locator(".c9-status")).to_contain_text("提前算好")
        mismatched, kept = evaluate_within(page, AHEAD_SAME_AS_LIVE, ms=PYTHON_TIMEOUT)
        assert mismatched == [] and kept >= 16, (mismatched[:3], kept)
        assert page.errors == [], page.errors
    finally:
        ctx.close()
