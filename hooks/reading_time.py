"""Each lesson's time line under its title, 「阅读 + 实验 ≈ 40 分钟 · 页内实验 ×4 · 预测题 ×6」, computed from
the page itself (the seed's lesson header carries such a line; here no page types it).

The rule, in one place (tests/site/test_phone.py recounts it in the browser on the built page):
- The text read: the article's text outside the widgets (their time is counted per widget), the evolution
  map (a folded navigation line on a lesson), math, figures' formula tooltips, heading anchors, scripts and
  drawings. Each Chinese character counts one 字, and so does each run of Latin letters and digits (a word
  or a number); punctuation and spaces count nothing.
- Reading at READ_RATE 字 a minute (a steady pace for technical Chinese), plus WIDGET_MINUTES for each widget
  the page places (an element with data-widget; the free scratchpad is optional, so it adds no time) and TASK_MINUTES for each prediction task (an admonition
  "task"), rounded to the nearest ROUND_TO minutes (a half rounds up), never under ROUND_TO.
"""

from __future__ import annotations

import math
import re
from html.parser import HTMLParser

READ_RATE = 300  # 字 a minute
WIDGET_MINUTES = 3  # try a widget's controls and read what it says
TASK_MINUTES = 1  # predict, check, read the answer's reason
ROUND_TO = 5  # minutes: an estimate, not a stopwatch
OPTIONAL_WIDGETS = ("scratchpad",)  # a free console the lesson never asks the reader to use

# What is not read as running text (see the module docstring).
SKIP_TAGS = {"script", "style", "svg", "math", "template"}
SKIP_CLASSES = {"c9-evo", "arithmatex", "fig-how", "headerlink", "c9-reading"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# A Chinese character (CJK Unified Ideographs and extension A), or a run of Latin letters and digits.
WORD = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]|[A-Za-z0-9]+")

LINE_CLASS = "c9-reading"


class _Count(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # open elements: (tag, is it or an ancestor skipped)
        self.text: list[str] = []
        self.widgets = self.tasks = 0

    def _skipped(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = set((a.get("class") or "").split())
        outer = self._skipped()
        if not outer and a.get("data-widget") not in (None, *OPTIONAL_WIDGETS):
            self.widgets += 1
        if not outer and tag == "div" and {"admonition", "task"} <= classes:
            self.tasks += 1
        self.text.append(" ")  # an element's start, like its end, separates words
        if tag not in VOID:
            skip = outer or tag in SKIP_TAGS or "data-widget" in a or bool(classes & SKIP_CLASSES)
            self.stack.append((tag, skip))

    def handle_startendtag(self, tag, attrs):
        self.text.append(" ")

    def handle_endtag(self, tag):
        # close up to the matching open element (an unclosed one inside it ends with it)
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break
        self.text.append(" ")  # an element's end separates words (a table cell, a list item)

    def handle_data(self, data):
        if not self._skipped():
            self.text.append(data)


def measure(html: str) -> dict:
    """The page's 字 read, widgets, tasks and the rounded minutes (the rule in the module docstring)."""
    c = _Count()
    c.feed(html)
    c.close()
    chars = len(WORD.findall("".join(c.text)))
    exact = chars / READ_RATE + c.widgets * WIDGET_MINUTES + c.tasks * TASK_MINUTES
    minutes = max(ROUND_TO, ROUND_TO * math.floor(exact / ROUND_TO + 0.5))
    return {"chars": chars, "widgets": c.widgets, "tasks": c.tasks, "minutes": minutes}


def line(m: dict) -> str:
    """The line under the title; its formula opens on focus or hover, as every figure's does."""
    parts = [f"页内实验 ×{m['widgets']}"] if m["widgets"] else []
    parts += [f"预测题 ×{m['tasks']}"] if m["tasks"] else []
    how = (
        f"依据：正文 {m['chars']:,} 字 ÷ 每分钟 {READ_RATE} 字"
        + (f" + {m['widgets']} 个实验 × {WIDGET_MINUTES} 分钟" if m["widgets"] else "")
        + (f" + {m['tasks']} 道预测题 × {TASK_MINUTES} 分钟" if m["tasks"] else "")
        + f"，取最近的 {ROUND_TO} 分钟（组件里的文字、公式和演进地图不计字数）"
    )
    figure = (
        f'<span class="fig c9-reading-fig" tabindex="0">≈ {m["minutes"]} 分钟'
        f'<span class="fig-how" role="tooltip" data-search-exclude>{how}</span></span>'
    )
    return f'<p class="{LINE_CLASS}" data-search-exclude>阅读 + 实验 {figure}{"".join(" · " + p for p in parts)}</p>'


def add_line(html: str) -> str:
    """The page with its time line after its title (the first </h1>); a page without a title is left as is."""
    at = html.find("</h1>")
    if at < 0:
        return html
    at += len("</h1>")
    return html[:at] + "\n" + line(measure(html)) + html[at:]
