"""The in-page exercises (动手写): each one a function the reader writes, checked exactly against the
chapter's own codecs and ledger on the cases that matter, in order (ordinary values first, then ties,
the subnormal edge, overflow, −0 and NaN).

An :class:`Exercise` is data: its statement, stub and reference solution (source text), the cases
(``(label, input)`` pairs), the right answer of each case (from :mod:`c9.core.formats`,
:mod:`c9.core.blockscale`, :mod:`c9.core.ledger` or :mod:`c9.core.activations`, never from the reference
solution), and a
library of typical wrong answers, each as source text with its own hint. :func:`check` runs the reader's source and names the first case that
differs; the hint is the one of the wrong answer that gives the reader's answers on every case, else
the one that gives the reader's answer on that first case, else the case's own hint.

The reader's code runs through :mod:`c9.base.reader_code` (``exec`` in a fresh namespace, every failure a
Chinese message), the path the scratchpad shares: no sandbox, but the page's own Python worker, which the
page stops and restarts when a run takes too long (docs/assets/js/worker.js).
"""

from __future__ import annotations

import math
import struct
import sys
from dataclasses import dataclass, field

from c9.base import units
from c9.base.reader_code import ReaderError, failure, load
from c9.base.typed import brief
from c9.core import activations, blockscale, formats
from c9.core.ledger import model_states

NEAR = 0.9  # share of cases a known wrong answer must share with the reader's to lend its hint


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
    call: object = None  # (reader's function, input) -> its answer; None: fn(input)


def answer(ex: Exercise, fn, x):
    """The answer of ``fn`` on input ``x``, called as the exercise's statement says."""
    return fn(x) if ex.call is None else ex.call(fn, x)


def _call(ex: Exercise, fn, x):
    """answer(ex, fn, x), or ("error", exc)."""
    try:
        return ("ok", answer(ex, fn, x))
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
    ran: bool = True  # False when the code could not even be loaded (empty, a syntax error, no such function)


