"""Lesson 4's block-scaling lab: one tensor quantised to E4M3 per tensor, per 1×128 tile and per
128×128 block (DeepSeek-V3 §3.3.1), shown as a binned relative-error heatmap per scheme.

The tensor is generated from a seed (:func:`generate`: tokens × channels, a few outlier channels
and optionally one outlier token) or typed by the reader (:func:`parse_tensor`). ``view(params)``
answers one scheme at a time, so each request stays short in the browser (the page asks for the
three schemes one after another); :func:`page_context` computes all three at build time.
"""
from __future__ import annotations

import math
import re
import random
from bisect import bisect_left
from functools import partial
from itertools import chain

from . import blockscale as B
from . import typed, units
from .errors import InputError
from .params import ascii_text, integer, with_defaults
from .formats import CodecInputError

WIDGET = "block-lab"

ROWS, COLS = 64, 256                        # tokens × channels of the generated tensor (a 128×128 block is cut to 64×128)
SCHEMES = ("per_tensor_e4m3", "deepseek_1x128", "deepseek_128x128")
SCHEME_LABELS = {"per_tensor_e4m3": "整张量一个缩放", "deepseek_1x128": "每 1×128 一个缩放",
                 "deepseek_128x128": "每 128×128 一个缩放"}
MAGNITUDES = (100, 1000, 10000)
MAX_CHANNELS = 8
MAX_TYPED_ROWS, MAX_TYPED_COLS = 64, 512
DEFAULT_TYPED = "1000, 0, 0\n0.01, 0.02, 0.5"
DEFAULTS = {"source": "generated", "seed": 9, "channels": 4, "magnitude": 1000, "token": True,
            "text": DEFAULT_TYPED, "scheme": "per_tensor_e4m3"}

#: Error bins (upper edges of relative error) and their labels; the heatmap shows the bin index.
BIN_EDGES = (0.0, 0.001, 0.01, 0.03, 0.0625, 0.125, 0.5, math.inf)
BIN_LABELS = ("0（恰好表示）", "≤ 0.1%", "0.1%–1%", "1%–3%", "3%–6.25%", "6.25%–12.5%", "12.5%–50%", "> 50%（含变成 0）")
BIN_COLORS = ("#f7f7f7", "#d9ecd0", "#a6d49a", "#f6e08a", "#f5b461", "#e8793f", "#c8372d", "#6b0f1a")


def generate(seed: int = 9, channels: int = 4, magnitude: int = 1000, token: bool = True,
             rows: int = ROWS, cols: int = COLS) -> list[list[float]]:
    """A rows × cols activation-like tensor from ``random.Random(seed)`` (see :func:`generate_with_outliers`)."""
    return generate_with_outliers(seed, channels, magnitude, token, rows, cols)[0]


def generate_with_outliers(seed: int = 9, channels: int = 4, magnitude: int = 1000, token: bool = True,
                           rows: int = ROWS, cols: int = COLS) -> tuple[list[list[float]], list[int]]:
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


def describe_tensor(p: dict, outlier_cols: "list[int] | None" = None) -> str:
    """One Chinese sentence on where the tensor came from (shown under the heatmaps)."""
    if p["source"] == "typed":
        return "当前张量是手动输入的（原值为 0 的格子误差记为 0）。"
    cols = outlier_cols or []
    if not cols:
        channels = "没有离群通道"
    elif len(cols) == 1:
        channels = f"1 个离群通道（第 {cols[0]} 列，在前 128 列里）"
    else:
        channels = f"{len(cols)} 个离群通道（第 {'、'.join(map(str, cols))} 列，都在前 128 列里）"
    size = f"，离群值的量级约 {p['magnitude']:,}" if cols or p["token"] else ""
    tok = "，外加第 5 行一个离群 token" if p["token"] else "，没有离群 token"
    return f"当前张量：种子 {p['seed']}，{channels}{tok}{size}；其余数的绝对值在 0.001 到约 3 之间。"


