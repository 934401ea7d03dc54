"""Material's search finds Chinese words: the build splits the text into words with jieba, so 激活 finds
lesson 5, and a word the site never uses finds nothing. On a desktop and through the phone's search button."""

from __future__ import annotations

import re

import pytest
from conftest import new_page, reading_context
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

RESULT_LINKS = ".md-search-result__list a.md-search-result__link"


def _search(page, query: str) -> list[str]:
    """Types the query into the open search box; returns the result links' pages (paths under the sub-path,
    without the #section), best first."""
    box = page.locator("input.md-search__input")
    meta = page.locator(".md-search-result__meta")
    box.fill("")
    box.press("End")
    expect(meta).to_have_text("键入以开始搜索", timeout=20_000)  # the last query's results are gone
    # Chinese arrives as text, not as key presses (as from an input method); Material reads the box on
    # keyup, which an input method also sends: End is that key here.
    box.fill(query)
    box.press("End")
    expect(meta).to_contain_text("符合条件的结果", timeout=20_000)
    page.wait_for_timeout(300)  # the result list is drawn right after the count
    hrefs = page.eval_on_selector_all(RESULT_LINKS, "els => els.map(e => new URL(e.href).pathname)")
    return [h.split("/c9/", 1)[1] for h in hrefs]


@pytest.fixture(scope="module")
def desktop(browser, site_server):
    ctx, page = new_page(browser, viewport={"width": 1280, "height": 900})
    page.goto(site_server.url)
    page.locator("input.md-search__input").click()
    yield page
    ctx.close()


def test_activation_finds_lesson_5(desktop):
    found = _search(desktop, "激活")
    assert found and found[0] == "lesson-5/", (
        found
    )  # the lesson whose title asks about activations comes first
    assert "lesson-5/" in found
    expect(desktop.locator(".md-search-result__meta")).to_contain_text("符合条件的结果")


def test_memory_and_rounding_find_their_lessons(desktop):
    memory = _search(desktop, "显存")
    assert {"lesson-1/", "lesson-5/"} <= set(memory), memory
    rounding = _search(desktop, "舍入")
    assert {"lesson-2/", "lesson-3/", "lesson-4/", "fp4/"} <= set(rounding), rounding


def test_a_word_the_site_never_uses_finds_nothing(desktop):
    assert _search(desktop, "天气预报") == []
    expect(desktop.locator(".md-search-result__meta")).to_have_text("没有找到符合条件的结果")
    assert desktop.errors == []


def test_search_on_a_phone(browser, site_server):
    ctx = reading_context(
        browser, viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True, device_scale_factor=2
    )
    page = ctx.new_page()
    page.goto(site_server.url + "lesson-1/")
    opener = page.locator('label.md-header__button[for="__search"]')
    expect(opener).to_be_visible()
    opener.tap()
    expect(page.locator("input.md-search__input")).to_be_visible()
    found = _search(page, "激活")
    assert "lesson-5/" in found, found
    page.locator(RESULT_LINKS).first.tap()
    expect(page).to_have_url(re.compile(re.escape(site_server.url + found[0])), timeout=10_000)
    expect(page.locator("h1")).to_contain_text("激活")
    ctx.close()