def _answers(ex: Exercise, fn) -> list:
    out = []
    for _, x in ex.cases:
        out.append(_call(ex, fn, x))
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
        return Outcome(False, 0, total, message=e.message_zh, hint="", ran=False)
    got_all = []
    first = None
    for i, (label, x) in enumerate(ex.cases):
        got = _call(ex, fn, x)
        got_all.append(got)
        if got[0] == "error":
            return Outcome(
                False,
                i,
                total,
                case={"label": label, "input": ex.show_in(x), "got": "", "want": ex.show_out(ex.right(x))},
                message=failure(got[1], case_phrase(label, ex.show_in(x))).message_zh,
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
        got_all.append(_call(ex, fn, y))
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


def case_phrase(label: str, shown_in: str) -> str:
    """At which case the reader's code failed, said before 「，第 N 行出错」: the case's name, then its
    input in parentheses (an input may hold its own colons and spaces; no 「输入 … 时」 around it)."""
    return f"在情形「{label}」下（输入：{shown_in}）"


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
            return f"返回值应当在 0 到 {units.number((1 << bits) - 1)} 之间（{bits} 位码字），你的函数返回了 {brief(v)}。"
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
        return "−0" if math.copysign(1.0, v) < 0 else "0"  # as 1.0 reads 1
    t = repr(abs(v))
    if "e" in t:  # every digit of repr, but the power of ten as the site writes it: ×10⁻⁸, not e-08
        mantissa, power = t.split("e")
        t = units.superscript_powers(f"{mantissa}×10^{int(power)}")
    elif t.endswith(".0"):
        t = t[:-2]
    return "−" + t if v < 0 else t


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
        "NaN": "NaN 的码字是 S.1111.111（0x7F 或 0xFF）；NaN 是唯一不等于自己的数，拿这一点就能认出它。",
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
            "你的答案把小于最小正规数 2⁻⁶ 的数都归成了零，忘了次正规数：指数位为 0 时，值是尾数乘以 2⁻⁹，"
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


# ---- lesson 2: FP16 from the bits up ---------------------------------------------------------------


def _fp32(x: float) -> float:
    """x rounded to FP32 (the inputs are FP32 values, as a framework hands them over)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _fp32_step(x: float, up: bool) -> float:
    """The FP32 neighbour of a positive FP32 value ``x``, above or below."""
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    return struct.unpack("<f", struct.pack("<I", bits + (1 if up else -1)))[0]


def _fp16_cases() -> tuple:
    f = "fp16"
    c = [("普通的数", _fp32(v)) for v in (1.0, 0.1, 3.14159265, -2.5, 1000.0, 1 / 3, -0.007, 12345.678)]
    # Ties between neighbouring codes, in every binade: the lower code even (stays) and odd (goes up),
    # at the start of the binade and at its end, where going up carries into the exponent.
    for e in sorted(range(31), key=lambda e: abs(e - 15)):  # from around 1.0 outwards
        for m in (0, 1, 0x3FE, 0x3FF):
            lo = (e << 10) | m
            if lo + 1 >= 0x7C00:
                continue  # above 65504 the next step is infinity: an overflow case below
            mid = (
                formats.decode(f, lo) + formats.decode(f, lo + 1)
            ) / 2  # exact in FP32: 12 significant bits
            sign = -1.0 if e % 2 == 0 else 1.0  # both signs, alternately (1.0's binade positive)
            c += [("恰好一半的平局", sign * mid)]
            if e in (0, 1, 15, 30):
                c += [
                    ("略大于一半", sign * _fp32_step(mid, True)),
                    ("略小于一半", sign * _fp32_step(mid, False)),
                ]
    tiny = formats.decode(f, 1)  # 2^-24
    c += [
        ("次正规数的边界", x)
        for x in (tiny, 1023 * tiny, 2.0**-14, 1023.5 * tiny, _fp32_step(1023.5 * tiny, False))
    ]
    c += [
        ("次正规数的边界", x)
        for x in (tiny / 2, _fp32_step(tiny / 2, True), tiny / 4, _fp32(1e-30), -tiny / 2)
    ]
    c += [("最大的有限数", x) for x in (65504.0, -65504.0, 65519.0, _fp32_step(65520.0, False))]
    c += [("溢出", x) for x in (65520.0, -65520.0, 65536.0, 1e10, _fp32(-3.4e38))]
    c += [("无穷大", math.inf), ("无穷大", -math.inf)]
    c += [("正零", 0.0), ("负零", -0.0), ("NaN", math.nan), ("NaN", -math.nan)]
    return tuple(c)


def _fp16_source(body: str) -> str:
    """An FP16 encoder that differs from the reference in ``body`` (the lines after the sign and magnitude)."""
    return (
        "import math\n\ndef encode_fp16(x):\n"
        "    if x != x:\n        return 0x7E00\n"
        "    sign = 0x8000 if math.copysign(1.0, x) < 0 else 0\n"
        "    a = abs(x)\n" + body
    )


_FP16_REST = (
    "    e = max(math.frexp(a)[1] - 1, -14)\n"
    "    code = ((e + 15) << 10) + {steps} - 1024\n"
    "    return sign | min(code, 0x7C00)\n"
)
_FP16_ENDS = "    if a == 0:\n        return sign\n    if a == math.inf:\n        return sign | 0x7C00\n"

_F16 = formats.get_format("fp16")
_F16_MAX = units.number(_F16.max)  # 65,504
_F16_OVER = units.number(_F16.max + formats.ulp(_F16, _F16.max) / 2)  # 65,520: halfway to the next step
_F16_CODES = units.number(_F16.n_codes - 1)  # 65,535

FP16 = Exercise(
    id="fp16-encode",
    title="从位开始写 FP16 编码器",
    function="encode_fp16",
    statement=(
        "写函数 encode_fp16(x)：x 是一个已经是 FP32 的 Python 浮点数，"
        f"返回它的 FP16 码字（0 到 {_F16_CODES} 的整数），"
        "符号 1 位、指数 5 位（偏置 15）、尾数 10 位。就近舍入，正好落在两个可表示数中间时取尾数末位为偶数的那个；"
        f"指数位为 0 的次正规数要照常编码；舍入之后超过 {_F16_MAX} 的数编成同号的无穷大；−0 保留符号位；"
        "NaN 返回一个 NaN 码字。"
    ),
    stub=(
        "import math\n"
        "\n"
        "def encode_fp16(x):\n"
        "    # 返回 FP16 的 16 位码字：符号 1 位、指数 5 位（偏置 15）、尾数 10 位\n"
        "    return 0\n"
    ),
    solution=(
        "import math\n"
        "\n"
        "def encode_fp16(x):\n"
        "    if x != x:\n"
        "        return 0x7E00  # 指数全 1、尾数非零就是 NaN\n"
        "    sign = 0x8000 if math.copysign(1.0, x) < 0 else 0\n"
        "    a = abs(x)\n"
        "    if a == 0:\n"
        "        return sign  # ±0\n"
        "    if a == math.inf:\n"
        "        return sign | 0x7C00\n"
        "    e = max(math.frexp(a)[1] - 1, -14)  # 2^e ≤ a；进入次正规区后步长固定为 2^-24\n"
        "    steps = round(a / 2.0 ** (e - 10))  # 数一数有几个 2^(e-10)，round 在正中间时取偶\n"
        "    code = ((e + 15) << 10) + steps - 1024  # 尾数满了会自然进到指数里\n"
        "    return sign | min(code, 0x7C00)  # 进到指数全 1 就是无穷大\n"
    ),
    cases=_fp16_cases(),
    right=lambda x: formats.encode("fp16", x),
    same=_same_code("fp16"),
    show_in=_num,
    show_out=_show_code("fp16", 4),
    valid=_code_check(16),
    case_hints={
        "普通的数": "先核对拼法：符号在最高位，指数加上偏置 15 放在中间 5 位，尾数去掉开头的 1 以后占低 10 位。",
        "恰好一半的平局": "正好在两个码字中间时，选尾数最低位是 0 的那个；尾数全 1 时进位会进到指数里。",
        "次正规数的边界": "指数位为 0 时没有隐含的 1，相邻两个数都差 2⁻²⁴；最小正数的一半本身是平局，取偶后是 0。",
        "最大的有限数": f"{_F16_MAX} 的码字是 0x7BFF；比它大、但不到 {_F16_OVER} 的数仍然舍回 {_F16_MAX}。",
        "溢出": f"从 {_F16_OVER} 起（它是 {_F16_MAX} 与下一个格点的正中间，而 {_F16_MAX} 的末位是奇数），"
        "舍入结果就是无穷大 0x7C00。",
        "无穷大": "±∞ 的码字是指数全 1、尾数全 0：0x7C00 和 0xFC00。",
        "负零": "−0.0 的码字是 0x8000：用 math.copysign(1.0, x) 才看得出它的符号，x < 0 不成立。",
        "NaN": "NaN 是唯一不等于自己的数，拿这一点就能认出它；它的码字是指数全 1、尾数不为 0，比如 0x7E00。",
    },
    mistakes=(
        Mistake(
            "half_up",
            _fp16_source(_FP16_ENDS + _FP16_REST.format(steps="math.floor(a / 2.0 ** (e - 10) + 0.5)")),
            "正中间的数你一律往上进了（四舍五入）。本章用的规则是平局取偶：两个候选里留下尾数最低位为 0 的那个，"
            "往上和往下各占一半，长期累加才不会偏。",
        ),
        Mistake(
            "truncate",
            _fp16_source(_FP16_ENDS + _FP16_REST.format(steps="int(a / 2.0 ** (e - 10))")),
            "你把放不下的低位直接扔掉了，相当于朝零截断，结果总是偏小。应当看它离上下两个格点哪个近。",
        ),
        Mistake(
            "flush_subnormals",
            _fp16_source(
                "    if a < 2.0 ** -14:\n        return sign\n"
                "    if a == math.inf:\n        return sign | 0x7C00\n"
                "    e = math.frexp(a)[1] - 1\n"
                "    code = ((e + 15) << 10) + round(a / 2.0 ** (e - 10)) - 1024\n"
                "    return sign | min(code, 0x7C00)\n"
            ),
            "比最小正规数 2⁻¹⁴ 小的数你都当成了 0，丢了次正规数。指数位为 0 时值是尾数乘以 2⁻²⁴，最小的正数就是 2⁻²⁴；"
            "梯度常常就落在这一段。",
        ),
        Mistake(
            "saturate_65504",
            _fp16_source(
                "    if a == 0:\n        return sign\n"
                "    if a >= 65520:\n        return sign | 0x7BFF\n"
                + _FP16_REST.format(steps="round(a / 2.0 ** (e - 10))")
            ),
            f"溢出时你停在了 {_F16_MAX}：那是饱和模式。FP16 按 IEEE 754 的默认规则，舍入后超出最大值就成为无穷大 0x7C00，"
            "±∞ 本身也照样编成无穷大。",
        ),
        Mistake(
            "lost_negative_zero",
            _fp16_source(_FP16_ENDS + _FP16_REST.format(steps="round(a / 2.0 ** (e - 10))")).replace(
                "math.copysign(1.0, x) < 0", "x < 0"
            ),
            "−0.0 被你编成了 +0：对 −0.0 来说 x < 0 不成立。判断符号位要用 math.copysign(1.0, x) < 0。",
        ),
    ),
)


# ---- the FP4 page: E2M1, saturating ------------------------------------------------------------------


def _e2m1_cases() -> tuple:
    f = "e2m1"
    values = [formats.decode(f, c) for c in range(8)]  # 0, 0.5, 1, 1.5, 2, 3, 4, 6
    c = [("每个码字的值", v) for v in values[1:]] + [("每个码字的值", -v) for v in values[1:]]
    for a, b in zip(values, values[1:]):
        mid = (a + b) / 2
        c += [("恰好一半的平局", mid), ("恰好一半的平局", -mid)]
        c += [("略大于一半", math.nextafter(mid, math.inf)), ("略小于一半", math.nextafter(mid, 0))]
    c += [("普通的数", x) for x in (0.1, 0.3, 0.8, 1.1, 2.7, 3.9, -4.4, 5.6)]
    c += [("超过最大值", x) for x in (6.5, 7.0, 8.0, -9.0, 100.0, 1e30, math.inf, -math.inf)]
    c += [("正零", 0.0), ("负零", -0.0)]
    return tuple(c)


def _e2m1_source(steps: str, clamp: bool = True) -> str:
    return (
        "import math\n\ndef encode_e2m1(x):\n"
        "    sign = 8 if math.copysign(1.0, x) < 0 else 0\n"
        "    a = abs(x)\n"
        + ("    if a >= 6:\n        return sign | 7\n" if clamp else "")
        + "    if a == 0:\n        return sign\n"
        "    e = max(math.frexp(a)[1] - 1, 0)\n"
        f"    code = ((e + 1) << 1) + {steps} - 2\n"
        + ("    return sign | min(code, 7)\n" if clamp else "    return sign | code\n")
    )


E2M1 = Exercise(
    id="e2m1-encode",
    title="E2M1 编码器：就近取偶，超过 6 就饱和",
    function="encode_e2m1",
    statement=(
        "写函数 encode_e2m1(x)：x 是一个有限或无穷的 Python 浮点数（不会是 NaN），返回它的 E2M1 码字（0 到 15 的整数）："
        "符号 1 位、指数 2 位（偏置 1）、尾数 1 位，指数位为 0 时是次正规数（0 和 0.5）。就近舍入，"
        "落在正中间时取尾数位为 0 的那个；E2M1 没有无穷大，绝对值超过 6 的数（包括 ±∞）都编成 ±6；−0 保留符号位。"
    ),
    stub=(
        "import math\n"
        "\n"
        "def encode_e2m1(x):\n"
        "    # 返回 E2M1 的 4 位码字；八个非负的值依次是 0、0.5、1、1.5、2、3、4、6\n"
        "    return 0\n"
    ),
    solution=(
        "import math\n"
        "\n"
        "def encode_e2m1(x):\n"
        "    sign = 8 if math.copysign(1.0, x) < 0 else 0  # 符号是最高位\n"
        "    a = abs(x)\n"
        "    if a >= 6:\n"
        "        return sign | 7  # 没有无穷大：饱和到 ±6\n"
        "    if a == 0:\n"
        "        return sign  # ±0\n"
        "    e = max(math.frexp(a)[1] - 1, 0)  # 2^e ≤ a；小于 1 时步长停在 0.5\n"
        "    steps = round(a / 2.0 ** (e - 1))  # 数几个 2^(e-1)，round 在正中间时取偶\n"
        "    code = ((e + 1) << 1) + steps - 2  # 尾数满了就进到指数里\n"
        "    return sign | min(code, 7)\n"
    ),
    cases=_e2m1_cases(),
    right=lambda x: formats.encode("e2m1", x, "saturate"),
    same=_same_code("e2m1"),
    show_in=_num,
    show_out=_show_code("e2m1", 1),
    valid=_code_check(4),
    case_hints={
        "每个码字的值": "一个码字本身的值应当编回它自己：先核对符号在第 4 位、指数加偏置 1、尾数只有 1 位。",
        "恰好一半的平局": "正中间的数要落到尾数位为 0 的那个码字：比如 2.5 落到 2，5 落到 4。",
        "超过最大值": "E2M1 没有无穷大也没有 NaN：超过 6 的数（包括 ±∞）只能编成 ±6，即 0x7 或 0xF。",
        "负零": "−0.0 的码字是 0x8：用 math.copysign(1.0, x) 判断符号，x < 0 对 −0.0 不成立。",
    },
    mistakes=(
        Mistake(
            "half_up",
            _e2m1_source("math.floor(a / 2.0 ** (e - 1) + 0.5)"),
            "正中间的数你总往上取（四舍五入）。E2M1 也是平局取偶：2.5 要落到尾数为 0 的 2，而不是 3；"
            "只有 16 个值的格式里，这种平局特别多。",
        ),
        Mistake(
            "truncate",
            _e2m1_source("int(a / 2.0 ** (e - 1))"),
            "你把多出来的部分直接截掉了，结果一律朝零偏。要比较它离上下两个可表示的值哪个更近。",
        ),
        Mistake(
            "no_saturation",
            _e2m1_source("round(a / 2.0 ** (e - 1))", clamp=False),
            "超过 6 的数你没有截住：码字越过 0x7 以后会撞上符号位，变成负数甚至别的值。E2M1 没有无穷大，"
            "|x| 超过 6 时（包括 ±∞）要直接返回 ±6 的码字。",
        ),
    ),
)


# ---- lesson 4 and the FP4 page: one block's scale and codes, as the chapter's block scaling does it ---


def _sixteenths(rng, n: int, lo: int, hi: int) -> list:
    """n multiples of 1/16 in [lo/16, hi/16]: exact in FP32 and short to read."""
    return [rng.randint(lo, hi) / 16 for _ in range(n)]


# The table encoder both block exercises hand the reader: nearest value, ties to the even code (the
# codes' last bit is the mantissa's), past the top the largest code. Neighbouring values are within a
# factor of two, so the two distances compared at a tie are exact in floats.
_TABLES_SOURCE = (
    "E4M3 = [m / 512 if e == 0 else (8 + m) * 2.0 ** (e - 10) for e in range(16) for m in range(8)][:127]\n"
    "E2M1 = [0, 0.5, 1, 1.5, 2, 3, 4, 6]\n"
    "\n"
    "def nearest(table, x, sign_bit):\n"
    "    # 表里离 |x| 最近的码字；平局取偶数码字，超过最大值就是最大的码字（饱和）\n"
    "    a = abs(x)\n"
    "    code = min(range(len(table)), key=lambda c: (abs(table[c] - a), c % 2))\n"
    "    return code | (sign_bit if x < 0 else 0)\n"
)


def _tile_cases() -> tuple:
    import random

    rng = random.Random(1128)
    c = [("普通的小块", tuple(_sixteenths(rng, 128, -48, 48))) for _ in range(2)]
    for big in (1000.0, -700.0):
        xs = _sixteenths(rng, 128, -16, 16)
        xs[rng.randrange(128)] = big
        c += [("有离群值的小块", tuple(xs))]
    c += [("全是负数", tuple(-abs(v) - 1 / 16 for v in _sixteenths(rng, 128, 0, 40)))]
    # amax 224: s = 2 exactly, so 8.5 → 17 and 9.5 → 19 fall between two E4M3 values
    xs = _sixteenths(rng, 128, -64, 64)
    xs[:5] = [224.0, 8.5, 9.5, -8.5, 0.28125]  # 0.5625 sits between 0.5 and 0.625
    c += [("含平局的小块", tuple(xs))]
    c += [("全零的小块", (0.0,) * 128)]
    return tuple(c)


def _tile_right(xs) -> tuple:
    r = blockscale.quantize(list(xs), "1x128")
    return (r.scales[0][0], tuple(r.codes))


def _codes_valid(n: int, bits: int, what: str):
    def valid(v):
        if not isinstance(v, (tuple, list)) or len(v) != 2:
            return f"返回值应当是一对：（{what}，码字列表），你的函数返回了 {repr_short(v)}。"
        scale, codes = v
        if isinstance(scale, bool) or not isinstance(scale, (int, float)):
            return f"第一项应当是一个数（{what}），你的函数给了 {repr_short(scale)}。"
        if not isinstance(codes, (tuple, list)) or len(codes) != n:
            return f"第二项应当是 {n} 个码字组成的列表，你的函数给了 {repr_short(codes)}。"
        for q in codes:
            if isinstance(q, bool) or not isinstance(q, int) or not 0 <= q < 1 << bits:
                return f"每个码字都应当是 0 到 {units.number((1 << bits) - 1)} 之间的整数，你的函数给了 {repr_short(q)}。"
        return None

    return valid


def _same_pair(got, want) -> bool:
    return got[0] == want[0] and list(got[1]) == list(want[1])


def _hex_codes(codes, digits: int) -> str:
    return " ".join(f"{q:0{digits}X}" for q in codes)


def _show_tile(xs) -> str:
    k = max(range(len(xs)), key=lambda i: abs(xs[i]))
    if xs[k] == 0:
        return "128 个数，全是 0"
    head = "，".join(_num(v) for v in xs[:6])
    return f"128 个数：{head}，…；绝对值最大的是第 {k + 1} 个，{_num(xs[k])}"


def _show_tile_answer(v) -> str:
    if not isinstance(v, (tuple, list)) or len(v) != 2:
        return repr_short(v)
    return f"s = {_num(v[0])}；码字（十六进制）：{_hex_codes(v[1], 2)}"


def _tile_source(scale: str, code: str = "nearest(E4M3, x * s, 0x80)") -> str:
    return (
        "import struct\n\n" + _TABLES_SOURCE + "\n"
        "def fp32(v):\n    return struct.unpack('<f', struct.pack('<f', v))[0]\n\n"
        "def quantize_tile(xs):\n"
        "    amax = max(abs(x) for x in xs)\n"
        f"    s = 1.0 if amax == 0 else {scale}\n"
        f"    return s, [{code} for x in xs]\n"
    )


TILE_1X128 = Exercise(
    id="tile-1x128",
    title="一个 1×128 小块：缩放因子和码字",
    function="quantize_tile",
    statement=(
        "写函数 quantize_tile(xs)：xs 是一个 token 的 128 个激活（都是 FP32 能存下的浮点数），"
        "返回一对 (s, codes)，做法与本章的分块缩放代码一致。s 是这一块的乘数：先求 amax = max|x|，"
        "再把 448 / amax 舍入到 FP32（用给出的 fp32 函数）；整块都是 0 时没有 amax 可用，本章的代码取 s = 1。"
        "codes 是 128 个 E4M3FN 码字，第 i 个是 xs[i] × s 就近取偶、超过 448 饱和之后的码字（用给出的 nearest 函数）。"
        "还原时用码字的值除以 s。"
    ),
    stub=(
        "import struct\n\n" + _TABLES_SOURCE + "\n"
        "def fp32(v):\n"
        "    # 把一个数舍入到 FP32（就近取偶）\n"
        "    return struct.unpack('<f', struct.pack('<f', v))[0]\n"
        "\n"
        "def quantize_tile(xs):\n"
        "    # 返回 (s, codes)：s 是这一块的乘数，codes 是 128 个 E4M3FN 码字\n"
        "    s = 1.0\n"
        "    return s, [nearest(E4M3, x, 0x80) for x in xs]\n"
    ),
    solution=(
        "import struct\n\n" + _TABLES_SOURCE + "\n"
        "def fp32(v):\n"
        "    return struct.unpack('<f', struct.pack('<f', v))[0]\n"
        "\n"
        "def quantize_tile(xs):\n"
        "    amax = max(abs(x) for x in xs)  # 负数也要看绝对值\n"
        "    if amax == 0:\n"
        "        s = 1.0  # 全零的块：本章的代码取乘数 1，码字全是 0\n"
        "    else:\n"
        "        s = fp32(448 / amax)  # 把 amax 放大到 E4M3FN 的最大值 448，乘数存成 FP32\n"
        "    # x 与 s 都是 FP32，乘积在 Python 的浮点数里是精确的，只在编码时舍入一次\n"
        "    return s, [nearest(E4M3, x * s, 0x80) for x in xs]\n"
    ),
    cases=_tile_cases(),
    right=_tile_right,
    same=_same_pair,
    show_in=_show_tile,
    show_out=_show_tile_answer,
    valid=_codes_valid(128, 8, "乘数 s"),
    case_hints={
        "普通的小块": "先核对乘数：s 是 448 除以这一块绝对值的最大值，再舍入到 FP32；码字编的是 x × s。",
        "有离群值的小块": "离群值决定了这一块的 amax：它乘上 s 正好到 448，别的数被压得很小，有些会落进次正规区。",
        "全是负数": "amax 要取绝对值的最大值：全是负数时，max(xs) 是最接近 0 的那个。",
        "含平局的小块": "x × s 落在两个 E4M3 值正中间时，取码字为偶数的那个；给出的 nearest 已经这样做了。",
        "全零的小块": "整块都是 0 时 448 / amax 没有意义：本章的代码这时取 s = 1，码字全是 0。",
    },
    mistakes=(
        Mistake(
            "mean_scale",
            _tile_source("fp32(448 / (sum(abs(x) for x in xs) / len(xs)))"),
            "你的乘数是用平均绝对值算的：平均值比最大值小得多，s 就大了，大一些的数乘上它都超过 448、被饱和成同一个码字。"
            "要用 amax，让块里最大的数恰好落到 448。",
        ),
        Mistake(
            "ieee_240",
            _tile_source("fp32(240 / amax)"),
            "你把 amax 对准了 240：那是仿 IEEE 的 E4M3 的最大值。E4M3FN 只留 S.1111.111 当 NaN，最大值是 448，"
            "乘数应当是 448 / amax，否则白白空着最上面的几档。",
        ),
        Mistake(
            "no_scale",
            _tile_source("fp32(448 / amax)", "nearest(E4M3, x, 0x80)"),
            "乘数算对了，但码字编的是 x 本身，没有乘上 s：缩放因子只有用在编码上才起作用，小数才能离开次正规区。",
        ),
        Mistake(
            "amax_signed",
            _tile_source("fp32(448 / amax)").replace("max(abs(x) for x in xs)", "max(xs)"),
            "你的 amax 取的是 max(xs)，没有先取绝对值：全是负数时它是离 0 最近的那个数，甚至是负的。要用 max(abs(x) for x in xs)。",
        ),
        Mistake(
            "float64_scale",
            _tile_source("448 / amax"),
            "码字和本章一致，乘数却差在最后几位：本章把 s 存成 FP32，448 / amax 要再经过 fp32 舍入一次。",
        ),
    ),
)


@dataclass(frozen=True)
class NvBlock:
    block: tuple  # the 16 elements
    tensor_amax: float  # the whole tensor's amax (at least the block's)


def _nvfp4_cases() -> tuple:
    import random

    rng = random.Random(416)
    c = [("普通的块", NvBlock(tuple(_sixteenths(rng, 16, -40, 40)), 20.0))]
    c += [("普通的块", NvBlock(tuple(_sixteenths(rng, 16, -200, 200)), 1000.0))]
    xs = _sixteenths(rng, 16, -40, 40)
    xs[3] = 7.5
    c += [("整个张量的最大值在这一块里", NvBlock(tuple(xs), 7.5))]
    c += [("全是负数", NvBlock(tuple(-abs(v) - 1 / 16 for v in _sixteenths(rng, 16, 0, 60)), 12.0))]
    # tensor amax 2688: t = 1. Block amax 102: b = 102 / 6 = 17 ties between 16 and 18, and goes to 16;
    # then 102 / 16 = 6.375 saturates to 6, and 40 / 16 = 2.5 ties between 2 and 3.
    xs = _sixteenths(rng, 16, -64, 64)
    xs[:3] = [102.0, 40.0, -24.0]
    c += [("块缩放和元素都有平局", NvBlock(tuple(xs), 2688.0))]
    # t = 1 and amax / 6 = 9.458…, stored as b = 9: 23.5 / 9 = 2.61 goes to 3, though 23.5 / 9.458 would go to 2
    xs = _sixteenths(rng, 16, -100, 100)
    xs[:2] = [56.75, 23.5]
    c += [("b 不落在 E4M3 的格点上", NvBlock(tuple(xs), 2688.0))]
    c += [("全零的块", NvBlock((0.0,) * 16, 5.0))]
    # far below the tensor's amax: amax / (6t) is under half of E4M3's smallest value, so b = 0
    c += [("块缩放舍入成 0", NvBlock((0.0001, -0.0002, 0.00005) + (0.0,) * 13, 2688.0))]
    return tuple(c)


def _nvfp4_quantized(x: NvBlock):
    tensor = list(x.block) + [x.tensor_amax] + [0.0] * 15  # a second block holds the tensor's amax
    return blockscale.quantize(tensor, "nvfp4")


def _nvfp4_right(x: NvBlock) -> tuple:
    r = _nvfp4_quantized(x)
    return (r.scale_codes[0][0], tuple(r.codes[:16]))


def _nvfp4_t(x: NvBlock) -> float:
    return _nvfp4_quantized(x).tensor_scale


def _show_nvfp4_in(x: NvBlock) -> str:
    return f"块：{'，'.join(_num(v) for v in x.block)}；t = {_num(_nvfp4_t(x))}"


def _show_nvfp4_out(v) -> str:
    if not isinstance(v, (tuple, list)) or len(v) != 2 or not isinstance(v[0], int) or isinstance(v[0], bool):
        return repr_short(v)
    b = _show_code("e4m3", 2)(v[0]) if 0 <= v[0] < 256 else str(v[0])
    return f"b 的码字 {b}；元素码字（十六进制）：{_hex_codes(v[1], 1)}"


def _nvfp4_valid(v):
    bad = _codes_valid(16, 4, "块缩放 b 的 E4M3 码字")(v)
    if bad:
        return bad
    if not isinstance(v[0], int) or isinstance(v[0], bool) or not 0 <= v[0] < 256:
        return f"第一项应当是块缩放 b 的 E4M3 码字，0 到 255 之间的整数，你的函数给了 {repr_short(v[0])}。"
    return None


def _nvfp4_source(b: str, q: str = "x / (b * t)") -> str:
    return (
        _TABLES_SOURCE + "\n"
        "def nvfp4_block(xs, t):\n"
        "    amax = max(abs(x) for x in xs)\n"
        f"    b_code = nearest(E4M3, {b}, 0x80)\n"
        "    b = E4M3[b_code]\n"
        "    if b == 0:\n"
        "        return b_code, [nearest(E2M1, x, 8) & 8 for x in xs]\n"
        f"    return b_code, [nearest(E2M1, {q}, 8) for x in xs]\n"
    )


NVFP4 = Exercise(
    id="nvfp4-block",
    title="一个 NVFP4 块：两级缩放",
    function="nvfp4_block",
    statement=(
        "写函数 nvfp4_block(xs, t)：xs 是 16 个数组成的一块，t 是整个张量的 FP32 缩放（已经按 amax ÷ (448 × 6) 算好）。"
        "返回一对 (b_code, codes)，做法与本章的 NVFP4 代码一致：块缩放 b 是这一块的 amax ÷ (6t) 就近取偶舍入到 E4M3"
        "（超过 448 饱和），b_code 是它的 E4M3 码字；codes 是 16 个 E2M1 码字，第 i 个是 xs[i] ÷ (b × t) "
        "就近取偶、超过 6 饱和之后的码字。b 舍入成 0 时（包括整块都是 0）不能再除，本章的代码让元素都成为 0，"
        "负数保留符号位。给出的 nearest 函数会按表舍入。"
    ),
    stub=(
        _TABLES_SOURCE + "\n"
        "def nvfp4_block(xs, t):\n"
        "    # 返回 (b_code, codes)：块缩放 b 的 E4M3 码字，和 16 个 E2M1 码字\n"
        "    b_code = nearest(E4M3, 1.0, 0x80)\n"
        "    return b_code, [nearest(E2M1, x, 8) for x in xs]\n"
    ),
    solution=(
        _TABLES_SOURCE + "\n"
        "def nvfp4_block(xs, t):\n"
        "    amax = max(abs(x) for x in xs)\n"
        "    b_code = nearest(E4M3, amax / (6 * t), 0x80)  # 让块的最大值落到 E2M1 的顶端 6\n"
        "    b = E4M3[b_code]  # 用舍入之后的 b，而不是 amax / (6t) 本身\n"
        "    if b == 0:  # 块比张量的最大值小太多（或全是 0）：元素都是 0，只留符号\n"
        "        return b_code, [8 if x < 0 else 0 for x in xs]\n"
        "    # 6t 与 b × t 在 Python 的浮点数里都是精确的，每个商只在编码时舍入一次\n"
        "    return b_code, [nearest(E2M1, x / (b * t), 8) for x in xs]\n"
    ),
    cases=_nvfp4_cases(),
    right=_nvfp4_right,
    same=_same_pair,
    show_in=_show_nvfp4_in,
    show_out=_show_nvfp4_out,
    valid=_nvfp4_valid,
    case_hints={
        "普通的块": "两级缩放：b = amax ÷ (6t) 先舍入到 E4M3，元素再除以 b × t 编成 E2M1。",
        "整个张量的最大值在这一块里": "这一块的 amax 就是整个张量的 amax：amax ÷ (6t) 约等于 448，正好在 E4M3 的顶端。",
        "全是负数": "amax 要取绝对值的最大值；负数的码字带符号位 8。",
        "块缩放和元素都有平局": "t = 1 时 b = 102 ÷ 6 = 17，恰在 16 和 18 中间，取偶得 16；之后 102 ÷ 16 超过 6，饱和到 6。",
        "b 不落在 E4M3 的格点上": "amax ÷ (6t) 约是 9.46，存下来的 b 是 9：元素要除以舍入之后的 9 × t，商才与还原时一致。",
        "全零的块": "整块都是 0 时 b 的码字是 0，元素也都是 0；不要除以 0。",
        "块缩放舍入成 0": "amax ÷ (6t) 还不到 E4M3 最小正数的一半，b 舍入成 0：本章的代码这时不再除，元素都成为 0，负数保留符号位 8。",
    },
    mistakes=(
        Mistake(
            "b_not_rounded",
            _nvfp4_source("amax / (6 * t)", "x / (amax / (6 * t) * t)").replace(
                "    if b == 0:\n", "    if amax == 0 or b == 0:\n"
            ),
            "b 的码字对了，元素却是除以没有舍入的 amax ÷ (6t) 得到的。存下来的只有 E4M3 的 b，还原时也只能用它：编码时就要除以舍入之后的 b × t。",
        ),
        Mistake(
            "scale_448",
            _nvfp4_source("amax / (448 * t)"),
            "你的块缩放用的是 amax ÷ 448：那是 FP8 的做法。NVFP4 的元素是 E2M1，最大值是 6，块缩放应当是 amax ÷ (6t)，"
            "否则元素除完以后远远超过 6，全被饱和。",
        ),
        Mistake(
            "no_tensor_scale",
            _nvfp4_source("amax / 6", "x / b"),
            "你没有用整张量的缩放 t：b 应当是 amax ÷ (6t)，元素要除以 b × t。E4M3 的范围不够宽，光靠块缩放装不下整张量，t 就是为此加的第二级。",
        ),
    ),
    call=lambda fn, x: fn(list(x.block), _nvfp4_t(x)),
)


# ---- lesson 5: eq. 1's bytes per layer -------------------------------------------------------------


@dataclass(frozen=True)
class LayerShape:
    label: str  # the model the shape is taken from
    s: int
    b: int
    h: int
    a: int
    mode: str


_MODES_ZH = {"store_all": "全存", "selective": "选择性重计算", "flash": "FlashAttention"}


def _activation_cases() -> tuple:
    from c9.core.models import model, model_keys

    shapes = [LayerShape("小例子", 4, 1, 8, 2, m) for m in _MODES_ZH]
    seen = set()
    for key in model_keys():
        m = model(key)
        if (m.h, m.a) in seen:
            continue  # two rows of the file with the same layer shape
        seen.add((m.h, m.a))
        for s, b in ((2048, 1), (32768, 4)):
            shapes += [LayerShape(m.label, s, b, m.h, m.a, mode) for mode in _MODES_ZH]
    return tuple((_MODES_ZH[x.mode], x) for x in shapes)


def _activation_right(x: LayerShape) -> int:
    return activations.activation_memory(x.s, x.b, x.h, x.a, 1, x.mode).bytes


def _activation_valid(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return f"返回值应当是一个数（字节数），你的函数返回了 {repr_short(v)}。"
    return None


def _same_bytes(got, want) -> bool:
    # sbh(34 + 5as/h) in floats may differ from the exact integer in the last bit; that is still right
    return got == want or (isinstance(got, float) and abs(got - want) <= 1e-12 * want)


def _show_bytes(v) -> str:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return repr_short(v)
    return f"{int(v) if v == int(v) else v} 字节"


def _activation_source(body: str) -> str:
    return "def activation_bytes(s, b, h, a, mode):\n" + body


ACTIVATIONS = Exercise(
    id="activation-bytes",
    title="式 1：一层要留多少字节的激活",
    function="activation_bytes",
    statement=(
        "写函数 activation_bytes(s, b, h, a, mode)：序列长度 s、micro-batch 大小 b、隐藏维 h、注意力头数 a 的一层标准 Transformer，"
        "按式 1 的口径（16 位激活、1 字节的 dropout 掩码）为反向保留多少字节。mode 取三种值之一："
        '"store_all" 表示什么都存；"selective" 表示选择性重计算，注意力分数那一项反向时重算、不占显存；'
        '"flash" 表示 FlashAttention，分数表从不写进显存。返回字节数。'
    ),
    stub=(
        "def activation_bytes(s, b, h, a, mode):\n"
        "    # 式 1：sbh(34 + 5as/h) 字节；三种 mode 各留下哪几项？\n"
        "    return s * b * h * (34 + 5 * a * s / h)\n"
    ),
    solution=(
        "def activation_bytes(s, b, h, a, mode):\n"
        "    linear = 34 * s * b * h  # 与 s 成正比的那些张量，系数里已经含了每个数的字节数\n"
        "    scores = 5 * a * s * s * b  # 每个分数三份：softmax 输出 2 字节、掩码 1 字节、dropout 输出 2 字节\n"
        '    if mode == "store_all":\n'
        "        return linear + scores\n"
        "    return linear  # 选择性重计算和 FlashAttention 都不在显存里留分数表\n"
    ),
    cases=_activation_cases(),
    right=_activation_right,
    same=_same_bytes,
    show_in=lambda x: f'{x.label}的一层，s = {x.s}，b = {x.b}，h = {x.h}，a = {x.a}，mode = "{x.mode}"',
    show_out=_show_bytes,
    valid=_activation_valid,
    case_hints={
        "全存": "什么都存时就是式 1 本身：34sbh + 5as²b，两项的系数都已经是字节数。",
        "选择性重计算": "选择性重计算只把 5as²b 那一项留到反向再算，34sbh 照样存着。",
        "FlashAttention": "FlashAttention 在片上现算分数，显存里没有任何 s² 的项，只剩 34sbh。",
    },
    mistakes=(
        Mistake(
            "flash_keeps_s2",
            _activation_source(
                "    linear = 34 * s * b * h\n"
                "    scores = 5 * a * s * s * b\n"
                '    if mode == "selective":\n'
                "        return linear\n"
                "    return linear + scores\n"
            ),
            "FlashAttention 那一行你还留着 5as²b：它把 softmax 分块在芯片的 SRAM 里算完，分数表从头到尾不落进显存，"
            "所以和选择性重计算一样只剩 34sbh。",
        ),
        Mistake(
            "element_size_twice",
            _activation_source(
                "    linear = 34 * s * b * h\n"
                "    scores = 5 * a * s * s * b\n"
                '    total = linear + scores if mode == "store_all" else linear\n'
                "    return 2 * total\n"
            ),
            "你的结果正好是正确答案的两倍：式 1 的系数 34 和 5 已经按每个数 2 字节（掩码 1 字节）算好了，"
            "再乘元素大小 2 就算了两遍。",
        ),
        Mistake(
            "mode_ignored",
            _activation_source("    return 34 * s * b * h + 5 * a * s * s * b\n"),
            "无论 mode 是什么你都返回了全存的字节数。重计算和 FlashAttention 的意义正在于去掉 5as²b：这两种模式下只剩 34sbh。",
        ),
    ),
    call=lambda fn, x: fn(x.s, x.b, x.h, x.a, x.mode),
)


EXERCISES: dict[str, Exercise] = {
    ex.id: ex for ex in (LEDGER, FP16, BF16, E4M3, TILE_1X128, E2M1, NVFP4, ACTIVATIONS)
}


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
