"""MkDocs hook: figures and widgets into the Markdown, browser assets into the site.

- on_config: computes every figure afresh (build_numbers.compute) and each widget's default view.
- on_page_markdown: renders ``{{ fig.NAME }}`` and ``{{ widget("NAME") }}`` with Jinja and strict
  undefined names (an unknown figure stops the build), leaving fenced and inline code untouched.
- on_files: publishes each widget's script, and course.css with the colour roles at its top (c9/base/palette.py).
- on_post_build: copies Pyodide, Plotly.js, KaTeX CSS and fonts from node_modules, cuts the Noto Sans SC
  and DejaVu Sans web fonts down to the site's characters (hooks/fonts.py), zips the Python the Web
  Worker can load (hooks/modules.py), writes numbers.json, and renders math to HTML with KaTeX (node), so the
  pages read complete with JavaScript off, makes the search index's formulas readable text (hooks/search_text.py);
  then the offline manifest and the service worker's cache versions (hooks/offline.py).
- on_template_context: the offline fallback page's links start from the service worker's scope.
- on_page_content: the prediction tasks' controls (hooks/tasks.py) and a lesson's time line under its
  title (hooks/reading_time.py).
- Each widget's answer cache (hooks/answers.py): Python's answers one control step from its default.
- Each Plotly chart's default state as a static drawing in <noscript> (hooks/static_charts.py).
"""

from __future__ import annotations

import json
import mimetypes
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import jinja2
from markupsafe import Markup
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import build_numbers  # noqa: E402
from c9.base import palette  # noqa: E402
from c9.core.models import load_facts  # noqa: E402
from c9.views.api import widget_modules  # noqa: E402
from hooks import (  # noqa: E402
    answers,
    codemirror,
    fonts,
    modules,
    offline,
    palette_css,
    reading_time,
    search_text,
    static_charts,
    tables,
    tasks,
)

# `mkdocs serve` guesses types from the mimetypes table: a module worker needs .mjs as JavaScript.
mimetypes.add_type("text/javascript", ".mjs")
mimetypes.add_type("application/wasm", ".wasm")

NODE_MODULES = ROOT / "node_modules"
# A widget is c9/views/NAME.py, NAME.html (its build-time HTML) and NAME.js (its page script, served at
# assets/js/widgets/NAME.js).
VIEWS = ROOT / "c9" / "views"
WIDGET_SCRIPTS = "assets/js/widgets/"
# The site's stylesheet; the build puts the colour roles (c9/base/palette.py) at its top.
COURSE_CSS = "assets/css/course.css"
# What the site serves from node_modules: (source, destination under site/vendor).
VENDOR = [
    ("pyodide/pyodide.mjs", "pyodide/pyodide.mjs"),
    ("pyodide/pyodide.asm.mjs", "pyodide/pyodide.asm.mjs"),
    ("pyodide/pyodide.asm.wasm", "pyodide/pyodide.asm.wasm"),
    ("pyodide/python_stdlib.zip", "pyodide/python_stdlib.zip"),
    ("pyodide/pyodide-lock.json", "pyodide/pyodide-lock.json"),
    ("plotly.js-cartesian-dist-min/plotly-cartesian.min.js", "plotly/plotly-cartesian.min.js"),
    ("plotly.js-basic-dist-min/plotly-basic.min.js", "plotly/plotly-basic.min.js"),
    ("katex/dist/katex.min.css", "katex/katex.min.css"),
    ("katex/dist/fonts", "katex/fonts"),
]

# Fenced code blocks and inline code are left as written; Jinja renders the rest.
CODE = re.compile(r"(^(?P<fence>`{3,}|~{3,}).*?^(?P=fence)[ \t]*$|`[^`\n]+`)", re.M | re.S)

_state: dict = {}


def on_startup(command, dirty):
    # `mkdocs serve` injects an inline live-reload script, which the page's CSP would block.
    _state["serving"] = command == "serve"


