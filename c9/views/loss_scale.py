"""Loss scaling as a shift along the number line (lesson 2): a histogram of gradient magnitudes on a
log2 axis, moved by S = 2^k, against the window of a 16-bit format. Read out: the share that rounds
to zero, that lands among the subnormals (fewer significant bits), and that overflows to infinity.

Where the gradients come from is a *source*: today only ``"stand-in"``, a stated, deterministic
log-normal sample (not measured). The lab registers real log2 magnitudes with
:func:`register_source` and the same view draws them.
"""

from __future__ import annotations

import bisect
import math
import random

from c9.base import units
from c9.base.errors import InputError
from c9.base.palette import var
from c9.core import formats as F
from c9.core import lab_results
from c9.views.bit_flipper import short_name
from c9.views.params import integer, sixteen_bit_format, with_defaults

WIDGET = "loss-scale"

STAND_IN = {"seed": 2017, "n": 20000, "mu": -26.0, "sigma": 3.5}
DEFAULTS = {"k": 0, "source": "stand-in", "fmt": "float16"}
K_MIN, K_MAX = 0, 40
FORMATS = ["float16", "bfloat16"]

SOURCES: dict[str, dict] = {}


def register_source(name: str, log2_magnitudes, label: str) -> None:
    """Make ``name`` a source: a list of log2 |g| (finite floats; zero gradients left out)."""
    vals = sorted(float(x) for x in log2_magnitudes if math.isfinite(float(x)))
    if not vals:
        raise ValueError("a source needs at least one finite log2 magnitude")
    SOURCES[name] = {"label": label, "log2": vals, "g": [2.0**x for x in vals]}


def register_histogram(name: str, lo_bin: int, hist: list[int], label: str, exact_zero: int = 0) -> None:
    """Make ``name`` a source from counts per unit bin of log2 |g|: bin i holds [lo_bin + i, lo_bin + i + 1).
    ``exact_zero`` gradients are 0 before any scaling. Shares are then read at bin granularity: a
    bin that straddles a threshold goes to the side holding most of its width (said on the page)."""
    if not hist or any(c < 0 for c in hist):
        raise ValueError("a histogram source needs non-negative counts")
    SOURCES[name] = {
        "label": label,
        "hist": (lo_bin, lo_bin + len(hist) - 1, list(hist)),
        "zeros": exact_zero,
    }


def _lab() -> None:
    """The lab's underflow probe (lab/results/c09-precision.json), when the file is present: every
    parameter gradient of our small model after its FP32 training run, binned by powers of two."""
    if not lab_results.has_precision():
        return
    probe = lab_results.precision()["probe"][-1]
    register_histogram(
        "lab",
        probe["bins_log2"][0],
        probe["counts"],
        f"实测：实验课的小模型训练后，全部 {probe['elements']:,} 个参数梯度（FP32），按 2 的幂分箱",
        probe.get("exact_zero", 0),
    )


def _stand_in() -> None:
    rng = random.Random(STAND_IN["seed"])
    xs = [rng.gauss(STAND_IN["mu"], STAND_IN["sigma"]) for _ in range(STAND_IN["n"])]
    register_source(
        "stand-in",
        xs,
        f"替身分布（不是实测）：log₂|g| ~ 正态（均值 {units.number(STAND_IN['mu'])}，标准差 {STAND_IN['sigma']:g}），"
        f"用随机种子 {STAND_IN['seed']} 抽 {STAND_IN['n']:,} 个",
    )


_stand_in()
_lab()


def thresholds(fmt) -> dict:
    """Exact magnitudes (floats, each a dyadic rational) where rounding to ``fmt`` changes kind:
    ``zero_max`` (|x| ≤ it → 0), ``sub_lim`` (|x| below it, or equal if ``sub_closed``, → subnormal),
    ``inf_min`` (|x| ≥ it → ∞). Read off :func:`c9.core.formats.interval`."""
    f = F.get_format(fmt)
    z = F.interval(f, 0)
    s = F.interval(f, (1 << f.mantissa_bits) - 1)  # the largest subnormal
    i = F.interval(f, f.inf_code)
    assert z.hi_closed and i.lo_closed
    return {
        "zero_max": float(z.hi),
        "sub_lim": float(s.hi),
        "sub_closed": s.hi_closed,
        "inf_min": float(i.lo),
        "lo_exp": int(math.log2(f.min_subnormal)),
        "hi_exp": f.emax,
    }


