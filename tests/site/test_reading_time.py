"""The rule of a lesson's time line (hooks/reading_time.py) on pages of known size: what is counted, what is
not, and the rounding; tests/site/test_phone.py recounts it on every built lesson in the browser."""

from __future__ import annotations

import pytest

from hooks import reading_time as rt


def _page(chinese: int, words: int = 0, widgets: int = 0, tasks: int = 0, extra: str = "") -> str:
    body = "<p>" + "字" * chinese + " word" * words + "</p>"
    body += (
        '<figure class="c9-widget" data-widget="x"><p>' + "组件" * 500 + "</p><button>按</button></figure>"
    ) * widgets
    body += '<div class="admonition task"><p>预测</p></div>' * tasks
    return f"<h1>标题</h1>{body}{extra}"


@pytest.mark.parametrize(
    "chinese, words, widgets, tasks, chars, minutes",
    [
        # the title's 2 字 and each task's 2 are read too; a widget's 1,000 are not
        (600, 0, 0, 0, 602, 5),  # 2.0 min: never under 5
        (3000, 300, 1, 3, 3308, 15),  # 11.03 + 3 + 3 = 17.03 → 15
        (9000, 0, 4, 6, 9014, 50),  # 30.05 + 12 + 6 = 48.05 → 50
        (6750, 0, 0, 0, 6752, 25),  # 22.51 → 25 (from a half up, it rounds up)
        (6700, 0, 0, 0, 6702, 20),  # 22.34 → 20
    ],
)
def test_the_rule_at_several_sizes(chinese, words, widgets, tasks, chars, minutes):
    m = rt.measure(_page(chinese, words, widgets, tasks))
    assert m == {"chars": chars, "widgets": widgets, "tasks": tasks, "minutes": minutes}


def test_what_is_not_read_is_not_counted():
    skipped = (
        '<nav class="c9-evo"><p>演进地图很长很长</p></nav>'
        '<span class="arithmatex">\\(sbh(34 + 5as/h)\\)</span>'
        '<span class="fig" tabindex="0">16<span class="fig-how">依据：公式与代入值</span></span>'
        '<a class="headerlink" href="#x">¶</a><script>var a = 1;</script><svg><text>刻度 1 2 3</text></svg>'
    )
    base = rt.measure(_page(100))
    # only the figure's value, 16, is read: one run of digits
    assert rt.measure(_page(100, extra=skipped))["chars"] == base["chars"] + 1


def test_the_optional_scratchpad_adds_no_time_and_its_text_is_not_read():
    pad = (
        '<details class="c9-widget" data-widget="scratchpad"><summary>草稿本</summary><p>'
        + "例" * 900
        + "</p></details>"
    )
    assert rt.measure(_page(3000, 300, 1, 3, extra=pad)) == rt.measure(_page(3000, 300, 1, 3))


def test_a_word_split_by_markup_counts_as_its_parts_and_punctuation_counts_nothing():
    assert rt.measure("<p>FP<b>16</b>，E4M3 与 3,688,704。</p>")["chars"] == 2 + 1 + 1 + 3


def test_the_line_sits_under_the_title_and_states_its_rule():
    html = rt.add_line(_page(3000, widgets=2, tasks=1))
    title_end = html.index("</h1>") + len("</h1>")
    line = html[title_end:].lstrip()
    assert line.startswith(f'<p class="{rt.LINE_CLASS}"')
    assert "阅读 + 实验 <span" in line and "≈ 15 分钟" in line and "· 页内实验 ×2 · 预测题 ×1</p>" in line
    assert f"正文 3,004 字 ÷ 每分钟 {rt.READ_RATE} 字" in line  # 3,000 + the title's 2 + the task's 2
    assert rt.add_line("<p>没有标题</p>") == "<p>没有标题</p>"
