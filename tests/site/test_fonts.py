"""The web font is cut to the site's characters (hooks/fonts.py): nothing the site shows is missing
from it."""

from __future__ import annotations

import re
import unicodedata

from fontTools.ttLib import TTFont

from c9.base.errors import InputError
from c9.views import api


def _faces(site):
    """(file, family, code points) of each @font-face the site's font CSS declares."""
    css = (site / "vendor" / "fonts" / "noto-sans-sc.css").read_text(encoding="utf-8")
    for block in re.findall(r"@font-face\s*\{[^}]*\}", css):
        file = re.search(r"url\(\./files/([^)]+)\)", block)[1]
        codes = set()
        for part in re.search(r"unicode-range:([^;]*);", block)[1].split(","):
            lo, _, hi = part.strip()[2:].partition("-")
            codes.update(range(int(lo, 16), int(hi or lo, 16) + 1))
        yield (
            site / "vendor" / "fonts" / "files" / file,
            re.search(r"font-family:\s*'([^']+)'", block)[1],
            codes,
        )


# Every super- and subscript digit and sign (and those of Latin-1): drawn by one font, first in the stacks.
SCRIPTS = "¹²³⁰ⁱ⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎"


def _cjk(text: str) -> set[int]:
    return {ord(c) for c in text if "\u3000" <= c <= "\u9fff" or "\uff00" <= c <= "\uffef"}


def test_every_chinese_character_shown_or_written_at_run_time_has_a_glyph(built_site):
    covered = {}
    for path, _, codes in _faces(built_site):
        cmap = TTFont(path).getBestCmap()
        assert codes <= set(cmap), (
            path.name,
            sorted(codes - set(cmap))[:5],
        )  # the range promises no missing glyph
        covered.update(dict.fromkeys(codes, path.name))
    pages = "".join(p.read_text(encoding="utf-8") for p in built_site.glob("**/*.html"))
    # Text only Python writes, in the page, at run time: an error message and a non-default summary.
    try:
        api.WIDGETS  # noqa: B018 (the registry loads lazily)
        from c9.views import memory_bar

        memory_bar.view({"s": 0})
    except InputError as e:
        runtime = e.message_zh
    runtime += memory_bar.view({"model": "qwen3-8b", "mode": "full_recompute", "b": 8})["summary"]
    missing = {chr(c) for c in _cjk(pages + runtime) if c not in covered}
    assert not missing, "".join(sorted(missing))


def test_the_fonts_are_small_files_with_their_licences(built_site):
    """Noto Sans SC in three slices, together a fraction of the family's 3.8 MB in 101 slices; the DejaVu
    Sans cut for super- and subscripts and what Noto Sans SC lacks, a few KB."""
    files = sorted((built_site / "vendor" / "fonts" / "files").glob("*.woff2"), key=lambda f: f.name)
    assert [f.name.split("-400-")[0] for f in files] == ["dejavu-sans"] + ["noto-sans-sc"] * 3
    assert files[0].stat().st_size < 12_000 and sum(f.stat().st_size for f in files[1:]) < 250_000
    assert "SIL OPEN FONT LICENSE" in (built_site / "vendor" / "fonts" / "LICENSE").read_text().upper()
    assert "BITSTREAM VERA" in (built_site / "vendor" / "fonts" / "LICENSE-DejaVu").read_text().upper()


def test_the_first_slice_holds_what_a_page_draws_when_it_opens(built_site):
    """The Noto Sans SC slices do not overlap (within a family the browser takes the face declared last) and
    the first, which the head asks for with 「中」 (material/base.js), holds every character of each page's
    headings and navigation and every Latin letter and digit, in well under the whole cut's bytes."""
    noto = [(path, codes) for path, family, codes in _faces(built_site) if family == "Noto Sans SC"]
    assert len(noto) == 3 and all(a[1].isdisjoint(b[1]) for i, a in enumerate(noto) for b in noto[i + 1 :])
    (first_file, first), rest = noto[0], set().union(*(codes for _, codes in noto[1:]))
    assert "-400-0-" in first_file.name and ord("中") in first
    assert "中" in (built_site / "assets" / "js" / "material" / "base.js").read_text(encoding="utf-8")
    heads = "".join(
        re.sub(r"<[^>]+>", "", m[0])
        for page in built_site.glob("**/*.html")  # headings, nav links
        for m in re.finditer(
            r'<(h[1-6])\b.*?</\1>|<span class="md-ellipsis">.*?</span>',
            page.read_text(encoding="utf-8"),
            re.S,
        )
    )
    assert len(heads) > 2000 and _cjk(heads) and {ord(c) for c in heads} & rest == set()
    assert (
        set(map(ord, "ABCXYZabcxyz0123456789“”")) <= first and len(rest) > 300
    )  # the later slices hold something
    assert first_file.stat().st_size < 0.7 * sum(path.stat().st_size for path, _ in noto)


