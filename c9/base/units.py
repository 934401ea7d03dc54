"""Display helpers. Units: GB = 10^9 bytes, GiB = 2^30 bytes, MB = 10^6 bytes, MiB = 2^20 bytes.

Rounding is half-up on the exact decimal of the value (not binary float rounding), so the page shows
what a reader computing by hand would get.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

GB = 10**9
GiB = 2**30
MB = 10**6
MiB = 2**20

UNITS = {"GB": GB, "GiB": GiB, "MB": MB, "MiB": MiB, "TB": 10**12, "TiB": 2**40, "B": 1}


def _units_at(x: Fraction, digits: int) -> int:
    """``x`` rounded half-up to ``digits`` decimals, counted in units of the last digit (exact integers:
    a Decimal sum would round at the context's 28 digits)."""
    fr = x * 10**digits
    q, r = divmod(abs(fr.numerator), fr.denominator)
    q += 2 * r >= fr.denominator
    return -q if fr < 0 else q


def round_half_up(x: int | float | Fraction, digits: int) -> Decimal:
    """``x`` rounded to ``digits`` decimals, ties away from zero, computed exactly (integer arithmetic on
    the exact fraction; raises ValueError/OverflowError for NaN/infinities)."""
    # from text: exact at any size (scaleb would round to the context's 28 digits: 2**127 → …303,700,000,…)
    return Decimal(f"{_units_at(Fraction(x), digits)}e{-digits}")


def number(x: int | float | Fraction, digits: int = 0) -> str:
    """``x`` with thousands separators and ``digits`` decimals: number(402653184) == '402,653,184'.
    A negative number gets the minus sign "−" (U+2212) of all reader text; one that rounds to 0 gets none."""
    d = round_half_up(x, digits)
    return f"{abs(d) if d.is_zero() else d:,.{digits}f}".replace("-", "−")


def exact_decimal(x: int | float | Fraction) -> str:
    """The exact decimal of a dyadic rational (every finite float is one), without separators and with
    the minus sign "−": exact_decimal(Fraction(3, 8)) == '0.375', exact_decimal(-2**-24) ==
    '−0.000000059604644775390625', exact_decimal(57344) == '57344'. Raises ValueError for a denominator
    that is not a power of two (its decimal never ends)."""
    fr = Fraction(x)
    n, d = abs(fr.numerator), fr.denominator
    if d & (d - 1):
        raise ValueError(f"{fr} has no finite binary expansion")
    k = d.bit_length() - 1  # d = 2^k, and n / 2^k = n·5^k / 10^k
    s = str(n * 5**k).rjust(k + 1, "0")
    text = (s[:-k] + "." + s[-k:]).rstrip("0").rstrip(".") if k else s
    return ("−" if fr < 0 else "") + text


def size(n_bytes: int | float, unit: str, digits: int = 1) -> str:
    """A byte count in ``unit`` (GB, GiB, MB, MiB, TB, TiB, B): size(174483046400, 'GiB') == '162.5 GiB'.

    Raises KeyError for an unknown unit.
    """
    return f"{number(Fraction(n_bytes) / UNITS[unit], digits)} {unit}"


def bounded_size(n_bytes: int | float, unit: str, digits: int = 1) -> str:
    """:func:`size` by the rule of :func:`share` for a count too small for ``digits``: one above 0 that
    rounds to 0 reads as the bound it is below, bounded_size(7680, 'GB') == '< 0.1 GB' (never '0.0 GB'
    beside a share that is not 0); exactly 0 reads '0.0 GB'."""
    if n_bytes > 0 and round_half_up(Fraction(n_bytes) / UNITS[unit], digits) == 0:
        return f"< {Decimal(1).scaleb(-digits)} {unit}"
    return size(n_bytes, unit, digits)


def auto_size(n_bytes: int | float, binary: bool = True, digits: int = 1) -> str:
    """A byte count in the largest unit that keeps the number at or above 1 (binary: KiB…TiB)."""
    base, names = (
        (1024, ["B", "KiB", "MiB", "GiB", "TiB", "PiB"])
        if binary
        else (1000, ["B", "KB", "MB", "GB", "TB", "PB"])
    )
    value, i = Fraction(n_bytes), 0
    while abs(value) >= base and i < len(names) - 1:
        value /= base
        i += 1
    return f"{number(value, 0 if i == 0 else digits)} {names[i]}"


def percent(part: int | float | Fraction, whole: int | float | Fraction, digits: int = 1) -> str:
    """``part / whole`` as a percentage: percent(1, 8) == '12.5%' (the rule of :func:`share`).
    Raises ZeroDivisionError if whole is 0."""
    return share(Fraction(part) / Fraction(whole), digits)


def share(ratio: int | float | Fraction, digits: int = 1) -> str:
    """A ratio as a percentage rounded to ``digits`` decimals that never reads as 0% or 100% when it is
    not: share(1/20000) == '< 0.1%', share(19999/20000) == '> 99.9%', share(1.0004) == '> 100.0%';
    exactly 0 and 1 read '0.0%' and '100.0%'. The one rule for every share the site prints. A negative
    share gets the rule on its magnitude, mirrored, with the minus sign "−": share(-1/20000) == '> −0.1%',
    share(-0.5) == '−50.0%'."""
    x = Fraction(ratio) * 100
    if x < 0:
        text = share(-x / 100, digits)
        mirrored = {"<": ">", ">": "<"}
        return (mirrored[text[0]] + " −" + text[2:]) if text[0] in mirrored else "−" + text
    shown = round_half_up(x, digits)
    step = Decimal(1).scaleb(-digits)
    if x > 0 and shown == 0:
        return f"< {step}%"
    if shown == 100 and x != 100:
        return f"> {100 - step}%" if x < 100 else f"> {shown:.{digits}f}%"
    return f"{shown:,.{digits}f}%"


def error_percent(x: int | float | Fraction) -> str:
    """A relative error |x − q| / |x| as a percentage, to about two significant digits, by the rule of
    :func:`share` (never 100% unless the value became 0): error_percent(1/6) == '16.7%', error_percent(0.0123)
    == '1.23%', error_percent(0.99996) == '> 99.9%'; "0%" only when exact, and below 0.1% in powers of
    ten, never "< 0.01%": error_percent(5.6e-8) == '5.6×10⁻⁶%'."""
    if x == 0:
        return "0%"
    if x >= Fraction(1, 1000):
        return share(x, 1 if x >= Fraction(1, 10) else 2)
    return f"{sci(Fraction(x) * 100, 2)}%"


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


_FULL_WIDTH = "\u3000-\u303f\uff01-\uff60"  # 。，；：「」（） …
_CJK = "\u4e00-\u9fff"


def joined(*parts: str) -> str:
    """The parts in order with the site's spacing at each seam: a space between Chinese and a number or
    Latin letters (「收到的是 1,048,577」, 「FP32 + AdamW 口径」), none beside full-width punctuation or between
    Chinese words (「收到的是约 1×10²⁰」, 「主权重（FP32）111.1 GB」). Empty parts are skipped."""
    out = ""
    for part in parts:
        if not out or not part:
            out += part
            continue
        a, b = out[-1:], part[:1]
        full_width = re.match(f"[{_FULL_WIDTH}]", a) or re.match(f"[{_FULL_WIDTH}]", b)
        both_cjk = re.match(f"[{_CJK}]", a) and re.match(f"[{_CJK}]", b)
        out += part if full_width or both_cjk else f" {part}"
    return out


def superscript_powers(text: str) -> str:
    """Integer powers written ASCII-style as typeset ones: "2^-24" → "2⁻²⁴", "3.4×10^38" → "3.4×10³⁸".
    A fractional power ("2^-9.8") stays as written: a superscript decimal point reads badly."""
    return re.sub(r"\^(-?\d+)(?![\d.])", lambda m: m.group(1).translate(_SUPERSCRIPT), text)


_SUPER_LETTER = str.maketrans("abcdeiklmnpstx", "ᵃᵇᶜᵈᵉⁱᵏˡᵐⁿᵖˢᵗˣ")


def reader_powers(text: str) -> str:
    """A formula's powers as a reader reads them: "2^-24" → "2⁻²⁴", "1 / 2^p" → "1 / 2ᵖ", and a power that
    has no superscript form in words: "2^(1 − β)" → "2 的 (1 − β) 次方", "2^位数" → "2 的位数次方"."""
    text = superscript_powers(text)
    text = re.sub(r"\^([a-z])(?![\w(])", lambda m: m.group(1).translate(_SUPER_LETTER), text)
    text = re.sub(r"\^(\([^()]*\))", r" 的 \1 次方", text)
    return re.sub(r"\^([\u4e00-\u9fff]+)", r" 的\1次方", text)


def sci(x: int | float | Fraction, digits: int = 3, zeros: bool = False) -> str:
    """``x`` to ``digits`` significant digits in reader notation, a power of ten written ×10ⁿ and a
    negative with "−": sci(1.5845632502852868e29) == '1.58×10²⁹', sci(-6.103515625e-05) == '−6.1×10⁻⁵',
    sci(0.5) == '0.5'; from the exact value (a Fraction beyond a float's range too). ``zeros`` keeps
    trailing zeros ('1.00×10³⁰'). The one way the site writes a number too big or small for digits."""
    if isinstance(x, float) and not math.isfinite(x):
        return "NaN" if x != x else "∞" if x > 0 else "−∞"
    fr = Fraction(x)
    if fr == 0:
        return "0"
    with localcontext() as ctx:  # half-up, as every number on the site (60 digits: beyond what is shown)
        ctx.prec, ctx.rounding = 60, ROUND_HALF_UP
        d = Decimal(fr.numerator) / Decimal(fr.denominator)
        mant, exp = f"{d:.{digits - 1}e}".split("e")
        exp = int(exp)
        plain = f"{d:.{max(digits - 1 - exp, 0)}f}"
    if -4 <= exp < digits:  # plain digits read best: 0.00195, 0.5
        text = plain
        if not zeros and "." in text:
            text = text.rstrip("0").rstrip(".")
        return text.replace("-", "−")
    if not zeros and "." in mant:
        mant = mant.rstrip("0").rstrip(".")
    return (f"{mant}×" + superscript_powers(f"10^{exp}")).replace("-", "−")


def power_of_two(e: int | float, digits: int = 1) -> str:
    """2 to the power ``e`` for a reader: an integer power as a superscript ('2⁻²⁴'), a fractional one
    in words ('2 的 −9.8 次方'): a superscript decimal point reads badly."""
    if float(e).is_integer():
        return superscript_powers(f"2^{int(e)}")
    return f"2 的 {number(Fraction(e), digits)} 次方"


# --- One unit per line of arithmetic ---------------------------------------------------------------
# The chapter's convention: model states in GB (10⁹ B); activations quoted in GiB (2³⁰ B), with the GB
# value beside them wherever they are added to model states. A sum is written in the unit of its parts,
# at the fewest decimals at which its parts as shown add up to its total as shown (:func:`sum_decimals`).

DECIMAL_UNITS = ["B", "KB", "MB", "GB", "TB"]
BINARY_UNITS = ["B", "KiB", "MiB", "GiB", "TiB"]
UNITS.update({"KB": 10**3, "KiB": 2**10})


def unit_for(n_bytes: int | float, binary: bool = False) -> str:
    """The largest unit (MB…TB, or MiB…TiB) in which ``n_bytes`` is at least 1; MB/MiB below that."""
    names = BINARY_UNITS if binary else DECIMAL_UNITS
    best = names[2]
    for name in names[2:]:
        if abs(n_bytes) >= UNITS[name]:
            best = name
    return best


def states_unit(n_bytes: int) -> str:
    """The unit for model states and for any sum they are part of: GB (MB for a model far below 1 GB)."""
    return "GB" if n_bytes >= GB else "MB"


def activation_quote(n_bytes: int, digits: int = 1) -> str:
    """Activations as the chapter quotes them: GiB (MiB below 1 GiB), e.g. '162.5 GiB'; written beside
    their GB value where they are added to model states: '174.5 GB（162.5 GiB）'."""
    return size(n_bytes, "GiB" if n_bytes >= GiB else "MiB", digits)


def _exact_at(x: Fraction) -> int | None:
    """The decimals at which ``x`` is written exactly, or None if its decimal never ends (1/3)."""
    d, twos, fives = x.denominator, 0, 0
    while d % 2 == 0:
        d, twos = d // 2, twos + 1
    while d % 5 == 0:
        d, fives = d // 5, fives + 1
    return max(twos, fives) if d == 1 else None


def _adds_up(sum_: list[Fraction], digits: int) -> bool:
    return sum(_units_at(x, digits) for x in sum_) == _units_at(sum(sum_, Fraction(0)), digits)


def adds_up(parts: list[int | Fraction], unit: str, digits: int) -> bool:
    """Whether ``parts``, each rounded half-up to ``digits`` decimals of ``unit``, add up to their exact sum
    rounded the same way."""
    scale = Fraction(1, UNITS[unit])
    return _adds_up([Fraction(p) * scale for p in parts], digits)


def shown_sum(parts: list[int | Fraction], unit: str, digits: int) -> str:
    """What ``parts``, each shown at ``digits`` decimals of ``unit``, add up to as shown: '174.4 GB' for the
    anchor's activations 45.6 + 128.8 GB (which are 174.483… GB, shown 174.5)."""
    n = sum(_units_at(Fraction(p, UNITS[unit]), digits) for p in parts)
    return f"{number(Fraction(n, 10**digits), digits)} {unit}"


def sum_decimals(
    sums: list[list[int | Fraction]], unit: str = "B", digits: int = 1, most: int | None = None
) -> int:
    """The fewest decimals, at least ``digits``, at which every sum in ``sums`` reads true in ``unit``. A
    sum is a list of parts (byte counts, or any exact numbers with unit "B"); its total is their exact sum.
    The rule for every sum the site prints (a + b = c, a table's total row, a − b = c as b + c = a): each
    part and the total are rounded half-up on their own, so the total is the true total rounded and equal
    values read equal, and the parts as shown add up exactly to the total as shown. Sums shown together
    (a table, a page's prose about it) are passed together, so that they share one precision and a value
    in two of them reads the same in both. For the build's fixed figures; a widget, whose sums change with
    the reader's input, takes :func:`readable_decimals`.

    Byte counts always reach it: at the decimals where every part is exact, rounding changes nothing (at
    most 9 for GB, 30 for GiB). Numbers whose decimals never end may not: past ``most`` decimals (by
    default ``digits`` + 9) it raises ValueError. sum_decimals([[2Ψ, 2Ψ, 4Ψ, 4Ψ, 4Ψ]], "GB") for the anchor's
    Ψ = 27,781,427,952 is 1 (55.6 + 55.6 + 111.1 × 3 = 444.5); for Llama-3.1-70B's Ψ = 70,553,706,496 it is
    3 (at 1: 141.1 × 2 + 282.2 × 3 = 1,128.8, but the total is 1,128.9)."""
    scale = Fraction(1, UNITS[unit])
    exact = [[Fraction(p) * scale for p in s] for s in sums]
    ends = [_exact_at(x) for s in exact for x in s]
    last = max(ends, default=digits) if None not in ends else digits + 9
    if most is not None:
        last = min(last, most)
    for d in range(digits, max(last, digits) + 1):
        if all(_adds_up(s, d) for s in exact):
            return d
    raise ValueError(f"no precision up to {last} decimals makes these sums add up as shown")


READABLE = 2  # decimals beyond the ones asked for that a widget may add so that its sums read true


def readable_decimals(
    sums: list[list[int | Fraction]], unit: str = "B", digits: int = 1, also: list[list[int | Fraction]] = ()
) -> int:
    """The rule of :func:`sum_decimals` within what a reader can read: of ``digits`` to ``digits`` +
    :data:`READABLE` decimals, the precision at which the most of ``sums`` read true, then the most of ``also`` (sums whose
    total the page does not print beside its parts: a list of a total's parts shown elsewhere), then the
    fewest decimals. A sum that does not read true there is one the page must say so of (:func:`shown_sum`
    gives what its parts make). Rows that are multiples of one size often need the byte count: Qwen3-8B's
    model states 2Ψ, 2Ψ, 4Ψ, 4Ψ, 4Ψ add up only at 8 decimals of GB, GPT-2 XL's activation table at
    s = 21,131 only at 32 decimals of TiB."""
    scale = Fraction(1, UNITS[unit])
    exact = [[Fraction(p) * scale for p in s] for s in sums]
    wished = [[Fraction(p) * scale for p in s] for s in also]

    def score(d: int) -> tuple:
        return (sum(_adds_up(s, d) for s in exact), sum(_adds_up(s, d) for s in wished), -d)

    return max(range(digits, digits + READABLE + 1), key=score)


def adding_up(parts: list[int], unit: str, digits: int = 1) -> tuple[list[str], str]:
    """Texts for ``parts`` and their sum in one ``unit``, at the fewest decimals (at least ``digits``) at
    which the shown parts add up exactly to the shown total, the total being the true total rounded
    (:func:`sum_decimals`). adding_up([2Ψ, 2Ψ, 4Ψ, 8Ψ], "GB") for the anchor: 55.56 + 55.56 + 111.13 +
    222.25 = 444.50 GB (at one decimal the rows would make 444.6 against a total of 444.5)."""
    d = sum_decimals([list(parts)], unit, digits)
    return [size(p, unit, d) for p in parts], size(sum(parts), unit, d)


def shares_adding_up(parts: list[int | Fraction], digits: int = 1) -> tuple[list[str], str]:
    """Each part's share of their sum as a percentage (the rule of :func:`share`: from the exact values),
    and the whole's 100%, at the fewest decimals (at least ``digits``, at most ``digits`` + :data:`READABLE`)
    at which the shares as shown add up to the 100% as shown: shares_adding_up([1, 1, 2]) == (['25.0%', '25.0%',
    '50.0%'], '100.0%'). Thirds never do (33.3% × 3): then at ``digits``. Raises ZeroDivisionError if the
    parts sum to 0."""
    whole = sum((Fraction(p) for p in parts), Fraction(0))
    ratios = [Fraction(p) / whole for p in parts]
    d = readable_decimals([[r * 100 for r in ratios]], "B", digits)
    return [share(r, d) for r in ratios], share(1, d)
