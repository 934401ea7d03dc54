"""The repeated small update (lessons 2 and 3): add Δ to w again and again, once straight in a 16-bit
format and once in an FP32 master copy, each sum rounded once to nearest, ties to even
(:func:`c9.core.formats.round_value`). The same widget shows a running sum that stops growing
(w₀ = 0, Δ = 1 in BF16 stops at 256).

The typed w₀ and Δ are stored by the seed's rule: as FP32 first, then in the 16-bit format
(:func:`c9.core.formats.as_float32`); where one rounding of the exact value would give another 16-bit
value, the summary says so. The sums need no such care: a sum of two 16-bit values formed in FP32 and
then rounded to FP16 or BF16 equals the sum rounded once (FP32 has 24 ≥ 2 × 11 + 1 bits: Figueroa 1995).
"""

from __future__ import annotations

import math
from fractions import Fraction

from c9.base import typed, units
from c9.base.errors import InputError
from c9.base.palette import var
from c9.core import accumulate
from c9.core import formats as F
from c9.views.bit_flipper import double_rounding_note, short_name
from c9.views.params import integer, integer_if_read, sixteen_bit_format, with_defaults

WIDGET = "repeated-update"

DEFAULTS = {"fmt": "float16", "w0": "1", "delta": "1e-4", "steps": 1000, "method": "nearest", "seed": 1}
#: How the 16-bit line stores each sum: to nearest (as before), by stochastic rounding (RUNS seeded runs),
#: or to nearest with a Kahan compensation kept in the same 16-bit format (c9.core.accumulate).
METHODS = {"nearest": "就近舍入", "stochastic": "随机舍入", "kahan": "Kahan 补偿累加"}
RUNS = 20
LOW_FORMATS = ["float16", "bfloat16"]
STEPS_MAX = 5000
MAX_POINTS = 201  # points per line sent to the chart (the step function is sampled, ends kept)
COLORS = {
    "exact": var("exact"),
    "master": var("fp32"),
    "low": var("low-precision"),
    "copy": var("copy"),
    "stochastic": var("stochastic"),
    "kahan": var("kahan"),
}


def _add(fmt, a: float, b: float) -> float:
    """round_fmt(a + b) with the sum formed exactly (a float sum is used only when it is exact)."""
    s = a + b
    if math.isfinite(s) and s - a == b and s - b == a:
        return F.round_value(fmt, s)
    return (
        F.round_value(fmt, Fraction(a) + Fraction(b))
        if math.isfinite(a) and math.isfinite(b)
        else F.round_value(fmt, s)
    )


def run(fmt: str, w0, delta, steps: int, with_copy: bool = True) -> dict:
    """The three sequences, each of ``steps + 1`` floats: ``low`` (w kept in ``fmt``), ``master``
    (w kept in FP32), ``copy`` (the ``fmt`` copy of the master, what the forward pass would use)."""
    m_d = F.as_float32(delta)
    low_d = F.round_value(fmt, m_d)  # the seed's rule: FP32 first, then the 16-bit format
    master = [F.as_float32(w0)]
    low = [F.round_value(fmt, master[0])]
    seen: dict = {}  # a swallowed update repeats the same sum: compute it once
    for _ in range(steps):
        w = low[-1]
        if w not in seen:
            seen[w] = _add(fmt, w, low_d)
        low.append(seen[w])
        master.append(_add("float32", master[-1], m_d))
    copy = [F.round_value(fmt, x) for x in master] if with_copy else None
    return {"low": low, "master": master, "copy": copy, "low_delta": low_d, "master_delta": m_d}


