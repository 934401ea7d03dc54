"""Exact codecs for the number formats of chapter C9, as data.

Every format is one row of :data:`FORMATS`: a frozen :class:`Format` holding only its defining
numbers (exponent bits, mantissa bits, bias, signed or not, whether exponent field 0 is subnormal,
how the top codes are spent). Max, smallest normal, smallest subnormal and epsilon are derived
properties, never typed. A new format is one new row; no code branches on a format's name.

Canonical names follow ml_dtypes (``float8_e4m3fn``: ``fn`` = finite, no infinity; ``e8m0fnu`` =
finite, no sign); readable aliases (FP32, FP16, BF16, E4M3, E4M3FN, FP8, E5M2, E2M1, FP4, E8M0 ...)
resolve to the same rows, case-insensitively.

**E4M3 here is the finite OCP one** (``float8_e4m3fn``, OCP 8-bit Floating Point Specification
(OFP8) rev 1.0, §5.1): bias 7, no infinity, NaN only at S.1111.111, max 448. It is *not* the
IEEE-754-like E4M3 (``float8_e4m3``) that spends its top exponent on infinities and NaNs and stops
at 240.

Public API (``fmt`` is a :class:`Format` or any name/alias; ``code`` is a non-negative int below
``2**fmt.bits``; values are Python floats, ints or :class:`fractions.Fraction`):

- :func:`get_format`, :data:`FORMATS`, :func:`format_names`
- :func:`decode`, :func:`decode_exact`, :func:`code_points`
- :func:`encode`, :func:`encode_many`, :func:`round_value`  (round once, exactly, to nearest, ties to even)
- :func:`as_float32`, :func:`encode_via_float32`, :func:`round_via_float32`, :func:`two_roundings`,
  :func:`tie_neighbours`  (the seed's rule: FP32 first, then
  the format; and where one rounding of the exact value would give another code)
- :func:`fields`, :func:`classify`, :func:`power_of_two`, :func:`describe`, :func:`parse_code`
- :func:`next_up`, :func:`next_down`, :func:`ulp`, :func:`interval`
- :class:`CodecInputError` (a ValueError with a Chinese ``message_zh`` for the widgets)

Sources: IEEE 754-2019 (§3.3 binary formats, §4.3.1 roundTiesToEven, §5.3.1 nextUp/nextDown,
§7.4 overflow); OCP OFP8 rev 1.0 (§5.1 E4M3/E5M2 encodings, §5.3 saturation); OCP Microscaling
Formats (MX) v1.0 (§5.3 E2M1/E2M3/E3M2 element formats, §5.4.1 E8M0 scale).
Standard library only: runs unchanged in CPython 3.11+ and in Pyodide.
"""

from __future__ import annotations

import math
import numbers
import struct
import sys
from array import array
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from c9.base.typed import shown
from c9.base.units import exact_decimal, number

__all__ = [
    "CodecInputError",
    "UnknownFormatError",
    "Format",
    "Interval",
    "FORMATS",
    "get_format",
    "format_names",
    "decode",
    "decode_exact",
    "code_points",
    "encode",
    "encode_many",
    "round_value",
    "as_float32",
    "encode_via_float32",
    "round_via_float32",
    "TwoRoundings",
    "two_roundings",
    "tie_neighbours",
    "fields",
    "classify",
    "power_of_two",
    "describe",
    "parse_code",
    "next_up",
    "next_down",
    "ulp",
    "rounds_past_max",
    "interval",
]


class CodecInputError(ValueError):
    """Bad user input to a codec: ``str(e)`` is English, ``e.message_zh`` is shown by the widgets.

    ``e.kind`` is a stable key ("unknown_format", "code_out_of_range", "non_numeric", ...).
    """

    def __init__(self, message: str, message_zh: str, kind: str = "invalid_input"):
        super().__init__(message)
        self.message = message
        self.message_zh = message_zh
        self.kind = kind

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return self.message


class UnknownFormatError(CodecInputError, KeyError):
    """An unknown format name (both a ValueError and a KeyError)."""


# --------------------------------------------------------------------------- the table

#: How a format spends its top codes.
#: "ieee"   - exponent field all ones: mantissa 0 is ±infinity, anything else NaN (IEEE 754 §3.4).
#: "nan"    - no infinity; only the all-ones magnitude code (S.1111.111) is NaN (OFP8 E4M3, E8M0).
#: "finite" - every code is a finite number: no infinity, no NaN (MX E2M1, E2M3, E3M2).
TOP_CODE_RULES = ("ieee", "nan", "finite")


