"""Lesson 4's block-scaling lab: one tensor quantised per tensor, per 1×128 tile and per 128×128
block (DeepSeek-V3 §3.3.1), and with MXFP8, MXFP4 and NVFP4, drawn so the picture carries the point:
a map of |x| (where the outliers are), then per scheme the same cells coloured by each number's
relative error after quantisation, in a few shared classes (ERROR_CLASSES), with the scaling blocks'
boundaries drawn over them. (A block's mean error, as the maps drew before, is one colour for a scheme
with one or two blocks: the per-tensor and 128×128 maps were flat and said nothing.) The blocks' means
are in the summary and the table.

The tensor is generated from a seed (:func:`generate`: tokens × channels, a few outlier channels
and optionally one outlier token) or typed by the reader (:func:`parse_tensor`). ``view(params)``
answers one scheme at a time, so each request stays short in the browser (the page asks for the
schemes one after another); :func:`page_context` computes all of them at build time. The preset
"deepseek-v3" shows the two schemes DeepSeek-V3's quantization_config names
(:mod:`c9.core.quant_configs`).
"""

from __future__ import annotations

import math
import random
import re
from bisect import bisect_left
from fractions import Fraction
from functools import partial
from itertools import chain

from c9.base import typed, units
from c9.base.errors import InputError
from c9.base.palette import var
from c9.core import blockscale as B
from c9.core import quant_configs
from c9.core.formats import CodecInputError, get_format
from c9.views import fp32_first
from c9.views.params import ascii_text, fp32_numbers, integer, integer_if_read, with_defaults, within_fp32

WIDGET = "block-lab"


def _finite(v) -> bool:
    return not isinstance(v, float) or math.isfinite(v)


ROWS, COLS = 64, 256  # tokens × channels of the generated tensor (a 128×128 block is cut to 64×128)
# px: a heat map tall enough that its plot keeps charts.js's least plot height (MIN_PLOT, 180 px) under its
# 64 px of margins, so Plotly draws it at the height its box holds (at 220 px it grew to 253 once drawn)
HEAT_HEIGHT = 260
SCHEMES = ("per_tensor_e4m3", "deepseek_1x128", "deepseek_128x128", "mxfp8_e4m3", "mxfp4", "nvfp4")
# A no-break space after 每 keeps 「每 128×128」 on one line in the table's narrow pinned column.
SCHEME_LABELS = {
    "per_tensor_e4m3": "整张量一个缩放",
    "deepseek_1x128": "每 1×128 一个缩放",
    "deepseek_128x128": "每 128×128 一个缩放",
    "mxfp8_e4m3": "MXFP8：每 1×32 一个 2 的幂",
    "mxfp4": "MXFP4：每 1×32 一个 2 的幂",
    "nvfp4": "NVFP4：每 1×16 一个 E4M3，外加整张量一个 FP32",
}
PRESETS = ("all", "deepseek-v3")
MAGNITUDES = (100, 1000, 10000)
MAX_CHANNELS = 8
MAX_TYPED_ROWS, MAX_TYPED_COLS = 64, 512
# The lab takes ±∞ as typed; a finite number past FP32's range is refused with the way to get one.
INFINITY_INSTEAD = "：要看块里有无穷大时会怎样，请直接写 inf 或 -inf"
DEFAULT_TYPED = "1000, 0, 0\n0.01, 0.02, 0.5"
DEFAULTS = {
    "source": "generated",
    "seed": 9,
    "channels": 4,
    "magnitude": 1000,
    "token": True,
    "text": DEFAULT_TYPED,
    "scheme": "per_tensor_e4m3",
    "preset": "all",
    "rule": "floor",
}
#: The MX scale rules the reader can choose (c9.core.blockscale.MX_RULES: OCP's floor and torchao's others).
RULES = tuple(B.MX_RULES)
#: The schemes the rule moves; the page sends the rule with these only, so that the other schemes' answers
#: (and the build's answer cache) do not repeat once per rule.
MX_SCHEMES = tuple(s for s in SCHEMES if B.get_block_format(s).scale_rule == "mx_pow2")

#: Error bins (upper edges of relative error): the table counts the numbers past 6.25%.
BIN_EDGES = (0.0, 0.001, 0.01, 0.03, 0.0625, 0.125, 0.5, math.inf)
RUINED = 0.0625  # a block whose mean error passes E4M3's worst normal-range rounding (2⁻⁴)

#: The classes a number's relative error is coloured by, shared by every map: (upper edge, label, role),
#: green while within E4M3's own rounding (up to 6.25%), then orange and red; a number that became 0 has
#: its own class (ZEROED). Finer classes within the green were noise: the answer cache pays for each
#: class's entropy, 16,384 numbers a map. Mid-luminance hues read on both palettes.
ERROR_CLASSES = (
    (RUINED, "≤ 6.25%", "error-fine"),
    (0.25, "6.25%–25%", "error-large"),
    (math.inf, "超过 25%", "error-ruined"),
)
ZEROED = (None, "变成了 0", "error-zeroed")
CLASS_EDGES = tuple(edge for edge, _, _ in ERROR_CLASSES[:-1])