def _finite(text, name: str, lo: float, hi: float, zero_ok: bool) -> Fraction:
    """``text`` as an exact number whose absolute value is in lo…hi, or 0 if ``zero_ok``."""

    def outside() -> InputError:  # worded only when refused: this runs on every slider step
        zero = "（也可以是 0）" if zero_ok else ""
        return InputError(
            f"{name}的绝对值要在 {units.sci(Fraction(str(lo)))} 到 {units.number(hi)} 之间{zero}，"
            f"收到的是{typed.shown(text)}"
        )

    try:
        x = typed.finite(text, name)
    except InputError as e:  # 1e999 is outside these bounds too: said alike, not as past the parser's 10⁴⁰⁰
        if str(e) in ("too_big", "too_small"):
            raise outside() from None
        raise
    if x == 0 and not zero_ok:
        raise InputError(f"{name}不能是 0")
    # The bounds as exact decimals (10⁻³⁰, not the float nearest it), so the limit the message names is allowed.
    if not Fraction(str(lo)) <= abs(x) <= Fraction(str(hi)) and x != 0:
        raise outside()
    return x


def _t(x: float) -> str:
    if x != x:
        return "NaN"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x):,}".replace("-", "−")
    text = f"{x:,.10g}"  # thousands separators like the integers: 65,519.5
    if "e" in text:  # 1e-05 as the site writes powers: 1×10⁻⁵
        mant, exp = text.split("e")
        text = units.superscript_powers(f"{mant}×10^{int(exp)}")
    return text.replace("-", "−")


def _past(name: str, top: str, negative: bool) -> str:
    """How w left the format's range: above the max, or (negative) below −max."""
    return f"跌破 −{top}，绝对值超过了 {name} 的最大值 {top}" if negative else f"超过了 {name} 的最大值 {top}"


def _drawn(ys: list[float], fmt) -> list:
    """A line as drawn: it runs up to the first ±∞, drawn at ±(the format's max), and stops there
    (null: JSON has no ∞); :func:`_overflow_mark` labels that point."""
    out = []
    for y in ys:
        if math.isinf(y):
            return out + [math.copysign(F.get_format(fmt).max, y)] + [None] * (len(ys) - len(out) - 1)
        out.append(y)
    return out


def _overflow_mark(idx: list[int], ys: list[float], fmt, color: str) -> dict | None:
    """The label on the point where a line overflows: "∞（第 k 步）", an arrow to the format's max."""
    i = next((i for i, y in enumerate(ys) if math.isinf(y)), None)
    if i is None:
        return None
    return {
        "x": idx[i],
        "y": math.copysign(F.get_format(fmt).max, ys[i]),
        "text": f"{_t(ys[i])}（第 {idx[i]:,} 步起）",
        "showarrow": True,
        "arrowcolor": color,
        "font": {"color": color},
        "ax": 30,
        "ay": -24 if ys[i] > 0 else 24,
    }


