"""The exercise editor's library, CodeMirror 6, published from node_modules as the browser's own ES
modules: each package's ESM entry is copied to vendor/codemirror/NAME.js with its bare imports
(``from '@codemirror/state'``) rewritten to the sibling file (``from './codemirror-state.js'``). No
bundler and no import map (an inline script the strict CSP would refuse); the packages are the ones
package.json names and their dependencies, each a single-file ESM entry."""

from __future__ import annotations

import json
import re
from pathlib import Path

PACKAGES = [
    "@codemirror/state",
    "@codemirror/view",
    "@codemirror/commands",
    "@codemirror/language",
    "@codemirror/lang-python",
    "@codemirror/autocomplete",
    "@codemirror/streamparser",
    "@lezer/common",
    "@lezer/highlight",
    "@lezer/lr",
    "@lezer/python",
    "@marijn/find-cluster-break",
    "crelt",
    "style-mod",
    "w3c-keyname",
]
FOLDER = "codemirror"
# An import or export statement's line (its first, or the closing line of a multi-line one), and in it the
# module named after ``from`` or a bare ``import``; comments and strings elsewhere are left alone.
_STATEMENT = re.compile(r"^\s*(?:import|export|\})")
_SPEC = re.compile(r"""(\bfrom\s*|^\s*import\s*)(['"])([^'"]+)\2""")


def file_name(package: str) -> str:
    """``@codemirror/state`` → ``codemirror-state.js``."""
    return package.lstrip("@").replace("/", "-") + ".js"


def _entry(root: Path) -> Path:
    meta = json.loads((root / "package.json").read_text(encoding="utf-8"))
    exports = meta.get("exports")
    if isinstance(exports, dict):
        dot = exports.get(".", exports)
        target = dot.get("import") if isinstance(dot, dict) else dot
        if isinstance(target, dict):
            target = target.get("default")
        if isinstance(target, str):
            return root / target
    return root / (meta.get("module") or meta["main"])


def rewrite(source: str) -> str:
    """``source`` with every bare import of a published package pointed at its sibling file."""

    def fix(m: re.Match) -> str:
        name = m.group(3)
        if name.startswith("."):
            return m.group(0)
        if name not in PACKAGES:
            raise ValueError(f"CodeMirror import of an unpublished package: {name}")
        return f"{m.group(1)}{m.group(2)}./{file_name(name)}{m.group(2)}"

    return "".join(
        _SPEC.sub(fix, line) if _STATEMENT.match(line) else line for line in source.splitlines(keepends=True)
    )


def publish(node_modules: Path, vendor: Path) -> None:
    out = vendor / FOLDER
    out.mkdir(parents=True, exist_ok=True)
    for package in PACKAGES:
        text = _entry(node_modules / package).read_text(encoding="utf-8")
        (out / file_name(package)).write_text(rewrite(text), encoding="utf-8")
