"""Block scaling: one tensor quantised per tensor, per tile or per block, exactly.

A block format is data, composed from formats of :mod:`c9.core.formats` (as in gfloat):
``BlockFormat(element format, tile shape, scale format, scale rule, tensor-scale format)``.
MXFP8, MXFP4 and NVFP4 are rows of :data:`BLOCK_FORMATS`, not separate code paths. Three scale
rules cover the schemes of chapter C9 (``amax`` = max |v| over the block, exact):

- ``"max_over_amax"`` - per-tensor amax scaling and DeepSeek-V3's tiles: the block's multiplier
  ``s = round_scale(elem_max / amax)`` (FP32; 448 / amax for E4M3), element
  ``q = E(v · s)``, dequantised ``q / s``. An all-zero block gets ``s = 1``.
  Per tensor: FP8 training recipes (Micikevicius et al. 2022, "FP8 Formats for Deep Learning", §4;
  Transformer Engine's delayed/current scaling). Tiles: DeepSeek-V3 technical report §3.3.1
  (1×128 activation tiles, 128×128 weight blocks).
- ``"mx_pow2"`` - OCP Microscaling Formats (MX) v1.0 §6.3: shared scale
  ``X = 2^(floor(log2 amax) − emax_elem)`` stored as E8M0 (§5.4.1), the exponent read from the bits
  of amax (never a float log2), clamped to E8M0's 2^-127 … 2^127; element ``q = E(v / X)`` with
  saturation to the element max (§6.3, "clamped to the element format's max normal");
  dequantised ``q · X``. An all-zero block gets X = 2^-127 (code 0x00), elements 0.
  A block holding NaN or ±∞ gets X = NaN (E8M0 code 0xFF) and every element reads back as NaN
  (:func:`quantize`: the MX schemes take non-finite entries; see :data:`NAN_BLOCK_SOURCES`).
  The exponent can be chosen by another rule (``quantize(…, mx_rule=…)``, :data:`MX_RULES`): the
  four of torchao's ``ScaleCalculationMode`` (pytorch/ao, torchao/prototype/mx_formats/config.py and
  mx_tensor.py, ``to_mx`` and ``_to_mx_rceil``); "floor" is OCP's rule and the default.
- ``"two_level"`` - NVIDIA NVFP4 (NVIDIA, "Pretraining Large Language Models with NVFP4",
  arXiv:2509.25149, §2; NVIDIA technical blog "Introducing NVFP4", 2025): FP32 tensor scale
  ``t = FP32(amax_tensor / (448 · 6))``, per-16 block scale ``b = E4M3(amax_block / (6 · t))``
  (saturating), element ``q = E2M1(v / (b · t))`` (saturating), dequantised ``q · b · t``.
  An all-zero tensor gets t = 1; an all-zero block gets b = 0 and elements 0 (never NaN).

Every rounding is done once, exactly, to nearest, ties to even (the products and quotients above
are exact rationals before rounding), unlike a kernel that first forms ``v · s`` in FP32.

Tensors are Python lists: 1-D (a list of numbers, treated as one row) or 2-D (a list of equal-length
rows). Entries: int, float or fractions.Fraction, |v| ≤ FP32 max, finite (the MX schemes also take NaN and ±∞
floats). Tiles run along rows and
columns from the top-left; edge tiles are ragged (smaller). Bad input raises
:class:`c9.core.formats.CodecInputError` (a ValueError with ``message_zh``).

Public API: :data:`BLOCK_FORMATS`, :class:`BlockFormat`, :func:`get_block_format`,
:func:`block_format_names`, :func:`quantize`, :class:`QuantResult`, :func:`bits_per_element`,
:func:`check_tensor`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import chain
from operator import truediv

from c9.base.units import number
from c9.core import formats as F
from c9.core.formats import CodecInputError

__all__ = [
    "BlockFormat",
    "BLOCK_FORMATS",
    "get_block_format",
    "block_format_names",
    "quantize",
    "QuantResult",
    "bits_per_element",
    "check_tensor",
    "MX_RULES",
    "mx_exponent",
    "NAN_BLOCK_SOURCES",
]

SCALE_RULES = ("max_over_amax", "mx_pow2", "two_level")


@dataclass(frozen=True)
class BlockFormat:
    """A block-scaled format, as data.

    ``tile``: (rows, cols) of one scaling block; ``None`` = the whole tensor (per-tensor scaling).
    ``scale_format``: format of each block scale. ``scale_rule``: one of :data:`SCALE_RULES`.
    ``tensor_scale``: format of a second, per-tensor scale (NVFP4), or None.
    """

    name: str
    element: str
    tile: tuple[int, int] | None
    scale_format: str
    scale_rule: str
    tensor_scale: str | None = None
    aliases: tuple = ()
    spec: str = ""
    title_zh: str = ""

    @property
    def element_format(self) -> F.Format:
        return F.get_format(self.element)

    @property
    def scale(self) -> F.Format:
        return F.get_format(self.scale_format)

    @property
    def block_size(self) -> int | None:
        """Elements per block (rows × cols of the tile), None for per-tensor."""
        return None if self.tile is None else self.tile[0] * self.tile[1]

    @property
    def bits_per_element(self) -> float:
        """Nominal storage per element including the block scale, with the per-tensor scale
        amortised away: element bits + scale bits / block size (MXFP4: 4 + 8/32 = 4.25;
        NVFP4: 4 + 8/16 = 4.5; per-tensor E4M3: 8)."""
        eb = self.element_format.bits
        return float(eb) if self.tile is None else eb + self.scale.bits / self.block_size


_DS = "DeepSeek-V3 Technical Report (arXiv:2412.19437) §3.3.1, fine-grained quantization"
_MX = "OCP Microscaling Formats (MX) v1.0, §5 (formats) and §6.3 (conversion)"
_NV = (
    "NVIDIA NVFP4: 16-element blocks, E4M3 block scale, FP32 tensor scale "
    "(arXiv:2509.25149 §2; NVIDIA blog 'Introducing NVFP4', 2025)"
)

#: The block formats, one row each.
BLOCK_FORMATS: tuple[BlockFormat, ...] = (
    BlockFormat(
        "per_tensor_e4m3",
        "float8_e4m3fn",
        None,
        "float32",
        "max_over_amax",
        None,
        ("per_tensor", "tensor", "per-tensor"),
        "per-tensor amax scaling to E4M3: scale = 448 / amax (FP32) "
        "(Micikevicius et al. 2022, FP8 Formats for Deep Learning, §4)",
        "整张量一个缩放因子",
    ),
    BlockFormat(
        "deepseek_1x128",
        "float8_e4m3fn",
        (1, 128),
        "float32",
        "max_over_amax",
        None,
        ("1x128", "activation_tiles"),
        _DS + ": 1×128 activation tiles",
        "1×128 激活小块",
    ),
    BlockFormat(
        "deepseek_128x128",
        "float8_e4m3fn",
        (128, 128),
        "float32",
        "max_over_amax",
        None,
        ("128x128", "weight_blocks"),
        _DS + ": 128×128 weight blocks",
        "128×128 权重块",
    ),
    BlockFormat(
        "mxfp8_e4m3",
        "float8_e4m3fn",
        (1, 32),
        "float8_e8m0fnu",
        "mx_pow2",
        None,
        ("MXFP8", "mxfp8"),
        _MX + ": MXFP8 (E4M3), k = 32",
        "MXFP8(E4M3)",
    ),
    BlockFormat(
        "mxfp8_e5m2",
        "float8_e5m2",
        (1, 32),
        "float8_e8m0fnu",
        "mx_pow2",
        None,
        (),
        _MX + ": MXFP8 (E5M2), k = 32",
        "MXFP8(E5M2)",
    ),
    BlockFormat(
        "mxfp6_e2m3",
        "float6_e2m3fn",
        (1, 32),
        "float8_e8m0fnu",
        "mx_pow2",
        None,
        ("MXFP6",),
        _MX + ": MXFP6 (E2M3), k = 32",
        "MXFP6(E2M3)",
    ),
    BlockFormat(
        "mxfp6_e3m2",
        "float6_e3m2fn",
        (1, 32),
        "float8_e8m0fnu",
        "mx_pow2",
        None,
        (),
        _MX + ": MXFP6 (E3M2), k = 32",
        "MXFP6(E3M2)",
    ),
    BlockFormat(
        "mxfp4",
        "float4_e2m1fn",
        (1, 32),
        "float8_e8m0fnu",
        "mx_pow2",
        None,
        ("MXFP4", "mxfp4_e2m1"),
        _MX + ": MXFP4 (E2M1), k = 32",
        "MXFP4",
    ),
    BlockFormat(
        "nvfp4", "float4_e2m1fn", (1, 16), "float8_e4m3fn", "two_level", "float32", ("NVFP4",), _NV, "NVFP4"
    ),
)

_BY_NAME = {}
for _b in BLOCK_FORMATS:
    for _n in (_b.name,) + _b.aliases:
        _BY_NAME[_n.lower().replace("-", "_")] = _b


def block_format_names() -> list[str]:
    return [b.name for b in BLOCK_FORMATS]


def get_block_format(scheme) -> BlockFormat:
    """The :class:`BlockFormat` for a name or alias; raises UnknownFormatError (ValueError and
    KeyError) for an unknown one."""
    if isinstance(scheme, BlockFormat):
        return scheme
    b = _BY_NAME.get(str(scheme).lower().replace("-", "_")) if isinstance(scheme, str) else None
    if b is None:
        known = ", ".join(block_format_names())
        raise F.UnknownFormatError(
            f"unknown block-scaling scheme {scheme!r}; known: {known}",
            f"未知的分块缩放方案 {scheme!r}；可用方案：{known}",
            "unknown_format",
        )
    return b


def bits_per_element(scheme) -> float:
    """Nominal bits per element including scales (see :attr:`BlockFormat.bits_per_element`)."""
    return get_block_format(scheme).bits_per_element


# --------------------------------------------------------------------------- input checks

_FP32_MAX = F.get_format("float32").max
_FLOAT = {float}


def check_tensor(tensor) -> tuple[list[list], bool]:
    """Validate a 1-D or 2-D list tensor; return (rows, was_1d).

    Raises CodecInputError for: not a list, empty tensor, empty or ragged rows, non-numeric,
    non-finite entries, or entries beyond FP32's range (±3.4e38).
    """
    rows, was_1d, _ = _check_tensor(tensor)
    return rows, was_1d


def _check_tensor(tensor, check_range: bool = True, nonfinite: bool = False):
    """:func:`check_tensor`, plus whether every entry is a finite float (the fast check passed). With
    ``check_range=False`` the fast check leaves FP32's range to the caller, who must call
    :func:`check_tensor` (which raises) if some |v| exceeds it. ``nonfinite``: NaN and ±∞ floats pass."""
    if not isinstance(tensor, (list, tuple)):
        raise CodecInputError(
            f"tensor must be a list (1-D) or a list of rows (2-D), got {type(tensor).__name__}",
            "张量必须是列表（一维）或由行组成的列表（二维）",
            "not_a_tensor",
        )
    if len(tensor) == 0:
        raise CodecInputError(
            "empty tensor: give at least one number", "张量是空的：至少需要一个数", "empty_tensor"
        )
    was_1d = not isinstance(tensor[0], (list, tuple))
    rows = [tensor] if was_1d else tensor
    width = len(rows[0]) if isinstance(rows[0], (list, tuple)) else -1
    # The common case, checked in C. min/max rather than max(map(abs, row)): no float objects
    # are made (a finite sum rules out NaN, so the comparisons are meaningful).
    if width > 0 and all(
        isinstance(row, (list, tuple))
        and len(row) == width
        and set(map(type, row)) == _FLOAT
        and math.isfinite(sum(row))
        and (not check_range or (max(row) <= _FP32_MAX and min(row) >= -_FP32_MAX))
        for row in rows
    ):
        return rows, was_1d, True
    for i, row in enumerate(rows):
        if not isinstance(row, (list, tuple)):
            raise CodecInputError(
                f"row {i} is not a list: mixing numbers and rows", f"第 {i + 1} 行不是列表", "ragged_rows"
            )
        if len(row) == 0:
            raise CodecInputError(f"row {i} is empty", f"第 {i + 1} 行是空的", "empty_tensor")
        if len(row) != width:
            raise CodecInputError(
                f"ragged rows: row {i} has {len(row)} entries, row 0 has {width}",
                f"各行长度不一：第 {number(i + 1)} 行有 {number(len(row))} 个数，第 1 行有 {number(width)} 个",
                "ragged_rows",
            )
        for j, v in enumerate(row):
            t = type(v)
            if t is float:
                if not (-_FP32_MAX <= v <= _FP32_MAX) and not (nonfinite and not math.isfinite(v)):
                    raise _bad_entry(i, j, v, was_1d)
            elif t is int or t is Fraction:
                if abs(v) > _FP32_MAX:
                    raise _bad_entry(i, j, v, was_1d)
            else:
                raise CodecInputError(
                    f"non-numeric entry at {_where(i, j, was_1d)}: {v!r}",
                    f"{_where_zh(i, j, was_1d)}不是数字",
                    "non_numeric",
                )
    return rows, was_1d, False


def _where(i, j, was_1d):
    return f"index {j}" if was_1d else f"row {i}, column {j}"


def _where_zh(i, j, was_1d):
    return f"第 {j + 1} 个数" if was_1d else f"第 {i + 1} 行第 {j + 1} 列"


def _reader(v) -> str:
    """An entry as the reader reads it (never a repr such as Fraction(…)): "10⁴⁰⁰", "−∞", "NaN"."""
    from c9.base.units import sci

    return sci(v, 3)


def _bad_entry(i, j, v, was_1d):
    return CodecInputError(
        f"entry at {_where(i, j, was_1d)} is {v!r}: entries must be finite and within FP32's range ±3.4e38",
        f"{_where_zh(i, j, was_1d)}是 {_reader(v)}：必须是有限数，且在 FP32 的范围 ±3.4×10³⁸ 之内",
        "not_finite",
    )


# --------------------------------------------------------------------------- exact pieces


def _float_parts(x: float):
    """(n, shift) with x = n · 2^shift for a positive float, n odd."""
    m, e = math.frexp(x)
    n = int(m * 9007199254740992.0)
    tz = (n & -n).bit_length() - 1
    return n >> tz, e - 53 + tz


def _floor_log2(v) -> int:
    if type(v) is float:
        return math.frexp(v)[1] - 1
    fr = Fraction(v)
    n, d = fr.numerator, fr.denominator
    e = n.bit_length() - d.bit_length()
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    return e


def _tiles(n_rows: int, n_cols: int, tile):
    br, bc = (n_rows, n_cols) if tile is None else tile
    for r0 in range(0, n_rows, br):
        for c0 in range(0, n_cols, bc):
            yield r0, min(r0 + br, n_rows), c0, min(c0 + bc, n_cols)


# --------------------------------------------------------------------------- the result


@dataclass
class QuantResult:
    """What :func:`quantize` returns. Element grids have the input's shape (1-D in, 1-D out).

    - ``dequantized``: the values the tensor becomes (floats: the exact dequantised value rounded
      once to float64); ``codes``: element codes in the element format.
    - ``scales``: one value per tile, as a grid (tile rows × tile cols). For "max_over_amax" the
      multiplier s (v·s was quantised; dequantised = q / s); for "mx_pow2" X; for "two_level" the
      E4M3 block scale b (dequantised = q · b · tensor_scale). ``scale_codes``: same grid, codes in
      the scale format. ``tensor_scale``: NVFP4's FP32 t, else None.
    - ``abs_error`` = |dequantized − v|, ``rel_error`` = abs_error / |v| (0 where v = 0), floats.
    - ``bits_per_element``: nominal (tensor scale amortised away); ``bits_actual``: this tensor's
      total bits (elements + every tile scale + tensor scale) / element count.
    - ``clipped``: grid like ``scales``, True where saturation cut the tile's largest |v| to the
      element format's maximum (it would have rounded above it); ``clipped_share``: clipped tiles / tiles. ``mx_rule``: the MX
      scale rule used (None for the other schemes).
    - ``nan_blocks``: grid like ``scales``, True where an MX block held NaN or ±∞: its scale is NaN (code
      0xFF), its elements dequantise to NaN, their errors are NaN, and the maxima above leave them out.
    """

    scheme: str
    shape: tuple
    tile: tuple
    dequantized: list
    codes: list
    scales: list
    scale_codes: list
    tensor_scale: float | None
    abs_error: list
    rel_error: list
    bits_per_element: float
    bits_actual: float
    max_abs_error: float = 0.0
    max_rel_error: float = 0.0
    notes: list = field(default_factory=list)
    clipped: list = field(default_factory=list)
    clipped_share: float = 0.0
    mx_rule: str | None = None
    nan_blocks: list = field(default_factory=list)

    def as_dict(self) -> dict:
        """Plain JSON-ready dict (lists, numbers, strings)."""
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


# --------------------------------------------------------------------------- the rules
# Each rule gets the tiles' amax values and returns, per tile, (op, factor, scale value, scale
# code): elements are quantised from the exact value v·factor ("mul") or v/factor ("div"), and
# dequantised as q/factor or q·factor.


def _amaxes(absrows, tiles) -> list:
    """max |v| of every tile, in tile order."""
    return [
        max(absrows[r0][c0:c1]) if r1 - r0 == 1 else max([max(absrows[i][c0:c1]) for i in range(r0, r1)])
        for r0, r1, c0, c1 in tiles
    ]


def _ratio_code(fmt, x, y) -> int:
    """Code of x / y (x, y > 0; floats, ints or Fractions), rounded once, saturating."""
    if type(x) is float and type(y) is float:
        # p = x / y rounded to float64 lies on the same side of every rounding midpoint of fmt as
        # the exact quotient (rounding is monotonic and the midpoints are floats), so rounding p
        # gives the exact answer unless p *is* a midpoint: an odd multiple of half fmt's quantum.
        p = x / y
        if 0.0 < p < math.inf:
            n, sh = _float_parts(p)
            e = n.bit_length() - 1 + sh  # floor(log2 p)
            if sh != max(e, fmt.emin) - fmt.mantissa_bits - 1:
                return F.round_magnitude(fmt, False, n, 1, sh, True)
        return _ratio_code_exact(fmt, x, y)
    return F.encode(fmt, Fraction(x) / Fraction(y), "saturate")


def _ratio_code_exact(fmt, x: float, y: float) -> int:
    """Code of x / y (positive floats) from the exact quotient of their integer significands."""
    xn, xs = _float_parts(x)
    yn, ys = _float_parts(y)
    return F.round_magnitude(fmt, False, xn, yn, xs - ys, True)


def _rule_max_over_amax(bf, amaxes, ef, sf):
    one = F.encode(sf, 1)
    out = []
    for amax in amaxes:
        code = one if amax == 0 else _ratio_code(sf, ef.max, amax)  # FP32(448 / amax)
        s = F.decode(sf, code)
        out.append(("mul", s, s, code))
    return out, None


#: The MX scale rules, as torchao's ScaleCalculationMode defines them (pytorch/ao,
#: torchao/prototype/mx_formats/mx_tensor.py: ``to_mx``, ``_to_mx_rceil``): name → (Chinese label,
#: source). Each gives the unbiased E8M0 exponent e of X = 2^e from the block's amax > 0; emax is
#: the element format's largest exponent (E4M3 8, E5M2 15, E2M1 2), m its mantissa bits.
MX_RULES = {
    "floor": (
        "OCP，向下取 2 的幂",
        "OCP MX v1.0 §6.3; torchao FLOOR: e = floor(log2 amax) − emax",
    ),
    "rceil": (
        "RCEIL，向上取 2 的幂",
        "torchao RCEIL (_to_mx_rceil, after cuBLAS's block quantisation and PTX cvt.rp.satfinite.ue8m0x2.f32): "
        "e = ceil(log2 FP32(amax / elem_max))",
    ),
    "ceil": (
        "CEIL，非 2 的幂时指数进一",
        "torchao CEIL: e = floor(log2 amax) + [amax's mantissa ≠ 0] − emax",
    ),
    "even": (
        "EVEN，先把 amax 舍入到元素的位数",
        "torchao EVEN: amax's FP32 bits + 2^(22 − m), mantissa cleared, then as FLOOR; "
        "i.e. e = floor(log2 amax) + [amax / 2^floor(log2 amax) ≥ 2 − 2^−(m+1)] − emax",
    ),
}
_E8M0_LO, _E8M0_HI = -127, 127
_FP32 = F.get_format("float32")


def _is_pow2(v) -> bool:
    if type(v) is float:
        return math.frexp(v)[0] == 0.5
    fr = Fraction(v)
    n, d = fr.numerator, fr.denominator
    return n & (n - 1) == 0 and d & (d - 1) == 0


def mx_exponent(amax, ef, rule: str = "floor") -> int:
    """The unbiased E8M0 exponent of an MX block's scale X = 2^e, for the block's amax (≥ 0, exact)
    and element format ``ef``, by ``rule`` (a key of :data:`MX_RULES`), clamped to E8M0's −127 … 127.

    torchao applies these to FP32 bit fields; here they act on the exact amax, which agrees for any
    FP32 amax (the widgets store typed numbers as FP32 first). Two of torchao's corners are not
    copied: its FLOOR/CEIL/EVEN clamp allows 128 (code 0xFF, NaN), out of reach for a finite FP32
    amax; its RCEIL takes ``torch.log2`` in FP32, which can miss a quotient just above a power of two.
    An all-zero block gets −127 (code 0x00) under every rule."""
    if amax == 0:
        return _E8M0_LO
    fl = _floor_log2(amax)
    if rule == "floor":
        e = fl - ef.emax
    elif rule == "ceil":
        e = fl + (not _is_pow2(amax)) - ef.emax
    elif rule == "even":
        # carry into the exponent when amax rounds (half up) to 2^(fl+1) at m + 1 significant bits
        r = Fraction(amax) / Fraction(2) ** fl
        e = fl + (r >= 2 - Fraction(1, 2 ** (ef.mantissa_bits + 1))) - ef.emax
    elif rule == "rceil":
        d = F.decode(_FP32, _ratio_code(_FP32, amax, ef.max))  # descale = FP32(amax / elem_max)
        e = _E8M0_LO if d == 0 else _floor_log2(d) + (not _is_pow2(d))
    else:
        raise F.UnknownFormatError(
            f"unknown MX scale rule {rule!r}; known: {', '.join(MX_RULES)}",
            f"没有这种 MX 缩放规则：{rule!r}",
            "unknown_format",
        )
    return min(max(e, _E8M0_LO), _E8M0_HI)


def _rule_mx_pow2(bf, amaxes, ef, sf, mx_rule="floor"):
    out = []
    for amax in amaxes:
        e = mx_exponent(amax, ef, mx_rule)
        x = math.ldexp(1.0, e)
        out.append(("div", x, x, e + sf.bias))
    return out, None


def _clipped(amaxes, per_tile, ef) -> list:
    """Per tile: whether saturation cut its largest |v|: the scaled amax (amax · s or amax / factor)
    rounds, to nearest even on the element grid continued past its top binade, above elem_max, so
    the stored elem_max is smaller than rounding alone would give. A scaled amax just past elem_max
    (E4M3: up to 464; E2M1: below 7) rounds to elem_max anyway and is not counted."""
    top = Fraction(ef.max)
    ulp = Fraction(2) ** (ef.emax - ef.mantissa_bits)  # spacing at the top binade
    mid = top + ulp / 2
    tie_up = (top / ulp).numerator % 2 == 1  # elem_max odd: a tie at mid rounds up, past it
    out = []
    for amax, (op, fac, _, _) in zip(amaxes, per_tile):
        if amax == 0 or not fac:
            out.append(False)
            continue
        x = Fraction(amax) * Fraction(fac) if op == "mul" else Fraction(amax) / Fraction(fac)
        out.append(x > mid or (x == mid and tie_up))
    return out


#: Where the rule for an MX block holding NaN or ±∞ comes from (the view quotes these on the page).
NAN_BLOCK_SOURCES = {
    "scale": "OCP MX v1.0 §5.4.1: E8M0 code 0xFF is NaN; an MX value is X × P_i, so a NaN X makes the whole block NaN",
    "reference": (
        "microsoft/microxcaling, mx/mx_ops.py _quantize_mx (the MX authors' reference code): a shared exponent "
        "above E8M0's range becomes NaN; floor(log2 amax) of a NaN or ∞ amax is one, so the block's X is NaN"
    ),
    "torchao": (
        "torchao 0.18 mx_tensor.py: to_mx gives a NaN amax code 0xFF under every mode, and get_fp_scale "
        "'If a block exponent was 255, set values of that block to NaN'; an ∞ amax is not NaN there: FLOOR reads "
        "its FP32 exponent field (128) and gives 2^(128 − emax), RCEIL code 0xFE (2^127), ∞ saturates to the "
        "element max and the block's finite entries flush to 0"
    ),
    "nvfp4": "no source found that states NVFP4's E4M3 block scale or its elements for a block with NaN or ∞",
}


def _finite(v) -> bool:
    return type(v) is not float or math.isfinite(v)


def _nan_block_code(ef, v) -> int:
    """What an element of a NaN-scale block stores. It does not matter (X = NaN makes every element NaN); we
    store the code of v / ∞: ±0 for a finite v, the element format's NaN for NaN or ±∞ (0 in E2M1, which has
    no NaN), as torchao's FLOOR path does for a NaN block (it divides by 0xFF read as FP32's +∞)."""
    if _finite(v):
        return ef.sign_bit if _neg(v) else 0
    return ef.nan_code if ef.has_nan else 0


def _rule_two_level(bf, amaxes, ef, sf):
    tf = F.get_format(bf.tensor_scale)
    amax_t = max(amaxes)
    if amax_t == 0:
        t = 1.0
    else:
        t = F.decode(tf, _ratio_code(tf, amax_t, sf.max * ef.max))  # FP32(amax / (448 · 6))
        if t == 0:  # amax < 2688 · 2^-150
            t = tf.min_subnormal
    div = ef.max * t  # 6 · t, exact
    if sf.mantissa_bits <= 3 and sf.signed and all(type(a) is float for a in amaxes):
        # Thousands of blocks: round all quotients amax / (6 t) at once by table, as the elements
        # are (same argument as _ratio_code; amax = 0 gives p = 0 and code 0).
        tab16, ties = F.fast_table16(sf, True)
        codes = F.codes16(
            tab16, ties, [a / div for a in amaxes], lambda j: _ratio_code_exact(sf, amaxes[j], div)
        )
    else:
        codes = [0 if a == 0 else _ratio_code(sf, a, div) for a in amaxes]  # E4M3(amax / (6 t))
    values = F.code_points(sf)
    return [("div", values[c] * t, values[c], c) for c in codes], t  # b · t exact in float64


_RULES = {"max_over_amax": _rule_max_over_amax, "mx_pow2": _rule_mx_pow2, "two_level": _rule_two_level}


def _neg(v) -> bool:
    return v < 0 or (v == 0 and math.copysign(1.0, v) < 0)


def _exact_code(ef, v, op, factor):
    """Round v·factor or v/factor once, exactly, saturating (the general path, and ties seen
    through a float product)."""
    if v == 0 or factor == 0:
        return ef.sign_bit if _neg(v) else 0
    x = Fraction(v) * Fraction(factor) if op == "mul" else Fraction(v) / Fraction(factor)
    return F.encode(ef, x, "saturate")


def _quantize_floats(flat, n_cols, tiles, per_tile, ef):
    """Fast path: every entry a float; the tensor flattened row by row. Returns flat (codes,
    dequantised).

    p = RN(v·f) or RN(v/f) is monotonic in the exact value, so p and the exact value lie on the
    same side of every rounding midpoint: the code is the element format's table entry for p's
    top 16 bits (formats.codes16), and only a p equal to a midpoint is re-decided exactly.
    Loops are list comprehensions over flat lists: in Pyodide (Python 3.14) they beat map() with
    operator functions, and one flat pass beats 256 short ones."""
    tab16, ties = F.fast_table16(ef, True)
    values = F.code_points(ef)
    op = per_tile[0][0]
    factors = [pt[1] or 1.0 for pt in per_tile]  # an all-zero NVFP4 block: b = 0
    # Dequantising through a table per distinct factor (value of every code, already divided or
    # multiplied) costs one lookup per element instead of a lookup and an operation; worth it
    # when the tables are small next to the tensor (per tensor, 128×128, MX: few distinct
    # powers of two, NVFP4: 16 codes), not for 1×128 tiles with a float32 scale each.
    dtabs = dict.fromkeys(factors)
    use_tables = len(dtabs) * len(values) * 4 <= len(flat)
    if use_tables:
        for f in dtabs:
            dtabs[f] = [v / f for v in values] if op == "mul" else [v * f for v in values]
    facs, tabs = [], []  # per element: factor, its table
    k = 0
    while k < len(tiles):
        r0, r1 = tiles[k][0], tiles[k][1]
        rowfac, rowtab = [], []
        while k < len(tiles) and tiles[k][0] == r0:  # the tiles of one row band
            w = tiles[k][3] - tiles[k][2]
            rowfac += [factors[k]] * w
            if use_tables:
                rowtab += [dtabs[factors[k]]] * w
            k += 1
        facs += rowfac * (r1 - r0)
        tabs += rowtab * (r1 - r0)
    if len(dtabs) == 1:  # per tensor, or one scale after all
        f = factors[0]
        ps = [v * f for v in flat] if op == "mul" else [v / f for v in flat]
    elif op == "mul":
        ps = [v * f for v, f in zip(flat, facs)]
    else:
        ps = [v / f for v, f in zip(flat, facs)]
    qs = F.codes16(tab16, ties, ps, lambda j: _exact_code(ef, flat[j], op, facs[j]))
    if len(dtabs) == 1 and use_tables:
        dt = dtabs[factors[0]]
        deq = [dt[q] for q in qs]
    elif use_tables:
        deq = [t[q] for q, t in zip(qs, tabs)]  # a list reference per element: no int math
    elif op == "mul":
        deq = [values[q] / f for q, f in zip(qs, facs)]
    else:
        deq = [values[q] * f for q, f in zip(qs, facs)]
    # A block whose scale rounded to 0 (NVFP4: a block far below the tensor's amax) holds zeros:
    # q · b · t = 0, as the exact path gives. Its elements were rounded with the stand-in factor 1.
    for (r0, r1, c0, c1), pt in zip(tiles, per_tile):
        if pt[1] == 0:
            for i in range(r0, r1):
                for j in range(i * n_cols + c0, i * n_cols + c1):
                    neg = _neg(flat[j])
                    qs[j] = ef.sign_bit if neg else 0
                    deq[j] = -0.0 if neg else 0.0
    return qs, deq


def _quantize_general(rows, tiles, per_tile, ef, codes, deq):
    """General path (int / Fraction entries): each element rounded exactly via Fractions."""
    for (r0, r1, c0, c1), (op, fac, _, _) in zip(tiles, per_tile):
        for i in range(r0, r1):
            for j in range(c0, c1):
                q = _exact_code(ef, rows[i][j], op, fac)
                v = F.decode(ef, q)
                codes[i][j] = q
                deq[i][j] = (v / fac if op == "mul" else v * fac) if fac else v


def _split(flat: list, n: int) -> list:
    return [flat[i : i + n] for i in range(0, len(flat), n)]


def quantize(tensor, scheme, mx_rule: str = "floor") -> QuantResult:
    """Quantise ``tensor`` (1-D list or 2-D list of rows) with block format ``scheme`` (a name from
    :func:`block_format_names`, an alias such as "MXFP4", "NVFP4", "1x128", or a BlockFormat).

    Returns a :class:`QuantResult` (dequantised tensor, codes, scales, per-element error, bits per
    element including scales). Raises CodecInputError for an empty tensor, ragged rows, a
    non-numeric entry, a non-finite one (except in an MX scheme: that block's scale is NaN, see
    :attr:`QuantResult.nan_blocks`); UnknownFormatError for an unknown scheme or ``mx_rule``.
    ``mx_rule`` (a key of :data:`MX_RULES`) chooses the MX schemes' scale exponent; others ignore it.
    Specs: see the module docstring (OCP MX v1.0 §6.3; DeepSeek-V3 §3.3.1; NVIDIA NVFP4).
    """
    bf = get_block_format(scheme)
    if mx_rule not in MX_RULES:
        mx_exponent(1, F.get_format("float8_e4m3fn"), mx_rule)  # raises, naming the rule
    mx = bf.scale_rule == "mx_pow2"
    rows, was_1d, fast = _check_tensor(tensor, check_range=False, nonfinite=mx)
    all_float = fast
    if not all_float:
        rows, all_float = _as_floats(rows)
    n_rows, n_cols = len(rows), len(rows[0])
    ef, sf = bf.element_format, bf.scale
    tiles = list(_tiles(n_rows, n_cols, bf.tile))
    # MX blocks holding NaN or ±∞ (OCP MX: X = NaN). Each MX block is scaled alone, so the other blocks are
    # quantised as usual from a copy with those entries as 0, and the NaN blocks are written over at the end.
    bad, given = [], rows
    if mx and not fast:
        bad = [
            k
            for k, (r0, r1, c0, c1) in enumerate(tiles)
            if not all(_finite(v) for i in range(r0, r1) for v in rows[i][c0:c1])
        ]
        if bad:
            rows = [[v if _finite(v) else 0.0 for v in row] for row in rows]
    tile = (n_rows, n_cols) if bf.tile is None else bf.tile
    nr_t, nc_t = -(-n_rows // tile[0]), -(-n_cols // tile[1])
    if all_float:
        flat = list(chain.from_iterable(rows))
        absflat = list(map(abs, flat))
        absrows = _split(absflat, n_cols)
    else:
        absrows = [list(map(abs, row)) for row in rows]
    amaxes = _amaxes(absrows, tiles)
    if all_float and max(amaxes) > _FP32_MAX:  # range left to us by _check_tensor
        check_tensor(tensor)  # raises the error naming the entry
    if bf.scale_rule == "mx_pow2":
        per_tile, t = _rule_mx_pow2(bf, amaxes, ef, sf, mx_rule)
    else:
        per_tile, t = _RULES[bf.scale_rule](bf, amaxes, ef, sf)
    clipped_flat = _clipped(amaxes, per_tile, ef)
    for k in bad:
        clipped_flat[k] = False
    clipped = [clipped_flat[k : k + nc_t] for k in range(0, len(clipped_flat), nc_t)]
    scales = [[0.0] * nc_t for _ in range(nr_t)]
    scodes = [[0] * nc_t for _ in range(nr_t)]
    for k, (_, _, sval, scode) in enumerate(per_tile):
        scales[k // nc_t][k % nc_t] = sval
        scodes[k // nc_t][k % nc_t] = scode
    if all_float:
        qs, dq = _quantize_floats(flat, n_cols, tiles, per_tile, ef)
        # |d − v| without abs(): d has v's sign whenever v is ±0 (f > 0), so d − v = +0 when d == v
        ae = [d - v if d >= v else v - d for d, v in zip(dq, flat)]
        re = (
            list(map(truediv, ae, absflat))
            if 0.0 not in absflat
            else [a / b if b else 0.0 for a, b in zip(ae, absflat)]
        )
        mabs, mrel = max(ae), max(re)
        codes, deq, abs_err, rel_err = (_split(x, n_cols) for x in (qs, dq, ae, re))
    else:
        codes = [[0] * n_cols for _ in range(n_rows)]
        deq = [[0.0] * n_cols for _ in range(n_rows)]
        _quantize_general(rows, tiles, per_tile, ef, codes, deq)
        ex = [[abs(Fraction(d) - Fraction(v)) for d, v in zip(drow, row)] for drow, row in zip(deq, rows)]
        abs_err = [[float(e) for e in erow] for erow in ex]
        rel_err = [
            [float(e / abs(Fraction(v))) if v else 0.0 for e, v in zip(erow, row)]
            for erow, row in zip(ex, rows)
        ]
        mabs = max(map(max, abs_err))
        mrel = max(map(max, rel_err))
    nan_flat = [False] * len(tiles)
    if bad:
        for k in bad:
            nan_flat[k] = True
            scales[k // nc_t][k % nc_t] = math.nan
            scodes[k // nc_t][k % nc_t] = sf.nan_code  # 0xFF
            r0, r1, c0, c1 = tiles[k]
            for i in range(r0, r1):
                for j in range(c0, c1):
                    codes[i][j] = _nan_block_code(ef, given[i][j])
                    deq[i][j] = abs_err[i][j] = rel_err[i][j] = math.nan
        kept = [[e for e in row if e == e] for row in abs_err]
        mabs = max((max(r) for r in kept if r), default=math.nan)
        kept = [[e for e in row if e == e] for row in rel_err]
        mrel = max((max(r) for r in kept if r), default=math.nan)
    nan_blocks = [nan_flat[k : k + nc_t] for k in range(0, len(nan_flat), nc_t)]
    n = n_rows * n_cols
    total_bits = (
        n * ef.bits + len(tiles) * sf.bits + (F.get_format(bf.tensor_scale).bits if bf.tensor_scale else 0)
    )
    shape = (n_cols,) if was_1d else (n_rows, n_cols)
    if was_1d:
        deq, codes, abs_err, rel_err = deq[0], codes[0], abs_err[0], rel_err[0]
    return QuantResult(
        bf.name,
        shape,
        tile,
        deq,
        codes,
        scales,
        scodes,
        t,
        abs_err,
        rel_err,
        bf.bits_per_element,
        total_bits / n,
        mabs,
        mrel,
        clipped=clipped,
        clipped_share=sum(clipped_flat) / len(clipped_flat),
        mx_rule=mx_rule if bf.scale_rule == "mx_pow2" else None,
        nan_blocks=nan_blocks,
    )


def _as_floats(rows):
    """Ints and Fractions that are exactly floats become floats (same value); the rest stay."""
    all_float = True
    out = []
    for row in rows:
        if set(map(type, row)) == _FLOAT:
            out.append(row)
            continue
        new = []
        for v in row:
            if type(v) is not float:
                f = float(v)
                if Fraction(f) == v:
                    v = f
                else:
                    all_float = False
            new.append(v)
        out.append(new)
    return out, all_float