@dataclass(frozen=True)
class Format:
    """One binary floating-point format, by its defining numbers only.

    Value of a code with sign s, exponent field E, mantissa field M (``mantissa_bits`` stored bits,
    never counting the hidden bit or the sign):
    normal ``(-1)^s × 2^(E − bias) × (1 + M / 2^mantissa_bits)``; when ``subnormals`` and E = 0,
    ``(-1)^s × 2^(1 − bias) × (M / 2^mantissa_bits)``. ``top_codes`` is one of
    :data:`TOP_CODE_RULES`.
    """

    name: str
    exponent_bits: int
    mantissa_bits: int
    bias: int
    top_codes: str
    signed: bool = True
    subnormals: bool = True
    aliases: tuple[str, ...] = ()
    spec: str = ""
    note_zh: str = ""

    # -- layout
    @property
    def label(self) -> str:
        """The field's short name for a reader: FP16, BF16, E4M3, E2M1 (the first alias). The one table
        of reader names: every page and widget names a format by this or by :attr:`long_label`."""
        return self.aliases[0] if self.aliases else self.name

    @property
    def long_label(self) -> str:
        """The name with the width in front, where formats of several widths sit side by side (the bit
        flipper): FP8 E4M3, FP4 E2M1, FP6 E2M3; FP32, FP16, BF16 and the E8M0 scale as :attr:`label`."""
        short = self.label
        return f"FP{self.bits} {short}" if self.signed and short.startswith("E") else short

    @property
    def bits(self) -> int:
        """Total bits per code (sign + exponent + mantissa)."""
        return int(self.signed) + self.exponent_bits + self.mantissa_bits

    @property
    def n_codes(self) -> int:
        """Number of bit patterns, 2**bits."""
        return 1 << self.bits

    @property
    def sign_bit(self) -> int:
        """The mask of the sign bit (0 for an unsigned format)."""
        return (1 << (self.bits - 1)) if self.signed else 0

    @property
    def magnitude_mask(self) -> int:
        return (1 << (self.exponent_bits + self.mantissa_bits)) - 1

    # -- specials
    @property
    def has_inf(self) -> bool:
        return self.top_codes == "ieee"

    @property
    def has_nan(self) -> bool:
        return self.top_codes != "finite"

    @property
    def has_zero(self) -> bool:
        return self.subnormals

    @property
    def default_overflow(self) -> str:
        """What a too-large value becomes by default: "inf", "nan" or "saturate" (the only choice
        of a format with neither infinity nor NaN). IEEE 754 §7.4; OFP8 §5.3."""
        return "inf" if self.has_inf else ("nan" if self.has_nan else "saturate")

    @property
    def max_code(self) -> int:
        """Magnitude code of the largest finite value."""
        if self.top_codes == "ieee":
            return (((1 << self.exponent_bits) - 1) << self.mantissa_bits) - 1
        if self.top_codes == "nan":
            return self.magnitude_mask - 1
        return self.magnitude_mask

    @property
    def inf_code(self) -> int | None:
        return ((1 << self.exponent_bits) - 1) << self.mantissa_bits if self.has_inf else None

    @property
    def nan_code(self) -> int | None:
        """The canonical (quiet, positive) NaN code, or None."""
        if self.top_codes == "ieee":
            return self.inf_code | (1 << (self.mantissa_bits - 1))
        return self.magnitude_mask if self.top_codes == "nan" else None

    @property
    def emin(self) -> int:
        """Exponent of the smallest normal value, 1 − bias (−bias without subnormals)."""
        return 1 - self.bias if self.subnormals else -self.bias

    # -- derived values (exact Fractions; see ``*_float`` for floats)
    @property
    def max(self) -> float:
        """Largest finite value (derived by decoding :attr:`max_code`)."""
        return decode(self, self.max_code)

    @property
    def min_normal(self) -> float:
        """Smallest positive normal value, 2^emin."""
        return math.ldexp(1.0, self.emin)

    @property
    def min_subnormal(self) -> float:
        """Smallest positive value; equals :attr:`min_normal` for a format without subnormals."""
        return decode(self, 1) if self.subnormals else self.min_normal

    @property
    def epsilon(self) -> float:
        """Machine epsilon: the gap from 1 to the next larger value, 2^−mantissa_bits."""
        return math.ldexp(1.0, -self.mantissa_bits)

    @property
    def emax(self) -> int:
        """Exponent of the largest finite value, floor(log2(max))."""
        return math.frexp(self.max)[1] - 1

    # -- the tie rule
    @property
    def ties_up(self) -> bool:
        """Whether a tie always goes to the larger magnitude. With no stored mantissa bit (E8M0) every
        value's significand is 1, odd, so round-to-nearest-even sends the midpoint 1.5 × 2^k up to
        2^(k+1), as ml_dtypes' float8_e8m0fnu does (0.75 → 1, 3 → 4); with mantissa bits a tie goes
        to the neighbour whose last mantissa bit is 0, up or down."""
        return self.mantissa_bits == 0

    @property
    def tie_rule_zh(self) -> str:
        """The format's own tie rule in a few Chinese words, for the captions that state it."""
        if not self.ties_up:
            return "平局取偶"
        return "平局进到较大的 2 的幂" if not self.signed else "平局进到绝对值较大的一边"


def _row(name, e, m, bias, top, aliases, spec, *, signed=True, subnormals=True, note_zh=""):
    return Format(name, e, m, bias, top, signed, subnormals, tuple(aliases), spec, note_zh)


#: The format table: one row per format (ml_dtypes canonical names).
FORMATS: tuple[Format, ...] = (
    _row("float32", 8, 23, 127, "ieee", ("FP32", "F32", "binary32", "single"), "IEEE 754-2019 §3.6 binary32"),
    _row("float16", 5, 10, 15, "ieee", ("FP16", "F16", "binary16", "half"), "IEEE 754-2019 §3.6 binary16"),
    _row(
        "bfloat16",
        8,
        7,
        127,
        "ieee",
        ("BF16",),
        "bfloat16: the top 16 bits of binary32 (Google Brain; ml_dtypes bfloat16)",
    ),
    _row(
        "float8_e4m3fn",
        4,
        3,
        7,
        "nan",
        ("E4M3", "E4M3FN", "FP8", "FP8_E4M3", "FP8_E4M3FN", "F8E4M3FN"),
        "OCP 8-bit Floating Point Specification (OFP8) rev 1.0 §5.1, E4M3 (finite: max 448, "
        "NaN only S.1111.111, no infinity; not the IEEE-like E4M3 with max 240)",
        note_zh="OCP 的有限 E4M3：没有无穷大，只有 S.1111.111 是 NaN，最大值 448。",
    ),
    _row(
        "float8_e5m2",
        5,
        2,
        15,
        "ieee",
        ("E5M2", "FP8_E5M2", "F8E5M2"),
        "OCP OFP8 rev 1.0 §5.1, E5M2 (IEEE-like: infinities and NaNs, max 57344)",
    ),
    _row(
        "float6_e2m3fn",
        2,
        3,
        1,
        "finite",
        ("E2M3", "FP6_E2M3", "FP6"),
        "OCP Microscaling Formats (MX) v1.0 §5.3.2, FP6 E2M3 (no Inf, no NaN, max 7.5)",
    ),
    _row(
        "float6_e3m2fn",
        3,
        2,
        3,
        "finite",
        ("E3M2", "FP6_E3M2"),
        "OCP Microscaling Formats (MX) v1.0 §5.3.2, FP6 E3M2 (no Inf, no NaN, max 28)",
    ),
    _row(
        "float4_e2m1fn",
        2,
        1,
        1,
        "finite",
        ("E2M1", "FP4", "FP4_E2M1", "F4E2M1FN"),
        "OCP Microscaling Formats (MX) v1.0 §5.3.3, FP4 E2M1 (no Inf, no NaN, max 6)",
    ),
    _row(
        "float8_e8m0fnu",
        8,
        0,
        127,
        "nan",
        ("E8M0", "UE8M0", "FP8_E8M0"),
        "OCP Microscaling Formats (MX) v1.0 §5.4.1, E8M0 scale (unsigned power of two "
        "2^-127 … 2^127, 0xFF is NaN, no zero)",
        signed=False,
        subnormals=False,
    ),
)


