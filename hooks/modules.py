"""The c9 package's modules and what each imports, read with ast (no module is run): every import
statement, at the top or inside a function, resolved to the package's own modules. Used for the Python
zip the page's worker loads (only the modules the views import, hooks/course.py), for the characters
that Python can write at run time (hooks/fonts.py) and for the layer rule (tests/test_layers.py).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Import:
    """One imported module of the package: ``target`` (dotted), the names taken from it (``from m import
    a, b``; empty for ``import m``), the names the module itself is reached by (``import a.b`` → "a.b",
    ``from a import b as x`` → "x") and the statement's line."""

    target: str
    names: tuple[str, ...]
    bound: tuple[str, ...]
    line: int


def module_files(root: Path = ROOT, package: str = "c9") -> dict[str, Path]:
    """Dotted module name → file, for every module of ``package`` under ``root`` (an __init__.py names
    its package)."""
    out = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imports(path: Path, module: str, known: set[str]) -> list[Import]:
    """The imports of ``module`` (file ``path``) that resolve to a module in ``known``. ``from p import
    m`` of a submodule ``p.m`` is an import of ``p.m``; a relative import is resolved from ``module``."""
    is_package = path.name == "__init__.py"
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    out.append(Import(alias.name, (), (alias.asname or alias.name,), node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = module.split(".") if is_package else module.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join([*here, base] if base else here)
            names = []
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in known:  # a submodule, not a name defined in base
                    out.append(Import(sub, (), (alias.asname or alias.name,), node.lineno))
                else:
                    names.append(alias.name)
            if names and base in known:
                out.append(Import(base, tuple(names), (), node.lineno))
    return out


def graph(root: Path = ROOT, package: str = "c9") -> dict[str, list[Import]]:
    """Every module of ``package`` → its imports of the package's modules."""
    files = module_files(root, package)
    return {m: imports(path, m, set(files)) for m, path in files.items()}


def closure(start: list[str], root: Path = ROOT, package: str = "c9") -> list[str]:
    """``start`` and every module they import, directly or not (function-level imports too), with the
    __init__ of every package on the way: what running ``start`` can load. Sorted."""
    edges = graph(root, package)
    seen, todo = set(), list(start)
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        if m not in edges:
            raise KeyError(f"{m}: no such module under {root / package}")
        seen.add(m)
        parts = m.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]  # its packages' __init__ files
        todo += [imp.target for imp in edges[m]]
    return sorted(seen)


def closure_files(start: list[str], root: Path = ROOT, package: str = "c9") -> list[Path]:
    """The files of :func:`closure`."""
    files = module_files(root, package)
    return [files[m] for m in closure(start, root, package)]


# The data files the shipped modules read (c9/base/paths.py): the facts, and the lab's results (real
# gradients for lesson 2's loss scale; the lab's model in lesson 5's model menu).
BROWSER_DATA = ["anchor-model.json", "lab/results/c09-precision.json"]


def browser_modules() -> list[str]:
    """What the page's worker can load: c9.views.api and every widget it answers for (not the build-only
    ones, c9.views.api.BUILD_ONLY), with all they import. Never c9.figures: the build alone quotes figures."""
    from c9.views import api

    widgets = [f"c9.views.{m}" for name, m in api.WIDGETS.items() if name not in api.BUILD_ONLY]
    return closure(["c9.views.api", *widgets])


def browser_files() -> list[Path]:
    """The files of the page's Python zip (hooks/course.py), which are also the Python side's share of
    the characters the page can show (hooks/fonts.py): :func:`browser_modules` and :data:`BROWSER_DATA`."""
    files = module_files()
    return [files[m] for m in browser_modules()] + [ROOT / p for p in BROWSER_DATA]