def parse_tensor(text) -> list[list]:
    """A tensor typed by the reader: rows on separate lines (or separated by ';' or "]"), numbers
    separated by commas, "、" or spaces; brackets are ignored. Each number is read exactly
    (:mod:`widgets.typed`): "1e-330" stays 10⁻³³⁰ and underflows in E4M3, not before.
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
        typed.within_fp32(line, row, lambda i: f"第 {len(rows) + 1} 行第 {i + 1} 列")
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
        raise InputError(f"各行长度不一：第 1 行有 {len(rows[0])} 个数，第 {bad + 1} 行有 {len(rows[bad])} 个"
                         f"（逗号分隔数：「1,5」是两个数）")
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
        raise InputError(f"离群值的量级只能选 {'、'.join(map(str, MAGNITUDES))}")
    if not isinstance(p["token"], bool):
        raise InputError("「加一个离群 token」只能是开或关")
    return p


_last: dict = {}          # the last generated tensor: the page asks for three schemes of one tensor


def tensor_for(p: dict) -> tuple[list[list[float]], "list[int] | None"]:
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


def _pct(x: float) -> str:
    if x == 0:
        return "0%"
    if x >= 0.001:        # "> 99.9%" for an error just short of 100% (100% is "became 0")
        return units.share(x, 1 if x >= 0.1 else 2)
    return f"{units.sci(x * 100, 2)}%"          # 1.2×10⁻⁵%, never 1.2e-05%


def scheme_view(tensor: list[list[float]], scheme: str) -> dict:
    """One scheme on one tensor: summary numbers, per-bin counts and the binned heatmap spec."""
    try:
        q = B.quantize(tensor, scheme)
    except CodecInputError as e:
        raise InputError(e.message_zh) from None
    rel = q.rel_error
    zeros = sum(row.count(0) for row in tensor)
    if zeros:
        nonzero = sorted(r for row, trow in zip(rel, tensor) for r, v in zip(row, trow) if v != 0)
    else:
        nonzero = sorted(chain.from_iterable(rel))
    n = len(nonzero)
    median = (nonzero[(n - 1) // 2] + nonzero[n // 2]) / 2 if n else 0.0
    to_bin = partial(bisect_left, BIN_EDGES)
    bins = [list(map(to_bin, row)) for row in rel]
    counts = [sum(row.count(k) for row in bins) for k in range(len(BIN_LABELS))]
    counts[0] -= zeros                                      # an exact zero is not an error of 0
    flushed = sum(row.count(0) for row in q.dequantized) - zeros
    total = len(tensor) * len(tensor[0])
    coarse = sum(counts[5:])                               # > 6.25%: worse than E4M3's normal grid
    label = SCHEME_LABELS[scheme]
    summary = (f"{label}：最大相对误差 {_pct(q.max_rel_error)}，中位数 {_pct(median)}；"
               f"{coarse:,} / {total:,} 个数的误差超过 6.25%（E4M3 正规数的最坏情况），其中 {flushed:,} 个变成了 0；"
               f"连缩放因子在内每个数 {q.bits_actual:.4g} 位。")
    return {"scheme": scheme, "label": label, "shape": [len(tensor), len(tensor[0])],
            "tile": list(q.tile), "max_rel": q.max_rel_error, "max_rel_text": _pct(q.max_rel_error),
            "median_rel": median, "median_rel_text": _pct(median), "coarse": coarse, "flushed": flushed,
            "total": total, "counts": counts, "bits_actual": q.bits_actual,
            "bits_nominal": q.bits_per_element, "n_scales": sum(map(len, q.scales)),
            "summary": summary, "figure": _figure(bins, label)}


def _colorscale() -> list:
    k = len(BIN_COLORS)
    out = []
    for i, c in enumerate(BIN_COLORS):
        out += [[i / k, c], [(i + 1) / k, c]]
    return out


def _figure(bins: list[list[int]], title: str) -> dict:
    k = len(BIN_COLORS)
    return {
        "data": [{"type": "heatmap", "z": bins, "zmin": -0.5, "zmax": k - 0.5, "colorscale": _colorscale(),
                  "showscale": False, "hovertemplate": "token %{y}，通道 %{x}<extra></extra>",
                  "xgap": 0, "ygap": 0}],
        "layout": {
            "height": 260, "margin": {"l": 44, "r": 8, "t": 28, "b": 36},
            "title": {"text": title, "font": {"size": 13}, "x": 0.02},
            "xaxis": {"title": {"text": "通道"}, "fixedrange": True, "showgrid": False, "zeroline": False},
            "yaxis": {"title": {"text": "token"}, "autorange": "reversed", "fixedrange": True,
                      "showgrid": False, "zeroline": False},
            "paper_bgcolor": "rgba(0,0,0,0)", "plot_bgcolor": "rgba(0,0,0,0)",
            "font": {"family": "Noto Sans SC, sans-serif", "size": 12},
        },
    }


def view(params: dict | None = None) -> dict:
    """One scheme (params["scheme"]) on the tensor the params describe.

    params: source ("generated" | "typed"), seed (0 … 10⁹), channels (0 … 8), magnitude (100, 1000,
    10000), token (bool), text (the typed tensor), scheme (one of SCHEMES).
    Raises InputError (Chinese message) on bad input."""
    p = normalise(params)
    t, cols = tensor_for(p)
    v = scheme_view(t, p["scheme"])
    v["params"] = p
    v["tensor_note"] = describe_tensor(p, cols)
    return v


def page_context() -> dict:
    """Build time: the default tensor through all three schemes."""
    import json
    views = [view({"scheme": s}) for s in SCHEMES]
    return dict(view=views[0], views=views, list_rule=typed.LIST_RULE, views_json=json.dumps(views, ensure_ascii=False, separators=(",", ":")), labels=BIN_LABELS, colors=BIN_COLORS, rows=ROWS, cols=COLS,
                magnitudes=MAGNITUDES, max_channels=MAX_CHANNELS, defaults=DEFAULTS)
