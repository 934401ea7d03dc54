"""Lesson 4's block-scaling lab: one tensor quantised per tensor, per 1×128 tile and per 128×128
block (DeepSeek-V3 §3.3.1), and with MXFP8, MXFP4 and NVFP4, drawn so the picture carries the point:
a map of |x| (where the outliers are), then per scheme one cell per scaling block, coloured by the
block's mean relative error on one shared log scale, with the block boundaries drawn.

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
from c9.core.formats import CodecInputError
from c9.views import fp32_first
from c9.views.params import ascii_text, integer, with_defaults, within_fp32

WIDGET = "block-lab"

ROWS, COLS = 64, 256  # tokens × channels of the generated tensor (a 128×128 block is cut to 64×128)
SCHEMES = ("per_tensor_e4m3", "deepseek_1x128", "deepseek_128x128", "mxfp8_e4m3", "mxfp4", "nvfp4")
SCHEME_LABELS = {
    "per_tensor_e4m3": "整张量一个缩放",
    "deepseek_1x128": "每 1×128 一个缩放",
    "deepseek_128x128": "每 128×128 一个缩放",
    "mxfp8_e4m3": "MXFP8：每 1×32 一个 2 的幂",
    "mxfp4": "MXFP4：每 1×32 一个 2 的幂",
    "nvfp4": "NVFP4：每 1×16 一个 E4M3，外加整张量一个",
}
PRESETS = ("all", "deepseek-v3")
MAGNITUDES = (100, 1000, 10000)
MAX_CHANNELS = 8
MAX_TYPED_ROWS, MAX_TYPED_COLS = 64, 512
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
}

#: Error bins (upper edges of relative error): the table counts the numbers past 6.25%.
BIN_EDGES = (0.0, 0.001, 0.01, 0.03, 0.0625, 0.125, 0.5, math.inf)
RUINED = 0.0625  # a block whose mean error passes E4M3's worst normal-range rounding (2⁻⁴)

#: The shared error scale: log10 of a block's mean relative error, 0.1% … 100%, green (fine) to
#: dark red (ruined); yellow sits at 6.25%. Mid-luminance hues read on both palettes.
LOG_MIN, LOG_MAX = -3.0, 0.0
_RUIN_AT = (math.log10(RUINED) - LOG_MIN) / (LOG_MAX - LOG_MIN)
ERR_COLORSCALE = [
    [0.0, var("error-fine")],
    [0.42, var("error-small")],
    [round(_RUIN_AT, 4), var("error-ruin")],
    [0.78, var("error-large")],
    [1.0, var("error-ruined")],
]
ERR_TICKS = (0.001, 0.01, RUINED, 0.25, 1.0)
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
        return "当前张量是手动输入的（原值为 0 的格子误差记为 0）。"
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
    Raises InputError (Chinese) on anything else."""
    if not isinstance(text, str) or not text.strip():
        raise InputError("张量是空的：至少输入一个数")
    # "[1, 2], [3, 4]": "]" ends a row, and so does the comma after it
    body = re.sub(r"\]\s*[,、]?", ";", ascii_text(text)).replace(";", "\n")
    rows = []
    for line in body.splitlines():
        if not typed.tokens(line):
            continue
        row = typed.numbers(line, f"第 {len(rows) + 1} 行的")
        for v in row:
            if v != v:
                raise InputError(f"第 {len(rows) + 1} 行有 NaN：这里只量化有限数")
            if isinstance(v, float) and math.isinf(v):
                raise InputError(f"第 {len(rows) + 1} 行有无穷大：这里只量化有限数")
        within_fp32(line, row, lambda i: f"第 {len(rows) + 1} 行第 {i + 1} 列")
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
    p["seed"] = integer(p["seed"], "随机种子", 0, 10**9)
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
    nonzero entries (a number that became 0 counts 100%); None for a block of zeros."""
    redges, cedges = tile_edges((len(tensor), len(tensor[0])), tile)
    out = []
    for r0, r1 in zip(redges, redges[1:]):
        row = []
        for c0, c1 in zip(cedges, cedges[1:]):
            errs = [e for i in range(r0, r1) for e, v in zip(rel_error[i][c0:c1], tensor[i][c0:c1]) if v != 0]
            row.append(math.fsum(errs) / len(errs) if errs else None)
        out.append(row)
    return out


def _cell_name(i: int, j: int) -> str:
    return f"第 {i + 1} 行第 {j + 1} 列"


def scheme_view(tensor: list[list[float]], scheme: str, typed_in: bool = False) -> dict:
    """One scheme on one tensor: summary numbers, the per-block mean errors and their chart. A typed
    tensor (``typed_in``) is stored as FP32 first, by the seed's rule (:mod:`c9.views.fp32_first`), and its
    errors are measured against the numbers as typed."""
    double = None
    try:
        if typed_in:
            held = fp32_first.quantize(tensor, scheme, SCHEME_LABELS[scheme], _cell_name)
            q, rel, double = held.q, held.rel, held.note
        else:
            q = B.quantize(tensor, scheme)
            rel = q.rel_error
    except CodecInputError as e:
        raise InputError(e.message_zh) from None
    zeros = sum(row.count(0) for row in tensor)
    if zeros:
        nonzero = sorted(r for row, trow in zip(rel, tensor) for r, v in zip(row, trow) if v != 0)
    else:
        nonzero = sorted(chain.from_iterable(rel))
    n = len(nonzero)
    max_rel = max(chain.from_iterable(rel))  # against the numbers as typed (q's own is against FP32's)
    median = (nonzero[(n - 1) // 2] + nonzero[n // 2]) / 2 if n else 0.0
    to_bin = partial(bisect_left, BIN_EDGES)
    counts = [0] * (len(BIN_EDGES))
    for r in nonzero:
        counts[to_bin(r)] += 1
    flushed = sum(row.count(0) for row in q.dequantized) - zeros
    total = len(tensor) * len(tensor[0])
    coarse = sum(counts[5:])  # > 6.25%: worse than E4M3's normal grid
    shape = (len(tensor), len(tensor[0]))
    tile = tuple(q.tile)
    means = tile_means(tensor, rel, tile)
    flat = [m for row in means for m in row if m is not None]
    ruined = sum(m > RUINED for m in flat)
    half = shape[1] // 2  # the right half: no outlier channel is generated there
    redges, cedges = tile_edges(shape, tile)
    right = [m for row in means for m, c1 in zip(row, cedges[1:]) if m is not None and c1 > half]
    right_ruined = sum(m > RUINED for m in right)
    label = SCHEME_LABELS[scheme]
    blocks = (
        f"{len(flat):,} 个块里 {ruined:,} 个的平均误差超过 6.25%"
        if len(flat) > 1
        else f"整张量只有一个块，平均误差 {units.error_percent(flat[0]) if flat else '0%'}"
    )
    summary = (
        f"{label}：{blocks}；最大相对误差 {units.error_percent(max_rel)}，中位数 {units.error_percent(median)}；"
        f"{coarse:,} / {total:,} 个数的误差超过 6.25%，其中 {flushed:,} 个变成了 0；"
        f"连缩放因子在内每个数 {q.bits_actual:.4g} 位。"
    )
    if typed_in and held.flushed:
        summary += f"其中 {held.flushed:,} 个数太小，先存成 FP32 时就已是 0。"
    summary += double or ""
    return {
        "scheme": scheme,
        "label": label,
        "shape": list(shape),
        "tile": list(tile),
        "max_rel": max_rel,
        "max_rel_text": units.error_percent(max_rel),
        "median_rel": median,
        "median_rel_text": units.error_percent(median),
        "coarse": coarse,
        "flushed": flushed,
        "total": total,
        "counts": counts,
        "bits_actual": q.bits_actual,
        "bits_nominal": q.bits_per_element,
        "n_scales": sum(map(len, q.scales)),
        "tile_means": means,
        "row_edges": redges,
        "col_edges": cedges,
        "n_blocks": len(flat),
        "ruined": ruined,
        "right_blocks": len(right),
        "right_ruined": right_ruined,
        "summary": summary,
        "figure": _figure(means, redges, cedges, label),
    }


def _log(x: float) -> float:
    return round(min(LOG_MAX, max(LOG_MIN, math.log10(x))), 3) if x > 0 else LOG_MIN


def _boundaries(redges, cedges) -> list[dict]:
    """The block boundaries as two path shapes: the lines between block columns, and (thinner,
    they can be one row apart) the lines between block rows, in the page's text colour."""
    n, m = redges[-1], cedges[-1]
    cols = " ".join(f"M{c},0V{n}" for c in cedges[1:-1])
    rows = " ".join(f"M0,{r}H{m}" for r in redges[1:-1])
    out = []
    if cols:
        out.append({"type": "path", "path": cols, "line": {"color": var("ink"), "width": 1.5}})
    if rows:
        thin = redges[1] - redges[0] == 1
        out.append(
            {
                "type": "path",
                "path": rows,
                "line": {"color": var("ink"), "width": 0.4 if thin else 1.5},
                "opacity": 0.6 if thin else 1,
            }
        )
    return out


