"""The one reader of typed numbers: every number box and number list on the site goes through here.

A typed number keeps its exact value: a decimal ("0.1", "1e-330", "70,000") becomes a
:class:`fractions.Fraction`, never a float first, so FP32, where the widgets store every typed value
before any narrower format (the seed's rule), rounds it once, from the exact value; and a widget can say
where one rounding of that exact value into the narrower format would have given another result.
The rules, the same in every widget:

- Full-width text reads as ASCII (a Chinese input method types "１２．５", "－３", "，"); "−" is a minus;
  whitespace anywhere in a number is ignored ("70 000", "1\n", "\t1").
- Decimal ("-3.5", "1e-8", "1.5×10^-3"), hexadecimal integers ("0x3C00" is 15,360) and C99 hex
  floats ("0x1.8p3" is 12), and powers of two as the site prints them ("2⁻²⁴", "2^-24", "1.5 × 2^-3").
- Signed zero and NaN keep their sign: "-0" is −0.0, "-nan" is a NaN with the sign bit set; "inf",
  "infinity", "∞" with an optional sign. These come back as floats; every other number as a Fraction.
- A comma inside one number is a thousands separator only in the standard grouping ("8,192",
  "1,000,000.5"), first group 1-9: "1,5" and "0,500" are refused with a message (a decimal comma,
  not 15 or 500).
- The list rule (:func:`numbers`, the boxes that take several numbers: MX/NV's block, the block lab's
  rows): commas, "、", ";" and spaces *separate* numbers, so "1,5" there is two numbers, 1 and 5, and
  "8,192" is 8 and 192; every such box says so in its label (:data:`LIST_RULE`). An empty item ("1,,2",
  a comma at the end) is refused with a message rather than skipped: it is most likely a typo.
- JSON numbers are read as the decimal they print as (0.1 is one tenth, as the reader typed it).
"""

from __future__ import annotations

import math
import re
import struct
import unicodedata
from decimal import Decimal
from fractions import Fraction

from c9.base.errors import InputError

MAX_TEXT = 60  # characters of one typed number
MAX_EXPONENT = 400  # (the messages write it: 10⁴⁰⁰) |decimal exponent|; beyond it every format here gives 0 or ∞ (and the exact value gets big)

