"""The exercise widget through the worker's entry point (c9.views.api.handle), as the page asks it."""

from __future__ import annotations

import json

import pytest

from c9.core import exercises
from c9.views import api, exercise

pytestmark = pytest.mark.timeout(120)


def ask(params) -> dict:
    return json.loads(api.handle(json.dumps({"widget": "exercise", "params": params}, ensure_ascii=False)))


@pytest.mark.parametrize("ex", exercises.EXERCISES.values(), ids=lambda e: e.id)
def test_the_reference_passes_and_reveals_the_solution(ex):
    out = ask({"id": ex.id, "code": ex.solution})
    assert out["ok"], out
    v = out["view"]
    assert v["passed"] and v["tried"] == v["total"] == len(ex.cases)
    assert v["solution"] == ex.solution and v["summary"].startswith("通过")


@pytest.mark.parametrize("ex", exercises.EXERCISES.values(), ids=lambda e: e.id)
def test_every_wrong_answer_names_its_case_and_hint_and_keeps_the_solution_back(ex):
    for m in ex.mistakes:
        v = ask({"id": ex.id, "code": m.source})["view"]
        assert not v["passed"] and v["hint"] == m.hint and v["mistake"] == m.key
        assert v["case"]["input"] and v["case"]["got"] != v["case"]["want"]
        assert v["solution"] == ""


def test_e4m3_ieee_style_answer_is_shown_at_256():
    ex = exercises.E4M3
    v = ask({"id": ex.id, "code": ex.mistakes[0].source})["view"]
    assert v["case"] == {"label": "每个码字的值", "input": "256", "got": "0x77（240）", "want": "0x78（256）"}


@pytest.mark.parametrize(
    "params,message",
    [
        ({"id": "nope", "code": ""}, "没有这道练习"),
        ({"id": "e4m3-encode", "code": 5}, "代码应当是一段文字"),
        ({"id": "e4m3-encode", "code": "#" * (exercise.MAX_CODE + 1)}, "代码太长了"),
        ({"id": "e4m3-encode", "code": "", "extra": 1}, "不认识的参数"),
    ],
)
def test_bad_requests_are_chinese_errors(params, message):
    out = ask(params)
    assert out["ok"] is False and message in out["error"]


def test_the_readers_exception_is_an_answer_not_an_error():
    out = ask({"id": "bf16-round", "code": "def bf16_from_fp32_bits(bits):\n    return [][bits]\n"})
    assert out["ok"] and "第 2 行出错：下标越界。" in out["view"]["summary"] and out["view"]["ran"] is True
    # a ValueError is said as an error, not as a wrong value
    out = ask({"id": "bf16-round", "code": "def bf16_from_fp32_bits(bits):\n    raise ValueError('x')\n"})
    assert "第 2 行出错：某个值不合要求（代码自己抛出，或调用的函数不接受它）。" in out["view"]["summary"], (
        out["view"]["summary"]
    )


@pytest.mark.parametrize(
    "code",
    ["", "def bf16_from_fp32_bits(bits)\n    return 0\n", "def some_other_name(bits):\n    return 0\n"],
)
def test_code_that_never_ran_is_not_an_attempt(code):
    """Empty code, a syntax error or a wrong function name: the reference solution is not brought nearer."""
    v = ask({"id": "bf16-round", "code": code})["view"]
    assert v["passed"] is False and v["ran"] is False and v["tried"] == 0


def test_page_context_holds_statement_stub_and_solution():
    ctx = exercise.page_context(id="e4m3-encode")
    assert ctx["ex"] is exercises.E4M3 and ctx["attempts"] == 3 and ctx["rows"] >= 6
    with pytest.raises(Exception, match="没有这道练习"):
        exercise.page_context(id="missing")
