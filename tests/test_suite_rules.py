"""Rules for the test suite itself: no browser wait without a bound of its own, so that a run cannot hang."""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
# A script that awaits something: Playwright's evaluate would wait for it without any timeout.
AWAITS = re.compile(r"\bawait\b|\basync\b|\bPromise\b|requestAnimationFrame|\.then\(|\bimport\(")
EVALUATE = {"evaluate", "evaluate_handle", "evaluate_all"}


def _constants(tree: ast.Module) -> dict[str, str]:
    """The strings the module names (NAME = "…", at any level), for scripts passed by name."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            if isinstance(node.value.value, str):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        out[t.id] = node.value.value
    return out


def _script(node: ast.expr, constants: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant))
    return None


def unbounded_waits(source: str, name: str = "<test>") -> list[str]:
    """Calls that could wait forever: an evaluate whose script awaits (use conftest.evaluate_within or
    wait_until), a wait_for_function whose predicate returns a promise (it would pass at once on the promise
    itself; use wait_until) or that is told timeout=0."""
    tree = ast.parse(source)
    constants = _constants(tree)
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
            continue
        verb, script = node.func.attr, _script(node.args[0], constants)
        where = f"{name}:{node.lineno} {verb}"
        if verb in EVALUATE and script is not None and AWAITS.search(script):
            out.append(f"{where}: the script awaits; use evaluate_within")
        if verb == "wait_for_function":
            if script is not None and AWAITS.search(script):
                out.append(f"{where}: the predicate returns a promise; use wait_until")
            for kw in node.keywords:
                if kw.arg == "timeout" and isinstance(kw.value, ast.Constant) and kw.value.value == 0:
                    out.append(f"{where}: timeout=0 waits forever")
    return out


def test_the_checker_finds_an_unbounded_wait():
    source = """
RAF = "() => new Promise((r) => requestAnimationFrame(r))"
def test_x(page):
    page.evaluate(RAF)
    page.locator("x").evaluate("async (el) => { await el.animate([]).finished; }")
    page.wait_for_function("() => import('/core.js').then((m) => m.ready)")
    page.wait_for_function("() => window.ready", timeout=0)
    page.evaluate("() => document.title")
    evaluate_within(page, RAF)
"""
    assert [v.split(": ", 1)[0] for v in unbounded_waits(source)] == [
        "<test>:4 evaluate",
        "<test>:5 evaluate",
        "<test>:6 wait_for_function",
        "<test>:7 wait_for_function",
    ]


def test_no_browser_wait_without_its_own_timeout():
    files = sorted(TESTS.rglob("*.py"))
    assert len(files) > 40
    bad = [
        v for f in files for v in unbounded_waits(f.read_text(encoding="utf-8"), str(f.relative_to(TESTS)))
    ]
    assert bad == [], "\n".join(bad)


# A test says what it checks; the tracker's numbering means nothing to a reader of the code.
ISSUE_REFERENCE = re.compile(r"\bissues?\b|(?<![\w&\"'])#\d{1,4}\b", re.IGNORECASE)


def test_the_issue_rule_finds_a_reference():
    assert ISSUE_REFERENCE.search("# issue 12 QA: the table") and ISSUE_REFERENCE.search("(see #14)")
    assert not ISSUE_REFERENCE.search('color: "#111111", "#222"; &#10; x[#]')


def test_no_test_refers_to_an_issue():
    bad = [
        f"{f.relative_to(TESTS)}:{n}: {line.strip()}"
        for f in sorted(TESTS.rglob("*.py"))
        if f.name != Path(__file__).name
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
        if ISSUE_REFERENCE.search(line)
    ]
    assert bad == [], "\n".join(bad)


# The rules of the whole repository, beside the conftest: no layer holds them.
REPOSITORY_RULES = {"test_suite_rules.py", "test_layers.py", "test_lint.py"}


def test_every_test_file_sits_in_the_folder_of_its_layer():
    from conftest import LAYERS

    loose = sorted(f.name for f in TESTS.glob("test_*.py") if f.name not in REPOSITORY_RULES)
    assert loose == [], loose
    assert all(any((TESTS / layer).glob("test_*.py")) for layer in LAYERS)