_SUPER = re.compile("[⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+")  # "2⁻²⁴", as the site prints powers: read as "2^-24"
_FROM_SUPER = str.maketrans("⁺⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "+-0123456789")
_INF = {"inf", "infinity", "∞"}
# the first group starts with 1-9: "0,500" is a decimal comma (0.5), not 500
_THOUSANDS = re.compile(r"[+-]?[1-9]\d{0,2}(,\d{3})+(\.\d*)?([eE][+-]?\d+)?")
_HEX_FLOAT = re.compile(r"([+-]?)0x([0-9a-f]*)(?:\.([0-9a-f]*))?(?:p([+-]?\d+))?")
_POW2 = re.compile(r"([+-]?)(?:(\d+(?:\.\d*)?|\.\d+)(?:×|x|\*))?2(?:\^|\*\*)([+-]?\d+)")


def ascii_text(text: str) -> str:
    """Typed text as ASCII where a Chinese input method types full width (NFKC): "１２．５" → "12.5",
    "－３" → "-3", "，" → ",", "；" → ";". The ideographic comma "、" and the minus sign "−" stay."""
    return unicodedata.normalize("NFKC", text)


def _powers(text: str) -> str:
    """Superscript powers as the site prints them ("2⁻²⁴", "2⁺³") in caret form ("2^-24"), before NFKC
    would flatten "2³" into "23"."""
    return _SUPER.sub(lambda m: "^" + m.group().translate(_FROM_SUPER), text)


def quote(text: str) -> str:
    """What the reader typed, for a message: trimmed, as typed, cut to 20 characters."""
    t = text.strip()
    return t if len(t) <= 20 else t[:20] + "…"


def parse(v, what: str = "数值") -> Fraction | float:
    """A typed number (text, or a JSON int/float) as its exact value: a Fraction for a finite non-zero
    number; a float for ±0, ±∞ and NaN (sign kept). ``what`` names the box in messages.
    Raises InputError (Chinese) for anything else; its ``str()`` is "too_long", "too_big" or
    "too_small" where :func:`integer` words the message differently."""
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        raise InputError(f"{what}要是一个数，例如「0.1」「-3.5」「1e-8」「70000」", "unreadable")
    if isinstance(v, int):
        v = str(v) if abs(v) < 10**MAX_TEXT else "9" * (MAX_TEXT + 1)
    elif isinstance(v, float):
        if math.isnan(v):
            return v  # repr() would drop the sign bit of a negative NaN
        v = repr(v)
    t = "".join(ascii_text(_powers(v)).replace("−", "-").lower().split())  # no whitespace anywhere
    if not t:
        raise InputError(f"{what}是空的：请输入一个数，例如「1e-8」或「70000」", "unreadable")
    if len(t) > MAX_TEXT:
        raise InputError(f"{what}太长了（最多 {MAX_TEXT} 个字符）", "too_long")
    sign = -1.0 if t.startswith("-") else 1.0
    bare = t[1:] if t[:1] in "+-" else t
    if bare in _INF:
        return math.copysign(math.inf, sign)
    if bare == "nan":
        return math.copysign(math.nan, sign)
    if "," in t:
        # grouped digits, alone or before "× 2ⁿ" (the bit flipper writes "1,048,575 × 2⁻¹⁴⁹" and reads it back)
        if not _THOUSANDS.fullmatch(re.split(r"(?:×|x|\*)2(?:\^|\*\*)", t)[0]):
            raise InputError(
                f"{what}「{quote(v)}」里的逗号不是千位分隔符：小数点请用「.」（例如 1.5），"
                f"千位请三位一组（例如 8,192）"
            )
        t = t.replace(",", "")
    x, e10 = _exact(t)
    if x is None and e10 is None:
        raise InputError(
            f"{what.rstrip()}「{quote(v)}」读不成数字：请输入十进制数，例如「0.1」「-3.5」「1e-8」「70000」",
            "unreadable",
        )
    if x == 0:
        return math.copysign(0.0, sign)
    if abs(e10) > MAX_EXPONENT:
        raise _beyond(what, e10 > 0)
    return x


def _beyond(what: str, big: bool) -> InputError:
    """The refusal of a number past 10^±MAX_EXPONENT, with the smaller input that already shows the same thing:
    every value is stored as FP32 first (the course's rule), where it is already ∞ or 0."""
    from c9.base import units

    if big:
        top = units.sci(struct.unpack("<f", bytes.fromhex("ffff7f7f"))[0], 2)  # FP32's largest finite value
        return InputError(
            f"{what}太大了：量级超过 10⁴⁰⁰ 的数这里不收。其实超过 FP32 上限（约 {top}）的数，"
            "先存成 FP32 就已经是无穷大：要看溢出，填 1e39 就够了",
            "too_big",
        )
    half = units.sci(2.0**-150, 1)  # half FP32's smallest subnormal: below it FP32 rounds to 0
    return InputError(
        f"{what}太小了：量级小于 10⁻⁴⁰⁰ 的数这里不收。其实绝对值小于约 {half} 的数，"
        "先存成 FP32 就已经是 0：要看下溢，填 1e-46 就够了",
        "too_small",
    )


def _exact(t: str) -> tuple[Fraction | None, int | None]:
    """Decimal, hex or power-of-two text (lower case, no spaces or commas) as (its Fraction, about
    its decimal exponent); (None, exponent) when it is too far out to build, (None, None) if unreadable."""
    m = _HEX_FLOAT.fullmatch(t)
    if m and (m.group(2) or m.group(3)):
        sign, whole, frac, exp = m.groups()
        frac = frac or ""
        n = int(whole + frac or "0", 16)
        e2 = int(exp or 0) - 4 * len(frac)
        return _scaled(n, e2, sign)
    m = _POW2.fullmatch(t)
    if m:
        sign, sig, exp = m.groups()
        return _scaled(Fraction(Decimal(sig)) if sig else 1, int(exp), sign)
    t = t.replace("×10^", "e").replace("x10^", "e").replace("*10^", "e").replace("*10**", "e")
    m = re.fullmatch(r"([+-]?(?:\d+\.?\d*|\.\d+))(?:e([+-]?\d+))?", t)
    if not m:
        return None, None
    d, e = Decimal(m.group(1)), int(m.group(2) or 0)  # the exponent apart: Decimal refuses one of 19+ digits
    if d.is_zero():
        return Fraction(0), 0
    e10 = d.adjusted() + e
    if abs(e10) > MAX_EXPONENT:  # before Fraction(): 1e100000000 is never built
        return None, e10
    return Fraction(d) * Fraction(10) ** e, e10


def _scaled(n, e2: int, sign: str) -> tuple[Fraction | None, int]:
    """±n·2^e2, unless its decimal exponent is beyond MAX_EXPONENT (then (None, that exponent))."""
    if not n:
        return Fraction(0), 0
    e10 = math.floor(math.log10(n) + e2 * math.log10(2))
    if abs(e10) > MAX_EXPONENT:
        return None, e10
    x = Fraction(n) * Fraction(2) ** e2
    return (-x if sign == "-" else x), e10


def finite(v, what: str = "数值") -> Fraction:
    """:func:`parse`, refusing ±∞ and NaN; ±0 comes back as Fraction(0)."""
    x = parse(v, what)
    if isinstance(x, float):
        if not math.isfinite(x):
            raise InputError(f"{what}要是有限的数，收到的是「{quote(str(v))}」")
        return Fraction(0)
    return x


def value(x: Fraction | float) -> float | Fraction:
    """A parsed number as a float when the float is exact (the fast paths take floats), else as is."""
    if isinstance(x, float):
        return x
    f = float(x) if abs(x) < 2**1024 else math.inf
    return f if math.isfinite(f) and Fraction(f) == x else x


SEPARATORS = ",、;"


def tokens(line: str) -> list[str]:
    """The numbers of one typed list as texts: commas, "、", ";", brackets and spaces separate them.
    Superscript powers are read first, as :func:`parse` reads them ("2³" is 2^3, not 23)."""
    t = ascii_text(_powers(line))
    for ch in SEPARATORS + "[]":
        t = t.replace(ch, " ")
    return t.split()


LIST_RULE = "数之间用逗号、顿号或空格分开，所以「1,5」是 1 和 5 两个数；小数点用「.」"


def numbers(text: str, what: str = "", where=None) -> list:
    """A typed list ("0.3, -1.2、2.7；0.05") as :func:`parse` values. ``what`` prefixes messages
    ("第 2 行的"); ``where(i)``, if given, names the i-th number in messages about it ("第 2 行第 3 列").
    Raises InputError naming the token it cannot read, or an empty item ("1,,2", "1, 2,")."""
    items = re.split(f"[{SEPARATORS}]", ascii_text(text).replace("[", " ").replace("]", " "))
    if len(items) > 1 and any(not item.strip() for item in items):
        raise InputError(
            f"{what.removesuffix('的')}有一项是空的（两个逗号之间、或开头结尾的逗号旁边没有数）：{LIST_RULE}"
        )
    out = []
    for i, tok in enumerate(tokens(text)):
        name = f"{where(i) if where else what}「{quote(tok)}」"
        try:
            out.append(parse(tok, name))
        except InputError as e:
            if str(e) == "unreadable":
                raise InputError(f"{name}不是数字：请输入十进制数，例如「0.1」「-3.5」「1e-8」") from None
            raise
    return out


def integer(v, name: str, lo: int, hi: int) -> int:
    """``v`` (an int, an integral float, or text such as "8,192" or "1e3") as an int in lo…hi.
    ``name`` is the Chinese name the message uses."""
    from c9.base import units

    if name[-1:].isascii() and name[-1:].isalnum():
        name += " "  # "序列长度 s 要是整数", but "随机种子要是整数"
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        raise InputError(f"{name}要是整数")
    if isinstance(v, str) and not v.strip():
        raise InputError(f"{name}不能为空，请填一个整数")
    if isinstance(v, str):
        shown = f"「{ascii_text(v).strip()[:20]}」"
    else:  # a JSON number: ∞ and NaN as the site writes them, not Python's "inf" / "nan"
        shown = brief(v) if isinstance(v, int) else units.sci(v, 6)
    outside = f"{name}要在 {units.number(lo)} 到 {units.number(hi)} 之间，收到的是"
    if isinstance(v, int):
        if not lo <= v <= hi:
            raise InputError(units.joined(outside, brief(v)))
        return v
    try:
        x = parse(v, name.strip())
    except InputError as e:
        too_long = (
            str(e) == "too_long" and isinstance(v, str) and ascii_text(v).strip().lstrip("+-").isdigit()
        )
        if too_long or str(e) == "too_big":  # more digits than any range here
            raise InputError(units.joined(outside, shown)) from None
        if "逗号" in e.message_zh:
            raise
        raise InputError(units.joined(f"{name}要是整数，收到的是", shown)) from None
    if isinstance(x, float):
        if x != 0:
            raise InputError(units.joined(f"{name}要是整数，收到的是", shown))
        x = Fraction(0)
    if x.denominator != 1:
        raise InputError(units.joined(f"{name}要是整数，收到的是", shown))
    n = x.numerator
    if not lo <= n <= hi:
        raise InputError(
            units.joined(outside, shown if isinstance(v, str) and abs(n) >= 10**30 else brief(n))
        )
    return n


def brief(v: int) -> str:
    """An integer for a message: "131,073", or "约 1×10²⁰" when it has more than 15 digits."""
    from c9.base import units

    return units.number(v) if abs(v) < 10**15 else f"约 {units.sci(v, 3)}"


def shown(v) -> str:
    """A parameter's value for a message: text quoted as sent (「-5」, cut to 20 characters), a number in
    reader notation (「−0.5」, 「1×10³⁰」), never a repr."""
    from c9.base import units

    if isinstance(v, str):
        return f"「{quote(v)}」"
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return "「…」"
    return f"「{brief(v) if isinstance(v, int) else units.sci(v, 6)}」"
