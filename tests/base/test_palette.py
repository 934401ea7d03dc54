"""One palette (c9/base/palette.py): the views name colours by role, the build writes every role's colour on
both schemes into course.css, and the page draws each role in the colour of the scheme it is in."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT, new_page
from playwright.sync_api import expect

from c9.base import palette

# A colour written out (#rgb, #rrggbb, rgb()/rgba()); not a character reference such as &#124;.
LITERAL = re.compile(r"(?<![&\w])#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b|\brgba?\(")
ROLE = re.compile(r"var\(--c9-([\w-]+)\)")


def test_views_name_colours_by_role_only():
    """No colour literal in the Python package or the widget templates but the palette's own."""
    files = [p for p in sorted((ROOT / "c9").rglob("*.py")) if p.name != "palette.py"]
    files += sorted((ROOT / "c9" / "views").glob("*.html"))
    bad = [
        f"{p.relative_to(ROOT)}: {m.group(0)}" for p in files for m in LITERAL.finditer(p.read_text("utf-8"))
    ]
    assert bad == []


def test_every_role_used_is_in_the_palette():
    """A misspelt role draws nothing (an unknown CSS variable): every var(--c9-…) the stylesheet, the
    templates and the scripts name is a role."""
    local = {"bit-bg"}  # course.css: the bit flipper's per-field ground, set from a role
    files = [ROOT / "docs" / "assets" / "css" / "course.css", *sorted((ROOT / "c9" / "views").glob("*.html"))]
    files += [
        *sorted((ROOT / "c9" / "views").glob("*.js")),
        *sorted((ROOT / "docs" / "assets" / "js").glob("*.js")),
    ]
    used = {m for p in files for m in ROLE.findall(p.read_text("utf-8"))}
    assert len(used) > 15 and used - local <= set(palette.ROLES), sorted(used - local - set(palette.ROLES))
    assert palette.var("fp32") == "var(--c9-fp32)"
    with pytest.raises(KeyError):
        palette.var("fp-32")


def test_the_built_stylesheet_gives_every_role_on_both_schemes(built_site):
    css = (built_site / "assets" / "css" / "course.css").read_text("utf-8")
    blocks = dict(
        re.findall(
            r"^(:root, \[data-md-color-scheme=\"default\"\]|\[data-md-color-scheme=\"slate\"\]) \{\n(.*?)^\}",
            css,
            re.M | re.S,
        )
    )
    assert len(blocks) == 2 and css.startswith("/* c9:palette")
    for i, block in enumerate(blocks.values()):
        written = dict(re.findall(r"^  --c9-([\w-]+): ([^;]+);$", block, re.M))
        assert written == {role: pair[i] for role, pair in palette.ROLES.items()}
    # the two that change with the scheme, as the page drew them before the palette (its 3:1 swaps)
    assert palette.ROLES["fp32"] == ("#1f4e8c", "#6d9eeb") and palette.ROLES["copy"] == ("#b06d00", "#e08a1e")
    assert (
        palette.colour("var(--c9-fp32)", palette.DARK) == "#6d9eeb" and palette.colour("#123456") == "#123456"
    )


# Each chart's drawn trace colours, and the memory bar's segment fills as the browser computed them.
DRAWN = """() => ({
  charts: [...document.querySelectorAll('.js-plotly-plot')].map((gd) => gd.data.map((t) => t.line?.color ?? t.marker?.color)),
  bar: [...document.querySelectorAll('.c9-bar-svg rect[data-key]')].map((r) => getComputedStyle(r).fill),
})"""


def _rgb(hex_colour: str) -> str:
    return "rgb({}, {}, {})".format(*(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)))


@pytest.mark.browser
@pytest.mark.parametrize("path", ["lab/", "lesson-5/"])
def test_the_page_draws_each_role_in_its_schemes_colour(browser, site_server, path):
    from c9.figures.lab import RUN_ORDER
    from c9.views import lab_charts, memory_bar, timeline

    ctx, page = new_page(browser, python=False, viewport={"width": 1280, "height": 900}, color_scheme="light")
    try:
        page.goto(site_server.url + path)
        for w in page.locator(".c9-widget:has(.c9-chart)").all():
            w.scroll_into_view_if_needed()
        page.wait_for_function(
            "() => [...document.querySelectorAll('.c9-widget:has(.js-plotly-plot)')].every((w) => w.dataset.chart === 'drawn')"
            " && document.querySelectorAll('.js-plotly-plot').length > 0",
            timeout=30_000,
        )
        toggle = page.locator('form[data-md-component="palette"] label:visible')
        for scheme, body in ((palette.LIGHT, "default"), (palette.DARK, "slate")):
            if scheme == palette.DARK:
                toggle.click()
            expect(page.locator("body")).to_have_attribute("data-md-color-scheme", body)
            page.wait_for_timeout(300)
            drawn = page.evaluate(DRAWN)
            if path == "lab/":  # the loss curves: one per precision, FP32 first
                loss = [drawn["charts"][i] for i, c in enumerate(drawn["charts"]) if len(c) == 4][0]
                assert loss == [palette.colour(lab_charts.COLORS[n], scheme) for n in RUN_ORDER]
            else:  # the timeline's curve; the bar's segments, in the view's order
                assert drawn["charts"][0][0] == palette.colour(
                    timeline.view()["figure"]["data"][0]["line"]["color"], scheme
                )
                fills = re.findall(r'<rect data-key="[^"]*"[^>]* fill="([^"]+)"', memory_bar.view()["chart"])
                want = [_rgb(palette.colour(f, scheme)) for f in fills]
                assert drawn["bar"] == want and len(want) >= 7
        assert page.errors == []
    finally:
        ctx.close()