def _norm(name: str) -> str:
    return name.lower().replace("_", "").replace("-", "").replace(" ", "")


_BY_NAME: dict[str, Format] = {}
for _f in FORMATS:
    for _n in (_f.name,) + _f.aliases:
        _BY_NAME[_norm(_n)] = _f
    _BY_NAME[_norm(_f.name.replace("float", "fp", 1))] = _f  # fp8_e4m3fn, fp16 ...


def format_names() -> list[str]:
    """Canonical names of all formats, in table order."""
    return [f.name for f in FORMATS]


def get_format(fmt: Format | str) -> Format:
    """The :class:`Format` for a name or alias (case-insensitive; ``_``/``-`` ignored).

    Raises :class:`UnknownFormatError` (a ValueError and a KeyError) for an unknown name.
    """
    if isinstance(fmt, Format):
        return fmt
    if isinstance(fmt, str):
        f = _BY_NAME.get(_norm(fmt))
        if f is not None:
            return f
    known = ", ".join(format_names())
    # The reader sees the field's short names (FP16, E4M3), the codec's own names stay in the English text.
    known_zh = "、".join(f.label for f in FORMATS)
    shown = str(fmt).strip()[:20]
    raise UnknownFormatError(
        f"unknown number format {fmt!r}; known formats: {known}",
        f"没有「{shown}」这种数字格式；可选：{known_zh}",
        "unknown_format",
    )


# --------------------------------------------------------------------------- decode


def _check_code(f: Format, code) -> int:
    if isinstance(code, bool) or not isinstance(code, int):
        raise CodecInputError(
            f"{f.name} code must be an int, got {type(code).__name__} {code!r}",
            f"{f.label} 的编码必须是整数，收到的是{shown(code)}",
            "non_numeric",
        )
    if not 0 <= code < f.n_codes:
        raise CodecInputError(
            f"{f.name} code {code} is out of range: a {f.bits}-bit code lies in 0 … {f.n_codes - 1}",
            f"{f.label} 的编码 {number(code)} 超出范围：{f.bits} 位编码只能是 0 … {number(f.n_codes - 1)}"
            f"（十六进制 0 … {f.n_codes - 1:X}）",
            "code_out_of_range",
        )
    return code


def _decode_compute(f: Format, code: int) -> float:
    neg = bool(code & f.sign_bit)
    mag = code & f.magnitude_mask
    man = f.mantissa_bits
    e_field = mag >> man
    m = mag & ((1 << man) - 1)
    if f.top_codes == "ieee" and e_field == (1 << f.exponent_bits) - 1:
        v = math.inf if m == 0 else math.nan
    elif f.top_codes == "nan" and mag == f.magnitude_mask:
        v = math.nan
    elif f.subnormals and e_field == 0:
        v = math.ldexp(m, 1 - f.bias - man)
    else:
        v = math.ldexp((1 << man) | m, e_field - f.bias - man)
    return -v if neg else v


_TABLES: dict[str, tuple[float, ...]] = {}


def code_points(fmt) -> tuple[float, ...]:
    """The decoded value of every code ``0 … 2**bits − 1`` (formats of at most 16 bits; cached).

    Raises CodecInputError for a wider format (FP32 has 2^32 codes).
    """
    f = get_format(fmt)
    t = _TABLES.get(f.name)
    if t is None:
        if f.bits > 16:
            raise CodecInputError(
                f"{f.name} has {f.n_codes} codes; code_points lists formats of at most 16 bits",
                f"{f.label} 有 {number(f.n_codes)} 个编码，太多，无法逐一列出",
                "too_many_codes",
            )
        t = _TABLES[f.name] = tuple(_decode_compute(f, c) for c in range(f.n_codes))
    return t


_MIDS: dict[str, list] = {}


def _saturating_midpoints(f: Format) -> list:
    """Sorted midpoints between consecutive positive values (magnitude codes 0 … max_code) of a
    format of at most 16 bits: for a magnitude a, ``bisect_left(mids, a)`` is its saturating code
    unless ``a`` equals a midpoint (a tie, decided by the caller). Cached."""
    m = _MIDS.get(f.name)
    if m is None:
        t = code_points(f)
        m = _MIDS[f.name] = [(t[c] + t[c + 1]) / 2 for c in range(f.max_code)]
    return m


def decode(fmt, code: int) -> float:
    """The value of ``code`` in ``fmt`` as a Python float (exact: every value of every format here
    fits a float64). NaN codes give ``nan`` (negative sign kept), infinity codes ``±inf``.

    Raises CodecInputError for a non-int code or one outside ``0 … 2**bits − 1``;
    UnknownFormatError for an unknown format. IEEE 754-2019 §3.4; OFP8 §5.1; MX v1.0 §5.3.
    """
    f = get_format(fmt)
    _check_code(f, code)
    if f.bits <= 16:
        return code_points(f)[code]
    return _decode_compute(f, code)


