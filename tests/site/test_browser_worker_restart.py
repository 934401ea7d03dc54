"""When the page's Python dies (a stack overflow, memory), the page starts a fresh worker, the widget whose
request it died on says so in Chinese, and every widget goes on answering from the new Python
(docs/assets/js/worker.js, py-worker.js, live-view.js)."""

from __future__ import annotations

import pytest
from conftest import PYTHON_TIMEOUT, evaluate_within, new_page, python_view
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

WORKER = "new URL('../assets/js/worker.js', location.href)"
# The next memory-bar request the page posts is swapped for one the worker cannot handle (a cyclic object:
# serialising it throws inside the worker, as Pyodide's stack overflow throws out of Python).
POISON_NEXT = f"""async () => {{
  const {{ python }} = await import({WORKER});
  const worker = python.worker, post = worker.postMessage.bind(worker);
  worker.postMessage = (message) => {{
    if (message.request?.widget === "memory-bar") {{
      const cyclic = {{}};
      cyclic.self = cyclic;
      message = {{ ...message, request: cyclic }};
      worker.postMessage = post;
    }}
    post(message);
  }};
  return python.state;
}}"""


def set_s(widget, value: int) -> None:
    box = widget.locator('input[name="s"]')
    box.fill(str(value))
    box.press("Enter")


def test_a_dead_worker_is_replaced_and_every_widget_keeps_working(browser, site_server):
    ctx, page = new_page(browser, viewport={"width": 1280, "height": 900})
    page.goto(site_server.url + "lesson-5/")
    bar = page.locator('[data-widget="memory-bar"]')
    summary, status = bar.locator(".c9-summary"), bar.locator(".c9-status")
    set_s(bar, 5000)  # a state the build's answer cache does not hold: Python answers it
    expect(summary).to_have_text(python_view("memory-bar", s=5000)["summary"], timeout=PYTHON_TIMEOUT)
    expect(bar).to_have_attribute("data-answered-by", "python")

    assert evaluate_within(page, POISON_NEXT) == "ready"
    set_s(bar, 6000)
    expect(status).to_contain_text("页面里的 Python 算这一步时停止了", timeout=PYTHON_TIMEOUT)
    expect(status).to_contain_text("重新启动")
    expect(summary).to_have_text(python_view("memory-bar", s=5000)["summary"])  # the last good state stays
    state = f"() => import({WORKER}).then(m => [m.python.restarts, m.python.state !== 'failed'])"
    assert evaluate_within(page, state) == [1, True]

    # The same widget, the formula that follows it and another lesson's widget all answer again.
    set_s(bar, 7000)
    expect(summary).to_have_text(python_view("memory-bar", s=7000)["summary"], timeout=PYTHON_TIMEOUT)
    expect(status).to_contain_text("已算出这一状态")
    bar.locator('select[name="model"]').select_option("qwen3-8b")
    expect(summary).to_have_text(
        python_view("memory-bar", s=7000, model="qwen3-8b")["summary"], timeout=PYTHON_TIMEOUT
    )
    formula = page.locator('[data-widget="formula"]')
    expect(formula.locator(".c9-formula-summary")).to_have_text(
        python_view("formula", model="qwen3-8b", config="", s=7000, b=1)["summary"], timeout=PYTHON_TIMEOUT
    )
    timeline = page.locator('[data-widget="timeline"]')
    timeline.get_by_label("全量重计算").check()
    expect(timeline.locator(".c9-summary")).to_have_text(
        python_view("timeline", mode="full_recompute")["summary"], timeout=PYTHON_TIMEOUT
    )
    assert evaluate_within(page, state) == [1, True]
    assert page.errors == [], page.errors
    ctx.close()
