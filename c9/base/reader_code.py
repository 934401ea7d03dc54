"""The reader's own Python code, run in the page's worker: by the exercises (a function they define,
:func:`load`) and by the scratchpad (a cell whose prints and last value are shown, :func:`run_cell`).

Every failure of the reader's code becomes one Chinese sentence that names the line and the kind of
error; no English exception text reaches the page. This is no sandbox: the code runs in the reader's own
worker, which the page stops and restarts when a run takes too long (docs/assets/js/worker.js) and
replaces after a run that used up memory (``Cell.restart``).
"""

from __future__ import annotations

import ast
import builtins
import contextlib
from dataclasses import dataclass

FILENAME = "<你的代码>"  # the reader's code in a traceback: its frames are the ones whose line we show
MAX_OUTPUT = 20_000  # characters of printed output kept: a print in a long loop must not fill the memory

# Exception classes the reader meets, in Chinese, most specific first (the first match names it).
EXCEPTIONS_ZH = (
    (ZeroDivisionError, "除以了零"),
    (OverflowError, "数值太大，超出了能表示的范围"),
    (RecursionError, "递归太深"),
    (MemoryError, "内存不够了（用了太多内存）"),
    (UnboundLocalError, "用到了一个还没赋值的局部变量"),
    (NameError, "用到了一个没有定义的名字"),
    (TypeError, "类型不对（比如把整数和字符串相加，或参数个数不符）"),
    (UnicodeError, "文字编码出错"),
    (ValueError, "某个值不合要求（代码自己抛出，或调用的函数不接受它）"),
    (IndexError, "下标越界"),
    (KeyError, "字典里没有这个键"),
    (AttributeError, "对象没有这个属性或方法"),
    (ModuleNotFoundError, "没有这个模块（页面里只有本章的 c9 包和 Python 标准库）"),
    (ImportError, "导入失败"),
    (AssertionError, "断言不成立"),
    (StopIteration, "迭代器已经取完了"),
    (NotImplementedError, "用到了还没实现的功能"),
    (OSError, "页面里的 Python 不能读写文件或联网"),
    (EOFError, "页面里的 Python 读不到键盘输入（input() 用不了）"),
)


class ReaderError(Exception):
    """The reader's code failed; ``message_zh`` says where and what, in Chinese."""

    def __init__(self, message_zh: str):
        super().__init__(message_zh)
        self.message_zh = message_zh


def reader_line(exc: BaseException) -> int | None:
    """The last line of the reader's own code in the traceback of ``exc``."""
    if isinstance(exc, SyntaxError) and exc.filename == FILENAME:
        return exc.lineno
    line, tb = None, exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def kind_zh(exc: BaseException) -> str:
    """What kind of error ``exc`` is, in Chinese. The chapter's own refusals (c9.base.errors.InputError
    and the codecs' errors) carry a Chinese message of their own: that one is said."""
    own = getattr(exc, "message_zh", None)
    if isinstance(own, str) and own:
        return f"调用的本章函数不接受这个输入（{own.rstrip('。')}）"
    return next((zh for cls, zh in EXCEPTIONS_ZH if isinstance(exc, cls)), "")


def failure(exc: BaseException, when: str) -> ReaderError:
    """The Chinese message for ``exc`` raised by the reader's code; ``when`` says at which step."""
    line = reader_line(exc)
    where = f"第 {line} 行" if line else "你的代码里"
    if isinstance(exc, SyntaxError):
        what = "缩进" if isinstance(exc, IndentationError) else "语法"
        return ReaderError(f"{where}有{what}错误（括号、冒号或缩进不对？），代码没能运行。")
    if isinstance(exc, SystemExit):
        return ReaderError(f"{where}调用了 exit()，代码到这里就结束了。")
    # 「出错」 first: an exception is not a wrong answer, whatever its kind reads like
    kind = kind_zh(exc)
    return ReaderError(f"{when}，{where}出错{'：' + kind if kind else ''}。")


def _no_input(prompt: object = "") -> str:
    """input() in the page: there is no keyboard to read from. Pyodide's own stdin would ask the browser's
    prompt(), which a worker lacks (an I/O error and a console error); this says EOFError at once."""
    raise EOFError


def _namespace() -> dict:
    return {"__name__": "__main__", "__builtins__": {**vars(builtins), "input": _no_input}}


def load(source: str, name: str):
    """The function ``name`` defined by ``source``, run in a fresh namespace. Raises ReaderError."""
    if not isinstance(source, str):
        raise ReaderError("代码应当是一段文字。")
    namespace = _namespace()
    try:
        exec(compile(source, FILENAME, "exec"), namespace)  # noqa: S102 — the reader's own code, in their own worker
    except (Exception, SystemExit) as exc:  # noqa: BLE001 — every failure of the reader's code becomes a Chinese message
        raise failure(exc, "运行代码时") from None
    fn = namespace.get(name)
    if not callable(fn):
        raise ReaderError(f"没有找到函数 {name}：请保留题目给的函数名。")
    return fn


class _Output:
    """Where print() writes during a cell: the first MAX_OUTPUT characters, and whether more came."""

    def __init__(self):
        self.parts, self.size, self.cut = [], 0, False

    def write(self, text: str) -> int:
        room = MAX_OUTPUT - self.size
        if len(text) > room:
            self.cut = True
            text = text[: max(room, 0)]
        self.parts.append(text)
        self.size += len(text)
        return len(text)

    def flush(self) -> None:
        pass

    def text(self) -> str:
        return "".join(self.parts)


@dataclass(frozen=True)
class Cell:
    output: str  # what the code printed (cut at MAX_OUTPUT characters)
    value: str  # repr of the last expression's value; "" when the code ends in a statement or None
    error: str  # the Chinese message of the failure; "" when the code ran through
    cut: bool  # the output was longer than MAX_OUTPUT
    restart: bool  # memory ran out: the page replaces the worker, whose grown memory never shrinks


def run_cell(source: str) -> Cell:
    """Run ``source`` as a notebook cell, in a fresh namespace: what it prints, and the value of its last
    line when that is an expression. Never raises for the reader's code."""
    out = _Output()
    value, error, restart = "", "", False
    try:
        tree = ast.parse(source, FILENAME)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        namespace = _namespace()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            exec(compile(tree, FILENAME, "exec"), namespace)  # noqa: S102 — the reader's own code, in their own worker
            if last is not None:
                shown = eval(compile(ast.Expression(last.value), FILENAME, "eval"), namespace)  # noqa: S307
                if shown is not None:
                    value = repr(shown)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 — every failure of the reader's code becomes a Chinese message
        restart = isinstance(exc, MemoryError)
        error = failure(exc, "运行时").message_zh
    if len(value) > MAX_OUTPUT:
        value, out.cut = value[:MAX_OUTPUT] + "……", True
    return Cell(out.text(), value, error, out.cut, restart)