def decode_exact(fmt, code: int) -> Fraction:
    """The exact value of a finite code as a Fraction; raises CodecInputError for Inf/NaN codes."""
    v = decode(fmt, code)
    if math.isinf(v) or math.isnan(v):
        raise CodecInputError(
            f"{get_format(fmt).name} code {code:#x} is {v}, not a finite number",
            f"编码 {code:X}（十六进制）是{'非数 NaN' if math.isnan(v) else '无穷大'}，不是有限数",
            "not_finite",
        )
    return Fraction(v)


# --------------------------------------------------------------------------- encode


def _saturating(f: Format, overflow) -> bool:
    if overflow is None or overflow == "default":
        return f.default_overflow == "saturate"
    if overflow == "saturate":
        return True
    if overflow == f.default_overflow:  # "inf" / "nan" spelled out
        return False
    raise CodecInputError(
        f"overflow must be 'default' or 'saturate' (format default for {f.name}: "
        f"{f.default_overflow!r}), got {overflow!r}",
        f"溢出模式只能是「default」或「saturate」，收到的是{shown(overflow)}",
        "bad_overflow_mode",
    )


def _nan_result(f: Format, neg: bool) -> int:
    if not f.has_nan:
        raise CodecInputError(
            f"{f.name} has no NaN: a NaN input cannot be encoded (NaN never becomes a finite value)",
            f"{f.label} 没有 NaN，无法编码 NaN（NaN 不会变成有限数）",
            "nan_unrepresentable",
        )
    return f.nan_code | (f.sign_bit if neg else 0)


def _overflow_code(f: Format, neg: bool, saturate: bool) -> int:
    if not f.signed and neg:
        return f.nan_code
    s = f.sign_bit if neg else 0
    if saturate or not f.has_nan:
        return f.max_code | s
    if f.has_inf:
        return f.inf_code | s
    return f.nan_code | s


def round_magnitude(f: Format, neg: bool, n: int, d: int, shift: int, saturate: bool) -> int:
    """Code of the value ±(n/d)·2^shift (n, d > 0 ints), rounded once to nearest, ties to even (also
    blockscale's exact rounding of a scaled value)."""
    if not f.signed and neg:
        return f.nan_code
    e = n.bit_length() - d.bit_length()
    if e >= 0:
        if n < (d << e):
            e -= 1
    elif (n << -e) < d:
        e -= 1
    e += shift  # e = floor(log2 |x|), exactly
    man = f.mantissa_bits
    emin = f.emin
    ec = e if e > emin else emin  # below the normals the quantum stays 2^(emin-man)
    t = shift + man - ec  # |x| / 2^(ec-man) = n/d · 2^t
    if d == 1:
        if t >= 0:
            q = n << t
        else:
            q = n >> -t
            r = n & ((1 << -t) - 1)
            half = 1 << (-t - 1)
            if r > half or (r == half and q & 1):
                q += 1
    else:
        if t >= 0:
            q, r = divmod(n << t, d)
        else:
            d <<= -t
            q, r = divmod(n, d)
        r2 = r << 1
        if r2 > d or (r2 == d and q & 1):
            q += 1
    code = ((ec + f.bias - 1) << man) + q  # a carry out of the mantissa bumps the exponent
    if code > f.max_code:  # overflow is decided after rounding (IEEE §7.4)
        return _overflow_code(f, neg, saturate)
    if code < 0:  # no subnormals and no zero: nearest is the minimum
        code = 0
    return code | f.sign_bit if neg else code


def _non_numeric(x, where: str = "") -> CodecInputError:
    return CodecInputError(
        f"not a number{where}: {x!r} (expected int, float or fractions.Fraction)",
        f"不是数字{where}：{shown(x)}",
        "non_numeric",
    )


def encode(fmt, x, overflow: str = "default") -> int:
    """The code of ``x`` in ``fmt``: rounded once, exactly, to nearest, ties to even
    (IEEE 754-2019 §4.3.1 roundTiesToEven; OFP8 §5.3; MX v1.0 §5.3).

    ``x``: int, float, :class:`fractions.Fraction` (or any numbers.Rational / Decimal / Real).
    No double rounding: the exact value is rounded straight to ``fmt`` (never through float32). What the
    widgets store follows the seed's rule instead, FP32 first: :func:`encode_via_float32`.

    ``overflow``: "default" - the format's own rule, decided after rounding: E4M3FN and E8M0 give
    NaN, FP32/FP16/BF16/E5M2 give ±infinity, E2M1/E2M3/E3M2 (no Inf, no NaN) saturate;
    "saturate" - clamp to ±max (what most training kernels do); ±infinity inputs also become ±max.

    Signed zero survives; a negative value that underflows gives −0. NaN never becomes finite:
    NaN input gives NaN, or raises CodecInputError if the format has no NaN (E2M1, E2M3, E3M2).
    For unsigned E8M0 (no zero, no sign) zero and negative inputs give NaN (as ml_dtypes does) and
    tiny positive values give the smallest scale 2^-127; with 0 mantissa bits a tie 1.5·2^k goes to
    the even significand, i.e. up to 2^(k+1) (as ml_dtypes does).

    Returns an int in ``0 … 2**bits − 1``. Raises CodecInputError for a non-numeric ``x`` or a bad
    ``overflow``; UnknownFormatError for an unknown format.
    """
    f = get_format(fmt)
    saturate = _saturating(f, overflow)
    if isinstance(x, float):
        x = float(x)
        if x != x:
            return _nan_result(f, math.copysign(1.0, x) < 0)
        neg = math.copysign(1.0, x) < 0
        if x == 0.0:
            return (f.sign_bit if neg else 0) if f.has_zero else f.nan_code
        if x == math.inf or x == -math.inf:
            if saturate or not f.has_inf:
                return _overflow_code(f, neg, saturate)
            return _overflow_code(f, neg, False)
        m, e = math.frexp(-x if neg else x)
        return round_magnitude(f, neg, int(m * 9007199254740992.0), 1, e - 53, saturate)
    if isinstance(x, bool):
        raise _non_numeric(x)
    if isinstance(x, int):
        n, d = x, 1
    elif isinstance(x, Fraction):
        n, d = x.numerator, x.denominator
    elif isinstance(x, numbers.Rational):
        n, d = x.numerator, x.denominator
    elif isinstance(x, Decimal):
        if not x.is_finite():
            return encode(f, float(x), overflow)
        fr = Fraction(x)
        n, d = fr.numerator, fr.denominator
    elif isinstance(x, numbers.Real):
        return encode(f, float(x), overflow)
    else:
        raise _non_numeric(x)
    if n == 0:
        return 0 if f.has_zero else f.nan_code
    neg = n < 0
    return round_magnitude(f, neg, -n if neg else n, d, 0, saturate)


