"""The web font is cut to the site's characters (hooks/fonts.py): nothing the site shows is missing
from it."""
from __future__ import annotations

import re

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
