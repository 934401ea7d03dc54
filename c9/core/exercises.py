"""The in-page exercises (动手写): each one a function the reader writes, checked exactly against the
chapter's own codecs and ledger on the cases that matter, in order (ordinary values first, then ties,
the subnormal edge, overflow, −0 and NaN).

An :class:`Exercise` is data: its statement, stub and reference solution (source text), the cases
(``(label, input)`` pairs), the right answer of each case (from :mod:`c9.core.formats` or
:mod:`c9.core.ledger`, never from the reference solution), and a library of typical wrong answers, each
as source text with its own hint. :func:`check` runs the reader's source and names the first case that
differs; the hint is the one of the wrong answer that gives the reader's answers on every case, else
the one that gives the reader's answer on that first case, else the case's own hint.

The reader's code runs with ``exec`` in a fresh namespace. That is no sandbox: it runs in the page's
Python worker, which the page stops and restarts when a run takes too long (docs/assets/js/worker.js).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field

from c9.core import formats
from c9.core.ledger import model_states

NEAR = 0.9  # share of cases a known wrong answer must share with the reader's to lend its hint
FILENAME = "<你的代码>"  # the reader's code in a traceback: its frames are the ones whose line we show

# Exception classes the reader meets, in Chinese: the page never shows an English class name or text.
_EXCEPTIONS_ZH = {
    ZeroDivisionError: "除以了零",
    OverflowError: "数值太大，超出了能表示的范围",
    RecursionError: "递归太深",
    NameError: "用到了一个没有定义的名字",
    UnboundLocalError: "用到了一个还没赋值的局部变量",
    TypeError: "类型不对（比如把整数和字符串相加，或参数个数不符）",
    ValueError: "取值不对",
    IndexError: "下标越界",
    KeyError: "字典里没有这个键",
    AttributeError: "对象没有这个属性或方法",
    ImportError: "导入失败",
    AssertionError: "断言不成立",
}


@dataclass(frozen=True)
class Mistake:
    key: str
    source: str
    hint: str


@dataclass(frozen=True)
class Exercise:
    id: str
    title: str
    function: str  # the name the reader's function must keep
    statement: str  # Chinese; may hold inline code in backticks
    stub: str
    solution: str
    cases: tuple  # ((label, input), ...) in the order they are tried
    right: object  # input -> the chapter's answer
    same: object  # (reader's answer, right answer) -> bool
    show_in: object  # input -> text
    show_out: object  # answer -> text
    valid: object  # reader's answer -> Chinese complaint or None
    case_hints: dict  # label -> hint when no known mistake matches
    mistakes: tuple = field(default=())


class ReaderError(Exception):
    """The reader's code failed; ``message_zh`` says where and what, in Chinese."""

    def __init__(self, message_zh: str):
        super().__init__(message_zh)
        self.message_zh = message_zh


def _reader_line(exc: BaseException) -> int | None:
    """The last line of the reader's own code in the traceback of ``exc``."""
    if isinstance(exc, SyntaxError) and exc.filename == FILENAME:
        return exc.lineno
    line, tb = None, exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _failure(exc: BaseException, when: str) -> ReaderError:
    line = _reader_line(exc)
    where = f"第 {line} 行" if line else "你的代码里"
    if isinstance(exc, SyntaxError):
        return ReaderError(f"{where}有语法错误（括号、冒号或缩进不对？），代码没能运行。")
    what = next((zh for cls, zh in _EXCEPTIONS_ZH.items() if isinstance(exc, cls)), "出了错")
    return ReaderError(f"{when}，{where}{what}。")


def load(source: str, name: str):
    """The function ``name`` defined by ``source``, run in a fresh namespace. Raises ReaderError."""
    if not isinstance(source, str):
        raise ReaderError("代码应当是一段文字。")
    namespace = {"__name__": "exercise", "__builtins__": __builtins__}
    try:
        exec(compile(source, FILENAME, "exec"), namespace)  # noqa: S102 — the reader's own code, in their own worker
    except Exception as exc:  # noqa: BLE001 — every failure of the reader's code becomes a Chinese message
        raise _failure(exc, "运行代码时") from None
    fn = namespace.get(name)
    if not callable(fn):
        raise ReaderError(f"没有找到函数 {name}：请保留题目给的函数名。")
    return fn