_FAST: dict = {}


def _fast_table(f: Format, saturate: bool):
    """(table, shift, ties) for encoding floats of a format with at most 3 mantissa bits by the
    float64 bit pattern: ``table[bits >> shift]`` is the code of every float in the bucket
    (sign, exponent, top mantissa+1 bits) except a float equal to a member of ``ties`` (the
    format's rounding midpoints, where the exact value decides). Non-finite floats excluded.
    Built once per format and mode from :func:`encode` on one interior point per bucket."""
    key = (f.name, saturate)
    r = _FAST.get(key)
    if r is None:
        m = f.mantissa_bits
        shift = 52 - (m + 1)
        per_exp = 1 << (m + 1)
        mode = "saturate" if saturate else "default"
        lo_e = f.emin - m - 2  # at or below: every value rounds to ±0 / min
        hi_e = f.emax + 1  # above: saturate or overflow
        table = []
        for sign in (0, 1):
            sg = -1.0 if sign else 1.0
            low = [encode(f, sg * math.ldexp(1.5, lo_e - 1), mode)] * per_exp
            high = [encode(f, sg * math.ldexp(1.5, hi_e + 1), mode)] * per_exp
            special = [encode(f, sg * math.inf, mode) if f.has_nan or saturate else 0] * per_exp
            for e64 in range(2048):
                e = e64 - 1023
                if e64 == 2047:
                    table += special  # never used: callers pass finite floats
                elif e < lo_e:
                    table += low
                elif e > hi_e:
                    table += high
                else:
                    for b in range(per_exp):
                        table.append(encode(f, sg * math.ldexp(1 + (b + 0.5) / per_exp, e), mode))
        t = code_points(f)
        vals = sorted({v for v in t if v == v and not math.isinf(v) and v > 0})
        ties = {(a + b) / 2 for a, b in zip(vals, vals[1:])}
        if f.has_zero:
            ties.add(vals[0] / 2)
        if not saturate:
            ties.add(vals[-1] + ulp(f, vals[-1]) / 2)
        ties |= {-x for x in ties}
        r = _FAST[key] = (table, shift, ties)
    return r


#: Index of a float64's most significant 16-bit word in an ``array("H")`` view of its bytes, and
#: the byte offset of its low 48 bits (sign + 11 exponent bits + top 4 mantissa bits sit on top).
_TOP16 = 3 if sys.byteorder == "little" else 0
_LOW48 = 0 if sys.byteorder == "little" else 2
_ZERO6 = bytes(6)
_FAST16: dict = {}


def fast_table16(f: Format, saturate: bool):
    """(table16, ties): :func:`_fast_table` re-keyed by the top 16 bits of the float64 pattern (the fast
    path of :func:`encode_many` and of blockscale's quantisers).

    Those 16 bits cover sign, exponent and the top 4 mantissa bits, i.e. at least the m + 1 bits
    that :func:`_fast_table` buckets on for m <= 3, so each 16-bit bucket lies inside one of its
    buckets. Reading the top words is a C-level slice of an ``array("H")``, where a shift per
    element would build a Python int per element (that shift was the costliest step in Pyodide).
    Every tie has at most 4 significant mantissa bits, so its low 48 bits are zero (checked here):
    :func:`codes16` uses that to find candidate ties with a C-level byte search."""
    key = (f.name, saturate)
    r = _FAST16.get(key)
    if r is None:
        table, shift, ties = _fast_table(f, saturate)
        k = shift - 48
        tab16 = [table[h >> k] for h in range(1 << 16)]
        low = (1 << 48) - 1
        if any(b & low for b in _float_bits(sorted(ties))):
            raise AssertionError(f"{f.name}: a rounding midpoint has more than 4 mantissa bits")
        r = _FAST16[key] = (tab16, ties)
    return r


def codes16(tab16, ties, ps, exact) -> list:
    """Codes of the finite floats ``ps`` by their top 16 bits; ``exact(j)`` re-decides any
    ``ps[j]`` that is a rounding midpoint (a tie). A tie's low 48 bits are zero, so it shows as
    six zero bytes at its own offset: the C-level ``bytes.find`` skips everything else, and only
    the hits (zeros, round numbers) are looked up in ``ties``. Many hits: one set test instead."""
    raw = array("d", ps).tobytes()
    words = array("H")
    words.frombytes(raw)
    qs = [tab16[h] for h in words[_TOP16::4]]
    i = raw.find(_ZERO6)
    hits = 0
    while i >= 0:
        a = i + (_LOW48 - i) % 8  # the first float-aligned offset at or after i
        if a == i:
            hits += 1
            if hits > 64:  # e.g. a sparse tensor: stop testing one by one
                if not ties.isdisjoint(ps):
                    for j, p in enumerate(ps):
                        if p in ties:
                            qs[j] = exact(j)
                break
            j = (i - _LOW48) >> 3
            if ps[j] in ties:
                qs[j] = exact(j)
            a += 8
        i = raw.find(_ZERO6, a)
    return qs