def on_config(config):
    figures = build_numbers.compute()
    env = jinja2.Environment(
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        # Markdown's {#id} heading attributes must not open Jinja comments.
        comment_start_string="{##",
        comment_end_string="##}",
        loader=jinja2.FileSystemLoader(str(VIEWS)),
    )
    env.globals.update(
        fig=_FigureNamespace(figures), widget=_widget, static_chart=_static_chart, chart_height=_chart_height
    )
    config["extra"]["csp"] = not _state.get("serving", False)
    # The service worker (docs/sw.js) is registered only on a built site: under `mkdocs serve` it would
    # keep answering from its caches behind live reload.
    config["extra"]["offline"] = not _state.get("serving", False)
    _state.update(figures=figures, env=env)
    answers.reset()
    static_charts.reset()
    return config


class _FigureNamespace:
    """``fig.NAME`` → the Figure; an unknown name stops the build naming it."""

    def __init__(self, figures):
        self._figures = figures

    def __getattr__(self, name):
        try:
            return _Rendered(self._figures[name])
        except KeyError:
            raise jinja2.UndefinedError(
                f"unknown figure {name!r} (build_numbers.py defines {len(self._figures)})"
            ) from None


class _Rendered(Markup):
    """A figure as inline HTML that also exposes ``.text`` and ``.value`` for plain use."""

    def __new__(cls, figure):
        obj = super().__new__(cls, figure.__html__())
        obj.text, obj.value = figure.text, figure.value
        return obj


def _widget(name: str, **options) -> Markup:
    """A widget's HTML: c9/views/NAME.html rendered with the widget module's page_context
    (its default view is computed by the same Python the page runs)."""
    if name not in PAGE_WIDGETS:
        raise jinja2.UndefinedError(f"unknown widget {name!r}; known: {', '.join(PAGE_WIDGETS)}")
    context = PAGE_WIDGETS[name].page_context(**options)
    if "view" in context and "view_json" not in context:  # a widget may carry less than its whole view
        context["view_json"] = json.dumps(context["view"], ensure_ascii=False, separators=(",", ":"))
    # Data the widget's script fetches instead of carrying it in the page: name → its address from this page.
    data_urls = {
        key: get_relative_url(answers.data_file(value), _state["page"].url)
        for key, value in context.pop("data_files", {}).items()
    }
    facts = load_facts()
    html = (
        _state["env"]
        .get_template(f"{name}.html")
        .render(
            **context,
            data_urls=data_urls,
            fmt=build_numbers.units.number,
            link=lambda path: get_relative_url(path, _state["page"].url),  # a page of the site, from this one
            models=facts["models"],
            anchor=facts["models"][facts["anchor"]],
        )
    )
    # One line: a raw HTML block must not contain blank lines, and may sit indented in a tab or list.
    # Line breaks inside a <textarea> or <pre> are content: keep them as character references.
    html = re.sub(
        r"(<(textarea|pre)\b[^>]*>)(.*?)(</\2>)",
        lambda m: m.group(1) + m.group(3).replace("\n", "&#10;") + m.group(4),
        html,
        flags=re.S,
    )
    cache = answers.for_widget(name, PAGE_WIDGETS[name], context)
    if cache:  # the root names its answer cache (hooks/answers.py), relative to the page like every link
        html = re.sub(
            rf'(<[^>]*\bdata-widget="{name}"[^>]*)>',
            lambda m: f'{m.group(1)} data-answers="{get_relative_url(cache, _state["page"].url)}">',
            html,
            count=1,
        )
    return Markup(" ".join(line.strip() for line in html.splitlines() if line.strip()))


def _static_chart(figure: dict) -> Markup:
    """A Plotly chart's build-time state drawn for a reader without scripts (hooks/static_charts.py), for
    the chart's box in a widget's template; its heatmaps' PNGs are named relative to the page."""
    page = _state["page"]
    return Markup(static_charts.svg(figure, lambda path: get_relative_url(path, page.url)))


