"""The scratchpad through the worker's entry point (c9.views.api.handle), as the page asks it: what the
reader's code prints and its last value, checked against independent oracles (ml_dtypes, eq. 1 written
out here); every failure a Chinese sentence naming the line and the kind of error, never English."""

from __future__ import annotations

import json
import re

import ml_dtypes
import numpy as np
import pytest

from c9.base import reader_code
from c9.views import api, scratchpad
from hooks import modules

pytestmark = pytest.mark.timeout(60)

# Words a Chinese message may still hold: names the reader types (no exception class, no English text).
ALLOWED_LATIN = {"Python", "print", "exit", "input", "c9"}


def ask(params) -> dict:
    return json.loads(api.handle(json.dumps({"widget": "scratchpad", "params": params}, ensure_ascii=False)))


def run(code: str) -> dict:
    out = ask({"code": code})
    assert out["ok"], out
    return out["view"]


def assert_chinese(message: str) -> None:
    assert message and re.search(r"[\u4e00-\u9fff]", message)
    assert set(re.findall(r"[A-Za-z]{2,}", message)) <= ALLOWED_LATIN, message


def e4m3_code(x: float) -> int:
    return int(np.array([x], dtype=np.float32).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)[0])


@pytest.mark.parametrize("x", [1.0, 0.3, 448.0, -17.5, 2.0**-9])
def test_prints_then_the_last_expression_value(x):
    v = run(f'from c9.core import formats\nprint("码字")\nprint(2 + 3)\nformats.encode("E4M3FN", {x!r})\n')
    assert v["output"] == "码字\n5\n"
    assert v["value"] == repr(e4m3_code(x))
    assert v["error"] == "" and v["restart"] is False and v["summary"] == "运行完毕，输出在下面。"


def test_a_last_statement_or_none_shows_no_value_and_each_run_starts_empty():
    assert run("x = 5")["value"] == ""
    assert run("print('a')\nNone")["value"] == "" and run("print('a')\nNone")["output"] == "a\n"
    v = run("x")  # the previous run's x is gone
    assert "第 1 行出错：用到了一个没有定义的名字" in v["error"] and v["output"] == ""


def test_a_syntax_error_names_its_line():
    v = run("a = 1\nb = (2\nc = 3\n")
    assert v["error"].startswith("第 2 行有语法错误") and v["output"] == ""
    assert_chinese(v["error"])
    assert run("if True:\nprint(1)\n")["error"].startswith("第 2 行有缩进错误")


def test_an_error_inside_a_function_names_the_readers_line_and_keeps_what_was_printed():
    v = run("def f(n):\n    return 10 / n\n\nprint('前')\nf(0)\n")
    assert v["output"] == "前\n"
    assert v["error"] == "运行时，第 2 行出错：除以了零。" and v["summary"] == v["error"]


@pytest.mark.parametrize("exc,zh", reader_code.EXCEPTIONS_ZH, ids=lambda e: getattr(e, "__name__", ""))
def test_every_mapped_exception_is_said_in_chinese(exc, zh):
    v = run(f"x = 1\nraise {exc.__name__}('some English text')\n")
    assert v["error"] == f"运行时，第 2 行出错：{zh}。"
    assert_chinese(v["error"])


def test_an_unmapped_exception_and_exit_are_chinese_too():
    assert run("class Oops(Exception): pass\nraise Oops('boom')")["error"] == "运行时，第 2 行出错。"
    assert run("print(1)\nexit()")["error"] == "第 2 行调用了 exit()，代码到这里就结束了。"


def test_the_chapters_own_refusal_is_said_in_its_own_words():
    v = run('from c9.core import formats\nformats.encode("float99", 1.0)')
    assert v["error"].startswith(
        "运行时，第 2 行出错：调用的本章函数不接受这个输入（没有「float99」这种数字格式"
    )


def test_memory_running_out_asks_for_a_fresh_worker():
    v = run("xs = []\nraise MemoryError()")
    assert v["restart"] is True and "内存不够" in v["error"] and "重新启动" in v["summary"]
    assert_chinese(v["summary"])


@pytest.mark.parametrize("lines", [10, 100_000])
def test_long_output_is_cut_and_said(lines):
    v = run(f"for i in range({lines}):\n    print('0123456789')")
    full = 11 * lines
    assert len(v["output"]) == min(full, reader_code.MAX_OUTPUT)
    assert ("输出太长" in v["summary"]) is (full > reader_code.MAX_OUTPUT)


@pytest.mark.parametrize(
    "params,message",
    [
        ({"code": 5}, "代码应当是一段文字"),
        ({"code": "#" * (scratchpad.MAX_CODE + 1)}, "代码太长了"),
        ({"code": "", "id": "x"}, "不认识的参数"),
    ],
)
def test_bad_requests_are_chinese_errors(params, message):
    out = ask(params)
    assert out["ok"] is False and message in out["error"]


@pytest.mark.parametrize("page", scratchpad.EXAMPLES)
def test_each_pages_example_runs_and_uses_only_shipped_modules(page):
    ctx = scratchpad.page_context(page=page)
    v = run(ctx["example"])
    assert v["error"] == "" and v["output"] and v["value"], v
    shipped = set(modules.browser_modules())
    used = set(re.findall(r"from (c9\.\w+) import (\w+)", ctx["example"]))
    assert used and all(
        f"{pkg}.{name.strip()}" in shipped for pkg, names in used for name in names.split(",")
    )


def test_the_examples_values_match_independent_oracles():
    bf16 = run(scratchpad.EXAMPLES["lesson-3"])
    code = int(np.array([257], dtype=np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)[0])
    assert bf16["value"] == repr(hex(code)) and bf16["output"] == "256.0\n"
    e4m3 = run(scratchpad.EXAMPLES["lesson-4"])
    assert e4m3["output"] == f"{hex(e4m3_code(448.0))}\nnan\n" and e4m3["value"] == "448.0"
    s, b, h, a = 4096, 1, 4096, 32
    eq1 = run(scratchpad.EXAMPLES["lesson-5"])
    assert eq1["output"] == f"{s * b * h * 34 + 5 * a * s * s * b}\n" and eq1["value"] == str(34 * s * b * h)


def test_page_context_refuses_an_unknown_page():
    with pytest.raises(Exception, match="没有草稿本的示例"):
        scratchpad.page_context(page="lab")


@pytest.mark.parametrize("call", ["input('?')", "input()", "x = int(input('几个？'))"])
def test_input_says_there_is_no_keyboard_and_prints_no_prompt(call):
    # Pyodide's stdin would ask the browser's prompt(), which a worker lacks: an I/O error, not EOFError
    v = run(f"print('前')\n{call}\n")
    assert v["error"] == "运行时，第 2 行出错：页面里的 Python 读不到键盘输入（input() 用不了）。"
    assert v["output"] == "前\n"