def error_class(r: float, became_zero: bool) -> int:
    """The class of a number with relative error ``r``: an index of ERROR_CLASSES, or len(ERROR_CLASSES) for
    a number that quantised to 0 (ZEROED). Classes close on the right: 6.25% exactly is still green."""
    return len(ERROR_CLASSES) if became_zero else bisect_left(CLASS_EDGES, r)


def _discrete(roles: list[str]) -> list[list]:
    """A Plotly colourscale of one flat band per class, for z = 0 … len(roles) − 1 over zmin −0.5, zmax n − 0.5."""
    n = len(roles)
    return [[round(k / n, 6), var(role)] for i, role in enumerate(roles) for k in (i, i + 1)]


CLASS_ROLES = [role for _, _, role in ERROR_CLASSES + (ZEROED,)]
ERR_COLORSCALE = _discrete(CLASS_ROLES)
#: |x| on a log scale, 10⁻³ … 10⁴: light to dark blue.
ABS_COLORSCALE = [[0.0, var("abs-small")], [0.5, var("abs-mid")], [1.0, var("abs-large")]]
ABS_MIN, ABS_MAX = -3.0, 4.0


def generate(
    seed: int = 9,
    channels: int = 4,
    magnitude: int = 1000,
    token: bool = True,
    rows: int = ROWS,
    cols: int = COLS,
) -> list[list[float]]:
    """A rows × cols activation-like tensor from ``random.Random(seed)`` (see :func:`generate_with_outliers`)."""
    return generate_with_outliers(seed, channels, magnitude, token, rows, cols)[0]


def generate_with_outliers(
    seed: int = 9,
    channels: int = 4,
    magnitude: int = 1000,
    token: bool = True,
    rows: int = ROWS,
    cols: int = COLS,
) -> tuple[list[list[float]], list[int]]:
    """The tensor and its outlier columns.

    Ordinary entries: random sign, magnitude 10^u with u uniform in [−3, 0.5] (so small values are
    common, as after a normalisation); ``channels`` outlier channels, all in the first 128 columns,
    get magnitude × U(0.3, 1); with ``token``, row 5 (one token) gets magnitude × U(0.3, 1) in every
    column. Floats only; the same seed gives the same tensor in CPython and Pyodide."""
    rng = random.Random(seed)
    t = [[rng.choice((-1.0, 1.0)) * 10.0 ** rng.uniform(-3.0, 0.5) for _ in range(cols)] for _ in range(rows)]
    outlier_cols = sorted(rng.sample(range(min(128, cols)), channels))
    for j in outlier_cols:
        for i in range(rows):
            t[i][j] = rng.choice((-1.0, 1.0)) * magnitude * rng.uniform(0.3, 1.0)
    if token and rows > 5:
        t[5] = [rng.choice((-1.0, 1.0)) * magnitude * rng.uniform(0.3, 1.0) for _ in range(cols)]
    return t, outlier_cols


def describe_tensor(p: dict, outlier_cols: list[int] | None = None) -> str:
    """One Chinese sentence on where the tensor came from (shown under the heatmaps). Channels and the
    token are named as the charts' axes and hover number them, from 0 ("token 5", not "第 5 行",
    which a reader counts from 1)."""
    if p["source"] == "typed":
        return "当前张量是手动输入的（原值为 0 的格子不着色，也不计入块的平均误差）。"
    cols = outlier_cols or []
    if not cols:
        channels = "没有离群通道"
    elif len(cols) == 1:
        channels = f"1 个离群通道（通道 {cols[0]}，在前 128 个通道里）"
    else:
        channels = f"{len(cols)} 个离群通道（通道 {'、'.join(map(str, cols))}，都在前 128 个通道里）"
    size = f"，离群值的量级约 {p['magnitude']:,}" if cols or p["token"] else ""
    tok = "，外加一个离群 token（token 5）" if p["token"] else "，没有离群 token"
    return f"当前张量：种子 {p['seed']}，{channels}{tok}{size}；其余数的绝对值在 0.001 到约 3 之间。"