def _call(fn, x):
    """fn(x), or ("error", exc)."""
    try:
        return ("ok", fn(x))
    except RecursionError as exc:  # before Exception: a deep recursion is one too
        return ("error", exc)
    except Exception as exc:  # noqa: BLE001
        return ("error", exc)


@dataclass
class Outcome:
    passed: bool
    tried: int  # cases run before the first difference (all of them on a pass)
    total: int
    case: dict | None = None  # {label, input, got, want}
    hint: str = ""
    mistake: str = ""  # key of the recognised wrong answer, "" if none
    message: str = ""


def _answers(ex: Exercise, fn) -> list:
    out = []
    for _, x in ex.cases:
        out.append(_call(fn, x))
    return out


_MISTAKE_ANSWERS: dict = {}  # (exercise id, mistake key) -> its answers on every case


def _mistake_answers(ex: Exercise, m: Mistake) -> list:
    k = (ex.id, m.key)
    if k not in _MISTAKE_ANSWERS:
        _MISTAKE_ANSWERS[k] = _answers(ex, load(m.source, ex.function))
    return _MISTAKE_ANSWERS[k]


def _agrees(ex: Exercise, a, b) -> bool:
    if a[0] != "ok" or b[0] != "ok":
        return a[0] == b[0] == "error"
    try:
        return ex.valid(a[1]) is None and ex.valid(b[1]) is None and ex.same(a[1], b[1])
    except Exception:  # noqa: BLE001 — an odd value the comparison cannot take is a disagreement
        return False


def check(ex: Exercise, source: str) -> Outcome:
    """Run the reader's ``source`` on every case of ``ex``; the first case that differs, with its hint."""
    total = len(ex.cases)
    try:
        fn = load(source, ex.function)
    except ReaderError as e:
        return Outcome(False, 0, total, message=e.message_zh, hint="")
    got_all = []
    first = None
    for i, (label, x) in enumerate(ex.cases):
        got = _call(fn, x)
        got_all.append(got)
        if got[0] == "error":
            return Outcome(
                False,
                i,
                total,
                case={"label": label, "input": ex.show_in(x), "got": "", "want": ex.show_out(ex.right(x))},
                message=_failure(got[1], f"输入 {ex.show_in(x)} 时").message_zh,
            )
        bad = ex.valid(got[1])
        if bad:
            return Outcome(
                False,
                i,
                total,
                case={
                    "label": label,
                    "input": ex.show_in(x),
                    "got": repr_short(got[1]),
                    "want": ex.show_out(ex.right(x)),
                },
                message=bad,
            )
        want = ex.right(x)
        if not ex.same(got[1], want):
            first = (i, label, x, got[1], want)
            break
    if first is None:
        return Outcome(True, total, total, message=f"全部 {total} 个情形都与本章的 Python 一致。")
    i, label, x, got, want = first
    # The rest of the reader's answers, to recognise a known wrong answer on every case.
    for _, y in ex.cases[i + 1 :]:
        got_all.append(_call(fn, y))
    mistake = next((m for m in ex.mistakes if _same_everywhere(ex, got_all, _mistake_answers(ex, m))), None)
    if mistake is None:  # the nearest known wrong answer, if it is near: same at this case, most elsewhere
        near = [
            (sum(_agrees(ex, p, q) for p, q in zip(got_all, ans)), m)
            for m in ex.mistakes
            if _agrees(ex, got_all[i], (ans := _mistake_answers(ex, m))[i])
        ]
        best = max(near, key=lambda t: t[0], default=(0, None))
        mistake = best[1] if best[0] >= NEAR * total else None
    hint = mistake.hint if mistake else ex.case_hints.get(label, "")
    case = {"label": label, "input": ex.show_in(x), "got": ex.show_out(got), "want": ex.show_out(want)}
    return Outcome(
        False,
        i,
        total,
        case=case,
        hint=hint,
        mistake=mistake.key if mistake else "",
        message=f"前 {i} 个情形都对，第 {i + 1} 个（{label}）不一致。"
        if i
        else f"第 1 个情形（{label}）就不一致。",
    )