def _mean_sd(xs: list[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (n − 1) of the runs at one step; ∞ when a run overflowed."""
    if not all(math.isfinite(x) for x in xs):
        return math.fsum(xs) if len(
            {math.copysign(1, x) for x in xs if math.isinf(x)}
        ) == 1 else math.nan, math.nan
    m = math.fsum(xs) / len(xs)
    return m, math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def _stochastic(fmt, r, steps: int, seed: int, idx: list[int], name: str) -> dict:
    """RUNS seeded runs of stochastic rounding from the 16-bit w₀ with the FP32 Δ: the mean line, a band of
    ± one standard deviation, and the sentence comparing the mean with its expected value w₀ + kΔ."""
    runs = accumulate.stochastic_runs(fmt, r["low"][0], r["master_delta"], steps, RUNS, seed)
    stats = {i: _mean_sd([run[i] for run in runs]) for i in idx}
    expect = Fraction(r["low"][0]) + steps * Fraction(r["master_delta"])  # E[SR(x)] = x at every step
    mean, sd = stats[steps]
    if math.isfinite(mean):
        se = sd / math.sqrt(RUNS)
        gap = f"，相差 {abs(mean - float(expect)) / se:.2g} 个标准误" if se > 0 else ""
        text = (
            f"随机舍入（{RUNS} 次，种子 {seed}）：第 {steps:,} 步的平均值 {_t(mean)}，标准差 {_t(float(f'{sd:.3g}'))}；"
            f"每一步的期望都不偏，期望值 {_t(float(expect))}（{name} 的 w₀ 加 {steps:,} 个 FP32 的 Δ）{gap}。"
        )
    else:
        text = f"随机舍入（{RUNS} 次，种子 {seed}）：有的运行超出了 {name} 的范围，变成了无穷大。"
    band_lo = [None if not math.isfinite(stats[i][1]) else stats[i][0] - stats[i][1] for i in idx]
    band_hi = [None if not math.isfinite(stats[i][1]) else stats[i][0] + stats[i][1] for i in idx]
    traces = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": idx,
            "y": band_lo,
            "line": {"width": 0, "color": COLORS["stochastic"]},
            "showlegend": False,
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "mode": "lines",
            "name": "随机舍入：± 一个标准差",
            "x": idx,
            "y": band_hi,
            "fill": "tonexty",
            "fillcolor": var("stochastic-band"),
            "line": {"width": 0, "color": COLORS["stochastic"]},
            "hoverinfo": "skip",
        },
    ]
    line = ("stochastic", f"随机舍入 {RUNS} 次的平均", [stats[i][0] for i in idx], "solid")
    row = {"label": f"随机舍入 {RUNS} 次的平均（标准差）", "text": f"{_t(mean)}（{_t(float(f'{sd:.3g}'))}）"}
    return {
        "traces": traces,
        "line": line,
        "text": text,
        "row": row,
        "final": mean,
        "sd": sd,
        "expect": float(expect),
    }


def _kahan(fmt, r, steps: int, idx: list[int], name: str) -> dict:
    """Kahan summation in the 16-bit format from the 16-bit w₀ with the FP32 Δ, against the FP32 master."""
    ws, cs = accumulate.kahan_run(fmt, r["low"][0], r["master_delta"], steps)
    m = r["master"][-1]
    end = ws[-1]
    held = end - cs[-1]  # w − c: the compensated sum (c is minus what w could not hold)
    if math.isfinite(held) and math.isfinite(m) and m != 0:
        gap = f"，与 FP32 主权重相差 {units.error_percent(abs(held - m) / abs(m))}"
    else:
        gap = ""
    text = (
        f"Kahan 补偿累加（w 和补偿量 c 都存成 {name}，运算在 FP32 里）：w 到了 {_t(end)}，"
        f"c 记着 w 还没装下的 {_t(-cs[-1])}，两者合起来是 {_t(held)}{gap}。"
    )
    line = ("kahan", f"Kahan 补偿累加（{name}）", [ws[i] for i in idx], "solid")
    row = {"label": f"Kahan 补偿累加（{name}）", "text": _t(end)}
    return {
        "traces": [],
        "line": line,
        "text": text,
        "row": row,
        "final": end,
        "compensation": cs[-1],
        "compensated": held,
    }


def view(params: dict | None = None) -> dict:
    """params: fmt ("float16" | "bfloat16"), w0 and delta (decimal texts), steps (1…5,000), method (a key of
    METHODS: how a third line stores each sum besides round-to-nearest), seed (stochastic rounding's, 0…10⁶).
    Raises InputError (Chinese)."""
    p = with_defaults(params, DEFAULTS)
    if p["method"] not in METHODS:
        raise InputError(f"没有这种舍入方式：{typed.shown(p['method'])}")
    # the seed is read by stochastic rounding only: round-to-nearest and Kahan never block on it
    seed = integer_if_read(p["seed"], "随机种子", 0, 10**6, p["method"] == "stochastic", DEFAULTS["seed"])
    fmt = sixteen_bit_format(p["fmt"], LOW_FORMATS)
    w0 = _finite(p["w0"], "初值 w₀ ", 1e-30, 1e6, zero_ok=True)
    delta = _finite(p["delta"], "每步加的 Δ ", 1e-30, 1e6, zero_ok=False)
    steps = integer(p["steps"], "步数", 1, STEPS_MAX)
    r = run(fmt, w0, delta, steps, with_copy=False)
    exact_end = w0 + steps * delta
    name = short_name(fmt)
    low, master = r["low"], r["master"]
    stride = max(1, math.ceil(steps / (MAX_POINTS - 1)))
    over_at = next((i for i, w in enumerate(low) if math.isinf(w)), None)
    copy_over = next((i for i, w in enumerate(master) if math.isinf(F.round_value(fmt, w))), None)
    # sampled steps, ends kept, and the first overflow of each line, so the ∞ label names the real step
    idx = sorted(
        set(range(0, steps + 1, stride)) | {steps} | {i for i in (over_at, copy_over) if i is not None}
    )
    copy = {i: F.round_value(fmt, master[i]) for i in idx}  # the 16-bit copy, at the drawn steps only
    moved = sum(1 for a, b in zip(low, low[1:]) if a != b)
    stuck_at = next((i for i, (a, b) in enumerate(zip(low, low[1:])) if a == b), None)
    top = units.number(F.get_format(fmt).max)
    if over_at == 0:
        low_story = f"w₀ 存进 {name} 就已经溢出成 {_t(low[0])}（{name} 的绝对值最大只到 {top}），之后加什么都还是 {_t(low[0])}"
    elif over_at is not None:
        low_story = f"第 {over_at:,} 步{_past(name, top, low[over_at] < 0)}，溢出成 {_t(low[over_at])}，之后一直是 {_t(low[over_at])}"
    elif moved == 0:
        low_story = f"一次也没动：每一步 {_t(low[0])} + Δ 都舍入回 {_t(low[0])}"
    elif stuck_at is not None and all(a == b for a, b in zip(low[stuck_at:], low[stuck_at + 1 :])):
        low_story = f"前 {stuck_at} 步还在涨，到 {_t(low[stuck_at])} 就停住了（之后每一步都被舍入吞掉）"
    elif moved == steps:
        step_size = low[1] - low[0]
        low_story = (
            f"每一步都动了，但加上的是舍入后的量（第一步是 {_t(step_size)}），不是 Δ"
            if step_size != float(delta)
            else "每一步都如数加上了"
        )
    else:
        low_story = f"{steps:,} 步里只动了 {moved:,} 次"
    copy_end = _t(copy[steps]) + (
        f"（{_past(name, top, copy[steps] < 0)}）" if math.isinf(copy[steps]) else ""
    )
    summary = (
        f"w₀ = {_t(float(w0))}，每步加 Δ = {_t(float(delta))}，共 {steps:,} 步。精确值应到 {_t(float(exact_end))}；"
        f"FP32 主权重到了 {_t(master[-1])}；直接存在 {name} 里的 w 停在 {_t(low[-1])}——{low_story}。"
        f"由主权重转成的 {name} 副本是 {copy_end}。"
    )
    extra = None
    if p["method"] == "stochastic":
        extra = _stochastic(fmt, r, steps, seed, idx, name)
    elif p["method"] == "kahan":
        extra = _kahan(fmt, r, steps, idx, name)
    if extra:
        summary += extra["text"]
    for what, text, x in (("初值 w₀", p["w0"], w0), ("增量 Δ", p["delta"], delta)):
        two = F.two_roundings(fmt, x)
        if two.differ:
            summary += double_rounding_note(F.get_format(fmt), text, two, f"{what} = ")
    exact = [float(w0 + i * delta) for i in idx]
    lines = [
        ("exact", "精确值 w₀ + kΔ", exact, "dot"),
        ("master", "FP32 主权重", [master[i] for i in idx], "solid"),
        ("copy", f"主权重的 {name} 副本", [copy[i] for i in idx], "dash"),
        ("low", f"直接在 {name} 里更新", [low[i] for i in idx], "solid"),
    ] + ([extra["line"]] if extra else [])
    marks = [m for m in (_overflow_mark(idx, ys, fmt, COLORS[key]) for key, _, ys, _ in lines) if m]
    if len(marks) == 2 and (marks[0]["x"], marks[0]["y"]) == (marks[1]["x"], marks[1]["y"]):
        marks = [
            {**marks[1], "text": marks[1]["text"].replace("起）", f"起，两条 {name} 线）")}
        ]  # one label, not two on top of each other
    figure = {
        "data": (extra["traces"] if extra else [])
        + [
            {
                "type": "scatter",
                "mode": "lines",
                "name": label,
                "x": idx,
                "y": _drawn(ys, fmt),
                "text": [_t(y) for y in ys],
                "line": {
                    "color": COLORS[key],
                    "dash": dash,
                    "width": 3 if key == "low" else 2,
                    "shape": "hv" if key in ("low", "copy", "kahan") else "linear",
                },
                "hovertemplate": f"{label}：第 %{{x}} 步，%{{text}}<extra></extra>",
            }
            for key, label, ys, dash in lines
        ],
        "layout": {
            "height": 340,
            "margin": {"l": 10, "r": 18, "t": 20, "b": 50},  # r: half of the last tick, "1,000"
            # a step is whole: under 10 steps Plotly's own ticks fall on halves (0, 0.5, 1)
            "xaxis": {"title": {"text": "步数 k"}, "fixedrange": True, "automargin": True}
            | ({"dtick": 1} if idx[-1] < 10 else {}),
            "yaxis": {"title": {"text": "w"}, "automargin": True, "fixedrange": True, "tickformat": ",.6~g"},
            # at the foot of the figure, below the x-axis title at any width (not a fraction of the plot)
            "legend": {
                "orientation": "h",
                "xref": "container",
                "yref": "container",
                "x": 0,
                "y": 0,
                "yanchor": "bottom",
            },
            "font": {"family": "Noto Sans SC, sans-serif", "size": 13},
            "annotations": marks,
        },
    }
    table = [
        {"label": "精确值", "text": _t(float(exact_end))},
        {"label": "FP32 主权重", "text": _t(master[-1])},
        {"label": f"主权重的 {name} 副本", "text": copy_end},
        {"label": f"直接在 {name} 里更新", "text": _t(low[-1])},
    ] + ([extra["row"]] if extra else [])
    method = {"method": p["method"]}
    if extra:
        method |= {
            k: extra[k] for k in ("final", "sd", "expect", "compensation", "compensated") if k in extra
        }
    return {
        "params": {
            "fmt": fmt,
            "w0": str(p["w0"]),
            "delta": str(p["delta"]),
            "steps": steps,
            "method": p["method"],
            "seed": seed,
        },
        "method": json_ready(method),
        "format_short": name,
        # ±∞ is not JSON: a final value that overflowed is null here and "∞" in the table and summary
        "final": {
            k: x if math.isfinite(x) else None
            for k, x in {
                "exact": float(exact_end),
                "master": master[-1],
                "copy": copy[steps],
                "low": low[-1],
            }.items()
        },
        "moved": moved,
        "table": table,
        "summary": summary,
        "figure": figure,
    }


def json_ready(d: dict) -> dict:
    """±∞ and NaN (an overflowed run) as None: JSON has neither; the text says ∞."""
    return {k: (None if isinstance(x, float) and not math.isfinite(x) else x) for k, x in d.items()}


def page_context(**options) -> dict:
    import zlib

    v = view(options or None)
    return dict(
        view=v,
        methods=METHODS,
        runs=RUNS,
        tie_rule=F.get_format(v["params"]["fmt"]).tie_rule_zh,
        low_formats={f: short_name(f) for f in LOW_FORMATS},
        steps_max=STEPS_MAX,
        uid=f"ru-{zlib.crc32(repr(sorted(options.items())).encode()):08x}",
    )


def neighbours(context: dict) -> list[dict]:
    """For the build's answer cache (c9/views/nearby.py): what repeated-update.js sends one control from the
    default: each format (the other fields as their boxes hold them, steps as text)."""
    from c9.views.nearby import one_step

    p = context["view"]["params"]
    base = {
        "fmt": p["fmt"],
        "w0": str(p["w0"]),
        "delta": str(p["delta"]),
        "steps": str(p["steps"]),
        "method": p["method"],
        "seed": str(p["seed"]),
    }
    return one_step(base, fmt=list(context["low_formats"]), method=list(METHODS))
