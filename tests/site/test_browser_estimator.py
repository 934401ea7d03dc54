"""Lesson 5's memory bar as a training-memory estimator, in headless Chromium: choose a shipped
model and see its parameters term by term add up to the published total; paste a GPT-2 config.json (or read
it from a file) and see its count; paste a broken one and get the Chinese message naming the key, inside the
widget, while the rest of the page keeps working; pick a card and see how many the step needs."""

from __future__ import annotations

import json
import re

import pytest
from conftest import PYTHON_TIMEOUT, new_page, python_error, python_view
from playwright.sync_api import expect

from c9.core.models import load_facts

pytestmark = pytest.mark.browser

# A GPT-2 (small) config.json as Hugging Face writes it, with the sizes of "gpt2". Its total, 124,439,808, is
# what a public print of GPT2LMHeadModel.from_pretrained('gpt2') reports ("GPT2LMHeadModel<all params:124439808>",
# wte [50257, 768], wpe [1024, 768], 12 blocks, n_embd 768; found in the stored public code with
# find_string "124439808"); the lm_head there is the tied wte, counted once.
GPT2 = json.dumps(
    {
        "architectures": ["GPT2LMHeadModel"],
        "model_type": "gpt2",
        "n_embd": 768,
        "n_head": 12,
        "n_layer": 12,
        "n_positions": 1024,
        "n_ctx": 1024,
        "vocab_size": 50257,
        "activation_function": "gelu_new",
    },
    indent=2,
)
GPT2_TOTAL = "124,439,808"
BROKEN = '{"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "intermediate_size": 14336, "vocab_size": 128256}'


@pytest.fixture
def lesson5(browser, site_server):
    ctx, page = new_page(browser, viewport={"width": 1280, "height": 900})
    page.goto(site_server.url + "lesson-5/")
    yield page
    assert page.errors == [], page.errors
    ctx.close()


def bar(page):
    """The memory bar, once its controls answer (an input before the mount does nothing)."""
    w = page.locator('[data-widget="memory-bar"]')
    expect(w).to_have_attribute("data-mounted", "yes", timeout=30_000)
    return w


def test_gpt2_small_config_total_is_its_known_count():
    """The test's own premise: the pasted GPT-2 config gives GPT-2 small's parameter count."""
    v = python_view("memory-bar", config=GPT2)
    assert v["parameter_total"] == int(GPT2_TOTAL.replace(",", ""))