def _same_everywhere(ex: Exercise, a: list, b: list) -> bool:
    return len(a) == len(b) and all(_agrees(ex, p, q) for p, q in zip(a, b))


def repr_short(v) -> str:
    t = repr(v)
    return t if len(t) <= 60 else t[:57] + "…"


# ---- shared pieces ---------------------------------------------------------------------------------


def _code_check(bits: int):
    def valid(v):
        if isinstance(v, bool) or not isinstance(v, int):
            return f"返回值应当是一个整数（码字），你的函数返回了 {repr_short(v)}。"
        if not 0 <= v < 1 << bits:
            return f"返回值应当在 0 到 {(1 << bits) - 1} 之间（{bits} 位码字），你的函数返回了 {v}。"
        return None

    return valid


def _same_code(fmt: str):
    def same(got: int, want: int) -> bool:
        if formats.classify(fmt, want) == "nan":  # any NaN code is a NaN
            return formats.classify(fmt, got) == "nan"
        return got == want

    return same


def _show_code(fmt: str, digits: int):
    def show(code) -> str:
        if not isinstance(code, int) or isinstance(code, bool):
            return repr_short(code)
        v = formats.decode(fmt, code)
        text = "NaN" if v != v else _num(v)
        return f"0x{code:0{digits}X}（{text}）"

    return show


def _num(v: float) -> str:
    if v in (math.inf, -math.inf):
        return "+∞" if v > 0 else "−∞"
    if v == 0:
        return "−0.0" if math.copysign(1.0, v) < 0 else "0.0"
    t = repr(v).replace("-", "−", 1) if v < 0 else repr(v)
    return t[:-2] if t.endswith(".0") else t


# ---- lesson 3: BF16 from FP32's bits, rounded ----------------------------------------------------


def _bf16_cases() -> tuple:
    c = []
    ordinary = [0x3F800000, 0x40490FDB, 0x3DCCCCCD, 0xC2F6E979, 0x47C35000, 0x3EAAAAAB, 0x3F7FFFFF]
    c += [("普通的数", b) for b in ordinary]
    # Ties: the low 16 bits exactly half, with the kept last bit even and odd; and just off the tie.
    for hi in (0x3F80, 0x3F81, 0x4049, 0x404A, 0xC000, 0xC001):
        c += [("恰好一半的平局", (hi << 16) | 0x8000)]
        c += [("略大于一半", (hi << 16) | 0x8001), ("略小于一半", (hi << 16) | 0x7FFF)]
    c += [("进位到下一个指数", 0x3FFFFFFF), ("进位到下一个指数", 0x3F7F8000)]
    c += [("次正规数", b) for b in (0x00000001, 0x00008000, 0x00018000, 0x007FFFFF, 0x807F8000)]
    c += [("溢出", b) for b in (0x7F7FFFFF, 0x7F7F8000, 0xFF7F8000, 0x7F7F7FFF)]
    c += [("无穷大", 0x7F800000), ("无穷大", 0xFF800000)]
    c += [("负零", 0x80000000), ("正零", 0x00000000)]
    c += [("NaN", b) for b in (0x7FC00000, 0x7F800001, 0x7FFFFFFF, 0xFF800001, 0x7F808000)]
    return tuple(c)


def _bf16_right(bits: int) -> int:
    return formats.encode("bf16", formats.decode("fp32", bits))  # a float64 holds every FP32 value exactly


def _show_fp32(bits: int) -> str:
    v = formats.decode("fp32", bits)
    return f"0x{bits:08X}（{'NaN' if v != v else _num(v)}）"


