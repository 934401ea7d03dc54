"""Off-screen text is not laid out at load: the article's blocks between two headings go into one
``<div class="c9-part">``, which course.css gives ``content-visibility: auto``.

A long lesson (lesson 5: ~5,600 elements, half of them KaTeX's) spent most of its load in style and layout
forced by Material's and the course's scripts; a part that is off screen is skipped until it nears the
viewport, and keeps its measured size after that (``contain-intrinsic-size: auto``). The headings stay
outside the parts, so Material's table of contents and a link to a heading find them as before; the text
stays in the page, for search, find-in-page, screen readers and readers without JavaScript.

Until it is drawn, a part takes the height given here, estimated from its text on a 412 px phone. The
estimate errs high: a part that a script measures while skipped (an accessibility checker does) is laid out
at its own height from the placeholder's top, and one taller than its placeholder would overlap the next
part and the footer.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _TopLevel(HTMLParser):
    """Offsets of the top-level elements of an HTML fragment: (start, end, tag)."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=False)
        self.lines = [0]
        for line in text.splitlines(keepends=True):
            self.lines.append(self.lines[-1] + len(line))
        self.depth, self.start, self.tag, self.blocks = 0, 0, "", []

    def _offset(self) -> int:
        line, col = self.getpos()
        return self.lines[line - 1] + col

    def handle_starttag(self, tag, attrs):
        if self.depth == 0:
            self.start, self.tag = self._offset(), tag
        if tag in VOID:
            if self.depth == 0:
                self.blocks.append((self.start, self._offset() + len(self.get_starttag_text()), tag))
            return
        self.depth += 1

    def handle_startendtag(self, tag, attrs):
        if self.depth == 0:
            self.blocks.append((self._offset(), self._offset() + len(self.get_starttag_text()), tag))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        self.depth -= 1
        if self.depth < 0:
            raise ValueError(f"</{tag}> closes nothing")
        if self.depth == 0:
            end = self.rawdata.index(">", self._offset()) + 1
            self.blocks.append((self.start, end, self.tag))


TAG = re.compile(r"<[^>]+>")
TOOLTIP = re.compile(r'<span class="fig-how".*?</span>', re.S)
BLOCK = re.compile(r"<(?:p|li|h[1-6]|dt|dd|summary|figcaption|pre)\b")


def estimate_px(html: str) -> int:
    """A part's height on a 412 px phone, a little over: 21 Chinese characters (or 42 Latin) to a line of
    26 px, 26 px around each block, 20 px per table row, 60 per display formula, 300 per widget and per chart
    box (fitted to the built lessons' parts, then × 1.25)."""
    text = " ".join(TAG.sub(" ", TOOLTIP.sub("", html)).split())
    width = sum(1 if ord(c) >= 0x2E80 else 0.5 for c in text)
    px = (
        width / 21 * 26
        + 26 * len(BLOCK.findall(html))
        + 20 * html.count("<tr")
        + 60 * html.count('<div class="arithmatex"')
        + 300 * (html.count('class="c9-widget') + html.count("c9-chart"))
    )
    return max(100, round(px * 1.25 / 10) * 10)


def _part(html: str) -> str:
    return f'<div class="c9-part" style="contain-intrinsic-size: auto {estimate_px(html)}px">{html}</div>'


def wrap_parts(html: str) -> str:
    """The fragment with each run of top-level non-heading elements wrapped in a part."""
    parser = _TopLevel(html)
    try:
        parser.feed(html)
        parser.close()
    except ValueError:
        return html
    if parser.depth != 0:  # not a fragment we can read safely: leave it as it is
        return html
    out, last, run_start, run_end = [], 0, None, 0
    for start, end, tag in parser.blocks + [(len(html), len(html), "h1")]:
        if tag in HEADINGS:
            if run_start is not None:
                out.append(_part(html[run_start:run_end]))
                last, run_start = run_end, None
            out.append(html[last:end])
            last = end
        else:
            if run_start is None:
                out.append(html[last:start])
                run_start = start
            run_end = end
    out.append(html[last:])
    return "".join(out)