# The text of every text node with a box inside the viewport (not math: KaTeX draws it with its own fonts;
# not what a closed <details> holds beyond its summary, which Chromium lays out but does not draw).
ON_SCREEN = """() => {
  const out = [], walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), range = document.createRange();
  for (let t = walk.nextNode(); t; t = walk.nextNode()) {
    if (t.parentElement.closest('script, style, .katex')) continue;
    const fold = t.parentElement.closest('details');
    if (fold && !fold.open && t.parentElement.closest('summary')?.parentElement !== fold) continue;
    range.selectNodeContents(t);
    const seen = [...range.getClientRects()].some((b) => b.width > 0 && b.bottom > 0 && b.top < innerHeight && b.right > 0 && b.left < innerWidth);
    if (seen) out.push(t.textContent);
  }
  return out.join('');
}"""


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
        self.skip.append(
            tag in ("script", "style", "title")
            or {"katex", "footnote-backref"} & set(cls.split())
            or bool(self.skip and self.skip[-1])
        )

    def handle_endtag(self, tag):
        if self.skip and tag not in (
            "br",
            "img",
            "input",
            "meta",
            "link",
            "hr",
            "path",
            "circle",
            "line",
            "rect",
            "source",
        ):
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
    for js in (site / "assets" / "js").glob("*/*.js"):  # messages our front end writes (not Material's)
        out.append(js.read_text(encoding="utf-8"))
    return "".join(out)


def _served(site) -> dict[int, str]:
    """Code point → the family of the site's web fonts that draws it (its range promises it, its file has it)."""
    out = {}
    for path, family, codes in _faces(site):
        cmap = set(TTFont(path).getBestCmap())
        out.update(dict.fromkeys(codes & cmap, family))
    return out


def test_every_character_shown_has_a_glyph_in_the_sites_fonts(built_site):
    """Every character the pages or the scripts show (Latin, Greek, symbols, super- and subscripts too)
    is in the site's web fonts, which end every font stack: the reader's system fonts are never needed.
    Noto Sans SC alone lacked ⁰⁵⁶⁷⁸⁹⁻₀₁₂, Ψ, Δ, β, ⅛: they came from whatever the system had, another size
    and baseline (「2¹²⁷」 read as 「2¹²₇」) or a box (the lab's 「📍 你在这里」 badge)."""
    served = _served(built_site)
    shown = _shown_text(built_site)
    missing = sorted({c for c in shown if unicodedata.category(c) != "Cc" and ord(c) not in served})
    assert not missing, "".join(missing)
    assert (
        "你在这里" in shown and "自己跑一遍" in shown and "2⁻¹³³" in shown
    )  # the texts that once lacked glyphs were read
    assert {served[ord(c)] for c in "Ψ∞⅛"} <= {"Noto Sans SC", "C9 Symbols"}


def test_every_super_and_subscript_is_drawn_by_one_font_first_in_every_stack(built_site):
    """All super- and subscript digits and signs, and any other the site shows (ᵀ), come from the one
    face 'C9 Scripts', and that face is first in the text and the code font stacks: a system font earlier
    in the stack (PingFang SC has ¹²³ but not ⁷) or a later one can no longer draw part of an exponent."""
    served = _served(built_site)
    shown = {
        c
        for c in _shown_text(built_site)
        if unicodedata.name(c, "").startswith(("SUPERSCRIPT", "SUBSCRIPT", "MODIFIER LETTER"))
    }
    assert set("⁰⁵⁶⁷⁸⁹⁻") <= shown  # the exponents of lesson 3 were read
    wrong = {c: served.get(ord(c)) for c in set(SCRIPTS) | shown if served.get(ord(c)) != "C9 Scripts"}
    assert wrong == {}, wrong
    # The same code points in no other face: within a family the browser would take the one declared last.
    others = set().union(*(codes for _, family, codes in _faces(built_site) if family != "C9 Scripts"))
    assert not others & set(map(ord, SCRIPTS)), sorted(map(chr, others & set(map(ord, SCRIPTS))))
    css = (built_site / "assets" / "css" / "course.css").read_text(encoding="utf-8")
    for var in ("--md-text-font", "--md-code-font-family"):
        stack = re.search(var + r":\s*([^;]*);", css)[1]
        assert stack.startswith('"C9 Scripts",'), (var, stack)


def test_code_falls_back_to_the_sites_cjk_font(built_site):
    """Material's monospace stack has no Chinese: the code font stack must end in the CJK fonts."""
    css = (built_site / "assets" / "css" / "course.css").read_text(encoding="utf-8")
    stack = re.search(r"--md-code-font-family:([^;]*);", css)
    assert stack and stack[1].rstrip().endswith('"Noto Sans SC", "C9 Symbols"'), stack


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


# Each run of super- and subscripts in an article's text, wrapped in a span of its own so the browser can
# say which fonts drew it (the test's own markup; the page is reloaded after).
WRAP_SCRIPTS = """(chars) => {
  const re = new RegExp(`[${chars}]+`, 'g'); let n = 0;
  const walk = document.createTreeWalker(document.querySelector('article'), NodeFilter.SHOW_TEXT);
  const nodes = [];
  for (let t = walk.nextNode(); t; t = walk.nextNode()) {
    if (re.test(t.textContent) && !t.parentElement.closest('.katex, script, style') && t.parentElement.getClientRects().length) nodes.push(t);
    re.lastIndex = 0;
  }
  for (const t of nodes) {
    const frag = document.createDocumentFragment(); let last = 0;
    for (const m of t.textContent.matchAll(re)) {
      frag.append(t.textContent.slice(last, m.index));
      const span = Object.assign(document.createElement('span'), {className: 'c9-test-scripts', textContent: m[0]});
      frag.append(span); last = m.index + m[0].length; n += 1;
    }
    frag.append(t.textContent.slice(last));
    t.replaceWith(frag);
  }
  return n;
}"""


def _shown(cdp, node: int) -> bool:
    obj = cdp.send("DOM.resolveNode", {"nodeId": node})["object"]["objectId"]
    return cdp.send(
        "Runtime.callFunctionOn",
        {
            "objectId": obj,
            "returnByValue": True,
            "functionDeclaration": "function () { return this.getClientRects().length > 0; }",
        },
    )["result"]["value"]