def encode_many(fmt, xs, overflow: str = "default") -> list:
    """``[encode(fmt, x, overflow) for x in xs]``, faster for lists of floats in formats with at
    most 3 mantissa bits (FP8, FP6, FP4): a table lookup on the float64 bits, with exact
    :func:`encode` for ties, non-floats and non-finite values. Same results, same errors."""
    f = get_format(fmt)
    sat = _saturating(f, overflow)
    xs = list(xs)
    if (
        f.mantissa_bits > 3
        or not f.signed
        or not xs
        or set(map(type, xs)) != {float}
        or not math.isfinite(sum(xs))
    ):
        return [encode(f, x, overflow) for x in xs]
    tab16, ties = fast_table16(f, sat)
    return codes16(tab16, ties, xs, lambda j: encode(f, xs[j], overflow))


def _float_bits(xs):
    """The IEEE 754 binary64 bit patterns of a list of floats, as an array of ints."""
    a = array("d", xs)
    b = array("Q")
    b.frombytes(a.tobytes())
    return b


def round_value(fmt, x, overflow: str = "default") -> float:
    """``decode(encode(x))``: ``x`` rounded to the nearest value of ``fmt`` (a float, or ±inf/nan).

    Example: ``round_value("bf16", 257) == 256.0``; ``round_value("fp16", 70000) == inf``.
    """
    f = get_format(fmt)
    return decode(f, encode(f, x, overflow))


# --------------------------------------------------------------------------- the seed's rule: FP32 first


_PACK32 = struct.Struct("f")


def as_float32(x) -> float:
    """``x`` as FP32 holds it: rounded once, exactly, to the nearest float32 (ties to even, ±∞ past
    FP32's range); ±0, ±∞ and NaN keep their sign. The float is the FP32 value exactly.

    Fast path: C's float64 → float32 cast of the float nearest ``x``. That is one rounding for a float;
    for a rational it is two, and they agree unless the float lands exactly on a float32 midpoint
    (rounding to float64 never crosses one, as every float32 midpoint is a float64): then, and for
    non-finite or out-of-range values, the exact codec decides."""
    if type(x) in _FAST32:
        try:
            x64 = float(x)
            y = _PACK32.unpack(_PACK32.pack(x64))[0]
        except OverflowError:  # past FP32's range, or a rational past float64's
            y = None
        if y is not None and math.isfinite(x64) and (type(x) is float or y == x64 or not _f32_tie(x64, y)):
            return y
    return round_value(FORMATS[0], x)


_FAST32 = (float, int, Fraction)


def _f32_tie(x64: float, y: float) -> bool:
    """Whether ``x64`` lies exactly halfway between the float32 ``y`` and its other neighbour ``z``:
    then z = 2·x64 − y is exact in float64 and is itself a float32."""
    z = 2 * x64 - y
    try:
        return z != y and _PACK32.unpack(_PACK32.pack(z))[0] == z
    except OverflowError:  # z is past FP32's range: no float32
        return False


def encode_via_float32(fmt, x, overflow: str = "default") -> int:
    """The code of ``x`` in ``fmt`` by the seed's 数字口径: ``x`` is stored as FP32 first, as every
    training framework holds a number, then rounded to ``fmt`` (what PyTorch and ml_dtypes do with a
    float64 input). For FP32 itself this is :func:`encode`. Two roundings can differ from one
    (:func:`two_roundings`): FP32 may land ``x`` exactly on one of ``fmt``'s midpoints, where the tie
    rule then decides, or flush it to 0 in a format without zero (E8M0 then gives NaN)."""
    return encode(fmt, as_float32(x), overflow)


def round_via_float32(fmt, x, overflow: str = "default") -> float:
    """``decode(encode_via_float32(x))``: what ``fmt`` holds of ``x`` by the seed's rule, as a float.
    Example: ``round_via_float32("bf16", Fraction("257.0000001")) == 256.0`` (one rounding: 258)."""
    f = get_format(fmt)
    return decode(f, encode_via_float32(f, x, overflow))


@dataclass(frozen=True)
class TwoRoundings:
    """``x`` stored in a format both ways: ``float32`` is x as FP32 holds it, ``code`` the format's
    code of that (the seed's rule), ``direct`` the code of one rounding of the exact x."""

    float32: float
    code: int
    direct: int

    @property
    def differ(self) -> bool:
        """Whether one rounding of the exact value would store another code (double rounding)."""
        return self.code != self.direct


def two_roundings(fmt, x, overflow: str = "default") -> TwoRoundings:
    """:func:`encode_via_float32` and :func:`encode` of ``x`` side by side (the same errors as encode)."""
    f = get_format(fmt)
    x32 = as_float32(x)
    return TwoRoundings(x32, encode(f, x32, overflow), encode(f, x, overflow))


def tie_neighbours(fmt, x) -> tuple[int, int] | None:
    """The codes of the two neighbouring finite values that ``x`` lies exactly halfway between (the
    smaller magnitude first, sign of x), or None when ``x`` is no midpoint of ``fmt`` (or not finite)."""
    f = get_format(fmt)
    if isinstance(x, float) and not math.isfinite(x):
        return None
    a = abs(_to_fraction(x))
    neg = x < 0
    code = encode(f, a, "saturate")
    if a == 0 or classify(f, code) == "nan":
        return None
    v = decode_exact(f, code)
    other = next_up(f, code) if a > v else next_down(f, code)
    if other is None or classify(f, other) in ("nan", "infinity"):
        return None
    w = decode_exact(f, other)
    if (v + w) / 2 != a:
        return None
    lo, hi = sorted((code, other), key=lambda c: decode_exact(f, c))
    s = f.sign_bit if neg else 0
    return lo | s, hi | s


