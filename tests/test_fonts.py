"""The web font is cut to the site's characters (hooks/fonts.py): nothing the site shows is missing
from it."""
from __future__ import annotations

import re

import pytest

from fontTools.ttLib import TTFont

from widgets import api
from widgets.errors import InputError


def _faces(site):
    css = (site / "vendor" / "fonts" / "noto-sans-sc.css").read_text(encoding="utf-8")
    for block in re.findall(r"@font-face\s*\{[^}]*\}", css):
        file = re.search(r"url\(\./files/([^)]+)\)", block)[1]
        codes = set()
        for part in re.search(r"unicode-range:([^;]*);", block)[1].split(","):
            lo, _, hi = part.strip()[2:].partition("-")
            codes.update(range(int(lo, 16), int(hi or lo, 16) + 1))
        yield site / "vendor" / "fonts" / "files" / file, codes


def _cjk(text: str) -> set[int]:
    return {ord(c) for c in text if "\u3000" <= c <= "\u9fff" or "\uff00" <= c <= "\uffef"}


def test_every_chinese_character_shown_or_written_at_run_time_has_a_glyph(built_site):
    covered = {}
    for path, codes in _faces(built_site):
        cmap = TTFont(path).getBestCmap()
        assert codes <= set(cmap), (path.name, sorted(codes - set(cmap))[:5])  # the range promises no missing glyph
        covered.update(dict.fromkeys(codes, path.name))
    pages = "".join(p.read_text(encoding="utf-8") for p in built_site.glob("**/*.html"))
    # Text only Python writes, in the page, at run time: an error message and a non-default summary.
    try:
        api.WIDGETS  # noqa: B018 (the registry loads lazily)
        from widgets import memory_bar
        memory_bar.view({"s": 4})
    except InputError as e:
        runtime = e.message_zh
    runtime += memory_bar.view({"model": "qwen3-8b", "mode": "full_recompute", "b": 8})["summary"]
    missing = {chr(c) for c in _cjk(pages + runtime) if c not in covered}
    assert not missing, "".join(sorted(missing))


def test_the_font_is_one_small_file_with_its_licence(built_site):
    """One file (one re-layout when it arrives), a fraction of the family's 3.8 MB in 101 slices."""
    files = list((built_site / "vendor" / "fonts" / "files").glob("*.woff2"))
    assert len(files) == 1 and files[0].stat().st_size < 250_000
    assert "SIL OPEN FONT LICENSE" in (built_site / "vendor" / "fonts" / "LICENSE").read_text().upper()


def _needs_web_font(c: str) -> bool:
    """Chinese, full-width forms, symbols and emoji: what a reader's Latin system fonts do not draw.
    (Latin, Greek, super- and subscript digits are left to the system fonts named before the web font.)"""
    return ("\u2e80" <= c <= "\u9fff" or "\uf900" <= c <= "\uffef" or ord(c) > 0xFFFF
            or __import__("unicodedata").category(c) == "So")


class _Text(__import__("html.parser").parser.HTMLParser):
    """The text a page draws with the site's fonts: everything but scripts, styles and KaTeX's math
    (KaTeX brings its own fonts) and Material's footnote back-links (an icon; the ↩ is drawn at size 0). Code blocks are included: their Chinese falls back to the web font."""

    def __init__(self):
        super().__init__()
        self.skip, self.parts = [], []

    def handle_starttag(self, tag, attrs):
        if tag in ("br", "img", "input", "meta", "link", "hr", "path", "circle", "line", "rect", "source"):
            return
        cls = dict(attrs).get("class") or ""
        self.skip.append(tag in ("script", "style", "title") or {"katex", "footnote-backref"} & set(cls.split()) or bool(self.skip and self.skip[-1]))

    def handle_endtag(self, tag):
        if self.skip and tag not in ("br", "img", "input", "meta", "link", "hr", "path", "circle", "line", "rect", "source"):
            self.skip.pop()

    def handle_data(self, data):
        if not (self.skip and self.skip[-1]):
            self.parts.append(data)


def _shown_text(site) -> str:
    out = []
    for page in site.glob("**/*.html"):
        p = _Text()
        p.feed(page.read_text(encoding="utf-8"))
        out.append("".join(p.parts))
    for js in (site / "assets" / "js").glob("*/*.js"):   # messages our front end writes (not Material's)
        out.append(js.read_text(encoding="utf-8"))
    return "".join(out)


def test_every_character_shown_has_a_glyph_in_some_font_of_its_stack(built_site):
    """Beyond ASCII (every system font has it), each character the pages or the scripts show must be in
    the web font, which ends every font stack of the site (text and code): an emoji or a symbol the font
    lacks was drawn as a box (the lab's 「📍 你在这里」 badge)."""
    cmap = set()
    for path, _ in _faces(built_site):
        cmap |= set(TTFont(path).getBestCmap())
    shown = _shown_text(built_site)
    missing = sorted({c for c in shown if _needs_web_font(c) and ord(c) not in cmap})
    assert not missing, "".join(missing)
    assert "你在这里" in shown and "自己跑一遍" in shown   # the texts of the issue were read


def test_code_falls_back_to_the_sites_cjk_font(built_site):
    """Material's monospace stack has no Chinese: the code font stack must end in the CJK fonts."""
    css = (built_site / "assets" / "css" / "course.css").read_text(encoding="utf-8")
    stack = re.search(r"--md-code-font-family:([^;]*);", css)
    assert stack and stack[1].rstrip().endswith('"Noto Sans SC"'), stack


FONT_STACKS = """() => {
  const out = new Set(); let n = 0;
  const walk = document.createTreeWalker(document.querySelector('article'), NodeFilter.SHOW_TEXT);
  for (let t = walk.nextNode(); t; t = walk.nextNode()) {
    const el = t.parentElement;
    if (!/[\\u2e80-\\u9fff\\uff00-\\uffef]/.test(t.textContent) || el.closest('.katex, script, style') || !el.getClientRects().length) continue;
    n += 1;
    const family = getComputedStyle(el).fontFamily;
    if (!family.includes('Noto Sans SC')) out.add(`${el.tagName.toLowerCase()}.${el.className}: ${family}`);
  }
  return {n, out: [...out]};
}"""


@pytest.mark.browser
def test_every_chinese_text_in_the_browser_can_fall_back_to_the_web_font(browser, site_server):
    """In the browser, every element that shows Chinese (prose, code blocks, chart labels, drawings) has
    the web font in its computed font stack: the lab's code block fell back to a system font (boxes)."""
    from conftest import new_page
    ctx, page = new_page(browser, viewport={"width": 1280, "height": 900})
    try:
        problems, seen = {}, 0
        for path in ["", "lesson-1/", "lesson-2/", "lesson-3/", "lesson-4/", "fp4/", "lesson-5/", "lab/"]:
            page.goto(site_server.url + path)
            page.wait_for_function("() => document.fonts.status === 'loaded'")
            found = page.evaluate(FONT_STACKS)
            seen += found["n"]
            if found["out"]:
                problems[path] = found["out"][:8]
        assert problems == {}, problems
        assert seen > 500
        code = page.locator("article pre code").filter(has_text="#").first     # the lab's 「自己跑一遍」 block
        assert "Noto Sans SC" in code.evaluate("e => getComputedStyle(e).fontFamily")
    finally:
        ctx.close()