def parse_tensor(text) -> list[list]:
    """A tensor typed by the reader: rows on separate lines (or separated by ';' or "]"), numbers
    separated by commas, "、" or spaces; brackets are ignored. Each number is read exactly
    (:mod:`c9.base.typed`): "1e-330" stays 10⁻³³⁰ here; the view stores it as FP32 (0) before it quantises.
    "nan", "inf" and "-inf" are taken (as floats). Raises InputError (Chinese) on anything else."""
    if not isinstance(text, str) or not text.strip():
        raise InputError("张量是空的：至少输入一个数")
    # "[1, 2], [3, 4]": "]" ends a row, and so does the comma after it
    body = re.sub(r"\]\s*[,、]?", ";", ascii_text(text)).replace(";", "\n")
    rows = []
    for line in body.splitlines():
        if not typed.tokens(line):
            continue
        n = len(rows) + 1

        def where(i, n=n):
            return f"第 {n} 行第 {i + 1} 列"

        row = fp32_numbers(line, where, f"第 {n} 行的", INFINITY_INSTEAD)
        # NaN and ±∞ pass: the MX schemes say what their block becomes (the others, that they do not quantise)
        within_fp32(line, [v if _finite(v) else 0 for v in row], where, INFINITY_INSTEAD)
        rows.append([typed.value(v) for v in row])
        if len(rows) > MAX_TYPED_ROWS:
            break
    if not rows:
        raise InputError("张量是空的：至少输入一个数")
    if len(rows) > MAX_TYPED_ROWS or max(map(len, rows)) > MAX_TYPED_COLS:
        raise InputError(f"张量太大：手动输入最多 {MAX_TYPED_ROWS} 行、每行 {MAX_TYPED_COLS} 个数")
    widths = {len(r) for r in rows}
    if len(widths) > 1:
        bad = next(i for i, r in enumerate(rows) if len(r) != len(rows[0]))
        raise InputError(
            f"各行长度不一：第 1 行有 {len(rows[0])} 个数，第 {bad + 1} 行有 {len(rows[bad])} 个"
            f"（逗号分隔数：「1,5」是两个数）"
        )
    return rows


def normalise(params: dict | None) -> dict:
    p = with_defaults(params, DEFAULTS)
    if p["source"] not in ("generated", "typed"):
        raise InputError("张量来源只能是「生成」或「手动输入」")
    if p["scheme"] not in SCHEMES:
        raise InputError(f"没有这种缩放方案：{typed.shown(p['scheme'])}")
    # a typed tensor does not read the seed: one left wrong in the hidden box blocks nothing
    p["seed"] = integer_if_read(p["seed"], "随机种子", 0, 10**9, p["source"] == "generated", DEFAULTS["seed"])
    p["channels"] = integer(p["channels"], "离群通道数", 0, MAX_CHANNELS)
    p["magnitude"] = integer(p["magnitude"], "离群值的量级", 1, 10**6)
    if p["magnitude"] not in MAGNITUDES:
        raise InputError(
            f"离群值的量级只能选 {'、'.join(f'{m:,}' for m in MAGNITUDES)}"
        )  # as the list shows them
    if not isinstance(p["token"], bool):
        raise InputError("「加一个离群 token」只能是开或关")
    if p["preset"] not in PRESETS:
        raise InputError(f"没有这个配方：{typed.shown(p['preset'])}")
    if p["rule"] not in RULES:
        raise InputError(f"没有这种 MX 缩放规则：{typed.shown(p['rule'])}")
    return p


_last: dict = {}  # the last generated tensor: the page asks for every scheme of one tensor


def tensor_for(p: dict) -> tuple[list[list[float]], list[int] | None]:
    """The tensor the params describe, and its outlier columns (None when typed)."""
    if p["source"] == "typed":
        return parse_tensor(p["text"]), None
    key = (p["seed"], p["channels"], p["magnitude"], p["token"])
    if key not in _last:
        _last.clear()
        _last[key] = generate_with_outliers(*key)
    return _last[key]


def bin_of(r: float) -> int:
    """Index of the error bin holding relative error r (0 = exact; bins close on the right)."""
    return bisect_left(BIN_EDGES, r)


def tile_edges(shape, tile) -> tuple[list[int], list[int]]:
    """Row and column edges of the scaling blocks (0, block, 2·block, …, size): the last block of
    a side that the block does not divide is cut short."""
    (n, m), (br, bc) = shape, tile
    return (list(range(0, n, br)) + [n], list(range(0, m, bc)) + [m])


def tile_means(tensor, rel_error, tile) -> list[list]:
    """Mean relative error of each scaling block (a grid, block rows × block cols), over the block's
    nonzero entries (a number that became 0 counts 100%); None for a block of zeros, or an MX block whose
    scale is NaN (its errors are NaN)."""
    redges, cedges = tile_edges((len(tensor), len(tensor[0])), tile)
    out = []
    for r0, r1 in zip(redges, redges[1:]):
        row = []
        for c0, c1 in zip(cedges, cedges[1:]):
            errs = [
                e
                for i in range(r0, r1)
                for e, v in zip(rel_error[i][c0:c1], tensor[i][c0:c1])
                if v != 0 and e == e
            ]
            row.append(math.fsum(errs) / len(errs) if errs else None)
        out.append(row)
    return out


def _cell_name(i: int, j: int) -> str:
    return f"第 {i + 1} 行第 {j + 1} 列"


def _counted(clipped: list, nan_blocks: list) -> list:
    """The clipped flags of the blocks the statistics count: not the MX blocks whose scale is NaN (their
    numbers are left out of the error columns, so the block column leaves them out too)."""
    nan_flat = [c for row in nan_blocks for c in row] or [False] * sum(map(len, clipped))
    return [c for c, nb in zip(chain.from_iterable(clipped), nan_flat) if not nb]