# --------------------------------------------------------------------------- the bit view


def classify(fmt, code: int) -> str:
    """ "zero", "subnormal", "normal", "infinity" or "nan" (IEEE 754-2019 §5.7.2 class)."""
    f = get_format(fmt)
    v = decode(f, code)
    if v != v:
        return "nan"
    if math.isinf(v):
        return "infinity"
    if v == 0:
        return "zero"
    if f.subnormals and ((code & f.magnitude_mask) >> f.mantissa_bits) == 0:
        return "subnormal"
    return "normal"


def fields(fmt, code: int) -> dict:
    """Split ``code`` into its fields for the bit view.

    Returns ``{"sign": 0|1|None, "exponent": int, "mantissa": int, "sign_bits": "0"|"",
    "exponent_bits": "0111", "mantissa_bits": "110", "bits": "0.0111.110"}`` (``sign`` is None for
    an unsigned format). Mantissa bits count the stored bits only (no hidden bit, no sign).
    """
    f = get_format(fmt)
    _check_code(f, code)
    man, eb = f.mantissa_bits, f.exponent_bits
    e_field = (code & f.magnitude_mask) >> man
    m = code & ((1 << man) - 1)
    sign = (1 if code & f.sign_bit else 0) if f.signed else None
    sb = str(sign) if f.signed else ""
    xb = format(e_field, f"0{eb}b")
    mb = format(m, f"0{man}b") if man else ""
    return {
        "sign": sign,
        "exponent": e_field,
        "mantissa": m,
        "sign_bits": sb,
        "exponent_bits": xb,
        "mantissa_bits": mb,
        "bits": ".".join(p for p in (sb, xb, mb) if p),
    }


def power_of_two(fmt, code: int) -> str:
    """The exact value of ``code`` as a power-of-two expression, e.g. ``"1.75 × 2^8"`` for E4M3
    0x7E (= 448), ``"-0.5 × 2^-6"`` for a subnormal, ``"2^-127"`` for E8M0 0x00, ``"0"``/``"-0"``,
    ``"inf"``/``"-inf"``, ``"NaN"``. The significand is printed as its exact decimal.
    """
    f = get_format(fmt)
    c = classify(f, code)
    neg = bool(code & f.sign_bit)
    s = "-" if neg else ""
    if c == "nan":
        return "NaN"
    if c == "infinity":
        return s + "inf"
    if c == "zero":
        return s + "0"
    fl = fields(f, code)
    man = f.mantissa_bits
    if c == "subnormal":
        sig, e = Fraction(fl["mantissa"], 1 << man), 1 - f.bias
    else:
        sig, e = 1 + Fraction(fl["mantissa"], 1 << man), fl["exponent"] - f.bias
    if man == 0:
        return f"{s}2^{e}"
    return f"{s}{exact_decimal(sig)} × 2^{e}"


def describe(fmt, code: int) -> dict:
    """Everything the bit view shows for one code: fields, class, value, expression.

    ``value`` is a float (``inf``/``nan`` as floats); ``value_text`` the shortest decimal that
    round-trips (``repr``), or "inf"/"-inf"/"NaN".
    """
    f = get_format(fmt)
    v = decode(f, code)
    d = fields(f, code)
    d.update(
        format=f.name,
        code=code,
        hex=f"0x{code:0{(f.bits + 3) // 4}X}",
        cls=classify(f, code),
        value=v,
        expression=power_of_two(f, code),
        value_text=("NaN" if v != v else repr(v)),
    )
    return d


def parse_code(fmt, text: str) -> int:
    """A code typed by a reader: hex ("0x7E", or bare "7e", "3C00": a code field reads hex), binary
    ("0b0111_1110", "0.1111.110"), or decimal with a "0d" prefix ("0d15360"). The digit count must
    fit the format. Raises CodecInputError otherwise."""
    f = get_format(fmt)
    if not isinstance(text, str):
        raise _non_numeric(text)
    t = text.strip().lower().replace("_", "").replace(" ", "")
    # A minus is read, so that −1 is told it is below 0 rather than that it has too many digits.
    negative = t[:1] in ("-", "−")
    t = t[1:] if negative else t
    try:
        if t.startswith("0b") or (t and set(t) <= set("01.") and "." in t):
            digits = t[2:] if t.startswith("0b") else t.replace(".", "")
            digits = digits.replace(".", "")
            if len(digits) > f.bits:
                raise ValueError
            code = int(digits, 2)
        elif t.startswith("0d"):
            code = int(t[2:], 10)
        else:
            digits = t[2:] if t.startswith("0x") else t
            if not digits or len(digits) > (f.bits + 3) // 4:
                raise ValueError
            code = int(digits, 16)
        if set(t) & set("+-−"):  # one leading minus only: int() would take another sign
            raise ValueError
    except ValueError:
        raise CodecInputError(
            f"cannot read {text!r} as a {f.bits}-bit {f.name} code (use hex 0x.. with at most "
            f"{(f.bits + 3) // 4} digits, or binary 0b.. with at most {f.bits} bits)",
            f"无法把「{text}」读成 {f.bits} 位的编码：十六进制最多 {(f.bits + 3) // 4} 位（如 1 的编码 {encode(f, 1):0{(f.bits + 3) // 4}X}），"
            f"二进制写成 0b… 最多 {f.bits} 位",
            "bad_code_text",
        ) from None
    return _check_code(f, -code if negative else code)


# --------------------------------------------------------------------------- neighbours


