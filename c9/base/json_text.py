"""Pasted JSON, read safely: nesting checked before parsing, and any value described for a message.

CPython's ``json`` parses nested arrays and objects by recursion, and the page's Pyodide has a small
stack: a text nested a few thousand levels deep overflows it and kills the page's Python (CPython would
raise RecursionError). :func:`loads` therefore measures the nesting of the raw text, without recursion,
before ``json.loads`` sees it. :func:`described` is how every message shows a value it refuses: its kind
in Chinese and the value cut short, never a Python repr ("nan", "True", "['llama']") or 400 digits.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate

from c9.base.errors import InputError

MAX_DEPTH = 64  # levels of [ and {: a config.json has three or four, a widget's request two or three
# A JSON string (its escapes included), written so that the regex never backtracks within it.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_BRACKET = re.compile(r"[\[\]{}]")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
MAX_DIGITS = 400  # an integer this long is kept exactly; a longer one by its leading digits and length


def depth(text: str) -> int:
    """How deeply ``text``'s arrays and objects nest (brackets inside strings are not counted)."""
    steps = map(_STEP.__getitem__, _BRACKET.findall(_STRING.sub("", text)))
    return max(accumulate(steps, initial=0))


def read_integer(digits: str) -> int:
    """A JSON integer (json.loads's parse_int): exact up to MAX_DIGITS digits, else its leading digits
    and its length."""
    # Python refuses to read an integer of more than 4,300 digits; a message only needs its size.
    bare = digits.lstrip("-")
    if len(bare) <= MAX_DIGITS:
        return int(digits)
    n = int(bare[:20]) * 10 ** (len(bare) - 20)
    return -n if digits.startswith("-") else n


def loads(text: str, what: str, max_depth: int = MAX_DEPTH):
    """``text`` parsed as JSON, or InputError (Chinese) naming ``what`` it should be ("config.json")
    when it nests deeper than ``max_depth`` or is not JSON."""
    if depth(text) > max_depth:
        raise InputError(
            f"这段文字的括号嵌套超过了 {max_depth} 层，不像一份 {what}（它一般只嵌套三四层）", "too_deep"
        )
    try:
        return json.loads(text, parse_int=read_integer)
    except json.JSONDecodeError as e:  # where json stopped reading: the reader finds the slip there
        raise InputError(
            f"这段文字不是合法的 JSON：第 {e.lineno} 行第 {e.colno} 个字符附近有误，请检查它是不是一份完整的 {what}"
        ) from None
    except (ValueError, RecursionError):
        raise InputError(f"这段文字不是合法的 JSON，请检查它是不是一份完整的 {what}") from None


def quoted(text: str, limit: int = 20) -> str:
    """Text as the reader wrote it, in 「」 and cut to ``limit`` characters (one line)."""
    t = " ".join(text.split())
    return f"「{t if len(t) <= limit else t[:limit] + '…'}」"


def described(v) -> str:
    """A JSON value for a message: what kind it is, in Chinese, and the value in reader notation, cut
    short. described(float("nan")) == "非数 NaN"; described(True) == "「true」"; described(["llama"]) ==
    "一个列表（1 项）"; described(10**400) == "整数约 1×10⁴⁰⁰"; described(1e300) == "小数 1×10³⁰⁰"."""
    from c9.base import units  # base's units, imported here as typed.py does: they import nothing of ours

    if v is None:
        return "「null」"
    if isinstance(v, bool):
        return "「true」" if v else "「false」"
    if isinstance(v, int):
        return units.joined("整数", units.number(v) if abs(v) < 10**15 else f"约 {units.sci(v, 3)}")
    if isinstance(v, float):
        if v != v:
            return "非数 NaN"
        return ("无穷大 " if math.isinf(v) else "小数 ") + units.sci(v, 6)
    if isinstance(v, str):
        return "文字" + quoted(v)
    if isinstance(v, list):
        return f"一个列表（{units.number(len(v))} 项）"
    if isinstance(v, dict):
        return f"一个对象（{units.number(len(v))} 个键）"
    return "一个读不懂的值"