def counts(source: str, k: int, fmt) -> dict:
    """How many of the source's gradients, multiplied by 2^k and rounded to ``fmt``, become 0, a
    subnormal, a normal number or ∞. Exact: g·2^k is a float product by a power of two."""
    t = thresholds(fmt)
    if "g" not in SOURCES[source]:
        return _binned_counts(source, k, t)
    g = SOURCES[source]["g"]
    s = math.ldexp(1.0, -k)
    n = len(g)
    zero = bisect.bisect_right(g, t["zero_max"] * s)
    sub_end = (bisect.bisect_right if t["sub_closed"] else bisect.bisect_left)(g, t["sub_lim"] * s)
    inf_start = bisect.bisect_left(g, t["inf_min"] * s)
    return {
        "n": n,
        "zero": zero,
        "subnormal": sub_end - zero,
        "normal": inf_start - sub_end,
        "inf": n - inf_start,
    }


def _binned_counts(source: str, k: int, t: dict) -> dict:
    """counts() for a histogram source: bin [e, e + 1) moves to [e + k, e + k + 1); it is counted
    on the side of each threshold (log2 of zero_max, sub_lim, inf_min) that holds its midpoint."""
    lo_bin, _, hist = SOURCES[source]["hist"]
    zero_x, sub_x, inf_x = (math.log2(t[key]) for key in ("zero_max", "sub_lim", "inf_min"))
    out = {
        "n": sum(hist) + SOURCES[source]["zeros"],
        "zero": SOURCES[source]["zeros"],
        "subnormal": 0,
        "normal": 0,
        "inf": 0,
    }
    for i, c in enumerate(hist):
        mid = lo_bin + i + k + 0.5
        kind = "zero" if mid < zero_x else "subnormal" if mid < sub_x else "normal" if mid < inf_x else "inf"
        out[kind] += c
    return out


def _window(t: dict) -> str:
    """The powers of two a format can hold, as the chart's title and the BF16 note both name them."""
    return units.superscript_powers(f"2^{t['lo_exp']} … 2^{t['hi_exp']}")


def inert_note(source: str, fmt: str) -> str:
    """When no k on the slider changes the shares (BF16: FP32's 8 exponent bits), a sentence saying so
    and why, with the k where something would first change; "" otherwise."""
    first = counts(source, K_MIN, fmt)
    if counts(source, K_MAX, fmt) != first:
        return ""
    f = F.get_format(fmt)
    k_over = next((k for k in range(K_MAX, 1100) if counts(source, k, fmt)["inf"] > first["inf"]), None)
    why = (
        f"在 {short_name(fmt)} 里，k 从 {K_MIN} 到 {K_MAX} 这些比例一个都不变：{short_name(fmt)} 的指数有 "
        f"{f.exponent_bits} 位（和 FP32 一样），能表示的窗口是 {_window(thresholds(fmt))}，这批梯度乘不乘 S 都在窗口里"
        "（所以图上看不到红色、橙色的区域：它们在横轴两端很远的地方）"
    )
    later = f"，要到 k = {k_over} 才开始有梯度溢出" if k_over is not None else ""
    return f"{why}{later}。所以用 BF16 训练一般不做损失缩放；它缺的是尾数位（精度），不是范围。"


def view(params: dict | None = None) -> dict:
    """params: k (S = 2^k, 0…40), source (a registered name), fmt ("float16" | "bfloat16")."""
    p = with_defaults(params, DEFAULTS)
    k = integer(p["k"], "缩放指数 k", K_MIN, K_MAX)
    if not isinstance(p["source"], str) or p["source"] not in SOURCES:
        raise InputError(f"没有这份梯度数据：「{str(p['source'])[:20]}」")
    fmt = sixteen_bit_format(p["fmt"], FORMATS)
    c = counts(p["source"], k, fmt)
    t = thresholds(fmt)
    name = short_name(fmt)
    n = c["n"]
    summary = (
        f"S = {units.superscript_powers(f'2^{k}')}（= {2**k:,}）：{n:,} 个梯度乘 S 后存进 {name}，"
        f"{units.percent(c['zero'], n)}（{c['zero']:,} 个）舍入成 0，"
        f"{units.percent(c['subnormal'], n)}（{c['subnormal']:,} 个）落进次正规区（有效位变少），"
        f"{units.percent(c['inf'], n)}（{c['inf']:,} 个）溢出成 ∞，{units.percent(c['normal'], n)}（{c['normal']:,} 个）是正规数。"
        + inert_note(p["source"], fmt)
    )
    return {
        "params": {"k": k, "source": p["source"], "fmt": fmt},
        "format_short": name,
        "source_label": SOURCES[p["source"]]["label"],
        "counts": c,
        "shares": {key: units.percent(c[key], n) for key in ("zero", "subnormal", "normal", "inf")},
        "k_text": units.power_of_two(k),  # the slider's readout: 2⁴⁰
        "summary": summary,
        "figure": _figure(p["source"], k, t, name),
    }


