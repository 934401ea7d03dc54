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


# The page's ground on each scheme: Material's white, and its slate (hsl(232°, 15%, 14%) = rgb(30, 33, 41)).
GROUND = {palette.LIGHT: "#ffffff", palette.DARK: "#1e2129"}
# The ledger's and the memory bar's parts, filled areas side by side; "adam" is m and v drawn as one part.
PARTS = ["weights", "weights-fp32", "grads", "grads-fp32", "master", "adam-m", "adam-v"]
PARTS += ["adam-m-bf16", "adam-v-bf16", "fp8-copy", "fp8-transpose", "mx-scales", "kahan-buffer"]
PARTS += ["weight-grads-fp32", "mxfp8-copy", "mxfp8-transpose"]
PARTS += ["activations", "scores", "logits"]


def _linear(c: int) -> float:
    c /= 255
    return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4


def _luminance(hex_colour: str) -> float:
    r, g, b = (_linear(int(hex_colour[i : i + 2], 16)) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: str, b: str) -> float:
    lo, hi = sorted((_luminance(a), _luminance(b)))
    return (hi + 0.05) / (lo + 0.05)


def _lab(hex_colour: str) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of an sRGB colour: the distance between two of them is how unlike they look."""
    r, g, b = (_linear(int(hex_colour[i : i + 2], 16)) for i in (1, 3, 5))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def test_contrast_oracle():
    assert _contrast("#000000", "#ffffff") == pytest.approx(21) and _contrast("#777777", "#ffffff") > 4.47
    assert _contrast("#1f4e8c", "#1e2129") == pytest.approx(1.94, abs=0.01)  # the QA pass's figure


@pytest.mark.parametrize("scheme", [palette.LIGHT, palette.DARK])
def test_chart_parts_stand_out_on_the_ground_and_from_each_other(scheme):
    """WCAG 1.4.11: a part of a chart needs 3:1 against the page on both schemes; and no two parts look
    alike (CIE76 distance 12 or more), so a segment is told from its neighbour by its colour too."""
    i = 0 if scheme == palette.LIGHT else 1
    low = {r: round(_contrast(palette.ROLES[r][i], GROUND[scheme]), 2) for r in PARTS}
    assert {r: c for r, c in low.items() if c < 3} == {}
    alike = [
        (a, b)
        for j, a in enumerate(PARTS)
        for b in PARTS[j + 1 :]
        if sum((p - q) ** 2 for p, q in zip(_lab(palette.ROLES[a][i]), _lab(palette.ROLES[b][i]))) ** 0.5 < 12
    ]
    assert alike == []
    assert palette.ROLES["adam"] == palette.ROLES["adam-m"]


def _part_colours() -> dict[str, str]:
    """Every part's label → the role it is drawn in, in the ledger's chart and in the memory bar (by each
    recipe's label for the bar's keys: c9.core.ledger.RECIPES)."""
    from c9.core.ledger import RECIPES
    from c9.views import memory_bar
    from c9.views.part_colors import LABEL_COLORS

    out = {label: ROLE.fullmatch(c).group(1) for label, c in LABEL_COLORS.items()}
    for r in memory_bar.TRAINING_RECIPES:
        for key, label, *_ in RECIPES[r]["parts"]:
            out[f"条形图·{label}"] = ROLE.fullmatch(memory_bar.part_color(key, label)).group(1)
    return out


def test_a_part_named_alike_is_drawn_alike_in_the_ledger_and_the_memory_bar():
    """Lesson 5's bar drew 「权重梯度（FP32）」 in the colour lesson 1's ledger gives 「梯度（FP32）」, and
    「权重（FP32）」 in the BF16 weights' colour: each part of every recipe the bar offers, in its table and its
    chart, takes the colour and the pattern the ledger draws its label in; a measured part, the colour of its
    derived part."""
    from c9.core.ledger import RECIPES
    from c9.views import memory_bar
    from c9.views.part_colors import LABEL_COLORS, LABEL_PATTERNS, marker
    from c9.views.svg_pattern import pattern_id

    for r in memory_bar.TRAINING_RECIPES:
        v = memory_bar.view({"recipe": r})
        states = [s for s in v["segments"] if s["label"] in dict.fromkeys(p[1] for p in RECIPES[r]["parts"])]
        assert len(states) == len(RECIPES[r]["parts"]), r
        for seg in states:
            assert seg["color"] == LABEL_COLORS[seg["label"]], (r, seg["label"])
            assert _fill(v["chart"], seg["key"]) == seg["color"], (r, seg["label"])
            # and its pattern, in the table's swatch and over its segment in the chart
            assert seg["pattern"] == LABEL_PATTERNS[seg["label"]], (r, seg["label"])
            over = re.search(
                rf'<rect data-key="{seg["key"]}".*?</rect>(<rect [^>]*fill="url\(#([\w-]+)\)")?', v["chart"]
            )
            tile = seg["pattern"] and pattern_id(marker(seg["label"])["pattern"])
            assert (over.group(2) or "") == tile, (r, seg["label"])
    lab = memory_bar.view({"model": "lab", "s": 64, "b": 2})  # where the lab measured its run
    derived = {s["key"]: s["color"] for s in lab["segments"]}
    assert derived["weights"] == LABEL_COLORS["权重（FP32）"]  # the lab trains in FP32
    for measured, like in memory_bar.MEASURED_AS.items():
        assert _fill(lab["chart"], measured) == derived[like], measured


def _fill(svg: str, key: str) -> str:
    """The fill of the bar's first segment with this data-key."""
    return re.search(rf'<rect data-key="{key}"[^>]* fill="([^"]+)"', svg).group(1)


def test_one_quantity_in_two_precisions_is_drawn_in_two_colours():
    """The ledger drew 「Adam m（FP32）」 and 「Adam m（BF16）」 (v too) in one role, side by side in one chart and
    one legend: the check above compares roles, so a pair sharing one escaped it. Each label that names the
    same quantity in another precision takes its own role, and every role a part is drawn in is one of
    PARTS (the check above covers it)."""
    drawn = _part_colours()
    assert len(drawn) > 20 and set(drawn.values()) <= set(PARTS), sorted(set(drawn.values()) - set(PARTS))
    by_name: dict[str, dict[str, str]] = {}
    for label, role in drawn.items():
        name, _, precision = label.partition("（")
        by_name.setdefault(name, {})[precision] = role
    shared = {n: ps for n, ps in by_name.items() if len(ps) > 1 and len(set(ps.values())) < len(ps)}
    assert shared == {}
    assert {"Adam m", "Adam v", "权重", "梯度", "条形图·Adam m"} <= {
        n for n, ps in by_name.items() if len(ps) > 1
    }


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