def clipped_text(q: B.QuantResult) -> str:
    """The sentence on the blocks whose largest number saturation cut to the element format's maximum
    (c9.core.blockscale.QuantResult.clipped), with the MX rule; "" for another scheme that cut none."""
    flat = _counted(q.clipped, q.nan_blocks)
    n = sum(flat)
    top = units.sci(B.get_block_format(q.scheme).element_format.max, 6)
    rule = f"（缩放规则：{B.MX_RULES[q.mx_rule][0]}）" if q.mx_rule else ""
    if not flat:  # every block's scale is NaN: nothing was cut, nor measured
        return ""
    if not n:
        return f"没有哪个块的最大值被截断{rule}。" if q.mx_rule else ""
    if len(flat) == 1:
        return f"这个块的最大值被截断到元素上限 {top} 倍缩放因子{rule}。"
    share = units.error_percent(n / len(flat))
    return f"{len(flat):,} 个块里有 {n:,} 个的最大值被截断到元素上限 {top}，占 {share}{rule}。"


def nan_text(q: B.QuantResult) -> str:
    """The sentence on the MX blocks that held NaN or ±∞ (c9.core.blockscale.QuantResult.nan_blocks); ""
    when there are none. OCP MX: such a block's scale is NaN, so each of its numbers reads back as NaN."""
    flat = [c for row in q.nan_blocks for c in row]
    n = sum(flat)
    if not n:
        return ""
    if len(flat) == 1:
        head = "这一块里有 NaN 或无穷大，按 OCP MX 规范整块的缩放因子记作 NaN（E8M0 编码 0xFF），"
        tail = "块里每个数读出来都是 NaN，原本有限的数也不例外。"
    else:
        which = f"{n:,} 个块都" if n == len(flat) else f"{len(flat):,} 个块里有 {n:,} 个"
        head = f"{which}含 NaN 或无穷大：按 OCP MX 规范，这些块的缩放因子记作 NaN（E8M0 编码 0xFF），"
        tail = "块里每个数读出来都是 NaN，原本有限的数也不例外；图里这些块留白，误差统计不算它们。"
    return head + tail


def unquantized_view(tensor: list[list], scheme: str) -> dict:
    """A scheme that does not say what NaN or ±∞ becomes (per tensor, DeepSeek-V3's tiles, NVFP4), on a tensor
    holding one: the panel says so and quantises nothing; the table shows dashes."""
    bf = B.get_block_format(scheme)
    label = SCHEME_LABELS[scheme]
    shape = (len(tensor), len(tensor[0]))
    tile = shape if bf.tile is None else bf.tile
    redges, cedges = tile_edges(shape, tile)
    why = (
        "NVIDIA 的 NVFP4 资料（论文 arXiv:2509.25149 与介绍 NVFP4 的博客）没有说明一块里有 NaN 或无穷大时，"
        "E4M3 的块缩放因子和块里的数变成什么，这里不替它猜"
        if bf.scale_rule == "two_level"
        else "这种缩放的因子由最大绝对值算出，最大值是 NaN 或无穷大时没有定义，本页依据的资料也没有说怎么处理"
    )
    n_blocks = (len(redges) - 1) * (len(cedges) - 1)
    total = shape[0] * shape[1]
    # what storing this tensor would cost depends on its shape only (as c9.core.blockscale counts it): the
    # elements, one scale per block, and NVFP4's tensor scale; the measured columns stay dashes
    tensor_bits = get_format(bf.tensor_scale).bits if bf.tensor_scale else 0
    bits = (total * bf.element_format.bits + n_blocks * bf.scale.bits + tensor_bits) / total
    blank = [[None] * shape[1] for _ in range(shape[0])]
    return {
        "scheme": scheme,
        "label": label,
        "shape": list(shape),
        "tile": list(tile),
        "max_rel": None,
        "max_rel_text": "—",
        "median_rel": None,
        "median_rel_text": "—",
        "coarse": None,
        "flushed": None,
        "total": total,
        "counts": None,
        "bits_actual": bits,
        "bits_nominal": bf.bits_per_element,
        "n_scales": n_blocks,
        "counted_blocks": n_blocks,
        "row_edges": redges,
        "col_edges": cedges,
        "n_blocks": n_blocks,
        "ruined": 0,
        "right_blocks": 0,
        "right_ruined": 0,
        "clipped": [],
        "clipped_blocks": None,
        "clipped_share": None,
        "mx_rule": None,
        "nan_blocks": [],
        "quantized": False,
        "summary": f"{label}：张量里有 NaN 或无穷大。{why}，所以这种缩放这次不量化。",
        "figure": _figure(blank, redges, cedges, label),
    }


