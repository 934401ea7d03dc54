"""The strict build: no warning, every figure rendered from the build, nothing left unrendered,
every asset served by the site itself."""

from __future__ import annotations

import json
import re
import zipfile

import pytest
from conftest import ROOT

import build_numbers

LESSON_5_FIGURES = [
    "162.5 GiB",
    "73.8%",
    "42.5 GiB",
    "2.5 GiB",
    "72.5 GiB",
    "55.9 MB",
    "402,653,184",
    "805.3 MB",
    "2,013.3 MB",
    "25,165,824",
    "109.1 GiB",
    "82.5%",
    "444.5 GB",
]


def pages(site):
    return {
        p.relative_to(site).as_posix(): p.read_text(encoding="utf-8")
        for p in site.rglob("*.html")
        if "vendor" not in p.parts
    }


def test_build_log_has_no_warning(built_site):
    log = (built_site.parent / "build.log").read_text()
    assert "WARNING" not in log, log


def test_no_template_syntax_survives(built_site):
    for name, html in pages(built_site).items():
        assert "{{" not in html and "{%" not in html and "{#" not in html and "{##" not in html, name


def test_lesson_5_quotes_the_builds_figures(built_site):
    html = (built_site / "lesson-5" / "index.html").read_text(encoding="utf-8")
    text = re.sub(r"<[^>]+>", "", html)
    for figure in LESSON_5_FIGURES:
        assert figure in text, figure
    # Each quoted figure carries its provenance for hover and focus.
    assert re.search(
        r'<span class="fig" tabindex="0" data-fig="act_anchor">162.5 GiB<span class="fig-how" role="tooltip" data-search-exclude>依据：全部留着的激活 = L × sbh\(34 \+ 5as/h\) 字节（Korthikanti 式 1）；代入：s = 4,096，b = 1，h = 5,120，a = 24，L = 64</span>',
        html,
    )


def test_figures_on_the_page_equal_a_fresh_computation(built_site):
    published = json.loads((built_site / "assets" / "numbers.json").read_text(encoding="utf-8"))
    fresh = json.loads(build_numbers.to_json(build_numbers.compute()))
    assert published == fresh
    html = "".join(pages(built_site).values())
    for name in re.findall(r'data-fig="([^"]+)"', html):
        assert name in fresh


def test_every_figure_is_whole_even_in_a_table_cell(built_site):
    """Each figure span closes with its provenance intact: a "|" in a formula (|x − q| / |x|) once ended
    a Markdown table cell in mid-tooltip."""
    for page in built_site.glob("**/index.html"):
        html = page.read_text(encoding="utf-8")
        opened = html.count('<span class="fig" tabindex="0"')
        whole = re.findall(
            r'<span class="fig" tabindex="0" data-fig="\w+">[^<]+<span class="fig-how" role="tooltip" '
            r"data-search-exclude>依据：[^<]+</span></span>",
            html,
        )
        assert len(whole) == opened, page


def test_memory_bar_default_state_is_in_the_html(built_site):
    html = (built_site / "lesson-5" / "index.html").read_text(encoding="utf-8")
    assert 'data-widget="memory-bar"' in html
    assert "模型状态 444.5 GB，激活 174.5 GB（162.5 GiB）" in html  # the summary, no script needed
    m = re.search(
        r'data-widget="memory-bar" data-default="([^"]+)"', html
    )  # the memory bar's, not the first widget's
    import html as html_lib

    view = json.loads(html_lib.unescape(m.group(1)))
    assert view["activation_bytes"] == 174_483_046_400


def test_the_config_box_takes_a_paste_whole(built_site):
    """A maxlength cut a 200 KB paste to 100,000 characters without a word, and Python then pointed at a
    JSON error that the reader never typed; Python now sees the whole text and says it is too long."""
    html = (built_site / "lesson-5" / "index.html").read_text(encoding="utf-8")
    box = re.search(r'<textarea id="mb-config"[^>]*>', html)[0]
    assert "maxlength" not in box, box


