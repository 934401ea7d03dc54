"""A phone reader gets the lesson's question first, knows how long the lesson takes, and hits every choice.

At 390 × 844 CSS px (touch, 2× pixels), on every lesson:
- the evolution map is one closed line that opens on demand (a <details>, no script needed), and the
  lesson's question starts within the first screen and a bit (at most QUESTION_SCREENS screens down);
  the guide keeps the map whole;
- the time line under the title, 「阅读 + 实验 ≈ N 分钟 · 页内实验 ×W · 预测题 ×T」, is the rule of
  hooks/reading_time.py recounted here: the browser's own DOM of the page built without scripts, its own
  text nodes and its own regular expression (not the hook's parser, which read the page before KaTeX and
  the parts were added);
- every prediction choice is a whole row at least 44 px tall (a tap at its far end picks it), and the
  button that checks it is 44 px tall.
"""

from __future__ import annotations

import math
import re

import pytest
from conftest import evaluate_within, new_page
from playwright.sync_api import expect

from hooks import reading_time

pytestmark = pytest.mark.timeout(300)

PHONE = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
}
LESSONS = ["lesson-1/", "lesson-2/", "lesson-3/", "lesson-4/", "fp4/", "lesson-5/"]  # the pages with a map
TIMED = [*LESSONS, "lab/"]  # every page but the guide
QUESTION_SCREENS = 1.2
MIN_TARGET = 44  # CSS px


@pytest.fixture(scope="module")
def phone(browser):
    # What a phone shows and how it is hit, not what Python answers: no Python boots (conftest.READS_ONLY).
    ctx, page = new_page(browser, python=False, **PHONE, color_scheme="light")
    yield page
    ctx.close()


@pytest.fixture(scope="module")
def phone_without_scripts(browser):
    ctx, page = new_page(browser, **PHONE, java_script_enabled=False)
    yield page
    ctx.close()


MAP = """() => {
  const nav = document.querySelector('article nav.c9-evo');
  const fold = nav.querySelector('details.c9-evo-fold');
  const line = fold && fold.querySelector('summary .c9-evo-line');
  const question = document.querySelector('article .admonition.question');
  return {
    fold: Boolean(fold), open: Boolean(fold && fold.open), navHeight: nav.getBoundingClientRect().height,
    lineBoxes: line ? line.getClientRects().length : 0,
    lineClipped: line ? line.scrollWidth > line.clientWidth + 1 : null,
    lineText: line ? line.textContent : '',
    questionTop: question.getBoundingClientRect().top + scrollY,
  };
}"""


@pytest.mark.parametrize("path", LESSONS)
def test_the_map_is_one_closed_line_and_the_question_comes_first(phone, site_server, path):
    phone.goto(site_server.url + path)
    m = phone.evaluate(MAP)
    assert m["fold"] and not m["open"], m
    # one row: the summary's line is one line box, not cut short, and the closed map a 44 px row and its border
    assert m["lineBoxes"] == 1 and not m["lineClipped"], m
    assert m["navHeight"] <= MIN_TARGET + 16, m
    assert "（本课）" in m["lineText"] and m["lineText"].count("→") in (1, 2), m
    assert m["questionTop"] <= QUESTION_SCREENS * PHONE["viewport"]["height"], m
    # it opens on demand: the six stations, each with its text
    phone.locator("details.c9-evo-fold > summary").click()
    heights = phone.eval_on_selector_all(
        "details.c9-evo-fold li.c9-evo-stage", "els => els.map((e) => e.getBoundingClientRect().height)"
    )
    assert len(heights) == 6 and min(heights) > 100, heights


def test_the_guide_keeps_the_whole_map(phone, site_server):
    phone.goto(site_server.url)
    assert phone.locator("nav.c9-evo details").count() == 0
    heights = phone.eval_on_selector_all(
        "nav.c9-evo li.c9-evo-stage", "els => els.map((e) => e.getBoundingClientRect().height)"
    )
    assert len(heights) == 6 and min(heights) > 100, heights


