"""Material's palette stylesheet, without the rule that restyles the whole page twice at every load.

Material's palette script sets ``data-md-color-switching`` on <body> when it applies the palette and removes it
a frame later, at every page load and not only on a switch; its stylesheet turns transitions off meanwhile
with ``[data-md-color-switching] *, … :after, … :before``. A selector on an attribute of <body> over every
descendant makes the browser recompute the style of every element, each time the attribute comes and goes:
two full style passes at load (on lesson 5, 5,193 elements each). Without the rule, the attribute matches
nothing and costs nothing; what is lost is that a switch of palette lets a few colours fade (links: 125 ms)
instead of changing at once. Measured with ``bench/bench_lighthouse.py`` (README, "Performance").
"""

from __future__ import annotations

from pathlib import Path

RULE = "[data-md-color-switching] *,[data-md-color-switching] :after,[data-md-color-switching] :before"


def drop_switching_rule(site: Path) -> None:
    """Remove the rule from the built palette stylesheet (assets/stylesheets/palette.*.min.css).
    Raises SystemExit when the stylesheet or the rule is not found exactly once (a Material upgrade changed it:
    look again rather than ship the cost unnoticed)."""
    sheets = list((site / "assets" / "stylesheets").glob("palette.*.min.css"))
    if len(sheets) != 1:
        raise SystemExit(f"expected one Material palette stylesheet, found {len(sheets)}")
    css = sheets[0].read_text(encoding="utf-8")
    start = css.find(RULE + "{")
    if start < 0 or css.count(RULE) != 1:
        raise SystemExit(
            f"{sheets[0].name}: Material's palette-switch rule changed; see hooks/palette_css.py"
        )
    end = css.index("}", start) + 1
    sheets[0].write_text(css[:start] + css[end:], encoding="utf-8")