def test_the_block_lab_carries_each_default_view_once(built_site):
    """Its six schemes' default views are in data-defaults, their heat maps (half the page) in a file the
    script fetches; data-default holds only the parameters they share, not a second copy of the first view
    (94 KB of lesson 4's HTML)."""
    import html as html_lib

    page = (built_site / "lesson-4" / "index.html").read_text(encoding="utf-8")
    attrs = dict(
        re.findall(
            r'(data-defaults?)="([^"]+)"', re.search(r'<figure[^>]*data-widget="block-lab"[^>]*>', page)[0]
        )
    )
    default, views = (json.loads(html_lib.unescape(attrs[k])) for k in ("data-default", "data-defaults"))
    assert default == {"params": views[0]["params"]}
    assert len(views) == 6 and not any("figure" in v or "abs_figure" in v for v in views)
    # the heat maps: in the file data-figures names, each the one Python draws for its scheme
    figures = re.search(r'data-figures="([^"]+)"', page)[1]
    assert re.fullmatch(r"\.\./assets/data/[0-9a-f]{12}\.json", figures), figures
    held = json.loads((built_site / "lesson-4" / figures).read_text(encoding="utf-8"))
    from c9.views import block_lab

    full = block_lab.page_context()["views"]
    assert held == {"abs_figure": full[0]["abs_figure"]} | {v["scheme"]: v["figure"] for v in full}
    assert [v["scheme"] for v in views] == [v["scheme"] for v in full]


def test_math_is_rendered_at_build_time(built_site):
    html = (built_site / "lesson-5" / "index.html").read_text(encoding="utf-8")
    assert 'class="katex"' in html and "<math" in html
    assert "\\(" not in html and "\\[" not in html


def test_site_ships_its_own_assets(built_site):
    for rel in [
        "vendor/pyodide/pyodide.mjs",
        "vendor/pyodide/pyodide.asm.mjs",
        "vendor/pyodide/pyodide.asm.wasm",
        "vendor/pyodide/python_stdlib.zip",
        "vendor/pyodide/pyodide-lock.json",
        "vendor/plotly/plotly-cartesian.min.js",
        "vendor/plotly/plotly-basic.min.js",
        "vendor/katex/katex.min.css",
        "vendor/fonts/noto-sans-sc.css",
        "assets/js/course.js",
        "assets/js/py-worker.js",
        "assets/course-py.zip",
    ]:
        assert (built_site / rel).is_file(), rel
    css = (built_site / "vendor" / "fonts" / "noto-sans-sc.css").read_text()
    for url in re.findall(r"url\(([^)]+)\)", css):
        assert (built_site / "vendor" / "fonts" / url).is_file(), url
    with zipfile.ZipFile(built_site / "assets" / "course-py.zip") as z:
        names = set(z.namelist())
    assert {"anchor-model.json", "c9/__init__.py", "c9/views/api.py", "c9/views/memory_bar.py"} <= names


def test_no_page_links_to_another_origin_for_assets(built_site):
    for name, html in pages(built_site).items():
        for tag in re.findall(r"<(?:script|link|img|iframe|source)\b[^>]*>", html):
            if 'rel="canonical"' in tag or 'rel="alternate"' in tag:
                continue  # the page's own published address, not a request
            for url in re.findall(r'(?:src|href)="([^"]+)"', tag):
                assert not re.match(r"(https?:)?//", url), (name, tag)


def test_every_guided_task_has_one_right_choice_and_an_answer(built_site):
    for name, html in pages(built_site).items():
        for task in re.findall(r'<div class="admonition task">(.*?)</details>', html, re.S):
            assert len(re.findall(r'<li class="correct">', task)) == 1, (name, task[:80])
            assert "<details" in task, name


def test_pages_carry_a_strict_csp_and_no_inline_script(built_site):
    for name, html in pages(built_site).items():
        if name.startswith("assets/"):
            continue
        assert "script-src 'self' 'wasm-unsafe-eval'" in html, name
        for attrs, body in re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S):
            assert "src=" in attrs or 'type="application/json"' in attrs, (name, body[:80])
            assert re.search(r"\son\w+=", attrs) is None, name
        assert re.search(r"<[^>]+\son(click|load|error|input|change)=", html) is None, name


def test_widget_forms_leave_validation_to_the_widget(built_site):
    """Reader check: Enter in a number box holding 3.5 opened the browser's own bubble, in English, and the
    form was not submitted (a hidden invalid box blocked lesson 4's typed tensor). Every widget form says
    novalidate: the widget and Python say what is wrong, in Chinese."""
    forms = [
        (name, form)
        for name, html in pages(built_site).items()
        for form in re.findall(r"<form\b[^>]*>", html)
        if "c9-controls" in form
    ]
    assert len(forms) >= 12, forms
    assert [f for f in forms if " novalidate" not in f[1]] == []