# The same rule as hooks/reading_time.py's docstring, counted the browser's way.
RECOUNT = """() => {
  const skip = 'script, style, svg, math, template, [data-widget], .c9-evo, .arithmatex, .fig-how, .headerlink, .c9-reading';
  const article = document.querySelector('article');
  const text = [];
  const walk = (el) => {
    for (const n of el.childNodes) {
      if (n.nodeType === Node.TEXT_NODE) text.push(n.data);
      else if (n.nodeType === Node.ELEMENT_NODE && !n.matches(skip)) { text.push(' '); walk(n); text.push(' '); }
    }
  };
  walk(article);
  const outside = (e) => !e.parentElement.closest(skip);
  const line = article.querySelector('.c9-reading');
  return {
    chars: (text.join('').match(/[\\u3400-\\u4dbf\\u4e00-\\u9fff]|[A-Za-z0-9]+/g) || []).length,
    widgets: [...article.querySelectorAll('[data-widget]:not([data-widget="scratchpad"])')].filter(outside).length,
    tasks: [...article.querySelectorAll('div.admonition.task')].filter(outside).length,
    line: line ? line.textContent : null,
    how: line ? line.querySelector('.fig-how').textContent : null,
    // right under the title (whatever wraps it): the next thing drawn below the heading
    gapBelowTitle: line ? line.getBoundingClientRect().top - article.querySelector('h1').getBoundingClientRect().bottom : null,
  };
}"""


@pytest.mark.parametrize("path", TIMED)
def test_each_lessons_time_line_is_the_rule_recounted(phone_without_scripts, site_server, path):
    page = phone_without_scripts
    page.goto(site_server.url + path)
    got = page.evaluate(RECOUNT)
    assert got["line"] and -1 <= got["gapBelowTitle"] < 60, got
    exact = (
        got["chars"] / reading_time.READ_RATE
        + got["widgets"] * reading_time.WIDGET_MINUTES
        + got["tasks"] * reading_time.TASK_MINUTES
    )
    step = reading_time.ROUND_TO
    minutes = max(step, step * math.floor(exact / step + 0.5))
    want = f"阅读 + 实验 ≈ {minutes} 分钟" + (f" · 页内实验 ×{got['widgets']}" if got["widgets"] else "")
    want += f" · 预测题 ×{got['tasks']}" if got["tasks"] else ""
    assert got["line"].replace(got["how"], "") == want, (got, exact)
    # the stated rule: the count and the rates it used
    assert f"正文 {got['chars']:,} 字 ÷ 每分钟 {reading_time.READ_RATE} 字" in got["how"], got["how"]
    assert got["chars"] > 2000 and (got["widgets"] or got["tasks"]), got


def test_the_guide_has_no_time_line(built_site):
    assert reading_time.LINE_CLASS not in (built_site / "index.html").read_text(encoding="utf-8")


CHOICES = """() => [...document.querySelectorAll('article .c9-task-choices li')].map((li) => {
  const label = li.querySelector('label'), input = li.querySelector('input[type=radio]');
  const l = label.getBoundingClientRect(), r = li.getBoundingClientRect();
  return {text: label.textContent.trim().slice(0, 12), height: l.height, width: l.width, row: r.width,
          within: input.labels[0] === label};
})"""


@pytest.mark.parametrize("path", [p for p in TIMED if p != "lab/"])
def test_every_prediction_choice_is_a_44px_row(phone, site_server, path):
    phone.goto(site_server.url + path)
    phone.wait_for_function("() => document.querySelectorAll('article .c9-task-choices').length > 0")
    choices = phone.evaluate(CHOICES)
    assert choices and all(c["within"] for c in choices), choices
    short = [c for c in choices if c["height"] < MIN_TARGET - 0.5 or c["width"] < c["row"] - 1]
    assert not short, short
    buttons = phone.eval_on_selector_all(
        "article .admonition.task button", "els => els.map((e) => e.getBoundingClientRect().height)"
    )
    assert buttons and min(buttons) >= MIN_TARGET - 0.5, buttons
    # a tap at the row's far end, well past the words, picks that choice
    label = phone.locator("article .c9-task-choices label").last
    label.scroll_into_view_if_needed()
    box = label.bounding_box()
    phone.touchscreen.tap(box["x"] + box["width"] - 4, box["y"] + box["height"] / 2)
    assert label.locator("input").is_checked()