BF16 = Exercise(
    id="bf16-round",
    title="从 FP32 的位得到 BF16：舍入，而不是截断",
    function="bf16_from_fp32_bits",
    statement=(
        "写函数 bf16_from_fp32_bits(bits)：bits 是一个 FP32 数的 32 位码字（0 到 2³²−1 的整数），"
        "返回最接近它的 BF16 码字（16 位整数）。要求与本章的编码一致：就近舍入，恰好一半时取末位为偶数的那个；"
        "舍入后超过最大有限值就成为无穷大；NaN 仍然是 NaN。"
    ),
    stub=(
        "def bf16_from_fp32_bits(bits):\n"
        "    # bits: FP32 的 32 位码字；返回 BF16 的 16 位码字\n"
        "    return bits >> 16  # 这是截断：请改成就近舍入、平局取偶\n"
    ),
    solution=(
        "def bf16_from_fp32_bits(bits):\n"
        "    exponent = (bits >> 23) & 0xFF\n"
        "    mantissa = bits & 0x7FFFFF\n"
        "    if exponent == 0xFF and mantissa:  # NaN：保留符号，给一个安静 NaN\n"
        "        return (bits >> 16) | 0x0040\n"
        "    upper, lower = bits >> 16, bits & 0xFFFF\n"
        "    # 就近舍入：低 16 位过半就进一；恰好一半时看保留下来的最后一位，奇数才进\n"
        "    if lower > 0x8000 or (lower == 0x8000 and upper & 1):\n"
        "        upper += 1  # 尾数进位会自然进到指数里，最大有限值再进一就是无穷大\n"
        "    return upper\n"
    ),
    cases=_bf16_cases(),
    right=_bf16_right,
    same=_same_code("bf16"),
    show_in=_show_fp32,
    show_out=_show_code("bf16", 4),
    valid=_code_check(16),
    case_hints={
        "恰好一半的平局": "恰好一半时，要取保留下来的最后一位为偶数的那个（平局取偶）。",
        "次正规数": "次正规数也按同一条规则舍入：BF16 和 FP32 的指数位一样，低 16 位照样看过不过半。",
        "溢出": "最大有限值再往上进一，码字就成了无穷大 0x7F80；这是 BF16 的默认溢出规则。",
        "NaN": "NaN 的低位可能全在被丢掉的 16 位里：截掉或进位后它会变成无穷大甚至别的数，要单独处理。",
    },
    mistakes=(
        Mistake(
            "truncate",
            "def bf16_from_fp32_bits(bits):\n    return bits >> 16\n",
            "你的答案是直接截掉低 16 位：那是向零舍入，平均偏小。要看被丢掉的部分是否过半，过半就进一。",
        ),
        Mistake(
            "half_up",
            "def bf16_from_fp32_bits(bits):\n"
            "    if (bits >> 23) & 0xFF == 0xFF and bits & 0x7FFFFF:\n"
            "        return (bits >> 16) | 0x40\n"
            "    return (bits + 0x8000) >> 16\n",
            "你的答案在恰好一半时总是进一（四舍五入）。本章的规则是平局取偶：保留下来的最后一位是偶数就不进。",
        ),
        Mistake(
            "no_nan",
            "def bf16_from_fp32_bits(bits):\n"
            "    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF\n",
            "舍入本身对了，但 NaN 没有单独处理：尾数只有低位非零的 NaN 会被截成无穷大，或进位成别的码字。"
            "先判断指数全 1 且尾数非零，再原样保留符号、给一个 NaN。",
        ),
    ),
)


# ---- lesson 4: the E4M3FN encoder, saturating ----------------------------------------------------


def _e4m3_cases() -> tuple:
    f = "e4m3"
    values = [formats.decode(f, c) for c in range(0x7F)]  # 0 … 448, every finite code
    c = [("每个码字的值", v) for v in values[1:]] + [("每个码字的值", -v) for v in values[1:]]
    for a, b in zip(values, values[1:]):
        mid = (a + b) / 2  # exact: neighbours differ by a power of two at most 2^-9 apart in scale
        c += [("恰好一半的平局", mid), ("恰好一半的平局", -mid)]
        c += [("略大于一半", math.nextafter(mid, math.inf)), ("略小于一半", math.nextafter(mid, 0))]
    tiny = values[1]
    c += [("次正规数的边界", x) for x in (tiny / 2, math.nextafter(tiny / 2, 1), tiny / 4, 1e-30, -tiny / 2)]
    c += [("溢出", x) for x in (464.0, 480.0, 500.0, 1e10, -1e10, math.inf, -math.inf)]
    c += [("正零", 0.0), ("负零", -0.0), ("NaN", math.nan), ("NaN", -math.nan)]
    return tuple(c)