def test_no_stylesheet_restyles_the_page_on_materials_load_time_switch(built_site, tmp_path):
    """Material sets and removes data-md-color-switching on <body> at every load: a rule on it over every
    descendant cost two full style passes (hooks/palette_css.py). The palettes themselves stay."""
    from hooks import palette_css

    sheets = {p.name: p.read_text(encoding="utf-8") for p in built_site.rglob("*.css")}
    assert [n for n, css in sheets.items() if "data-md-color-switching" in css] == []
    palette = next(css for n, css in sheets.items() if n.startswith("palette."))
    assert "[data-md-color-scheme=slate]" in palette and "[data-md-color-primary=indigo]" in palette
    # A Material whose rule changed stops the build rather than shipping the cost unnoticed.
    (tmp_path / "assets" / "stylesheets").mkdir(parents=True)
    changed = tmp_path / "assets" / "stylesheets" / "palette.0.min.css"
    changed.write_text("[data-md-color-switching] *{transition:none!important}", encoding="utf-8")
    with pytest.raises(SystemExit, match="palette-switch rule changed"):
        palette_css.drop_switching_rule(tmp_path)
    changed.write_text(
        f"a{{color:red}}{palette_css.RULE}{{transition:none!important}}b{{x:y}}", encoding="utf-8"
    )
    palette_css.drop_switching_rule(tmp_path)
    assert changed.read_text(encoding="utf-8") == "a{color:red}b{x:y}"


def test_markdown_tables_come_wrapped_so_materials_script_leaves_them(built_site):
    """Material's script wrapped every table:not([class]) at load, re-laying out the whole page (lesson 5's
    Lighthouse blocking time, 6 runs each: median 1,436 → 1,068 ms once the build wrote the wrapper). Every
    Markdown table now comes in Material's wrapper with class c9-md, and Material's table rules reach it."""
    from hooks import tables

    for name, html in pages(built_site).items():
        assert "<table>" not in html, name  # nothing left for the script to wrap
        for m in re.finditer(r'<table class="c9-md">', html):
            assert html[: m.start()].endswith('<div class="md-typeset__table">'), name
    assert html_count(built_site, "lesson-5/index.html", 'class="c9-md"') >= 5
    css = next((built_site / "assets" / "stylesheets").glob("main.*.min.css")).read_text(encoding="utf-8")
    assert tables.MATERIAL not in css and css.count(tables.WIDENED) >= 10
    # widget tables keep their own markup; nested ones close where they should
    sample = '<table><tr><td>a</td></tr></table><table class="x"><tr><td>b</td></tr></table>'
    assert tables.wrap(sample) == (
        '<div class="md-typeset__scrollwrap"><div class="md-typeset__table"><table class="c9-md">'
        '<tr><td>a</td></tr></table></div></div><table class="x"><tr><td>b</td></tr></table>'
    )


def html_count(site, path, needle):
    return (site / path).read_text(encoding="utf-8").count(needle)


def test_the_cards_sources_are_named_links(built_site):
    """The memory bar's note linked six times 「出处」, four of them to one page: six 26 × 19 px links with one
    name for different places. Each source is now one link named for what it is, after the cards it gives."""
    html = (built_site / "lesson-5" / "index.html").read_text(encoding="utf-8")
    note = re.search(r'<p class="c9-note">卡的显存.*?</p>', html).group()
    links = re.findall(r'<a href="([^"]+)"[^>]*>([^<]+)</a>', note)
    cards = json.loads((ROOT / "anchor-model.json").read_text(encoding="utf-8"))["cards"]["list"]
    assert sorted(links) == sorted({(c["url"], c["url_title"]) for c in cards})
    assert len({text for _, text in links}) == len(links) >= 2
    for c in cards:  # each card named once, before the link to its source, its size on one line (「48 GB」)
        label = c["label"].replace(" GB", "\u00a0GB")
        assert note.count(label) == 1
        assert note.index(label) < note.index(f'href="{c["url"]}"')