def _axes(n: int, m: int, lo: float = 0) -> dict:
    """Axes over n tokens × m channels; ``lo`` = −0.5 when cells are centred on whole numbers."""
    return {
        "xaxis": {
            "title": {"text": "通道", "standoff": 4},
            "automargin": True,
            "range": [lo, m + lo],
            "fixedrange": True,
            "showgrid": False,
            "zeroline": False,
            "tickvals": list(range(0, m + 1, 64)),
        },
        "yaxis": {
            "title": {"text": "token"},
            "range": [n + lo, lo],
            "fixedrange": True,
            "showgrid": False,
            "zeroline": False,
        },
        "font": {"family": "Noto Sans SC, sans-serif", "size": 12},
    }


def _figure(means, redges, cedges, title: str) -> dict:
    """One cell per scaling block, spanning the block's rows and channels (Plotly reads x and y one
    longer than z as cell edges); colour = log10 of the block's mean relative error."""
    z = [[None if v is None else _log(v) for v in row] for row in means]
    text = [["—" if v is None else units.error_percent(v) for v in row] for row in means]
    return {
        "data": [
            {
                "type": "heatmap",
                "z": z,
                "x": cedges,
                "y": redges,
                "zmin": LOG_MIN,
                "zmax": LOG_MAX,
                "colorscale": ERR_COLORSCALE,
                "showscale": False,
                "customdata": text,
                "hovertemplate": "这一块的平均误差：%{customdata}<extra></extra>",
                "xgap": 0,
                "ygap": 0,
            }
        ],
        "layout": {
            "height": 220,
            "margin": {"l": 44, "r": 8, "t": 28, "b": 36},
            "title": {"text": title, "font": {"size": 13}, "x": 0.02},
            "shapes": _boundaries(redges, cedges),
            **_axes(redges[-1], cedges[-1]),
        },
    }