def next_up(fmt, code: int) -> int | None:
    """Code of the next larger value (IEEE 754-2019 §5.3.1 nextUp): ±0 → smallest positive,
    max → +inf (or None when the format has no infinity), +inf → +inf, NaN → the same NaN code,
    −smallest subnormal → −0. Returns None when no larger value exists."""
    f = get_format(fmt)
    _check_code(f, code)
    c = classify(f, code)
    if c == "nan":
        return code
    neg = bool(code & f.sign_bit)
    mag = code & f.magnitude_mask
    if c == "zero":
        return 1 if f.subnormals else None
    if not neg:
        if c == "infinity":
            return code
        if mag == f.max_code:
            return f.inf_code if f.has_inf else None
        return code + 1
    # negative: magnitude shrinks
    if c == "infinity":
        return f.max_code | f.sign_bit
    return code - 1


def next_down(fmt, code: int) -> int | None:
    """Code of the next smaller value (IEEE nextDown); mirror of :func:`next_up`. Returns None
    when no smaller value exists (e.g. −max of a format without −inf, or E8M0's 2^-127)."""
    f = get_format(fmt)
    _check_code(f, code)
    if not f.signed:
        c = classify(f, code)
        if c == "nan":
            return code
        return code - 1 if code > 0 else None
    r = next_up(f, code ^ f.sign_bit)
    return None if r is None else r ^ f.sign_bit


def _to_fraction(x, what: str = "") -> Fraction:
    if isinstance(x, bool) or not isinstance(x, (numbers.Real, Decimal)):
        raise _non_numeric(x, what)
    if isinstance(x, float) or not isinstance(x, (numbers.Rational, Decimal)):
        x = float(x)
        if not math.isfinite(x):
            raise CodecInputError(
                f"expected a finite number{what}, got {x!r}",
                f"需要有限数{what}，收到的是{shown(x)}",
                "not_finite",
            )
    return Fraction(x)


def ulp(fmt, x) -> float:
    """Unit in the last place of ``fmt`` at the real value ``x``: the gap between consecutive
    values of the binade that contains |x|, 2^(max(floor(log2|x|), emin) − mantissa_bits)
    (subnormal spacing at and below the smallest normal; ``ulp(fmt, 0)`` is the smallest
    subnormal). Beyond max it continues the top binade's spacing. A power of two, as a float.
    Raises CodecInputError for a non-finite or non-numeric x."""
    f = get_format(fmt)
    a = abs(_to_fraction(x))
    if a == 0:
        e = f.emin
    else:
        n, d = a.numerator, a.denominator
        e = n.bit_length() - d.bit_length()
        if (n << max(0, -e)) < (d << max(0, e)):
            e -= 1
        e = max(e, f.emin)
    return math.ldexp(1.0, e - f.mantissa_bits)


def rounds_past_max(fmt, a) -> bool:
    """True when the magnitude ``a`` rounds (to nearest, ties to even, unbounded exponent) above the
    largest finite value: what an encoder then clamps or overflows (saturating mode, or E2M1, which has
    no ∞). 464 is not past E4M3's 448 (the tie goes to 448's even significand 1110₂); 465 is."""
    f = get_format(fmt)
    top, step = Fraction(f.max), Fraction(ulp(f, f.max))
    mid = top + step / 2
    return a > mid or (a == mid and (top / step) % 2 == 1)


@dataclass(frozen=True)
class Interval:
    """The reals that round to one code: from ``lo`` to ``hi`` (Fractions, or ±inf floats), each
    end included iff ``*_closed``."""

    lo: Fraction | float
    hi: Fraction | float
    lo_closed: bool
    hi_closed: bool

    def text(self) -> str:
        def s(v):
            return ("inf" if v > 0 else "-inf") if isinstance(v, float) else _num_text(v)

        return f"{'[' if self.lo_closed else '('}{s(self.lo)}, {s(self.hi)}{']' if self.hi_closed else ')'}"


def _num_text(v: Fraction) -> str:
    if v.denominator & (v.denominator - 1) == 0:
        return ("-" if v < 0 else "") + exact_decimal(abs(v))
    return str(v)


def interval(fmt, code: int, overflow: str = "default") -> Interval | None:
    """The interval of reals that :func:`encode` (with ``overflow``) maps to ``code``.

    Ends are midpoints to the neighbouring values (for max: to the next value an unbounded exponent
    would give); whether a tie end belongs to this code is decided by encoding it. +0 covers
    ``[0, min_subnormal/2]``; −0 covers ``[−min_subnormal/2, 0)`` (−0.0 itself also encodes to −0).
    Returns None for NaN codes, and for ±inf codes under "saturate" (nothing rounds there).
    """
    f = get_format(fmt)
    _check_code(f, code)
    sat = _saturating(f, overflow)
    c = classify(f, code)
    if c == "nan":
        return None
    neg = bool(code & f.sign_bit)
    mag = code & f.magnitude_mask
    top_mid = Fraction(f.max) + Fraction(ulp(f, f.max)) / 2
    if c == "infinity":
        if sat:
            return None
        lo_closed = encode(f, top_mid, overflow) == f.inf_code
        return _signed(Interval(top_mid, math.inf, lo_closed, True), neg)
    if c == "zero":
        h = Fraction(f.min_subnormal) / 2
        return Interval(-h, Fraction(0), True, False) if neg else Interval(Fraction(0), h, True, True)
    v = Fraction(decode(f, mag))
    if mag == f.max_code:
        hi = math.inf if sat else top_mid
    else:
        hi = (v + Fraction(decode(f, mag + 1))) / 2
    if mag == 0:  # smallest value of a format without zero: every smaller positive rounds here
        lo, lo_closed = Fraction(0), False
    else:
        lo = (v + Fraction(decode(f, mag - 1))) / 2
        lo_closed = encode(f, lo, overflow) == mag
    hi_closed = isinstance(hi, float) or encode(f, hi, overflow) == mag
    return _signed(Interval(lo, hi, lo_closed, hi_closed), neg)


def _signed(iv: Interval, neg: bool) -> Interval:
    if not neg:
        return iv
    return Interval(-iv.hi, -iv.lo, iv.hi_closed, iv.lo_closed)
