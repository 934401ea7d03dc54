"""Markdown tables wrapped in Material's scroll box at build time, not by Material's script at load.

Material's script wraps every ``table:not([class])`` in ``div.md-typeset__scrollwrap > div.md-typeset__table``
when the page loads: a change to the document under every table, which re-lays out the whole page (on lesson 5,
about 190 ms a pass at 1×). The build writes that markup itself and names the table ``c9-md`` so the script
finds nothing to wrap; Material's stylesheet, whose table rules read ``table:not([class])``, is widened to the
class (:func:`widen_css`), so the tables look as before.
"""

from __future__ import annotations

import re
from pathlib import Path

CLASS = "c9-md"
MATERIAL = "table:not([class])"
WIDENED = f"table:is(:not([class]),.{CLASS})"
_TAG = re.compile(r"(<table\b[^>]*>|</table>)")


def wrap(html: str) -> str:
    """Each ``<table>`` without attributes (a Markdown table) in Material's wrapper, with class c9-md;
    tables with attributes (the widgets') as they are."""
    out, opened = [], []  # opened: per open table, whether this function wrapped it
    for piece in _TAG.split(html):
        if piece == "<table>":
            opened.append(True)
            piece = (
                f'<div class="md-typeset__scrollwrap"><div class="md-typeset__table"><table class="{CLASS}">'
            )
        elif piece.startswith("<table"):
            opened.append(False)
        elif piece == "</table>" and opened and opened.pop():
            piece = "</table></div></div>"
        out.append(piece)
    return "".join(out)


def widen_css(site: Path) -> None:
    """Material's main stylesheet with its ``table:not([class])`` rules widened to the c9-md tables.
    Raises SystemExit when the stylesheet is not found once or holds no such rule (a Material upgrade)."""
    sheets = list((site / "assets" / "stylesheets").glob("main.*.min.css"))
    if len(sheets) != 1:
        raise SystemExit(f"expected one Material main stylesheet, found {len(sheets)}")
    css = sheets[0].read_text(encoding="utf-8")
    if MATERIAL not in css:
        raise SystemExit(f"{sheets[0].name}: Material's table rules changed; see hooks/tables.py")
    sheets[0].write_text(css.replace(MATERIAL, WIDENED), encoding="utf-8")