def _log10_abs(v) -> float:
    """log10 |v|, also for a typed number beyond float's range (10⁻³³⁰ is kept exact as a Fraction)."""
    f = abs(float(v))
    if 0 < f < math.inf:
        return math.log10(f)
    fr = abs(Fraction(v))
    return math.log10(fr.numerator) - math.log10(fr.denominator)


def abs_figure(tensor) -> dict:
    """The tensor itself: log10 |x| per entry, in tenths (−30 = 10⁻³; integers keep the page small),
    so the outlier channels (columns) and the outlier token (a row) show before any quantisation.
    Zeros are left blank."""
    z = [[round(10 * _log10_abs(v)) if v else None for v in row] for row in tensor]
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
                "hovertemplate": "token %{y:.0f}，通道 %{x:.0f}<extra></extra>",
            }
        ],
        "layout": {
            "height": 220,
            "margin": {"l": 44, "r": 8, "t": 28, "b": 36},
            "title": {"text": "量化之前：每个数的大小 |x|（对数）", "font": {"size": 13}, "x": 0.02},
            **_axes(n, m, -0.5),
        },
    }


def describe_abs(tensor, outlier_cols) -> str:
    """Text beside the |x| map: where the large numbers are."""
    n, m = len(tensor), len(tensor[0])
    big = max(abs(v) for row in tensor for v in row)
    small = min((abs(v) for row in tensor for v in row if v), default=0)
    return f"量化之前的张量：{n} 行 × {m} 列，绝对值从 {units.sci(small, 2)} 到 {units.sci(big, 3)}。" + (
        "竖的深色条是离群通道，横的深色条是离群 token。" if outlier_cols is not None else ""
    )


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
    which schemes the page shows). The first scheme of the preset also carries the |x| map.
    Raises InputError (Chinese message) on bad input."""
    p = normalise(params)
    t, cols = tensor_for(p)
    v = scheme_view(t, p["scheme"], typed_in=p["source"] == "typed")
    v["params"] = p
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


def colorbar_ticks() -> list[dict]:
    """Labels of the shared error colour bar: text and position (0 … 1 along the bar)."""
    return [
        {"text": f"{x * 100:g}%", "at": round((math.log10(x) - LOG_MIN) / (LOG_MAX - LOG_MIN), 4)}
        for x in ERR_TICKS
    ]


def page_context() -> dict:
    """Build time: the default tensor through every scheme, and DeepSeek-V3's recipe card."""
    import json

    views = [view({"scheme": s}) for s in SCHEMES]
    presets = {k: preset_schemes(k) for k in PRESETS}
    gradient = ", ".join(f"{c} {round(at * 100, 2)}%" for at, c in ERR_COLORSCALE)
    return dict(
        view=views[0],
        views=views,
        list_rule=typed.LIST_RULE,
        views_json=json.dumps(views, ensure_ascii=False, separators=(",", ":")),
        presets_json=json.dumps(presets),
        recipe=quant_configs.recipe("deepseek-v3"),
        predict=predict(views),
        ticks=colorbar_ticks(),
        gradient=gradient,
        ruined_text=units.error_percent(RUINED),
        rows=ROWS,
        cols=COLS,
        magnitudes=MAGNITUDES,
        max_channels=MAX_CHANNELS,
        defaults=DEFAULTS,
    )


def neighbours(context: dict) -> list[dict]:
    """For the build's answer cache (c9/views/nearby.py): what block-lab.js sends one control from the
    default (seed as the box's text), one request per scheme the preset shows; not the default itself, which
    the page already holds (data-defaults) and which is the largest answer."""
    from c9.views.nearby import around, one_step

    d = context["defaults"]
    base = {k: d[k] for k in ("source", "channels", "magnitude", "token", "text", "preset")} | {
        "seed": str(d["seed"])
    }
    states = one_step(
        base,
        channels=around(list(range(context["max_channels"] + 1)), d["channels"], 1),
        magnitude=list(context["magnitudes"]),
        token=[not d["token"]],
        source=["typed"],
        preset=list(PRESETS),
    )[1:]
    return [{**s, "scheme": scheme} for s in states for scheme in preset_schemes(s["preset"])]
