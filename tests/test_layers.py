"""The package's layer rule, read from the source with ast (hooks/modules.py: every import, at the top
or inside a function): base < core < views < figures, and an import points to the same or a lower
layer; no two modules import each other, directly or round a longer loop; a private name (``_x``) stays
in its module (neither imported nor reached as ``module._x`` from another). Each violation is one line.
The last tests run the checker on tiny packages written to tmp_path, one per kind of violation."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from hooks import modules

LAYERS = ["base", "core", "views", "figures"]


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return inner and f"{inner}.{node.attr}"
    return None


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def _cycle_path(start: str, knot: set[str], edges: dict[str, dict[str, int]]) -> list[str]:
    """The shortest loop from ``start`` back to itself inside ``knot`` (breadth first)."""
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for m in frontier:
            for t in sorted(edges[m]):
                if t == start:
                    return [*paths[m], start]
                if t in knot and t not in paths:
                    paths[t] = [*paths[m], t]
                    nxt.append(t)
        frontier = nxt
    raise AssertionError(f"{start} is in no loop")


def _knots(edges: dict[str, dict[str, int]]) -> list[set[str]]:
    """The strongly connected sets of modules that hold a loop (Tarjan's algorithm)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(m: str) -> None:
        index[m] = low[m] = len(index)
        stack.append(m)
        on_stack.add(m)
        for t in edges[m]:
            if t not in index:
                visit(t)
                low[m] = min(low[m], low[t])
            elif t in on_stack:
                low[m] = min(low[m], index[t])
        if low[m] == index[m]:
            knot = set()
            while True:
                t = stack.pop()
                on_stack.discard(t)
                knot.add(t)
                if t == m:
                    break
            if len(knot) > 1 or m in edges[m]:
                out.append(knot)

    for m in sorted(edges):
        if m not in index:
            visit(m)
    return out


def violations(root: Path = modules.ROOT, package: str = "c9") -> dict[str, list[str]]:
    """Every breach of the layer rule in ``package`` under ``root``: the message (the same wherever the
    line moves) → one line per place, the message with the file and line in front."""
    files = modules.module_files(root, package)
    graph = modules.graph(root, package)
    where = lambda m, line: f"{files[m].relative_to(root).as_posix()}:{line}"
    out = {}

    def add(m: str, line: int, message: str) -> None:
        out.setdefault(message, []).append(f"{where(m, line)}: {message}")

    for m, imps in graph.items():
        layer = _layer(m)
        if m != package and layer not in LAYERS:
            add(m, 1, f"{m} is in no layer folder ({', '.join(LAYERS)})")
        for imp in imps:
            target_layer = _layer(imp.target)
            if (
                layer in LAYERS
                and target_layer in LAYERS
                and LAYERS.index(target_layer) > LAYERS.index(layer)
            ):
                add(m, imp.line, f"{m} imports {imp.target}: {layer} may not import from {target_layer}")
            for name in filter(_private, imp.names):
                add(m, imp.line, f"{m} imports {imp.target}.{name}, private to its module")
        # module._x, for every name the module's imports bind to a module of the package
        bound = {name: imp.target for imp in imps for name in imp.bound}
        for node in ast.walk(ast.parse(files[m].read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                target = bound.get(_dotted(node.value) or "")
                if target and target != m:
                    add(m, node.lineno, f"{m} uses {target}.{node.attr}, private to its module")

    edges = {m: {} for m in graph}
    for m, imps in graph.items():
        for imp in imps:
            edges[m].setdefault(imp.target, imp.line)
    for knot in _knots(edges):
        loop = _cycle_path(min(knot), knot, edges)
        steps = ", ".join(f"{a} → {b} ({where(a, edges[a][b])})" for a, b in zip(loop, loop[1:]))
        others = sorted(knot - set(loop))
        message = f"import cycle: {' → '.join(loop)}" + (
            f" (in one knot with {', '.join(others)})" if others else ""
        )
        out[message] = [f"{where(loop[0], edges[loop[0]][loop[1]])}: {message}: {steps}"]
    return out


def _in_order(lines) -> list[str]:
    """By file, then line number."""
    return sorted(lines, key=lambda s: (s.split(":")[0], int(s.split(":")[1]), s))


def test_the_package_keeps_its_layers():
    found = violations()
    breaches = _in_order(line for lines in found.values() for line in lines)
    assert not breaches, f"{len(breaches)} breaches of the layer rule:\n" + "\n".join(breaches)


# --- the checker itself, on tiny packages ---------------------------------------------------------------


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    """A package ``pkg`` under tmp_path with the four layer folders and ``files`` (path → source)."""
    for layer in LAYERS:
        (tmp_path / "pkg" / layer).mkdir(parents=True)
        (tmp_path / "pkg" / layer / "__init__.py").write_text("")
    (tmp_path / "pkg" / "__init__.py").write_text("")
    for path, source in files.items():
        (tmp_path / "pkg" / path).write_text(textwrap.dedent(source))
    return tmp_path


def _lines(tmp_path: Path, files: dict[str, str]) -> list[str]:
    return _in_order(
        line for lines in violations(_package(tmp_path, files), "pkg").values() for line in lines
    )


def test_a_clean_package_passes(tmp_path):
    assert (
        _lines(
            tmp_path,
            {
                "base/units.py": "def size(n): return n\n",
                "core/formats.py": "from pkg.base.units import size\nfrom . import ledger\n",
                "core/ledger.py": "from pkg.base import units\n",
                "views/bar.py": "import pkg.core.formats as F\nfrom pkg.base import units\nx = units.size(F.size(1))\n",
                "figures/fig.py": "def f():\n    from pkg.views import bar\n    return bar.x\n",
            },
        )
        == []
    )


def test_it_names_an_upward_import_even_inside_a_function(tmp_path):
    assert _lines(
        tmp_path,
        {
            "core/formats.py": "def f():\n    from pkg.views.bar import x\n    return x\n",
            "views/bar.py": "x = 1\n",
            "base/units.py": "from ..core import formats\n",
        },
    ) == [
        "pkg/base/units.py:1: pkg.base.units imports pkg.core.formats: base may not import from core",
        "pkg/core/formats.py:2: pkg.core.formats imports pkg.views.bar: core may not import from views",
    ]


def test_it_names_an_import_cycle_with_each_step(tmp_path):
    assert _lines(
        tmp_path,
        {
            "core/a.py": "from pkg.core import b\n",
            "core/b.py": "\n\ndef f():\n    import pkg.core.c\n",
            "core/c.py": "from pkg.core.a import thing\n",
            "core/d.py": "from pkg.core import a\n",  # imports the loop, is not part of it
        },
    ) == [
        "pkg/core/a.py:1: import cycle: pkg.core.a → pkg.core.b → pkg.core.c → pkg.core.a: pkg.core.a → pkg.core.b "
        "(pkg/core/a.py:1), pkg.core.b → pkg.core.c (pkg/core/b.py:4), pkg.core.c → pkg.core.a (pkg/core/c.py:1)"
    ]


def test_it_names_a_private_name_imported_or_reached_through_its_module(tmp_path):
    assert _lines(
        tmp_path,
        {
            "base/units.py": "def _pct(x): return x\n_SCALE = 2\nx = _pct(_SCALE)\n",
            "core/formats.py": "from pkg.base.units import _pct, size\n",
            "views/bar.py": "from pkg.base import units as U\n\n\ndef f():\n    return U._SCALE + U.__name__\n",
            "figures/fig.py": "import pkg.base.units\ny = pkg.base.units._pct(1)\n",
        },
    ) == [
        "pkg/core/formats.py:1: pkg.core.formats imports pkg.base.units._pct, private to its module",
        "pkg/figures/fig.py:2: pkg.figures.fig uses pkg.base.units._pct, private to its module",
        "pkg/views/bar.py:5: pkg.views.bar uses pkg.base.units._SCALE, private to its module",
    ]


def test_it_names_a_module_outside_the_layers(tmp_path):
    assert _lines(tmp_path, {"helpers.py": "x = 1\n"}) == [
        "pkg/helpers.py:1: pkg.helpers is in no layer folder (base, core, views, figures)"
    ]