E4M3 = Exercise(
    id="e4m3-encode",
    title="E4M3FN 编码器（饱和模式）",
    function="encode_e4m3",
    statement=(
        "写函数 encode_e4m3(x)：x 是一个 Python 浮点数，返回它的 E4M3FN 码字（0 到 255 的整数）。"
        "就近舍入、平局取偶；指数位为 0 时是次正规数；超过最大值 448 的数（包括 ±∞）饱和到 ±448；"
        "负零保留符号；NaN 返回 NaN 码字。"
    ),
    stub=(
        "import math\n"
        "\n"
        "def encode_e4m3(x):\n"
        "    # 返回 E4M3FN 的 8 位码字：符号 1 位、指数 4 位（偏置 7）、尾数 3 位\n"
        "    return 0\n"
    ),
    solution=(
        "import math\n"
        "\n"
        "def encode_e4m3(x):\n"
        "    if x != x:\n"
        "        return 0x7F  # 只有 S.1111.111 是 NaN\n"
        "    sign = 0x80 if math.copysign(1.0, x) < 0 else 0\n"
        "    a = abs(x)\n"
        "    if a >= 448:\n"
        "        return sign | 0x7E  # 饱和到最大有限值 448（也接住 ±∞）\n"
        "    if a == 0:\n"
        "        return sign  # ±0\n"
        "    e = max(math.frexp(a)[1] - 1, -6)  # 2^e ≤ a；低于正规数时步长停在 2^-9\n"
        "    steps = round(a / 2.0 ** (e - 3))  # 以 2^(e-3) 为步长数格子，round 恰好一半时取偶\n"
        "    code = ((e + 7) << 3) + steps - 8  # 尾数满了会自然进到指数里\n"
        "    return sign | min(code, 0x7E)\n"
    ),
    cases=_e4m3_cases(),
    right=lambda x: formats.encode("e4m3", x, "saturate"),
    same=_same_code("e4m3"),
    show_in=_num,
    show_out=_show_code("e4m3", 2),
    valid=_code_check(8),
    case_hints={
        "每个码字的值": "一个码字本身的值应当编回这个码字：先核对符号位、指数偏置 7 和 3 位尾数的拼法。",
        "恰好一半的平局": "恰好一半时，取尾数末位为偶数的那个（平局取偶）。",
        "次正规数的边界": "最小次正规数的一半恰好是平局，取偶就是 0；比它大一点就要进到最小次正规数。",
        "溢出": "饱和模式：超过 448 的数（包括 ±∞）都编成 ±448，即 0x7E / 0xFE。",
        "负零": "−0.0 的符号位是 1：码字是 0x80。用 math.copysign 看符号，x < 0 看不出来。",
        "NaN": "NaN 的码字是 S.1111.111（0x7F 或 0xFF）；x != x 可以认出 NaN。",
    },
    mistakes=(
        Mistake(
            "ieee_240",
            "import math\n\ndef encode_e4m3(x):\n"
            "    if x != x:\n        return 0x7F\n"
            "    sign = 0x80 if math.copysign(1.0, x) < 0 else 0\n"
            "    a = abs(x)\n"
            "    if a >= 240:\n        return sign | 0x77\n"
            "    if a == 0:\n        return sign\n"
            "    e = max(math.frexp(a)[1] - 1, -6)\n"
            "    code = ((e + 7) << 3) + round(a / 2.0 ** (e - 3)) - 8\n"
            "    return sign | min(code, 0x77)\n",
            "你的编码器把指数 1111 整段留给了无穷大和 NaN，最大值停在 240：那是仿 IEEE 的 E4M3。"
            "本章的 E4M3FN 只把 S.1111.111 当 NaN，指数 1111 的其余七个码字都是有限数，最大值是 448。",
        ),
        Mistake(
            "half_up",
            "import math\n\ndef encode_e4m3(x):\n"
            "    if x != x:\n        return 0x7F\n"
            "    sign = 0x80 if math.copysign(1.0, x) < 0 else 0\n"
            "    a = abs(x)\n"
            "    if a >= 448:\n        return sign | 0x7E\n"
            "    if a == 0:\n        return sign\n"
            "    e = max(math.frexp(a)[1] - 1, -6)\n"
            "    code = ((e + 7) << 3) + math.floor(a / 2.0 ** (e - 3) + 0.5) - 8\n"
            "    return sign | min(code, 0x7E)\n",
            "你的答案在恰好一半时总是进一（四舍五入）。本章的规则是平局取偶：两个候选里取尾数末位为 0 的那个。",
        ),
        Mistake(
            "truncate",
            "import math\n\ndef encode_e4m3(x):\n"
            "    if x != x:\n        return 0x7F\n"
            "    sign = 0x80 if math.copysign(1.0, x) < 0 else 0\n"
            "    a = abs(x)\n"
            "    if a >= 448:\n        return sign | 0x7E\n"
            "    if a == 0:\n        return sign\n"
            "    e = max(math.frexp(a)[1] - 1, -6)\n"
            "    code = ((e + 7) << 3) + int(a / 2.0 ** (e - 3)) - 8\n"
            "    return sign | min(code, 0x7E)\n",
            "你的答案把多出来的尾数直接丢掉了（向零截断）。要就近舍入：离哪个格点近就取哪个。",
        ),
        Mistake(
            "no_subnormals",
            "import math\n\ndef encode_e4m3(x):\n"
            "    if x != x:\n        return 0x7F\n"
            "    sign = 0x80 if math.copysign(1.0, x) < 0 else 0\n"
            "    a = abs(x)\n"
            "    if a >= 448:\n        return sign | 0x7E\n"
            "    if a < 2.0 ** -6:\n        return sign\n"
            "    e = math.frexp(a)[1] - 1\n"
            "    code = ((e + 7) << 3) + round(a / 2.0 ** (e - 3)) - 8\n"
            "    return sign | min(code, 0x7E)\n",
            "你的答案把小于最小正规数 2⁻⁶ 的数都归成了零，忘了次正规数：指数位为 0 时，值是 尾数 × 2⁻⁹，"
            "最小的正数是 2⁻⁹。",
        ),
        Mistake(
            "nan_on_overflow",
            "import math\n\ndef encode_e4m3(x):\n"
            "    if x != x:\n        return 0x7F\n"
            "    sign = 0x80 if math.copysign(1.0, x) < 0 else 0\n"
            "    a = abs(x)\n"
            "    if a > 448:\n        return sign | 0x7F\n"
            "    if a == 0:\n        return sign\n"
            "    e = max(math.frexp(a)[1] - 1, -6)\n"
            "    code = ((e + 7) << 3) + round(a / 2.0 ** (e - 3)) - 8\n"
            "    return sign | min(code, 0x7E)\n",
            "你的答案在溢出时给了 NaN：那是非饱和模式。题目要的是饱和模式，超过 448 的数都编成 ±448。",
        ),
        Mistake(
            "lost_negative_zero",
            "import math\n\ndef encode_e4m3(x):\n"
            "    if x != x:\n        return 0x7F\n"
            "    sign = 0x80 if x < 0 else 0\n"
            "    a = abs(x)\n"
            "    if a >= 448:\n        return sign | 0x7E\n"
            "    if a == 0:\n        return sign\n"
            "    e = max(math.frexp(a)[1] - 1, -6)\n"
            "    code = ((e + 7) << 3) + round(a / 2.0 ** (e - 3)) - 8\n"
            "    return sign | min(code, 0x7E)\n",
            "你的答案把 −0.0 编成了 +0：x < 0 对 −0.0 不成立。用 math.copysign(1.0, x) < 0 判断符号位。",
        ),
    ),
)


