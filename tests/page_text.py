"""The reader-visible text of built pages and widget views, for the text rules.

A small tree over html.parser (the standard library; the site has no HTML parser of its own):
:func:`blocks` gives each block's text (a paragraph, list item, table cell, caption, tooltip …) with
math, code and the like replaced by OBJ, so that rules see what sits next to them without judging
their insides; :func:`tables` gives each table as rows of cell texts; :func:`view_strings` gives every
string a widget view carries, SVG markup reduced to its text.
"""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

OBJ = "\ufffc"  # stands in for math, code, an image: neither Chinese, nor Latin, nor punctuation
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
SKIP_TAGS = {"script", "style", "code", "pre", "math", "kbd", "samp", "svg:defs", "template", "noscript"}
SKIP_CLASSES = {
    "katex",
    "katex-display",
    "arithmatex",
    "headerlink",
    "footnote-ref",
    "footnote-backref",
    "twemoji",
}
BLOCK_TAGS = {
    "p",
    "li",
    "td",
    "th",
    "caption",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "figcaption",
    "dt",
    "dd",
    "label",
    "legend",
    "option",
    "summary",
    "button",
    "output",
    "text",
    "title",
    "blockquote",
}
# a tooltip, and a label chip (an inline-block box with its own margin: the evolution map's 「解决了」, 「你在这里」)
# stand apart from the text around them
BLOCK_CLASSES = {"fig-how", "c9-evo-k", "c9-evo-badge"}


class Node:
    def __init__(self, tag: str, attrs: dict, parent: Node | None):
        self.tag, self.attrs, self.parent, self.children = tag, attrs, parent, []

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def iter(self):
        yield self
        for c in self.children:
            if isinstance(c, Node):
                yield from c.iter()

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)


class _Builder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = self.cur = Node("#root", {}, None)

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs), self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, dict(attrs), self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def parse(markup: str) -> Node:
    b = _Builder()
    b.feed(markup)
    b.close()
    return b.root


def _skipped(n: Node) -> bool:
    return n.tag in SKIP_TAGS or bool(n.classes & SKIP_CLASSES) or n.attrs.get("aria-hidden") == "true"


def _is_block(n: Node) -> bool:
    return n.tag in BLOCK_TAGS or bool(n.classes & BLOCK_CLASSES)


def _block_text(n: Node, out: list[str]) -> str:
    parts = []
    for c in n.children:
        if isinstance(c, str):
            parts.append(
                re.sub(r"[ \t\n\r\f]+", " ", c)
            )  # as the browser renders it: a line break in the source is a space
        elif _skipped(c):
            parts.append(OBJ)
        elif _is_block(c):
            _collect(c, out)
            parts.append("" if "fig-how" in c.classes else "\n")  # a tooltip sits inline
        elif c.tag in ("br", "img"):
            parts.append(OBJ if c.tag == "img" else "\n")
        else:
            parts.append(_block_text(c, out))
    return "".join(parts)


def _collect(n: Node, out: list[str]) -> None:
    if _skipped(n):
        return
    if _is_block(n):
        out.append(_block_text(n, out))
        return
    for c in n.children:
        if isinstance(c, Node):
            _collect(c, out)


def article(path: Path) -> Node:
    """The page's own content (Material's header, navigation and footer left out)."""
    root = parse(path.read_text(encoding="utf-8"))
    return next(n for n in root.iter() if n.tag == "article")


def without_widgets(node: Node, names) -> Node:
    """The tree with the widgets named left out (in place; returns ``node``): a root with data-widget=NAME,
    or, for a figure the build draws without one, the class c9-NAME."""

    def named(c):
        return isinstance(c, Node) and (
            c.attrs.get("data-widget") in names or any(f"c9-{x}" in c.classes for x in names)
        )

    for n in node.iter():
        n.children = [c for c in n.children if not named(c)]
    return node


def blocks(node: Node) -> list[str]:
    """Each block's text, blocks nested in blocks (a tooltip in a paragraph) taken out separately.
    Whitespace is collapsed as the browser shows it: a line break inside a paragraph's source is a space
    (「NaN，␤这一步」 reads 「NaN， 这一步」); a real break (<br>, a nested block) stays a line break, and the
    spaces around it, which the browser drops, go too."""
    out: list[str] = []
    _collect(node, out)
    return [re.sub(r" *\n[\n ]*", "\n", t).strip() for t in out if t.strip()]


TEXT_ATTRIBUTES = ("aria-label", "aria-valuetext", "title", "placeholder", "alt")


def attribute_texts(node: Node) -> list[str]:
    """Text a reader meets in attributes: a screen reader's aria-label, a tooltip's title (the pattern
    table's cell details, shown below it when a cell is chosen), a placeholder. Data attributes carrying JSON are not text."""
    return [
        html.unescape(n.attrs[a])
        for n in node.iter()
        if not _skipped(n)
        for a in TEXT_ATTRIBUTES
        if n.attrs.get(a)
    ]


def tables(node: Node) -> list[list[list[str]]]:
    """Each <table> as rows of cell texts (tooltips left out; math as OBJ)."""
    result = []
    for t in (n for n in node.iter() if n.tag == "table"):
        rows = []
        for tr in (n for n in t.iter() if n.tag == "tr"):
            cells = [c for c in tr.children if isinstance(c, Node) and c.tag in ("td", "th")]
            rows.append([_cell_text(c) for c in cells])
        result.append(rows)
    return result


def _cell_text(n: Node) -> str:
    parts = []
    for c in n.children:
        if isinstance(c, str):
            parts.append(c)
        elif _skipped(c):
            parts.append(OBJ)
        elif "fig-how" in c.classes:
            continue
        else:
            parts.append(_cell_text(c))
    return " ".join("".join(parts).split())


def pages(site: Path) -> list[tuple[str, Path]]:
    """(name, path) of every page of the course: "index", "lesson-1", …"""
    found = sorted(
        p
        for p in site.rglob("index.html")
        if not {"vendor", "assets", "search"} & set(p.relative_to(site).parts)
    )
    return [(p.parent.relative_to(site).as_posix().replace(".", "index"), p) for p in found]


def view_strings(value) -> list[str]:
    """Every string in a view (recursively), SVG or HTML markup reduced to the text a reader sees."""
    if isinstance(value, str):
        if value.lstrip()[:1] in ("{", "["):  # a view carried as JSON (data-default): its strings
            try:
                return view_strings(json.loads(value))
            except ValueError:
                pass
        if value.lstrip().startswith("<"):
            return blocks(parse(value)) + [t for t in _svg_texts(value)]
        return [value]
    if isinstance(value, dict):  # "params" echoes what the reader typed, as typed; "tex" is math
        return [s for k, v in value.items() if k not in ("params", "tex") for s in view_strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in view_strings(v)]
    return []


def _svg_texts(markup: str) -> list[str]:
    # aria-label and <title> of charts are read out by screen readers: they are text too
    return [html.unescape(m) for m in re.findall(r'aria-label="([^"]*)"', markup)]