TARGETS = """() => {
  const box = (e) => e.getBoundingClientRect();
  const seen = (e) => { const r = box(e); return r.width > 0 && r.height > 0; };
  const size = (sel) => [...document.querySelectorAll(sel)].filter(seen)
    .map((e) => ({sel, text: e.textContent.trim().slice(0, 12), w: box(e).width, h: box(e).height}));
  // a mark's tap area: its ::after box, centred on it
  const area = (sel) => [...document.querySelectorAll(sel)].map((e) => {
    const a = getComputedStyle(e, '::after');
    return {sel, w: parseFloat(a.width) || box(e).width, h: parseFloat(a.height) || box(e).height};
  });
  return [...size('article details > summary'), ...size('article .tabbed-labels > label'),
          ...size('.md-header__button.md-icon'),
          ...area('article a.headerlink'), ...area('article a.footnote-backref')];
}"""


@pytest.mark.parametrize("path", ["lesson-1/", "lesson-5/"])
def test_folds_tabs_header_buttons_and_marks_are_44px_targets(phone, site_server, path):
    """On a phone 「答案」/「你可能会问」 folds were 36 px tall, lesson 5's tabs 40 px, the header's buttons
    40 × 40, a footnote's ↩ 16 × 16 and a heading's ¶ no bigger than the mark."""
    phone.goto(site_server.url + path)
    phone.wait_for_load_state("load")
    got = phone.evaluate(TARGETS)
    kinds = {t["sel"] for t in got}
    assert {"article details > summary", ".md-header__button.md-icon", "article a.footnote-backref"} <= kinds
    small = [t for t in got if t["h"] < MIN_TARGET - 0.5 or t["w"] < MIN_TARGET - 0.5]
    assert not small, small[:6]


TOOLS_TABLE = """() => {
  const t = document.querySelector('#ledger-tools');
  const cap = t.querySelector('caption').getBoundingClientRect();
  const rows = [...t.querySelectorAll('tbody tr')].map((r) => {
    const [name, split, gb, gib] = [...r.cells].map((c) => c.getBoundingClientRect());
    const [gbCell, gibCell] = [r.cells[2], r.cells[3]];
    const shown = (el, part) => getComputedStyle(el, part).content.replace(/^"|"$/g, '');
    return { height: r.getBoundingClientRect().height, splitWidth: split.width,
      right: Math.max(name.right, split.right, gb.right, gib.right),
      gbLine: shown(gbCell, '::before') + gbCell.textContent,
      gibLine: shown(gibCell, '::before') + gibCell.textContent + shown(gibCell, '::after'),
      sameLine: Math.abs(gb.top - gib.top) < 2 };
  });
  return { scrolls: t.scrollWidth > t.clientWidth + 1, capRight: cap.right, capHeight: cap.height,
    width: innerWidth, rows };
}"""


def test_the_other_tools_table_reads_on_a_phone_without_scrolling(phone, site_server):
    phone.goto(site_server.url + "lesson-1/")
    t = evaluate_within(phone, TOOLS_TABLE)
    assert not t["scrolls"], t
    assert t["capRight"] <= t["width"] and t["capHeight"] < 80, t  # the caption whole, in two lines at most
    for r in t["rows"]:
        assert r["right"] <= t["width"], t  # every cell in view, the GiB figures too
        assert r["splitWidth"] > t["width"] / 2 and r["height"] < 160, (
            t
        )  # the split on wide lines, not a column
        # with the head row hidden the figures say what they are: 「模型状态：444.5 GB（414.0 GiB）」
        assert re.fullmatch(r"模型状态：[\d,.]+ GB", r["gbLine"]), r
        assert re.fullmatch(r"（[\d,.]+ GiB）", r["gibLine"]) and r["sameLine"], r