def _chart_height(figure: dict) -> Markup:
    """The chart box's style attribute: the height Plotly will draw the figure at (its layout's, Plotly's
    450 px when it gives none), held by the empty box until Plotly has drawn (course.css: --c9-chart-h),
    and on a narrow screen the layout's meta.narrow_height if it has one (--c9-chart-h-narrow; charts.js
    draws at it there). The box had 300 px, and every chart drawn as the reader came near moved the text
    below it (lesson 4's seven heat maps by 33 px each, lesson 1's ledger by 240 px)."""
    layout = figure["layout"]
    style = f"--c9-chart-h: {int(layout.get('height', 450))}px"
    narrow = (layout.get("meta") or {}).get("narrow_height")
    if narrow:
        style += f"; --c9-chart-h-narrow: {int(narrow)}px"
    return Markup(f'style="{style}"')


PAGE_WIDGETS = {m.WIDGET: m for m in widget_modules()}


def on_files(files, config):
    for script in sorted(VIEWS.glob("*.js")):
        files.append(File.generated(config, WIDGET_SCRIPTS + script.name, abs_src_path=str(script)))
    # One palette for Python's views and the stylesheet: the views name colours as var(--c9-ROLE), and
    # course.css (its rules use the same variables) starts with every role's colour on both schemes.
    css = files.get_file_from_path(COURSE_CSS)
    files.remove(css)
    text = Path(css.abs_src_path).read_text(encoding="utf-8")
    files.append(File.generated(config, COURSE_CSS, content=palette.css() + "\n" + text))
    return files


def on_page_markdown(markdown, page, config, files):
    env = _state["env"]
    _state["page"] = page  # its widgets' answer caches are named relative to it
    out, last = [], 0
    for m in CODE.finditer(markdown):
        out.append(_render(env, markdown[last : m.start()], page))
        out.append(m.group(0))
        last = m.end()
    out.append(_render(env, markdown[last:], page))
    return "".join(out)


def on_template_context(context, template_name, config):
    return offline.template_context(context, template_name, config)  # the offline fallback page


def on_page_content(html, page, config, files):
    html = tasks.add_controls(html)  # the prediction tasks' radios and check button (hooks/tasks.py)
    if page.file.src_uri != "index.md":  # every lesson says how long it takes (hooks/reading_time.py)
        html = reading_time.add_line(html)
    return tables.wrap(html)  # Material's table wrapper, written here (hooks/tables.py)


def _render(env, text: str, page) -> str:
    if "{{" not in text and "{%" not in text:
        return text
    try:
        return env.from_string(text).render()
    except jinja2.TemplateError as e:
        raise SystemExit(f"{page.file.src_uri}: {e}") from e


def on_post_build(config):
    site = Path(config["site_dir"])
    vendor = site / "vendor"
    for src, dst in VENDOR:
        _copy(NODE_MODULES / src, vendor / dst)
    codemirror.publish(NODE_MODULES, vendor)  # the exercises' editor (hooks/codemirror.py)
    palette_css.drop_switching_rule(site)  # two style passes of the whole page less at load
    tables.widen_css(site)  # the tables the build wrapped keep Material's look
    # Only what the worker can load (hooks/modules.py: the views' imports, not the build's figures).
    with zipfile.ZipFile(site / "assets" / "course-py.zip", "w", zipfile.ZIP_DEFLATED) as z:
        for path in modules.browser_files():
            z.write(path, path.relative_to(ROOT).as_posix())
    (site / "assets" / "numbers.json").write_text(build_numbers.to_json(_state["figures"]), encoding="utf-8")
    subprocess.run(["node", str(ROOT / "tools" / "render_math.mjs"), str(site)], check=True)
    search_text.clean_index(site)  # the search snippets show formulas as text, not TeX (hooks/search_text.py)
    fonts.write_fonts(site, vendor / "fonts")  # after KaTeX: math can carry Chinese text too
    answers.write(site)
    for path, data in static_charts.files().items():  # the heatmaps a page without scripts draws
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_bytes(data)
    # Last: the manifest sizes and hashes every file the steps above wrote (hooks/offline.py).
    pyodide = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["dependencies"]["pyodide"]
    offline.write(site, pyodide)


def _copy(src: Path, dst: Path) -> None:
    if not src.exists():
        raise SystemExit(f"missing {src}: run `npm ci` first (the Makefile does)")
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.is_dir():
        shutil.copytree(src, dst, dirs_exist_ok=True)
    else:
        shutil.copy2(src, dst)
