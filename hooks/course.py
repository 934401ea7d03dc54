"""MkDocs hook: figures and widgets into the Markdown, browser assets into the site.

- on_config: computes every figure afresh (build_numbers.compute) and each widget's default view.
- on_page_markdown: renders ``{{ fig.NAME }}`` and ``{{ widget("NAME") }}`` with Jinja and strict
  undefined names (an unknown figure stops the build), leaving fenced and inline code untouched.
- on_post_build: copies Pyodide, Plotly.js, KaTeX CSS and fonts from node_modules, zips the course's
  Python for the Web Worker, writes numbers.json, and renders math to HTML with KaTeX (node), so the
  pages read complete with JavaScript off.
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

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import build_numbers  # noqa: E402
from widgets.api import widget_modules  # noqa: E402
from widgets.models import load_facts  # noqa: E402

# `mkdocs serve` guesses types from the mimetypes table: a module worker needs .mjs as JavaScript.
mimetypes.add_type("text/javascript", ".mjs")
mimetypes.add_type("application/wasm", ".wasm")

NODE_MODULES = ROOT / "node_modules"
# What the site serves from node_modules: (source, destination under site/vendor).
VENDOR = [
    ("pyodide/pyodide.mjs", "pyodide/pyodide.mjs"),
    ("pyodide/pyodide.asm.mjs", "pyodide/pyodide.asm.mjs"),
    ("pyodide/pyodide.asm.wasm", "pyodide/pyodide.asm.wasm"),
    ("pyodide/python_stdlib.zip", "pyodide/python_stdlib.zip"),
    ("pyodide/pyodide-lock.json", "pyodide/pyodide-lock.json"),
    ("plotly.js-cartesian-dist-min/plotly-cartesian.min.js", "plotly/plotly-cartesian.min.js"),
    ("katex/dist/katex.min.css", "katex/katex.min.css"),
    ("katex/dist/fonts", "katex/fonts"),
]
# Regular only: bold is synthesised, which halves what a reader without CJK fonts downloads.
FONT_WEIGHTS = (400,)
PY_FILES = ["anchor-model.json", "widgets/*.py", "lab/results/c09-precision.json"]  # the lab data: real gradients for lesson 2

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
        comment_start_string="{##", comment_end_string="##}",
        loader=jinja2.FileSystemLoader(str(Path(__file__).parent / "templates")),
    )
    env.globals.update(fig=_FigureNamespace(figures), widget=_widget)
    config["extra"]["csp"] = not _state.get("serving", False)
    _state.update(figures=figures, env=env)
    return config


class _FigureNamespace:
    """``fig.NAME`` → the Figure; an unknown name stops the build naming it."""

    def __init__(self, figures):
        self._figures = figures

    def __getattr__(self, name):
        try:
            return _Rendered(self._figures[name])
        except KeyError:
            raise jinja2.UndefinedError(f"unknown figure {name!r} (build_numbers.py defines {len(self._figures)})") from None


class _Rendered(Markup):
    """A figure as inline HTML that also exposes ``.text`` and ``.value`` for plain use."""

    def __new__(cls, figure):
        obj = super().__new__(cls, figure.__html__())
        obj.text, obj.value = figure.text, figure.value
        return obj


def _widget(name: str, **options) -> Markup:
    """A widget's HTML: hooks/templates/NAME.html rendered with the widget module's page_context
    (its default view is computed by the same Python the page runs)."""
    if name not in PAGE_WIDGETS:
        raise jinja2.UndefinedError(f"unknown widget {name!r}; known: {', '.join(PAGE_WIDGETS)}")
    context = PAGE_WIDGETS[name].page_context(**options)
    if "view" in context:
        context["view_json"] = json.dumps(context["view"], ensure_ascii=False, separators=(",", ":"))
    facts = load_facts()
    html = _state["env"].get_template(f"{name}.html").render(
        **context, fmt=build_numbers.units.number, models=facts["models"], anchor=facts["models"][facts["anchor"]])
    # One line: a raw HTML block must not contain blank lines, and may sit indented in a tab or list.
    # Line breaks inside a <textarea> are content: keep them as character references.
    html = re.sub(r"(<textarea\b[^>]*>)(.*?)(</textarea>)", lambda m: m.group(1) + m.group(2).replace("\n", "&#10;")
                  + m.group(3), html, flags=re.S)
    return Markup(" ".join(line.strip() for line in html.splitlines() if line.strip()))


PAGE_WIDGETS = {m.WIDGET: m for m in widget_modules()}


def on_page_markdown(markdown, page, config, files):
    env = _state["env"]
    out, last = [], 0
    for m in CODE.finditer(markdown):
        out.append(_render(env, markdown[last:m.start()], page))
        out.append(m.group(0))
        last = m.end()
    out.append(_render(env, markdown[last:], page))
    return "".join(out)


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
    _fonts(vendor / "fonts")
    with zipfile.ZipFile(site / "assets" / "course-py.zip", "w", zipfile.ZIP_DEFLATED) as z:
        for pattern in PY_FILES:
            for path in sorted(ROOT.glob(pattern)):
                z.write(path, path.relative_to(ROOT).as_posix())
    (site / "assets" / "numbers.json").write_text(build_numbers.to_json(_state["figures"]), encoding="utf-8")
    subprocess.run(["node", str(ROOT / "tools" / "render_math.mjs"), str(site)], check=True)


def _copy(src: Path, dst: Path) -> None:
    if not src.exists():
        raise SystemExit(f"missing {src}: run `npm ci` first (the Makefile does)")
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.is_dir():
        shutil.copytree(src, dst, dirs_exist_ok=True)
    else:
        shutil.copy2(src, dst)


def _fonts(dst: Path) -> None:
    """Noto Sans SC, woff2 only, split by unicode-range so a page loads only the subsets it uses."""
    pkg = NODE_MODULES / "@fontsource" / "noto-sans-sc"
    css = []
    for w in FONT_WEIGHTS:
        text = (pkg / f"{w}.css").read_text(encoding="utf-8")
        css.append(re.sub(r",\s*url\([^)]*\.woff\) format\('woff'\)", "", text))
    (dst / "files").mkdir(parents=True, exist_ok=True)
    for w in FONT_WEIGHTS:
        for f in pkg.glob(f"files/*-{w}-normal.woff2"):
            if not (dst / "files" / f.name).exists():
                shutil.copy2(f, dst / "files" / f.name)
    (dst.parent / "fonts" / "noto-sans-sc.css").write_text("\n".join(css), encoding="utf-8")