# Per shown row of the memory bar's parts table: the top of each cell's first line of text (its text nodes'
# boxes, not the button's, which is a 44 px target taller than its line).
PART_ROW_TOPS = """() => {
  const range = document.createRange(), t = document.querySelector('[data-widget="memory-bar"] table.c9-segments');
  const firstTop = (cell) => {
    const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT), tops = [];
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      if (!n.textContent.trim()) continue;
      range.selectNodeContents(n);
      tops.push(...[...range.getClientRects()].filter((r) => r.width > 0).map((r) => r.top));
    }
    return Math.min(...tops);
  };
  return [...t.tBodies[0].rows].filter((r) => !r.hidden).map((r) => [r.cells[0].textContent, ...[...r.cells].map(firstTop)]);
}"""


def test_the_parts_table_reads_each_part_on_one_line(phone, site_server):
    """Reader check at 390 px: a part's name sat in the middle of its 56 px row (its button is a 44 px
    target) while its size and formula sat at the top, about 15 px higher: a row read as two."""
    phone.goto(site_server.url + "lesson-5/")
    rows = evaluate_within(phone, PART_ROW_TOPS)
    assert len(rows) >= 5, rows
    for name, *tops in rows:
        assert len(tops) == 3 and max(tops) - min(tops) <= 2, (name, tops)


# Per body row of each lab table: its run name's lines (text line boxes) in the pinned first column.
LAB_NAME_LINES = """() => [...document.querySelectorAll(
  'table.c9-lab-table tbody th, .c9-runs-table tbody td:first-child')].map((th) => {
  const range = document.createRange();
  range.selectNodeContents(th);
  const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
  return [th.textContent, tops.size];
})"""


def test_the_lab_tables_run_names_keep_to_three_lines(phone, site_server):
    """Reader check at 390 px: 「FP16 autocast + 动态 loss scaling」 ran to five lines in its 4.5em column."""
    phone.goto(site_server.url + "lab/")
    rows = evaluate_within(phone, LAB_NAME_LINES)
    assert len(rows) >= 8, rows
    assert all(lines <= 3 for _, lines in rows), rows


def test_the_guides_runs_table_keeps_run_names_to_three_lines(phone, site_server):
    """Reader check at 390 px: the guide's copy of the table (plain Markdown) ran its names to four lines."""
    phone.goto(site_server.url)
    rows = evaluate_within(phone, LAB_NAME_LINES)
    assert [name for name, _ in rows][-1] == "FP16 autocast + 动态 loss scaling", rows
    assert len(rows) == 4 and all(lines <= 3 for _, lines in rows), rows


def test_a_refused_s_or_b_is_told_under_its_box(phone, site_server):
    """Reader check at 390 px: b = 0 was refused in the status line about 550 px below the box, off screen
    while the keyboard is up. The message now sits right under the box the reader typed in, which points
    at it; the slider speaks the typed value, not the stop its knob rests on."""
    phone.goto(site_server.url + "lesson-5/")
    w = phone.locator('[data-widget="memory-bar"]')
    w.scroll_into_view_if_needed()
    expect(w).to_have_attribute("data-mounted", "yes", timeout=30_000)
    b, s = w.locator('input[name="b"]'), w.locator('input[name="s"]')
    b.fill("0")
    b.press("Enter")
    message = b.locator("xpath=following-sibling::p[contains(@class, 'c9-box-message')]")
    expect(message).to_contain_text("输入有误：")
    expect(message).to_be_in_viewport()
    gap = message.bounding_box()["y"] - (b.bounding_box()["y"] + b.bounding_box()["height"])
    assert 0 <= gap <= 24, gap
    expect(b).to_have_attribute("aria-describedby", message.get_attribute("id"))
    s.fill("5000")
    s.press("Enter")
    expect(w.locator('input[name="s_stop"]')).to_have_attribute("aria-valuetext", "s = 5,000")


def test_the_conventions_table_reads_on_a_phone_without_scrolling(phone, site_server):
    """Reader check at 390 px: its 「拆法」 column was 60 px wide and ran to 15–20 lines a row."""
    phone.goto(site_server.url + "lesson-1/")
    t = evaluate_within(
        phone,
        """() => {
      const t = document.querySelector('table.c9-ledger-conv');
      return { scrolls: t.scrollWidth > t.clientWidth + 1, width: innerWidth,
        rows: [...t.querySelectorAll('tbody tr')].map((r) => {
          const split = r.cells[1].getBoundingClientRect();
          return { splitWidth: split.width, right: Math.max(...[...r.cells].map((c) => c.getBoundingClientRect().right)),
            label: getComputedStyle(r.cells[1], '::before').content };
        }) };
    }""",
    )
    assert not t["scrolls"] and len(t["rows"]) == 4, t
    for r in t["rows"]:
        assert r["right"] <= t["width"] and r["splitWidth"] > t["width"] / 2, t
        assert r["label"] == '"拆法（字节）："', t