def scheme_view(tensor: list[list[float]], scheme: str, typed_in: bool = False, rule: str = "floor") -> dict:
    """One scheme on one tensor: summary numbers, the per-block mean errors and their chart. A typed
    tensor (``typed_in``) is stored as FP32 first, by the seed's rule (:mod:`c9.views.fp32_first`), and its
    errors are measured against the numbers as typed. ``rule``: the MX scale rule (MX schemes only)."""
    double = None
    if B.get_block_format(scheme).scale_rule != "mx_pow2" and not all(
        _finite(v) for row in tensor for v in row
    ):
        return unquantized_view(tensor, scheme)
    try:
        if typed_in:
            # the label is a panel title, not a clause: quoted, the sentence reads 「按「…」量化后还原为 …」
            held = fp32_first.quantize(
                tensor, scheme, f"按「{SCHEME_LABELS[scheme]}」量化后", _cell_name, rule
            )
            q, rel, double = held.q, held.rel, held.note
        else:
            q = B.quantize(tensor, scheme, rule)
            rel = q.rel_error
    except CodecInputError as e:
        raise InputError(e.message_zh) from None
    dequantized = q.dequantized
    nan_note = nan_text(q)
    if (
        nan_note
    ):  # the NaN blocks' numbers count as absent, as zeros do: out of the statistics, blank on the map
        tensor = [[0 if r != r else v for v, r in zip(trow, rrow)] for trow, rrow in zip(tensor, rel)]
        dequantized = [
            [0.0 if r != r else d for d, r in zip(drow, rrow)] for drow, rrow in zip(dequantized, rel)
        ]
    zeros = sum(row.count(0) for row in tensor)
    if zeros:
        nonzero = sorted(r for row, trow in zip(rel, tensor) for r, v in zip(row, trow) if v != 0)
    else:
        nonzero = sorted(chain.from_iterable(rel))
    n = len(nonzero)
    max_rel = nonzero[-1] if n else 0.0  # against the numbers as typed (q's own is against FP32's)
    median = (nonzero[(n - 1) // 2] + nonzero[n // 2]) / 2 if n else 0.0
    to_bin = partial(bisect_left, BIN_EDGES)
    counts = [0] * (len(BIN_EDGES))
    for r in nonzero:
        counts[to_bin(r)] += 1
    flushed = sum(row.count(0) for row in dequantized) - zeros
    total = len(tensor) * len(tensor[0]) - sum(
        r != r for row in rel for r in row
    )  # not the NaN blocks' numbers
    coarse = sum(counts[5:])  # > 6.25%: worse than E4M3's normal grid
    # nothing measured (every block's scale is NaN; or no nonzero number for the maximum and median): the
    # table shows dashes there, not a zero nobody measured
    max_text = units.error_percent(max_rel) if n else "—"
    median_text = units.error_percent(median) if n else "—"
    counted = _counted(q.clipped, q.nan_blocks)  # the blocks outside the NaN ones, as the numbers' columns
    shape = (len(tensor), len(tensor[0]))
    tile = tuple(q.tile)
    means = tile_means(tensor, rel, tile)
    classes = [
        [None if v == 0 else error_class(r, d == 0) for v, r, d in zip(trow, rrow, drow)]
        for trow, rrow, drow in zip(tensor, rel, dequantized)
    ]
    flat = [m for row in means for m in row if m is not None]
    ruined = sum(m > RUINED for m in flat)
    half = shape[1] // 2  # the right half: no outlier channel is generated there
    redges, cedges = tile_edges(shape, tile)
    right = [m for row in means for m, c1 in zip(row, cedges[1:]) if m is not None and c1 > half]
    right_ruined = sum(m > RUINED for m in right)
    label = SCHEME_LABELS[scheme]
    all_blocks = (len(redges) - 1) * (len(cedges) - 1)
    # the blocks whose scale is NaN are out of the error counts (nan_note says how many): the rest are named so
    rest = "不含 NaN 或无穷大的" if len(flat) < all_blocks else ""
    if len(flat) > 1:
        blocks = f"{rest}{len(flat):,} 个块里 {ruined:,} 个的平均误差超过 6.25%"
    elif rest and flat:
        blocks = f"{rest}块只有 1 个，平均误差 {units.error_percent(flat[0])}"
    else:
        blocks = f"整张量只有一个块，平均误差 {units.error_percent(flat[0]) if flat else '0%'}"
    if nan_note and not flat:  # every block's scale is NaN: no error to speak of
        summary = f"{label}：{nan_note}连缩放因子在内每个数 {q.bits_actual:.4g} 位。"
    else:
        summary = (
            f"{label}：{blocks}；"
            + (f"最大相对误差 {max_text}，中位数 {median_text}；" if n else "")
            + f"{coarse:,} / {total:,} 个数的误差超过 6.25%，其中 {flushed:,} 个变成了 0；"
            f"连缩放因子在内每个数 {q.bits_actual:.4g} 位。"
        ) + nan_note
    summary += clipped_text(q)
    if typed_in and held.flushed:
        summary += f"其中 {held.flushed:,} 个数太小，先存成 FP32 时就已是 0。"
    summary += double or ""
    return {
        "scheme": scheme,
        "label": label,
        "shape": list(shape),
        "tile": list(tile),
        "max_rel": max_rel if n else None,
        "max_rel_text": max_text,
        "median_rel": median if n else None,
        "median_rel_text": median_text,
        "coarse": coarse if total else None,
        "flushed": flushed if total else None,
        "total": total,
        "counts": counts,
        "bits_actual": q.bits_actual,
        "bits_nominal": q.bits_per_element,
        "n_scales": sum(map(len, q.scales)),
        "counted_blocks": len(counted),
        # (the blocks' means stay here: the page draws the numbers' classes, and the answer cache stays small)
        "row_edges": redges,
        "col_edges": cedges,
        "n_blocks": len(flat),
        "ruined": ruined,
        "right_blocks": len(right),
        "right_ruined": right_ruined,
        # (row, column) of each block whose maximum saturation cut: few, so the answers stay small
        "clipped": [[i, j] for i, row in enumerate(q.clipped) for j, c in enumerate(row) if c],
        "clipped_blocks": sum(counted) if counted else None,
        "clipped_share": sum(counted) / len(counted) if counted else None,
        "mx_rule": q.mx_rule,
        # (row, column) of each MX block whose scale is NaN (it held NaN or ±∞)
        "nan_blocks": [[i, j] for i, row in enumerate(q.nan_blocks) for j, c in enumerate(row) if c],
        "quantized": True,
        "summary": summary,
        "figure": _figure(classes, redges, cedges, label, q.clipped, q.nan_blocks),
    }


def _boundaries(redges, cedges) -> list[dict]:
    """The block boundaries as two path shapes: the lines between block columns, and (thinner,
    they can be one row apart) the lines between block rows, in the page's text colour. Cells are centred
    on whole numbers, so the edge before index k is at k − 0.5; each line runs across the plot (paper
    coordinates 0 … 1 the other way)."""
    cols = " ".join(f"M{c - 0.5},0V1" for c in cedges[1:-1])
    rows = " ".join(f"M0,{r - 0.5}H1" for r in redges[1:-1])
    out = []
    if cols:
        out.append(
            {
                "type": "path",
                "path": cols,
                "xref": "x",
                "yref": "paper",
                "line": {"color": var("ink"), "width": 1.5},
            }
        )
    if rows:
        thin = redges[1] - redges[0] == 1
        out.append(
            {
                "type": "path",
                "path": rows,
                "xref": "paper",
                "yref": "y",
                "line": {"color": var("ink"), "width": 0.4 if thin else 1.5},
                "opacity": 0.6 if thin else 1,
            }
        )
    return out


def index_ticks(n: int, centre: float) -> dict:
    """Ticks naming whole tokens or channels 0 … n − 1 (a one-row tensor's axis read −0.4 … 0.4): every
    index up to 8 of them, else every 2ᵏ-th so that at most 8 show, each at its cell's centre (``centre``:
    where cell 0's centre is on the axis)."""
    step = next(k for k in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512) if n <= 8 * k)
    return {
        "tickvals": [i + centre for i in range(0, n, step)],
        "ticktext": [str(i) for i in range(0, n, step)],
    }


def _axes(n: int, m: int, lo: float = 0) -> dict:
    """Axes over n tokens × m channels, cells centred on whole numbers (``lo`` = −0.5: the axes start at cell
    0's left edge). The channel axis marks every 64th channel's left edge (128 is the 1×128 tiles' edge) when
    the tensor is that wide; otherwise, and along the tokens, each tick names an index at its cell's centre."""
    wide = {
        "tickvals": [k + lo for k in range(0, m + 1, 64)],
        "ticktext": [str(k) for k in range(0, m + 1, 64)],
    }
    x_ticks = wide if m >= 128 else index_ticks(m, lo + 0.5)
    return {
        "xaxis": {
            "title": {"text": "通道", "standoff": 4},
            "automargin": True,
            "range": [lo, m + lo],
            "fixedrange": True,
            "showgrid": False,
            "zeroline": False,
            **x_ticks,
        },
        "yaxis": {
            "title": {"text": "token"},
            "range": [n + lo, lo],
            "fixedrange": True,
            "showgrid": False,
            "zeroline": False,
            **index_ticks(n, lo + 0.5),
        },
        "font": {"family": "Noto Sans SC, sans-serif", "size": 12},
    }


def _figure(classes, redges, cedges, title: str, clipped=None, nan_blocks=None) -> dict:
    """One cell per number, centred on its token and channel as in the |x| map; colour = the number's error
    class (:func:`error_class`; blank where the number was 0), the scaling blocks' boundaries over it, and
    a thick outline round each block whose largest number was clipped (``clipped``: one bool per block), a
    dotted one round each MX block whose scale is NaN (``nan_blocks``; its cells are blank)."""
    n, m = len(classes), len(classes[0])
    return {
        "data": [
            {
                "type": "heatmap",
                "z": classes,
                "x0": 0,
                "dx": 1,
                "y0": 0,
                "dy": 1,
                "zmin": -0.5,
                "zmax": len(CLASS_ROLES) - 0.5,
                "colorscale": ERR_COLORSCALE,
                "showscale": False,
                "hovertemplate": "token %{y}，通道 %{x}<extra></extra>",
                "xgap": 0,
                "ygap": 0,
            }
        ],
        "layout": {
            "height": HEAT_HEIGHT,
            "margin": {"l": 44, "r": 14, "t": 28, "b": 36},  # r: room for half of the last tick, "256"
            "title": {"text": title, "font": {"size": 13}, "x": 0.02},
            "shapes": _boundaries(redges, cedges)
            + _clipped_outlines(clipped or [], redges, cedges)
            + _clipped_outlines(nan_blocks or [], redges, cedges, "dot"),
            **_axes(n, m, -0.5),
        },
    }


def _clipped_outlines(clipped, redges, cedges, dash: str = "solid") -> list[dict]:
    """A rectangle round each marked block (cell edges at index − 0.5), twice the boundaries' width."""
    return [
        {
            "type": "rect",
            "x0": cedges[j] - 0.5,
            "x1": cedges[j + 1] - 0.5,
            "y0": redges[i] - 0.5,
            "y1": redges[i + 1] - 0.5,
            "line": {"color": var("ink"), "width": 3} | ({"dash": dash} if dash != "solid" else {}),
        }
        for i, row in enumerate(clipped)
        for j, c in enumerate(row)
        if c
    ]


def _log10_abs(v) -> float:
    """log10 |v|, also for a typed number beyond float's range (10⁻³³⁰ is kept exact as a Fraction)."""
    f = abs(float(v))
    if 0 < f < math.inf:
        return math.log10(f)
    if not _finite(v):
        return math.nan
    fr = abs(Fraction(v))
    return math.log10(fr.numerator) - math.log10(fr.denominator)


def abs_figure(tensor) -> dict:
    """The tensor itself: log10 |x| per entry, in tenths (−30 = 10⁻³; integers keep the page small),
    so the outlier channels (columns) and the outlier token (a row) show before any quantisation.
    Zeros, NaN and ±∞ are left blank."""
    z = [[round(10 * _log10_abs(v)) if v and _finite(v) else None for v in row] for row in tensor]
    n, m = len(tensor), len(tensor[0])
    ticks = list(range(int(ABS_MIN), int(ABS_MAX) + 1))
    return {
        "data": [
            {
                "type": "heatmap",
                "z": z,
                "x0": 0,
                "dx": 1,
                "y0": 0,
                "dy": 1,
                "zmin": 10 * ABS_MIN,
                "zmax": 10 * ABS_MAX,
                "colorscale": ABS_COLORSCALE,
                "colorbar": {
                    "thickness": 10,
                    "len": 1,
                    "tickvals": [10 * k for k in ticks],
                    "ticktext": [units.sci(10.0**k, 1) if k < 0 or k > 3 else f"{10**k:,}" for k in ticks],
                },
                "hovertemplate": "token %{y}，通道 %{x}<extra></extra>",
            }
        ],
        "layout": {
            "height": HEAT_HEIGHT,
            "margin": {"l": 44, "r": 14, "t": 28, "b": 36},  # r: room for half of the last tick, "256"
            "title": {"text": "量化之前：每个数的大小 |x|（对数）", "font": {"size": 13}, "x": 0.02},
            **_axes(n, m, -0.5),
        },
    }


def describe_abs(tensor, outlier_cols) -> str:
    """Text beside the |x| map: where the large numbers are."""
    n, m = len(tensor), len(tensor[0])
    odd = sum(not _finite(v) for row in tensor for v in row)
    big = max((abs(v) for row in tensor for v in row if _finite(v)), default=0)
    small = min((abs(v) for row in tensor for v in row if v and _finite(v)), default=0)
    finite = n * m - odd
    if not finite:  # nothing but NaN and ±∞: no finite number to speak of
        size, rest = ("这个数" if odd == 1 else f"{odd:,} 个数全") + "是 NaN 或无穷大（图里留白）", ""
    else:
        size = f"绝对值从 {units.sci(small, 2)} 到 {units.sci(big, 3)}" if big else "有限的数都是 0"
        rest = f"，另有 {odd:,} 个 NaN 或无穷大（图里留白）" if odd else ""
    return (
        f"量化之前的张量：{n} 行 × {m} 列，{size}{rest}。"
        + ("竖的深色条是离群通道，横的深色条是离群 token。" if outlier_cols is not None else "")
        + cut_text(n, m)
    )


def cut_text(n: int, m: int) -> str:
    """The sentence on the 128×128 block this n × m tensor cuts short (from the shape, so it follows a typed
    tensor too); "" when the tensor holds a whole block."""
    short = [f"只有 {k} {unit}" for k, unit in ((n, "行"), (m, "列")) if k < 128]
    if not short:
        return ""
    return f"张量{'、'.join(short)}，所以 128×128 的块在这里被截成 {min(n, 128)}×{min(m, 128)}。"


def preset_schemes(preset: str) -> list[str]:
    """The schemes a preset shows, in SCHEMES order: all of them, or those a model's config names."""
    if preset == "all":
        return list(SCHEMES)
    named = quant_configs.recipe(preset)["schemes"]
    return [s for s in SCHEMES if s in named]


def view(params: dict | None = None) -> dict:
    """One scheme (params["scheme"]) on the tensor the params describe.

    params: source ("generated" | "typed"), seed (0 … 10⁹), channels (0 … 8), magnitude (100, 1000,
    10000), token (bool), text (the typed tensor), scheme (one of SCHEMES), preset (one of PRESETS:
    which schemes the page shows), rule (one of RULES: the MX schemes' scale rule). The first scheme of the preset also carries the |x| map.
    Raises InputError (Chinese message) on bad input."""
    p = normalise(params)
    t, cols = tensor_for(p)
    v = scheme_view(t, p["scheme"], typed_in=p["source"] == "typed", rule=p["rule"])
    v["params"] = p if p["scheme"] in MX_SCHEMES else {k: x for k, x in p.items() if k != "rule"}
    v["tensor_note"] = describe_tensor(p, cols)
    v["shown"] = preset_schemes(p["preset"])
    if p["preset"] != "all":  # say which part of the model the config scales this way
        r = quant_configs.recipe(p["preset"])
        role = {r["activation"]: "激活", r["weight"]: "权重"}.get(p["scheme"])
        if role:
            v["summary"] = f"按 {r['name']} 的配方，{role}用这种缩放。" + v["summary"]
    if p["scheme"] == v["shown"][0]:
        v["abs_figure"] = abs_figure(t)
        v["abs_summary"] = describe_abs(t, cols)
    return v


def predict(views: list[dict]) -> list[dict]:
    """The predict-first task's answer, per scheme: the blocks that reach into the right half (no
    outlier channel there) and how many of them are ruined (mean error > 6.25%)."""
    return [
        {"scheme": v["scheme"], "label": v["label"], "blocks": v["right_blocks"], "ruined": v["right_ruined"]}
        for v in views
    ]


def colour_key() -> list[dict]:
    """The shared key under the |x| map: each error class's label and colour, in order."""
    return [{"label": label, "color": var(role)} for _, label, role in ERROR_CLASSES + (ZEROED,)]


HEAT_MAPS = ("figure", "abs_figure")  # the view's Plotly figures


def page_context() -> dict:
    """Build time: the default tensor through every scheme, and DeepSeek-V3's recipe card."""
    import json

    views = [view({"scheme": s}) for s in SCHEMES]
    presets = {k: preset_schemes(k) for k in PRESETS}
    return dict(
        view=views[0],
        views=views,
        list_rule=typed.LIST_RULE,
        # The heat maps (half of lesson 4's page, 52 KB of its 107 KB gzip) go in a file the script fetches
        # when the charts near the screen (data_files: hooks/course.py); the page keeps the rest of each view.
        views_json=json.dumps(
            [{k: x for k, x in v.items() if k not in HEAT_MAPS} for v in views],
            ensure_ascii=False,
            separators=(",", ":"),
        ),
        data_files={
            "figures": {"abs_figure": views[0]["abs_figure"]} | {v["scheme"]: v["figure"] for v in views}
        },
        # data-default carries the default's parameters only: its view is views[0], already in data-defaults
        view_json=json.dumps({"params": views[0]["params"]}, ensure_ascii=False, separators=(",", ":")),
        presets_json=json.dumps(presets),
        recipe=quant_configs.recipe("deepseek-v3"),
        predict=predict(views),
        key=colour_key(),
        ruined_text=units.error_percent(RUINED),
        rows=ROWS,
        cols=COLS,
        magnitudes=MAGNITUDES,
        max_channels=MAX_CHANNELS,
        defaults=DEFAULTS,
        rules=[{"value": k, "label": v[0]} for k, v in B.MX_RULES.items()],
        mx_json=json.dumps(list(MX_SCHEMES)),
    )


def neighbours(context: dict) -> list[dict]:
    """For the build's answer cache (c9/views/nearby.py): what block-lab.js sends one control from the
    default (seed as the box's text), one request per scheme the preset shows; not the default itself, which
    the page already holds (data-defaults and its figures file) and which is the largest answer."""
    from c9.views.nearby import around, one_step

    d = context["defaults"]
    base = {k: d[k] for k in ("source", "channels", "magnitude", "token", "text", "preset", "rule")} | {
        "seed": str(d["seed"])
    }
    states = one_step(
        base,
        channels=around(list(range(context["max_channels"] + 1)), d["channels"], 1),
        magnitude=list(context["magnitudes"]),
        token=[not d["token"]],
        source=["typed"],
        preset=list(PRESETS),
    )[
        1:
    ]  # not the MX rules: four rules × two MX schemes would pass the cache's size budget; Python answers them
    default = [{**base, "scheme": scheme} for scheme in preset_schemes(base["preset"])]
    out = []
    for s in states:
        for scheme in preset_schemes(s["preset"]):
            req = {**s, "scheme": scheme}
            if scheme not in MX_SCHEMES:  # as block-lab.js sends it: no rule
                req.pop("rule")
                if s["rule"] != base["rule"] and {**req, "rule": base["rule"]} in default + out:
                    continue  # the rule does not move this scheme: the answer is one the page has
            if req not in out:
                out.append(req)
    return out