# ---- lesson 1: the ledger's bytes per parameter ---------------------------------------------------


def _ledger_sizes() -> tuple:
    from c9.core.models import anchor, model

    return (1, 1000, 7_000_000_000, model("qwen3-8b").param_total, anchor().param_total)


def _ledger_valid(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return f"返回值应当是一个数（字节数），你的函数返回了 {repr_short(v)}。"
    return None


LEDGER = Exercise(
    id="ledger-bytes",
    title="训练一步的模型状态：一共几字节",
    function="model_state_bytes",
    statement=(
        "写函数 model_state_bytes(n_params)：一个有 n_params 个参数的模型，用 BF16 混合精度加 AdamW 训练时，"
        "模型状态（权重、梯度、FP32 主权重、Adam 的 m 和 v）一共占多少字节。按本课账本的口径计，不含激活。"
    ),
    stub="def model_state_bytes(n_params):\n    # 每个参数要留住哪几样东西？各几字节？\n    return 2 * n_params\n",
    solution=(
        "def model_state_bytes(n_params):\n"
        "    weights = 2  # BF16 权重\n"
        "    gradients = 2  # BF16 梯度\n"
        "    master = 4  # FP32 主权重：更新落在这份副本上\n"
        "    adam_m = 4  # Adam 一阶矩（FP32）\n"
        "    adam_v = 4  # Adam 二阶矩（FP32）\n"
        "    return (weights + gradients + master + adam_m + adam_v) * n_params\n"
    ),
    cases=tuple(("参数个数", n) for n in _ledger_sizes()),
    right=lambda n: model_states(n, "bf16_mixed_adamw").bytes,
    same=lambda got, want: got == want,
    show_in=lambda n: f"n_params = {n}",
    show_out=lambda v: repr_short(v) + " 字节" if isinstance(v, (int, float)) else repr_short(v),
    valid=_ledger_valid,
    case_hints={},
    mistakes=(
        Mistake(
            "weights_only",
            "def model_state_bytes(n_params):\n    return 2 * n_params\n",
            "你只算了 BF16 权重（每参数 2 字节），那是推理的账。训练还要梯度、FP32 主权重和 Adam 的 m、v。",
        ),
        Mistake(
            "no_master",
            "def model_state_bytes(n_params):\n    return (2 + 2 + 4 + 4) * n_params\n",
            "你的账少了 FP32 主权重（每参数 4 字节）：混合精度的更新落在这份 32 位副本上，它和 m、v 一样常驻显存。",
        ),
        Mistake(
            "fp32_gradient",
            "def model_state_bytes(n_params):\n    return (2 + 4 + 4 + 4 + 4) * n_params\n",
            "你得到的是每参数 18 字节：把梯度按 FP32 记了一份（有些文档这样算）。本课的账本按 ZeRO 的口径，"
            "梯度是 BF16 的 2 字节，共 16 字节。",
        ),
        Mistake(
            "both_gradients",
            "def model_state_bytes(n_params):\n    return (2 + 2 + 4 + 4 + 4 + 4) * n_params\n",
            "你得到的是每参数 20 字节：16 位梯度和 FP32 梯度都记了。本课的账本只记一份 BF16 梯度，共 16 字节。",
        ),
        Mistake(
            "element_size_twice",
            "def model_state_bytes(n_params):\n    return (2 + 2 + 4 + 4 + 4) * 2 * n_params\n",
            "你的结果是正确答案的两倍：字节数已经含了每个数的大小，又乘了一次元素大小。",
        ),
    ),
)


EXERCISES: dict[str, Exercise] = {ex.id: ex for ex in (LEDGER, BF16, E4M3)}


def get(exercise_id: str) -> Exercise:
    """Exercise ``exercise_id``. Raises KeyError."""
    return EXERCISES[exercise_id]


def run(exercise_id: str, source: str) -> Outcome:
    """Check the reader's ``source`` for exercise ``exercise_id`` (KeyError for an unknown id)."""
    limit = sys.getrecursionlimit()
    try:
        return check(get(exercise_id), source)
    finally:
        sys.setrecursionlimit(limit)  # the reader's code may have changed it