def test_sliders_keep_their_value_beside_them_and_eight_bits_split_evenly(phone, site_server):
    """Reader check at 390 px: the block lab's 离群通道数 value sat alone on a line under its slider, and
    FP32's eight exponent bits wrapped seven and one."""
    phone.goto(site_server.url + "lesson-4/")
    lab = phone.locator('[data-widget="block-lab"]')
    slider, value = lab.locator('input[name="channels"]'), lab.locator('output[name="channels_out"]')
    slider.scroll_into_view_if_needed()
    s, v = slider.bounding_box(), value.bounding_box()
    assert abs((s["y"] + s["height"] / 2) - (v["y"] + v["height"] / 2)) < 12, (s, v)
    phone.goto(site_server.url + "lesson-2/")
    row = phone.locator('[data-widget="bit-flipper"] .c9-bf-row[data-format="float32"]').first
    row.scroll_into_view_if_needed()
    tops = row.locator(".c9-bit-exponent").evaluate_all(
        "els => els.map((e) => Math.round(e.getBoundingClientRect().top))"
    )
    assert len(tops) == 8 and sorted({t: tops.count(t) for t in tops}.values()) == [4, 4], tops


def test_widget_text_reads_from_the_left(phone, site_server):
    """Reader check at 390 px: Material centres a figure's text, and the timeline's status, summary and
    table, the block lab's 「张量从哪来」 legend and the MX/NV tables read centred, unlike every other widget."""
    for path, selectors in (
        ("lesson-5/", ['[data-widget="timeline"] .c9-summary', '[data-widget="timeline"] .c9-marks td']),
        ("lesson-4/", ['[data-widget="block-lab"] legend']),
    ):
        phone.goto(site_server.url + path)
        for sel in selectors:
            align = phone.locator(sel).first.evaluate("el => getComputedStyle(el).textAlign")
            assert align in ("left", "start"), (path, sel, align)


def test_row_headers_of_markdown_tables_keep_their_row_lines(phone, site_server):
    """Reader check at 390 px: fp4's code table (rows headed by a th) had no lines between rows in its pinned
    first column: Material rules only a Markdown table's td."""
    phone.goto(site_server.url + "fp4/")
    details = phone.locator("details.c9-fl-details")
    details.evaluate("el => { el.open = true; }")
    th = details.locator("tbody th").nth(1)
    td = details.locator("tbody td").nth(4)  # the second row's first td
    for cell in (th, td):
        assert cell.evaluate("el => getComputedStyle(el).borderTopStyle") == "solid"
    assert th.evaluate("el => getComputedStyle(el).borderTopColor") == td.evaluate(
        "el => getComputedStyle(el).borderTopColor"
    )


def test_every_widget_tables_head_is_one_row_that_names_each_column(built_site):
    """Reader checks at 390 px: the MX/NV table's head had two rows, MXFP4 and NVFP4 each spanning three
    columns. Its second row's first cell was pinned as if it were the first column, and scrolled to the end
    the group names had left the screen, leaving 「还原值」 and 「相对误差」 under a blank head. Each column's
    head now names it whole (「NVFP4 还原值」), in one row."""
    tables = 0
    for page in sorted(built_site.glob("**/index.html")):
        for table in re.findall(r'<figure class="c9-widget.*?</figure>', page.read_text(), re.S):
            for head in re.findall(r"<thead>(.*?)</thead>", table, re.S):
                tables += 1
                assert head.count("<tr") == 1 and "rowspan" not in head and "colspan" not in head, (
                    page,
                    head,
                )
    assert tables >= 10
    fp4 = (built_site / "fp4" / "index.html").read_text()
    assert '<th scope="col">NVFP4 还原值</th>' in fp4