def _histogram(source: str) -> tuple[int, int, list[int]]:
    """Counts per unit bin of log2 |g| (cached per source; a shift by k only relabels the bins)."""
    src = SOURCES[source]
    if "hist" not in src:
        xs = src["log2"]
        lo_bin, hi_bin = math.floor(xs[0]), math.floor(xs[-1])
        hist = [0] * (hi_bin - lo_bin + 1)
        for x in xs:
            hist[math.floor(x) - lo_bin] += 1
        src["hist"] = (lo_bin, hi_bin, hist)
    return src["hist"]


def _figure(source: str, k: int, t: dict, name: str) -> dict:
    lo_bin, hi_bin, hist = _histogram(source)
    centers = [b + k + 0.5 for b in range(lo_bin, hi_bin + 1)]
    zero_x = math.log2(t["zero_max"])
    inf_x = math.log2(t["inf_min"])
    span = (min(zero_x - 6, lo_bin + k - 2), max(inf_x + 6, hi_bin + k + 3))
    if name == "BF16":
        span = (min(lo_bin + k - 8, -60), max(hi_bin + k + 8, 30))
    window = _window(t)
    band = {"type": "rect", "yref": "paper", "y0": 0, "y1": 1, "line": {"width": 0}, "layer": "below"}
    shapes = [
        {**band, "x0": span[0], "x1": zero_x, "fillcolor": var("lost-band")},
        {**band, "x0": zero_x, "x1": math.log2(t["sub_lim"]), "fillcolor": var("subnormal-band")},
        {**band, "x0": inf_x, "x1": span[1], "fillcolor": var("lost-band")},
    ]
    return {
        "data": [
            {
                "type": "bar",
                "x": centers,
                "y": hist,
                "width": 1,
                "name": "梯度个数",
                "marker": {"color": var("series")},
                "hovertemplate": "log₂|g·S| 在 %{x:.0f} ± 0.5 之内：%{y:,} 个<extra></extra>",
            }
        ],
        "layout": {
            "height": 340,
            "margin": {"l": 10, "r": 10, "t": 56, "b": 50},
            "showlegend": False,
            "bargap": 0,
            # the labels a little below the axis: the first one ("−60") sat on the y axis's "0"
            "xaxis": {
                "title": {"text": f"log₂ |g × S|（S = {units.superscript_powers(f'2^{k}')}）"},
                "range": list(span),
                "fixedrange": True,
                "ticklabelstandoff": 6,
            },
            "yaxis": {
                "title": {"text": "个数"},
                "automargin": True,
                "fixedrange": True,
                "tickformat": ",d",
            },  # 100,000, not 100k
            "font": {"family": "Noto Sans SC, sans-serif", "size": 13},
            "shapes": shapes,
            "annotations": [
                {
                    "x": zero_x,
                    "y": 1.02,
                    "yref": "paper",
                    "yanchor": "bottom",
                    "text": "← 变成 0",
                    "showarrow": False,
                    "xanchor": "right",
                },
                {
                    "x": inf_x,
                    "y": 1.02,
                    "yref": "paper",
                    "yanchor": "bottom",
                    "text": "变成 ∞ →",
                    "showarrow": False,
                    "xanchor": "left",
                },
                {
                    "x": 0.5,
                    "xref": "paper",
                    "y": 1.1,
                    "yref": "paper",
                    "yanchor": "bottom",
                    "showarrow": False,
                    "text": f"{name} 的窗口：{window}",
                },
            ],
        },
    }


# Short names for the source select (the full label is shown beside the chart).
SOURCE_NAMES = {"stand-in": "替身分布（示意）", "lab": "实测：实验课小模型的梯度"}


def page_context(**options) -> dict:
    v = view(options or None)
    sources = {key: SOURCE_NAMES.get(key, key) for key in SOURCES}
    return dict(view=v, k_min=K_MIN, k_max=K_MAX, sources=sources)


def neighbours(context: dict) -> list[dict]:
    """For the build's answer cache (c9/views/nearby.py): what loss-scale.js sends one control from the
    default: every stop of the k slider (each answer is small) and each gradient source."""
    from c9.views.nearby import one_step

    p = context["view"]["params"]
    base = {"k": p["k"], "source": p["source"], "fmt": p["fmt"]}
    sources = list(context["sources"]) if len(context["sources"]) > 1 else []
    return one_step(base, k=list(range(context["k_min"], context["k_max"] + 1)), source=sources)


def nearby(view: dict) -> list[dict]:
    """For the worker's answers ahead (c9.views.nearby): k one stop either side of the state ``view``
    shows, then each gradient source."""
    from c9.views.nearby import one_step

    p = view["params"]
    base = {"k": p["k"], "source": p["source"], "fmt": p["fmt"]}
    return one_step(
        base, k=[k for k in (p["k"] + 1, p["k"] - 1) if K_MIN <= k <= K_MAX], source=list(SOURCES)
    )