def test_choose_llama_3_1_8b_and_see_its_published_parameter_count(lesson5):
    w = bar(lesson5)
    w.locator('select[name="model"]').select_option("llama-3.1-8b")
    want = python_view("memory-bar", model="llama-3.1-8b")
    expect(w.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    params = w.locator('[data-part="params"] table')
    expect(params).to_be_visible()
    expect(params.locator("tr").last).to_contain_text("8,030,261,248")  # the total row
    expect(w.locator('[data-part="params_note"]')).to_contain_text("与公开的总数 8,030,261,248 一致")
    # Its source is a link; activations two ways, side by side, each with a total row.
    link = w.locator('[data-part="source"] a')
    expect(link).to_have_attribute("href", want["detail"]["source"].split('href="')[1].split('"')[0])
    for part in ("eq1", "own"):
        expect(w.locator(f'[data-part="{part}"] table tr').last).to_contain_text("合计")
    expect(w.locator('[data-part="own"]')).to_be_visible()
    expect(w.locator(".c9-cards")).to_have_text(want["cards"])
    # The bar has a second row: the model's own tensors.
    expect(w.locator('.c9-chart rect[data-key="o_act_saved"]')).to_have_count(1)
    # The formula follows and names what the model adds beyond eq. 1.
    formula = lesson5.locator('[data-widget="formula"]')
    expect(formula.locator(".c9-formula-beyond")).to_have_text(
        python_view("formula", model="llama-3.1-8b", config="", s=4096, b=1)["beyond"], timeout=PYTHON_TIMEOUT
    )
    # Back to the anchor: no config to count from, a note says so and the own-tensor table is hidden.
    w.locator('select[name="model"]').select_option("qwen3.8-27b")
    expect(w.locator(".c9-summary")).to_have_text(
        python_view("memory-bar")["summary"], timeout=PYTHON_TIMEOUT
    )
    expect(w.locator('[data-part="own"]')).to_be_hidden()
    expect(w.locator('[data-part="params"]')).to_be_hidden()
    expect(w.locator('[data-part="params_note"]')).to_contain_text("没有可引用的公开 config.json")


def test_paste_a_gpt2_config_and_see_its_count(lesson5):
    w = bar(lesson5)
    w.locator(".c9-config summary").click()
    w.locator('textarea[name="config"]').fill(GPT2)
    w.get_by_role("button", name="用这个配置计算").click()
    want = python_view("memory-bar", config=GPT2)
    expect(w.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    expect(w.locator('[data-part="params"] table tr').last).to_contain_text(GPT2_TOTAL)
    expect(w.locator('[data-part="source"]')).to_contain_text("你给的 config.json")
    # The sliders still work on the pasted model (b one stop up: 1 → 2), and the address keeps the short config.
    w.locator('input[name="b_stop"]').focus()
    lesson5.keyboard.press("ArrowRight")
    expect(w.locator(".c9-summary")).to_have_text(
        python_view("memory-bar", config=GPT2, b=2)["summary"], timeout=PYTHON_TIMEOUT
    )
    assert "mb.config=" in lesson5.url
    # Choosing a model from the list leaves the pasted one.
    w.locator('select[name="model"]').select_option("gpt2-xl")
    expect(w.locator('[data-part="params"] table tr').last).to_contain_text(
        "1,557,611,200", timeout=PYTHON_TIMEOUT
    )
    assert "mb.config=" not in lesson5.url


def test_a_short_pasted_config_opens_from_the_address(browser, site_server):
    from urllib.parse import quote

    compact = json.dumps(json.loads(GPT2), separators=(",", ":"))
    ctx, page = new_page(browser, viewport={"width": 1280, "height": 900})
    try:
        page.goto(site_server.url + "lesson-5/?mb.config=" + quote(compact) + "&mb.b=4")
        w = bar(page)
        expect(w.locator(".c9-summary")).to_have_text(
            python_view("memory-bar", config=compact, b=4)["summary"], timeout=PYTHON_TIMEOUT
        )
        expect(w.locator('textarea[name="config"]')).to_have_value(compact)
        expect(w.locator(".c9-config")).to_have_attribute("open", "")
        expect(w.locator('input[name="b"]')).to_have_value("4")
        expect(w.locator('[data-part="params"] table tr').last).to_contain_text(GPT2_TOTAL)
        assert page.errors == [], page.errors
    finally:
        ctx.close()


def test_read_a_config_from_a_file(lesson5, tmp_path):
    f = tmp_path / "config.json"
    f.write_text(GPT2, encoding="utf-8")
    w = bar(lesson5)
    w.locator(".c9-config summary").click()
    # The picker is drawn by its Chinese label, a button the input covers unseen (the browser draws
    # 「Choose File」 in its own language); a click anywhere on the label reaches the input.
    picker = w.locator('input[name="config_file"]')
    drawn = picker.evaluate(
        """(el) => { const a = el.getBoundingClientRect(), b = el.closest('label').getBoundingClientRect();
        return { opacity: getComputedStyle(el).opacity, label: el.labels[0].textContent.trim(),
                 covers: a.left >= b.left && a.right <= b.right && a.top >= b.top && a.bottom <= b.bottom
                         && a.width >= b.width - 5 && a.height >= b.height - 5 }; }"""
    )
    assert drawn == {"opacity": "0", "label": "从文件读入 config.json", "covers": True}, drawn
    picker.set_input_files(str(f))
    expect(w.locator('textarea[name="config"]')).to_have_value(GPT2)
    expect(w.locator('[data-part="params"] table tr').last).to_contain_text(
        GPT2_TOTAL, timeout=PYTHON_TIMEOUT
    )
    assert "mb.config=" in lesson5.url
    # A long config (Qwen3-30B-A3B's, indented, over 1,000 characters) stays out of the address.
    long = json.dumps(load_facts()["models"]["qwen3-30b-a3b"]["config"], indent=4)
    assert len(long) > 1000
    f.write_text(long, encoding="utf-8")  # the same file, edited
    w.locator('input[name="config_file"]').set_input_files(str(f))
    total = python_view("memory-bar", config=long)["parameter_total"]
    expect(w.locator('[data-part="params"] table tr').last).to_contain_text(
        f"{total:,}", timeout=PYTHON_TIMEOUT
    )
    assert "mb.config=" not in lesson5.url
    # A file that is not text (a weights file chosen by mistake) is refused by name and never shown in the box.
    f = tmp_path / "model.safetensors"
    f.write_bytes(b"\x08\x00\x00\x00\xff\xfe" + bytes(range(256)))
    picker.set_input_files(str(f))
    result = w.locator(".c9-config-result")
    expect(result).to_have_text(
        "「model.safetensors」不是文本文件，不像 config.json：请选模型目录里的 config.json。", timeout=5_000
    )
    expect(w.locator('textarea[name="config"]')).to_have_value(long)
    expect(picker).to_have_attribute("aria-invalid", "true")
    # A text file longer than Python takes (a log picked by mistake): refused by name, the box keeps its text.
    limit = int(w.locator('textarea[name="config"]').get_attribute("data-max-chars"))
    f = tmp_path / "train.log"
    f.write_text("x" * (limit + 1), encoding="utf-8")
    picker.set_input_files(str(f))
    expect(result).to_have_text(
        "「train.log」太大，不像 config.json：请选模型目录里的 config.json。", timeout=5_000
    )
    expect(w.locator('textarea[name="config"]')).to_have_value(long)


def test_a_broken_config_gets_a_chinese_message_naming_the_key_and_the_page_keeps_working(lesson5):
    w = bar(lesson5)
    summary = python_view("memory-bar")["summary"]
    w.locator(".c9-config summary").click()
    box = w.locator('textarea[name="config"]')
    use = w.get_by_role("button", name="用这个配置计算")
    for text, message in [
        (BROKEN, "配置里缺少「num_attention_heads」"),
        ("{not json", "不是合法的 JSON"),
        ('{"model_type": "bert"}', "不支持的模型类型「model_type」=「bert」"),
    ]:
        box.fill(text)
        use.click()
        expect(w.locator(".c9-status")).to_contain_text(message, timeout=PYTHON_TIMEOUT)
        expect(w.locator(".c9-summary")).to_have_text(summary)  # the last good state stays
    # The rest of the widget works: another control drops the refused config and keeps the last good state's.
    w.get_by_label("全量重计算").check()
    expect(w.locator(".c9-summary")).to_have_text(
        python_view("memory-bar", mode="full_recompute")["summary"], timeout=PYTHON_TIMEOUT
    )
    expect(w.locator(".c9-status")).not_to_contain_text("输入有误")
    expect(box).to_have_value('{"model_type": "bert"}')  # the text stays, to be fixed
    # …and so does the rest of the page.
    f = lesson5.locator('[data-widget="formula"]')
    f.locator('button[data-term="5as/h"]').click()
    expect(f.locator('.c9-term-item[data-term="5as/h"]')).to_be_visible()
    t = lesson5.locator('[data-widget="timeline"]')
    t.get_by_label("第 2 次").check()
    expect(t.locator(".c9-summary")).to_have_text(
        python_view("timeline", iteration=2)["summary"], timeout=PYTHON_TIMEOUT
    )


def test_card_and_log_sliders(lesson5):
    w = bar(lesson5)
    w.locator('select[name="card"]').select_option("rtx-4090-24gb")
    want = python_view("memory-bar", card="rtx-4090-24gb")
    expect(w.locator(".c9-cards")).to_have_text(want["cards"], timeout=PYTHON_TIMEOUT)
    assert want["cards_needed"] == -(-want["total_bytes"] // 24_000_000_000)
    # A typed b far along the log slider: the slider follows to the nearest stop.
    box = w.locator('input[name="b"]')
    box.fill("1000")
    box.press("Enter")
    expect(w.locator(".c9-summary")).to_have_text(
        python_view("memory-bar", card="rtx-4090-24gb", b=1000)["summary"], timeout=PYTHON_TIMEOUT
    )
    expect(w.locator('input[name="b_stop"]')).to_have_value("19")  # stop 1,024 is nearest to 1,000
    s = w.locator('input[name="s"]')
    s.fill("1048576")
    s.press("Enter")
    expect(w.locator(".c9-summary")).to_have_text(
        python_view("memory-bar", card="rtx-4090-24gb", b=1000, s=1048576)["summary"], timeout=PYTHON_TIMEOUT
    )


def test_on_a_phone_the_tables_scroll_with_a_cue_after_a_model_change(browser, site_server):
    ctx, page = new_page(browser, viewport={"width": 390, "height": 800})
    try:
        page.goto(site_server.url + "lesson-5/")
        w = bar(page)
        w.locator('select[name="model"]').select_option("llama-3.1-8b")
        expect(w.locator('[data-part="params"] table tr').last).to_contain_text(
            "8,030,261,248", timeout=PYTHON_TIMEOUT
        )
        for part in ("params", "eq1", "own"):
            box = w.locator(f'.c9-est-scroll[data-part="{part}"]')
            box.scroll_into_view_if_needed()  # a cue is made when its table nears the screen (course.js)
            cue = w.locator(f'.c9-scroll-cue:has(+ .c9-est-scroll[data-part="{part}"])')
            box.scroll_into_view_if_needed()  # a cue is made as its table nears the screen
            expect(cue).to_be_visible()
            expect(cue).to_contain_text("左右滑动")
            expect(box).to_have_attribute("tabindex", "0")  # reachable by keyboard
        expect(w.locator('.c9-est-scroll[data-part="params"]')).to_have_attribute(
            "aria-label", "参数量逐项：Llama-3.1-8B（可左右滑动）"
        )
        assert page.evaluate("() => document.scrollingElement.scrollWidth") <= 390
        assert page.errors == [], page.errors
    finally:
        ctx.close()


def test_the_default_estimate_reads_without_javascript(browser, site_server):
    """The build writes the default state's tables into the page: eq. 1 tensor by tensor for the anchor,
    adding up to the lesson's 162.5 GiB, and why there is no count from a config."""
    ctx = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 800})
    page = ctx.new_page()
    page.goto(site_server.url + "lesson-5/")
    w = page.locator('[data-widget="memory-bar"]')  # nothing mounts without JavaScript
    want = python_view("memory-bar")
    expect(w.locator(".c9-cards")).to_have_text(want["cards"])
    expect(w.locator('[data-part="eq1"] table tr').last).to_have_text("合计162.50 GiB")
    expect(w.locator('[data-part="params_note"]')).to_contain_text("没有可引用的公开 config.json")
    expect(w.locator('[data-part="own"]')).to_be_hidden()
    expect(w.locator(".c9-estimate")).to_contain_text("出处")  # each source of the cards is a link
    assert w.locator(".c9-estimate a[href]").count() == len({c["url"] for c in load_facts()["cards"]["list"]})
    ctx.close()


def test_on_a_phone_a_model_opened_from_the_address_has_its_table_cues(browser, site_server):
    """The model's tables are drawn at mount, before the reader scrolls near them: course.js watched the
    tables the build wrote, which were gone by then, and the boxes that scroll got no cue and no tabindex."""
    ctx, page = new_page(browser, viewport={"width": 390, "height": 800})
    try:
        page.goto(site_server.url + "lesson-5/?mb.model=llama-3.1-8b")
        w = bar(page)
        expect(w.locator('[data-part="params"] table tr').last).to_contain_text(
            "8,030,261,248", timeout=PYTHON_TIMEOUT
        )
        for part in ("params", "eq1", "own"):
            box = w.locator(f'.c9-est-scroll[data-part="{part}"]')
            box.scroll_into_view_if_needed()
            cue = w.locator(f'.c9-scroll-cue:has(+ .c9-est-scroll[data-part="{part}"])')
            expect(cue).to_be_visible()
            expect(cue).to_contain_text("列在右边")
            expect(box).to_have_attribute("tabindex", "0")
        assert page.errors == [], page.errors
    finally:
        ctx.close()


# ---- The estimator reads as a tool ------------------------------------------------------------
WIDTHS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
CONFIG_BUTTONS = ("config_use", "config_example", "config_clear")


@pytest.fixture(params=list(WIDTHS))
def at_width(request, browser, site_server):
    """A fresh page at a phone's and a desktop's width: open(path) loads the page under the site."""
    ctx, page = new_page(browser, viewport=WIDTHS[request.param], has_touch=request.param == "phone")
    page.open = lambda path: page.goto(site_server.url + path)
    yield page
    assert page.errors == [], page.errors
    ctx.close()


def test_the_config_boxs_buttons_look_like_buttons_and_are_44_px_to_hit(at_width):
    """Reviewer: 「用这个配置计算」 and 「清空」 had no border or fill (90 × 19 px) and read as labels."""
    at_width.open("lesson-5/")
    w = bar(at_width)
    w.locator(".c9-config summary").click()
    for name in CONFIG_BUTTONS:
        b = w.locator(f'button[name="{name}"]')
        expect(b).to_be_visible()
        box = b.bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44, (name, box)
        look = b.evaluate(
            """(el) => { const s = getComputedStyle(el);
                return {border: parseFloat(s.borderTopWidth), ground: s.backgroundColor}; }"""
        )
        assert look["border"] >= 1 or look["ground"] not in ("rgba(0, 0, 0, 0)", "transparent"), (name, look)


def test_the_example_is_answered_right_under_the_button_and_the_menu_names_it(at_width):
    """Reviewer: on a phone the answer appeared 1.5 screens below the button, the menu still named the
    anchor while a pasted config was in use, and the box offered no example. The example button fills the
    box with a config anchor-model.json records; the answer is told just under the buttons, in view, while
    the focus stays on the button; the menu names the pasted config; choosing from the list leaves it."""
    at_width.open("lesson-5/")
    w = bar(at_width)
    w.locator(".c9-config summary").click()
    example = w.locator('button[name="config_example"]')
    example.scroll_into_view_if_needed()
    example.click()
    text = w.locator('textarea[name="config"]').input_value()
    assert json.loads(text) == load_facts()["models"]["qwen3-8b"]["config"]
    want = python_view("memory-bar", config=text)
    result = w.locator(".c9-config-result")
    expect(result).to_contain_text(want["summary"], timeout=PYTHON_TIMEOUT)
    expect(w.locator(".c9-summary")).to_have_text(want["summary"])
    assert example.evaluate("(el) => document.activeElement === el")  # the focus was not moved
    top, bottom, below = result.evaluate(
        """(el) => { const r = el.getBoundingClientRect();
            const b = el.closest('details').querySelector('button[name="config_example"]').getBoundingClientRect();
            return [r.top, r.bottom, r.top - b.bottom]; }"""
    )
    height = WIDTHS["phone" if at_width.viewport_size["width"] < 600 else "desktop"]["height"]
    assert -1 <= top and bottom <= height + 1, (top, bottom)  # in view, without the reader scrolling
    assert below < 200, below  # right under the buttons, not a screen below
    menu = w.locator('select[name="model"]')
    assert (
        menu.evaluate("(el) => el.selectedOptions[0].textContent")
        == want["menu_label"]
        == "正在用你的配置（qwen3）"
    )
    # A model from the list replaces the pasted config, and the menu says so.
    menu.select_option("gpt2-xl")
    expect(w.locator(".c9-summary")).to_have_text(
        python_view("memory-bar", model="gpt2-xl")["summary"], timeout=PYTHON_TIMEOUT
    )
    assert menu.evaluate("(el) => el.selectedOptions[0].textContent") == "GPT-2 XL"
    expect(result).to_be_hidden()


def test_a_refused_config_is_told_under_the_button(at_width):
    at_width.open("lesson-5/")
    w = bar(at_width)
    w.locator(".c9-config summary").click()
    w.locator('textarea[name="config"]').fill(BROKEN)
    w.locator('button[name="config_use"]').click()
    expect(w.locator(".c9-config-result")).to_contain_text(
        "配置里缺少「num_attention_heads」", timeout=PYTHON_TIMEOUT
    )
    assert (
        w.locator('select[name="model"]').evaluate("(el) => el.selectedOptions[0].textContent")
        == "锚点 Qwen3.8-27B"
    )
    # The box is marked refused and points at the message beside it, which is marked as the status is;
    # an accepted config clears both.
    box, result = w.locator('textarea[name="config"]'), w.locator(".c9-config-result")
    expect(box).to_have_attribute("aria-invalid", "true")
    expect(box).to_have_attribute("aria-describedby", result.get_attribute("id"))
    expect(result).to_have_attribute("data-kind", "error")
    edge = "(el) => getComputedStyle(el).borderLeftColor"
    assert result.evaluate(edge) == w.locator(".c9-status").evaluate(edge)
    box.fill(GPT2)
    w.locator('button[name="config_use"]').click()
    expect(result).to_contain_text("已算好", timeout=PYTHON_TIMEOUT)
    expect(box).not_to_have_attribute("aria-invalid", "true")
    expect(box).not_to_have_attribute("aria-describedby", re.compile(r"."))
    expect(result).not_to_have_attribute("data-kind", "error")
    # Reader check: 「用这个配置计算」 on an emptied box said 「已回到列表里的模型」 as if nothing were asked.
    box.fill("")
    w.locator('button[name="config_use"]').click()
    expect(result).to_contain_text("框里是空的，所以用的是列表里的模型：", timeout=PYTHON_TIMEOUT)


def test_our_small_models_bar_is_seen_and_the_card_is_marked_far_off(at_width):
    """Reviewer: at s = 64, b = 2 in any mode but 全存 the axis ran to the 80 GB card and our 64 MB bar took
    0.08 % of the chart. The bar now spans at least a fifth of the chart, the card is named at its right end,
    and the note says where the model was trained (computed from the lab's own data)."""
    at_width.open("lesson-5/?mb.model=lab&mb.s=64&mb.b=2&mb.mode=selective")
    w = bar(at_width)
    want = python_view("memory-bar", model="lab", s=64, b=2, mode="selective")
    expect(w.locator(".c9-summary")).to_have_text(want["summary"], timeout=PYTHON_TIMEOUT)
    expect(w.locator(".c9-model-note")).to_be_hidden()  # at the lab's own s and b
    chart = w.locator(".c9-chart svg")
    chart.scroll_into_view_if_needed()
    drawn = chart.evaluate(
        """(svg) => { const c = svg.getBoundingClientRect();
            const bars = [...svg.querySelectorAll('rect[data-key]')].map((r) => r.getBoundingClientRect());
            const far = svg.querySelector('.c9-bar-far').getBoundingClientRect();
            return {chart: c.width, bar: Math.max(...bars.map((b) => b.right)) - Math.min(...bars.map((b) => b.left)),
                    farLeft: far.left - c.left, farRight: c.right - far.right}; }"""
    )
    assert drawn["bar"] >= 0.2 * drawn["chart"] and drawn["bar"] >= 60, drawn
    assert drawn["farLeft"] >= 0 and drawn["farRight"] >= 0, drawn  # the mark is inside the chart
    expect(w.locator(".c9-bar-far")).to_have_text("80 GB 卡容量在右侧很远处 →")
    # s up to 4,096 (its number box): the note says the lab trained it at s = 64, b = 2
    box = w.locator('input[name="s"]')
    box.fill("4096")
    box.press("Enter")
    want = python_view("memory-bar", model="lab", s=4096, b=2, mode="selective")
    expect(w.locator(".c9-model-note")).to_have_text(want["model_note"], timeout=PYTHON_TIMEOUT)
    assert "s = 64、b = 2" in want["model_note"]


@pytest.mark.parametrize("extra", ["x", "汉"])
def test_a_paste_far_too_long_or_a_b_out_of_range_is_refused_at_once_in_pythons_words(
    browser, site_server, extra
):
    """Reader check: a 200 KB paste was refused only once Python had started (12–14 s on a cold page). The box's
    limit is told at once, in the words Python uses (the build wrote them into the box), even where Python
    can never start; the length is counted in characters as Python counts them (「汉」 once, not as UTF-16)."""
    from c9.core.models import CONFIG_MAX

    site_server.block("vendor/pyodide/")
    try:
        ctx, page = new_page(browser, python=False, viewport={"width": 1280, "height": 900})
        try:
            page.goto(site_server.url + "lesson-5/")
            w = bar(page)
            expect(w).to_have_attribute("data-mounted", "yes", timeout=30_000)
            w.locator(".c9-config summary").click()
            text = '{"a": "' + extra * (CONFIG_MAX) + '"}'
            w.locator('textarea[name="config"]').fill(text)
            w.locator('button[name="config_use"]').click()
            said = "输入有误：" + python_error_of_config(text) + "。"
            expect(w.locator(".c9-config-result")).to_have_text(said, timeout=5_000)
            expect(w.locator(".c9-status")).to_have_text(said)
            assert (
                python_error_of_config('{"a": 1}' + " " * (CONFIG_MAX - 8)) == ""
            )  # the limit itself passes
            # so is a b outside its box's range, with the box marked invalid
            b_box = w.locator('input[name="b"]')
            b_box.fill("0")
            b_box.press("Enter")
            said = "输入有误：" + python_error("memory-bar", b="0") + "。"
            expect(w.locator(".c9-status")).to_have_text(said, timeout=5_000)
            expect(b_box).to_have_attribute("aria-invalid", "true")
            assert page.evaluate("() => performance.getEntriesByName('c9:python-ready').length") == 0
            assert page.errors == [], page.errors
        finally:
            ctx.close()
    finally:
        site_server.block()


def python_error_of_config(text: str) -> str:
    """Python's message for this pasted text as the config ("" when it is not refused for its length)."""
    from c9.base.errors import InputError
    from c9.core.models import config_text

    try:
        config_text(text)
    except InputError as e:
        return str(e)
    return ""
