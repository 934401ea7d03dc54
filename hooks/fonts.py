"""The Noto Sans SC web font, cut down to the characters this site can show.

Fontsource splits Noto Sans SC into ~100 woff2 slices by unicode-range; a Chinese page touches dozens
of them, about 720 KB compressed for lesson 5, most of it glyphs the page never uses. Each slice is
subset here (fontTools) to the characters the site can put on screen: the built pages, the text the
page's Python and JavaScript write at run time, and printable ASCII and common full-width punctuation
for what a reader types; the pieces are merged into one font for the whole site (~145 KB). The font
is only fetched by readers whose system has no CJK font (it is last in the font stack, see
docs/assets/css/course.css).

That cut is then split again, by where a character is drawn, into three @font-face slices with their own
unicode-range: the first holds every character any page shows when it opens (all text outside the
article: the nav, the table of contents with every heading, the footer; the article's first two phone
screens; Material's and our scripts' messages; every Latin letter and symbol); the other two split the
rest, the more frequent half and the rarer. The head asks for the first slice before the body is laid out
(docs/assets/js/material/base.js); the others are fetched once the page's text is laid out (the whole page,
at load), a few hundred ms later, so the first screen's text waits for the first slice only.

Noto Sans SC lacks some characters the site shows: most super- and subscripts (2¹²⁷ drew ¹² from it
and ⁷ from a system font, another size and baseline), Greek, ∞, ⅛. A second small font, DejaVu Sans
(@fontsource/dejavu-sans, cut the same way), draws them: as 'C9 Scripts' it covers every super- and
subscript digit and sign and comes FIRST in the font stacks, so an exponent is one font whatever the
reader's system has; as 'C9 Symbols' it covers the rest of what Noto Sans SC lacks, last in the stacks.

Subsetting and merging cost seconds, so results are cached under .cache/fonts by input.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import shutil
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

from fontTools import merge, subset
from fontTools.ttLib import TTFont

from hooks import modules

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "node_modules" / "@fontsource" / "noto-sans-sc"
SYMBOLS = ROOT / "node_modules" / "@fontsource" / "dejavu-sans"
# Super- and subscript digits, signs and letters: one font draws all of them (module docstring). All of
# the digits and signs (a figure computed at run time may need any); of the modifier letters (ᵀ) those used.
SCRIPTS = {0xB2, 0xB3, 0xB9, *range(0x2070, 0x20A0)}
SCRIPT_LETTERS = {*range(0x1D2C, 0x1D6B), *range(0x1D9B, 0x1DC0)}
CACHE = ROOT / ".cache" / "fonts"
TYPED = set(range(0x20, 0x7F)) | {ord(c) for c in ",。、;:?!“”‘’()《》【】—…·×−±≈≤≥→²³⁰¹⁴⁵⁶⁷⁸⁹⁻"}
# Material's messages (search's 「键入以开始搜索」…), written by its script from the page's JSON config.
CONFIG = re.compile(r'<script id="__config" type="application/json">(.*?)</script>', re.S)
# Elements without an end tag: they open nothing (_Screens counts the elements open in the article).
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
FACE = re.compile(r"@font-face\s*\{[^}]*?src:\s*url\(\./files/(?P<file>[^)]+\.woff2)\)[^}]*\}", re.S)


def _material_text(page: str) -> str:
    config = CONFIG.search(page)
    return "".join(json.loads(config[1]).get("translations", {}).values()) if config else ""


def used_characters(site: Path) -> set[int]:
    """Code points the site can display (see the module docstring)."""
    chars = set(TYPED)
    files = [*site.glob("**/*.html"), *site.glob("assets/js/**/*.js")]
    files += modules.browser_files()  # text Python writes at run time: the zip's modules and data
    for f in files:
        text = f.read_text(encoding="utf-8")
        chars.update(map(ord, html.unescape(text) + _material_text(text)))  # &para; is a ¶ on screen
    return {c for c in chars if c >= 0x20}


class _Screens(HTMLParser):
    """A page's text split by where it stands: what a reader sees when the page opens (all that is outside
    the article: the header, the navigation and table of contents, which name every heading, the footer;
    and the article's first FIRST characters drawn, about two phone screens) and the rest of the article.
    A figure's formula (shown on hover), math (KaTeX's own fonts) and what a closed <details> holds beyond
    its summary (a lesson's folded evolution map) are not drawn there: they are not counted, and go with the
    rest."""

    FIRST = 1500
    UNSEEN = {"fig-how", "katex"}

    def __init__(self):
        super().__init__()
        self.first, self.later, self.in_article, self.seen = [], [], False, 0
        self.depth, self.unseen_from = 0, None  # elements open in the article; depth of the unseen one
        self.closed_from, self.summary_from = None, None  # a closed <details>, and its <summary> within it

    def handle_starttag(self, tag, attrs):
        self.in_article = self.in_article or tag == "article"  # a page has one article (Material's)
        if not self.in_article or tag in VOID:
            return
        self.depth += 1
        if self.unseen_from is None and self.UNSEEN & set((dict(attrs).get("class") or "").split()):
            self.unseen_from = self.depth
        if tag == "details" and self.closed_from is None and "open" not in dict(attrs):
            self.closed_from = self.depth
        elif tag == "summary" and self.closed_from == self.depth - 1:
            self.summary_from = self.depth

    def handle_startendtag(self, tag, attrs):  # <path/>: opens nothing
        pass

    def handle_endtag(self, tag):
        if tag == "article":
            self.in_article = False
        if not self.in_article or tag in VOID:
            return
        if self.unseen_from == self.depth:
            self.unseen_from = None
        if self.summary_from == self.depth:
            self.summary_from = None
        if self.closed_from == self.depth:
            self.closed_from = None
        self.depth -= 1

    def handle_data(self, data):
        if not self.in_article:
            self.first.append(data)
            return
        if self.unseen_from is not None or (self.closed_from is not None and self.summary_from is None):
            self.later.append(data)
            return
        head = data[: max(0, self.FIRST - self.seen)]
        self.seen += len(data.strip())
        self.first.append(head)
        self.later.append(data[len(head) :])


def first_screen(site: Path) -> tuple[set[int], Counter]:
    """(the code points any page draws when it opens, with our scripts' messages; how often each code point
    occurs in the pages' text)."""
    first, counts = set(), Counter()
    for page in site.glob("**/*.html"):
        p, text = _Screens(), page.read_text(encoding="utf-8")
        p.feed(text)
        first.update(map(ord, "".join(p.first) + _material_text(text)))
        counts.update(map(ord, "".join(p.first + p.later)))
    for js in site.glob("assets/js/*.js"):  # our own (not Material's): a widget's status can show at once
        first.update(map(ord, js.read_text(encoding="utf-8")))
    # Latin letters, digits and symbols too, wherever they occur: the text's font stack has no Latin system
    # font before Noto Sans SC (course.css), so a stray 「Y」 or 「“」 on the first screen fetched a later slice.
    # 中: the character the head asks the font for (material/base.js).
    return first | TYPED | {c for c in counts if c < 0x2E80} | {ord("中")}, counts


def _codes(unicode_range: str) -> set[int]:
    """A CSS unicode-range as a set of code points: "U+20-22,U+4e00" → {0x20, 0x21, 0x22, 0x4e00}."""
    out = set()
    for part in unicode_range.split(","):
        lo, _, hi = part.strip().removeprefix("U+").partition("-")
        out.update(range(int(lo, 16), int(hi or lo, 16) + 1))
    return out


def _ranges(codes: list[int]) -> str:
    """Sorted code points as a CSS unicode-range: U+4e00-4e01,U+4e03."""
    out, start = [], None
    for i, c in enumerate(codes):
        if start is None:
            start = c
        if i + 1 == len(codes) or codes[i + 1] != c + 1:
            out.append(f"U+{start:x}" if start == c else f"U+{start:x}-{c:x}")
            start = None
    return ",".join(out)


def _cached(key: str, make) -> Path:
    """CACHE/key, made by make(path) on a miss; written atomically so a cut-short build leaves no half file."""
    path = CACHE / key
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        make(tmp)
        tmp.replace(path)
    return path


def _subset(src: Path, keep: list[int]) -> Path:
    def make(out: Path) -> None:
        font = TTFont(src)
        options = subset.Options()
        options.flavor = "woff2"
        options.drop_tables += ["FFTM"]  # FontForge's timestamps (DejaVu): not needed to draw
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=keep)
        subsetter.subset(font)
        font.save(out)

    key = hashlib.sha256(src.read_bytes() + ",".join(map(str, keep)).encode()).hexdigest()[:24]
    return _cached(f"{src.stem}-{key}.woff2", make)


def _merge(parts: list[Path]) -> Path:
    """The subset slices as one font: one download and one re-layout of the page when it arrives (each
    slice arriving on its own re-laid out the whole page, 150–250 ms a time on lesson 5)."""

    def make(out: Path) -> None:
        font = merge.Merger(options=merge.Options(drop_tables=["vhea", "vmtx"])).merge(
            [str(p) for p in parts]
        )
        font.flavor = "woff2"
        font.save(out)

    key = hashlib.sha256("".join(p.name for p in parts).encode()).hexdigest()[:24]
    return _cached(f"merged-{key}.woff2", make)


def _face(family: str, weight: int, file: str, codes: set[int]) -> str:
    # block, not swap: these fonts are only fetched where the reader's system has no such glyphs, so what a
    # swap would show first is empty boxes, and the text re-wrapped under the reader when the font came
    # (lesson 2's title took a second line: a layout shift of 0.26). The text waits for the font instead.
    return (
        f"@font-face {{\n  font-family: '{family}';\n  font-style: normal;\n  font-display: block;\n"
        f"  font-weight: {weight};\n  src: url(./files/{file}) format('woff2');\n"
        f"  unicode-range: {_ranges(sorted(codes))};\n}}\n"
    )


def write_fonts(site: Path, dst: Path, weight: int = 400) -> dict:
    """The site's characters as woff2 in dst/files (Noto Sans SC in three slices; DejaVu Sans for what it
    lacks and for all super- and subscripts) and their @font-face rules into dst/noto-sans-sc.css. Regular weight
    only (bold is synthesised, which halves the download). Returns {"slices": used, "of": all, "bytes":
    the woff2s' sizes, "characters": how many each, "missing": what neither font has}. Raises SystemExit
    without `npm ci`."""
    for pkg in (PKG, SYMBOLS):
        if not pkg.exists():
            raise SystemExit(f"missing {pkg}: run `npm ci` first (the Makefile does)")
    used = used_characters(site)
    faces = list(FACE.finditer((PKG / f"{weight}.css").read_text(encoding="utf-8")))
    parts, codes = [], set()
    for m in faces:
        src = PKG / "files" / m["file"]
        keep = (used - SCRIPTS - SCRIPT_LETTERS) & _codes(re.search(r"unicode-range:([^;]*);", m[0])[1])
        if keep:  # the published ranges promise a few glyphs a slice lacks: keep what it has
            keep &= set(TTFont(src, lazy=True).getBestCmap())
        if keep:
            parts.append(_subset(src, sorted(keep)))
            codes |= keep
    merged = _merge(parts)
    first, counts = first_screen(site)
    rest = sorted(codes - first, key=lambda c: (-counts[c], c))  # most frequent first
    slices = [codes & first, set(rest[: len(rest) // 2]), set(rest[len(rest) // 2 :])]
    names = []
    for i, keep in enumerate(slices):
        cut = _subset(merged, sorted(keep))
        names.append((f"noto-sans-sc-{weight}-{i}-{cut.stem.rpartition('-')[2][:10]}.woff2", cut, keep))
    # DejaVu Sans ships as one file: all of its glyphs in the "latin" slice.
    src = SYMBOLS / "files" / f"dejavu-sans-latin-{weight}-normal.woff2"
    has = set(TTFont(src, lazy=True).getBestCmap())
    scripts = (SCRIPTS | (SCRIPT_LETTERS & used)) & has
    symbols = (used - codes - scripts) & has
    sym = _subset(src, sorted(scripts | symbols))
    sym_name = f"dejavu-sans-{weight}-{sym.stem.rpartition('-')[2][:10]}.woff2"
    shutil.rmtree(dst / "files", ignore_errors=True)
    (dst / "files").mkdir(parents=True)
    for name, cut, _ in names:
        shutil.copyfile(cut, dst / "files" / name)
    shutil.copyfile(sym, dst / "files" / sym_name)
    shutil.copyfile(
        PKG / "LICENSE", dst / "LICENSE"
    )  # the licences travel with the fonts (OFL; Bitstream Vera)
    shutil.copyfile(SYMBOLS / "LICENSE", dst / "LICENSE-DejaVu")
    (dst / "noto-sans-sc.css").write_text(
        "/* Noto Sans SC (SIL Open Font License 1.1, see LICENSE) and DejaVu Sans (see LICENSE-DejaVu),\n"
        "   cut to this site's characters by hooks/fonts.py. */\n"
        + "".join(_face("Noto Sans SC", weight, name, keep) for name, _, keep in names)
        + _face("C9 Scripts", weight, sym_name, scripts)
        + (_face("C9 Symbols", weight, sym_name, symbols) if symbols else ""),
        encoding="utf-8",
    )
    return {
        "slices": len(parts),
        "of": len(faces),
        "characters": [*map(len, slices), len(scripts | symbols)],
        "bytes": [(dst / "files" / n).stat().st_size for n in [*(n for n, _, _ in names), sym_name]],
        "missing": "".join(sorted(map(chr, used - codes - has))),
    }
