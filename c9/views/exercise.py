"""The in-page exercises (动手写): the reader's code, checked by :mod:`c9.core.exercises`.

``view({"id": …, "code": …})`` runs the reader's code in this Python (the page's worker, which the page
stops after a few seconds: docs/assets/js/worker.js) and returns the outcome as plain data with a
Chinese summary. ``page_context(id=…)`` gives the page its statement, stub and reference solution, so
that without JavaScript the statement and the solution are on the page.
"""

from __future__ import annotations

from c9.base.errors import InputError
from c9.core import exercises
from c9.views.params import with_defaults

WIDGET = "exercise"
DEFAULTS = {"id": "ledger-bytes", "code": ""}  # an empty request: the shortest exercise, no code yet
MAX_CODE = 20_000  # characters: far more than any answer needs, little enough to send and keep
ATTEMPTS = 3  # failed runs before the reference solution opens


def _exercise(exercise_id) -> exercises.Exercise:
    if not isinstance(exercise_id, str) or exercise_id not in exercises.EXERCISES:
        raise InputError("没有这道练习")
    return exercises.get(exercise_id)


def view(params: dict | None = None) -> dict:
    p = with_defaults(params, DEFAULTS)
    ex = _exercise(p["id"])
    code = p["code"]
    if not isinstance(code, str):
        raise InputError("代码应当是一段文字")
    if len(code) > MAX_CODE:
        raise InputError(f"代码太长了：最多 {MAX_CODE} 个字符")
    out = exercises.run(ex.id, code)
    if out.passed:
        summary = f"通过：{out.message}"
    else:
        summary = f"还不对：{out.message}"
    return {
        "params": {"id": ex.id, "code": code},
        "id": ex.id,
        "passed": out.passed,
        "ran": out.ran,  # only runs that ran count towards opening the reference solution
        "tried": out.tried,
        "total": out.total,
        "case": out.case,
        "hint": out.hint,
        "mistake": out.mistake,
        "summary": summary,
        "solution": ex.solution if out.passed else "",
    }


def page_context(id: str = DEFAULTS["id"]) -> dict:  # noqa: A002 — the page names the exercise as the reader's request does
    ex = _exercise(id)
    return {
        "ex": ex,
        "attempts": ATTEMPTS,
        "rows": max(ex.stub.count("\n") + 2, ex.solution.count("\n") + 1, 6),
    }
