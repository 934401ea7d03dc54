"""Lesson 1's ledger widget: model states per recipe as stacked bars against the 80 GB card, and a
switchable table of the bytes-per-parameter conventions other sources use.

``view(params)`` returns plain data (numbers, a Chinese summary, a Plotly figure spec). The recipes
come from :mod:`c9.core.ledger` (one origin for every byte count); the conventions below are data,
each row with its source.
"""

from __future__ import annotations

from fractions import Fraction

from c9.base import typed, units
from c9.base.errors import InputError
from c9.base.palette import var
from c9.core import other_tools
from c9.core.ledger import RECIPES, bytes_per_parameter, model_states, open_rows
from c9.core.models import card_bytes, model
from c9.views.params import shown, with_defaults
from c9.views.part_colors import marker

WIDGET = "ledger"

#: The recipes the chart shows, in order (keys of c9.core.ledger.RECIPES) with short axis labels.
CHART_RECIPES = [
    ("fp32_adamw", "FP32 + AdamW"),
    ("bf16_mixed_adamw", "BF16 混合精度 + AdamW"),
    ("bf16_weights_only", "只算 BF16 权重"),
    ("deepseek_v3_fp8", "DeepSeek-V3 FP8"),
    ("te_fp8_delayed", "TE FP8（Hopper）"),
    ("te_mxfp8", "TE MXFP8（Blackwell）"),
    ("bf16_pure_sr", "纯 BF16 + 随机舍入"),
    ("bf16_pure_kahan", "纯 BF16 + Kahan"),
]
FP8_RECIPES = ["deepseek_v3_fp8", "te_fp8_delayed", "te_mxfp8"]
PURE_BF16_RECIPES = ["bf16_pure_sr", "bf16_pure_kahan"]
MODELS = ["qwen3.8-27b", "qwen3-8b"]
LOG10_MIN, LOG10_MAX, LOG10_STEP = 8.0, 12.0, 0.05
DEFAULTS = {"model": "qwen3.8-27b", "log10_params": 10.0, "convention": "zero"}

#: Conventions for "bytes per parameter" in training with Adam, as data: (part key, label, bytes); the menu's label is
#: derived below.
CONVENTIONS: dict[str, dict] = {
    "zero": {
        "short": "ZeRO 论文",
        "detail": "2Ψ + 2Ψ + KΨ，K = 12",
        "parts": [
            ("w16", "权重（BF16）", 2),
            ("g16", "梯度（BF16）", 2),
            ("master", "主权重（FP32）", 4),
            ("m", "Adam m（FP32）", 4),
            ("v", "Adam v（FP32）", 4),
        ],
        "who": "Rajbhandari 等，ZeRO（SC 2020）§3.1；本课的账本也按这一口径",
        "why": "优化器那一份 KΨ 把 FP32 主权重和 m、v 打包计算，K = 4 + 4 + 4",
    },
    "hf": {
        "short": "HF 文档",
        "detail": "再加一份 FP32 梯度",
        "parts": [
            ("w16", "权重（BF16）", 2),
            ("master", "主权重（FP32）", 4),
            ("g32", "梯度（FP32）", 4),
            ("m", "Adam m（FP32）", 4),
            ("v", "Adam v（FP32）", 4),
        ],
        "who": "Hugging Face Transformers 文档「GPU memory usage」（model_memory_anatomy）：权重 6、梯度 4、AdamW 8",
        "why": "梯度只记一份且按 FP32 计，16 位梯度不单列",
    },
    "playbook": {
        "short": "Playbook 正文",
        "detail": "16 位梯度和 FP32 梯度都记",
        "parts": [
            ("w16", "权重（BF16）", 2),
            ("g16", "梯度（BF16）", 2),
            ("master", "主权重（FP32）", 4),
            ("g32", "梯度（FP32）", 4),
            ("m", "Adam m（FP32）", 4),
            ("v", "Adam v（FP32）", 4),
        ],
        # The Playbook's text adds the FP32 gradients as what some libraries keep; its own memory widget
        # (memory.js, paramGradsOpt: 2 + 2 bytes, then k = 8 for Adam plus 4 with mixed precision) counts 16.
        "who": "Tazi 等，The Ultra-Scale Playbook（Hugging Face，2025）「Memory usage in Transformers」正文说有的库这样存；"
        "它自己的显存小工具不记 FP32 梯度，按 2 + 2 + 12 = 16 字节算",
        "why": "为了在 FP32 里累加梯度（梯度累积、跨卡求和），另存一份 FP32 梯度",
    },
    "fp32": {
        "short": "FP32 + AdamW",  # with its bytes, the name the recipe table uses
        "detail": "",
        "parts": [
            ("w32", "权重（FP32）", 4),
            ("g32", "梯度（FP32）", 4),
            ("m", "Adam m（FP32）", 4),
            ("v", "Adam v（FP32）", 4),
        ],
        "who": "没有 16 位副本：权重本身就是更新对象（AdamW 和 Kingma & Ba 2015 的 Adam 一样，每个参数存 m、v）",
        "why": "不需要主权重，所以和混合精度一样是 16 字节",
    },
}

# Each convention's names, its bytes per parameter counted from its parts: the menu's (short, so that a
# phone's closed menu shows it whole) and the table's (with the detail).
for _c in CONVENTIONS.values():
    _c["menu"] = f"{_c['short']}（{sum(b for *_, b in _c['parts'])} 字节）"
    _c["label"] = _c["menu"] + (f"：{_c['detail']}" if _c["detail"] else "")

#: The ledger's rows other tools' counts are split into (c9.core.other_tools.ROWS), as the table heads them.
TOOL_ROWS = {
    "w16": "16 位权重",
    "g16": "16 位梯度",
    "master": "FP32 主权重",
    "g32": "FP32 梯度",
    "mv": "Adam m、v（FP32）",
}

#: Other tools' counts for the model on screen, one GPU, no offload (c9.core.other_tools): the tool, the
#: one-line reason its number is not the ledger's 16 bytes, and where its formula is.
TOOLS: list[dict] = [
    {
        "key": "deepspeed_zero2",
        "label": "DeepSpeed ZeRO-2 估算器",
        "why": "16 位参数、梯度之外，FP32 的参数、梯度、m、v 各记 4 字节，共 20 字节；打印时把 2³⁰ 字节叫作 GB；不含激活",
        "cite": [
            ("estimate_zero2_model_states_mem_needs", other_tools.DEEPSPEED_ZERO2),
            ("DeepSpeed 文档「Memory Requirements」", other_tools.DEEPSPEED_DOCS),
        ],
    },
    {
        "key": "deepspeed_zero3",
        "label": "DeepSpeed ZeRO-3 估算器",
        "why": "18 字节：FP32 的四份加 16 位参数，16 位梯度只在聚合最大一层时才有；它另加最大一层参数量的 4 倍字节，"
        "只知道参数总数时算不出，这里没有计入；2³⁰ 字节叫作 GB；不含激活",
        "cite": [
            ("estimate_zero3_model_states_mem_needs", other_tools.DEEPSPEED_ZERO3),
            ("DeepSpeed 文档「Memory Requirements」", other_tools.DEEPSPEED_DOCS),
        ],
    },
    {
        "key": "accelerate",
        "label": "accelerate estimate-memory（float16 一行）",
        "why": "「Training using Adam」一栏取权重、梯度、优化器、更新四个阶段里最大的一项，即两份 FP32 的 Adam 状态，不是各项相加；"
        "按 1024 进位、写作 GB；不含激活",
        "cite": [
            ("estimate.py 的 estimate_training_usage", other_tools.ACCELERATE),
            ("accelerate 文档「Model memory estimator」", other_tools.ACCELERATE_DOCS),
        ],
    },
    {
        "key": "hf_docs",
        "label": "Transformers 文档的经验法则",
        "why": "权重记 6 字节（FP32 一份、16 位一份），梯度一律按 FP32 记 4 字节，不单列 16 位梯度，共 18 字节；"
        "说要另加激活，没有给公式",
        "cite": [("Transformers 文档「GPU memory usage」", other_tools.HF_DOCS)],
    },
    {
        "key": "playbook_widget",
        "label": "Ultra-Scale Playbook 的小工具",
        "why": "和账本同为 16 字节：FP32 副本并进优化器那一份（k + 4）；参数量本按它自己的公式从 h、L、s、v 算，这里代入账本的 Ψ；"
        "按 1024 进位、写作 GB；激活另算",
        "cite": [("The Ultra-Scale Playbook（memory.js 的 paramGradsOpt）", other_tools.PLAYBOOK)],
    },
    {
        "key": "megatron",
        "label": "Megatron-LM 理论显存报告",
        "why": "BF16 权重 2 字节，加 FP32 的主梯度、主权重、m、v，共 18 字节，不单列 16 位梯度；"
        "按 2²⁰ 字节的 MB 打印，并另加激活（这里不计）",
        "cite": [
            ("theoretical_memory_usage.py", other_tools.MEGATRON),
            ("Megatron-LM README（分布式优化器每参数字节表）", other_tools.MEGATRON_README),
        ],
    },
]


def per_text(k) -> str:
    """Bytes per parameter as the tables print it: 16, or 18.0625 where scales add a share of a byte."""
    k = Fraction(k)
    return str(k.numerator) if k.denominator == 1 else units.number(k, 4)


def fp8_notes(keys: list[str] = FP8_RECIPES) -> list[dict]:
    """Each FP8 (or other sourced) recipe with its sources and the copies its source leaves without a byte
    count."""
    return [
        {
            "key": key,
            "label": RECIPES[key]["label"],
            "per": per_text(bytes_per_parameter(key)),
            "open": [{"label": a, "why": b} for a, b in open_rows(key)],
            "cite": [{"text": t, "url": u} for t, u in RECIPES[key]["cite"]],
        }
        for key in keys
    ]


def tools_table(param_total: int) -> list[dict]:
    """The ledger's own 16 bytes, then each other tool's count for ``param_total`` parameters on one GPU:
    its bytes per parameter split into the ledger's rows (the rows it does not count left out), and its
    total in GB and in GiB (2³⁰ bytes: what most of them print and call GB)."""
    ours = {"w16": 2, "g16": 2, "master": 4, "g32": 0, "mv": 8}
    rows = [
        {
            "key": "ledger",
            "label": "本课的账本（ZeRO 论文口径）",
            "why": "对照行：16 位权重和梯度各 2 字节，FP32 主权重 4 字节，m、v 各 4 字节",
            "cite": [],
            "per_row": ours,
        }
    ] + [{**t, "per_row": other_tools.PER_PARAMETER[t["key"]]} for t in TOOLS]
    out = []
    for r in rows:
        parts = other_tools.split(r["key"], param_total) if r["key"] != "ledger" else None
        per = sum(r["per_row"].values())
        total_bytes = sum(parts.values()) if parts else per * param_total
        counted = [(TOOL_ROWS[k], b) for k, b in r["per_row"].items() if b]
        out.append(
            {
                "key": r["key"],
                "label": r["label"],
                "why": r["why"],
                "cite": [{"text": t, "url": u} for t, u in r["cite"]],
                "per": per,
                "parts_text": " + ".join(units.joined(lab, str(b)) for lab, b in counted) + f" = {per}",
                "bytes": total_bytes,
                "cells": [units.size(total_bytes, "GB"), units.size(total_bytes, "GiB")],
            }
        )
    return out


def conventions_table(param_total: int) -> list[dict]:
    """Every convention: bytes per parameter, its parts and its total for ``param_total`` parameters."""
    rows = []
    for key, c in CONVENTIONS.items():
        per = sum(p[2] for p in c["parts"])
        rows.append(
            {
                "key": key,
                "label": c["label"],
                "short": c["short"],
                "bytes_per_param": per,
                "parts_text": " + ".join(units.joined(p[1], str(p[2])) for p in c["parts"]),
                "parts": [{"key": k, "label": lab, "bytes": b * param_total} for k, lab, b in c["parts"]],
                "who": c["who"],
                "why": c["why"],
                "total_bytes": per * param_total,
                "total_text": units.size(per * param_total, "GB"),
            }
        )
    return rows


def _params_from(p: dict) -> tuple[int, str]:
    # The slider's value is checked even when a named model is chosen: a shared link that sets it out
    # of range gets a message instead of a slider silently pinned at its end.
    if isinstance(p["log10_params"], bool) or not isinstance(p["log10_params"], (int, float, str)):
        raise InputError("参数量滑杆的值要是有限的数字")
    try:  # exact: 10**400 or "1e999" is refused, not a crash
        x = typed.parse(p["log10_params"], "参数量滑杆的值")
    except InputError:
        raise InputError(f"参数量滑杆的值要是数字，收到的是{shown(p['log10_params'])}") from None
    if isinstance(x, float):  # ±∞, NaN or a signed zero
        if x == 0:
            x = Fraction(0)
        else:
            raise InputError("参数量滑杆的值要是有限的数字")
    if not LOG10_MIN <= x <= LOG10_MAX:
        raise InputError(f"参数量要在 {_count(10 ** int(LOG10_MIN))}到 {_count(10 ** int(LOG10_MAX))}之间")
    if p["model"] in MODELS:
        m = model(p["model"])
        return m.param_total, m.label
    if p["model"] != "custom":
        raise InputError(f"没有这个模型：{shown(p['model'])}")
    n = int(round(10 ** float(x)))
    return n, f"自定义 {_count(n)}参数"


def _count(n: int) -> str:
    """A parameter count in Chinese magnitudes, as the lessons write it: "1 亿", "31.6 亿", "1 万亿"
    (never 100M / 1.0T)."""
    big, unit = (10**12, "万亿") if n >= 10**12 else (10**8, "亿") if n >= 10**8 else (10**4, "万")
    text = units.number(Fraction(n, big), 1)
    return f"{text[:-2] if text.endswith('.0') else text} {unit}"


def _multiple(ratio: Fraction) -> str:
    """A multiple of the card for the table's column: one decimal from 0.1 up, two significant digits
    below (10⁸ parameters' 1.6 GB is 0.020 of an 80 GB card, not 0.0 beside the summary's 2.0%)."""
    if ratio == 0 or ratio >= Fraction(1, 10):
        return units.number(ratio, 1)
    digits = 1
    while ratio * 10**digits < 10:  # until two digits show
        digits += 1
    return units.number(ratio, digits)


def view(params: dict | None = None) -> dict:
    """Bars per recipe for one model (or a custom parameter count) and the conventions table.

    params keys: model ("qwen3.8-27b" | "qwen3-8b" | "custom"), log10_params (8…12, used when model
    is "custom"), convention (a key of CONVENTIONS, drawn as the bottom bar). Raises InputError.
    """
    p = with_defaults(params, DEFAULTS)
    if p["convention"] not in CONVENTIONS:
        raise InputError(f"没有这种口径：{shown(p['convention'])}")
    n, label = _params_from(p)
    card = card_bytes()
    card_gb = units.size(card, "GB", 0)  # "80 GB": the reference card of anchor-model.json
    bars = []
    for key, short in CHART_RECIPES:
        tree = model_states(n, key)
        bars.append(
            {
                "key": key,
                "label": RECIPES[key]["label"],
                "short": short,
                "bytes": tree.bytes,
                "bytes_per_param": per_text(bytes_per_parameter(key)),
                "text": units.size(tree.bytes, "GB"),
                "cards": units.number(Fraction(tree.bytes, card), 1),
                "cards_column": _multiple(Fraction(tree.bytes, card)),
                "fits": tree.bytes <= card,
                "parts": [{"key": it.key, "label": it.label, "bytes": it.bytes} for it in tree.children],
            }
        )
    conv = conventions_table(n)
    chosen = next(c for c in conv if c["key"] == p["convention"])
    fp32, mixed, weights = (next(b for b in bars if b["key"] == k) for k, _ in CHART_RECIPES[:3])
    sr, kahan = (next(b for b in bars if b["key"] == k) for k in PURE_BF16_RECIPES)
    least_fp8 = min((b for b in bars if b["key"] in FP8_RECIPES), key=lambda b: b["bytes"])
    summary = (
        f"{label}（{units.number(n)} 个参数）：只算 BF16 权重是 {weights['text']}，"
        f"一张 {card_gb} 卡{'装得下' if weights['fits'] else '已经装不下'}；"
        f"训练一步要存的模型状态，BF16 混合精度 + AdamW 是 {mixed['text']}（{mixed['bytes_per_param']} 字节/参数），"
        f"FP32 + AdamW 也是 {fp32['text']}，"
        + (
            f"一张 {card_gb} 卡装得下（占卡的 {units.percent(mixed['bytes'], card)}）"
            if mixed["fits"]
            else f"是 {card_gb} 单卡的 {mixed['cards']} 倍"
        )
        + "，还没算激活。"
        f"FP8 训练的几种配方里最省的是「{least_fp8['label']}」，{least_fp8['text']}（{least_fp8['bytes_per_param']} 字节/参数，"
        f"只计来源给了字节数的几份），是 BF16 混合精度的 {units.percent(least_fp8['bytes'], mixed['bytes'])}，远没有减半。"
        f"不留 FP32 副本的纯 BF16 训练，随机舍入是 {sr['text']}（{sr['bytes_per_param']} 字节/参数），"
        f"加一份 Kahan 补偿是 {kahan['text']}（{kahan['bytes_per_param']} 字节/参数）。"
        f"所选口径「{chosen['label']}」：{chosen['bytes_per_param']} 字节/参数，共 {chosen['total_text']}。"
    )
    return {
        "params": {**p, "param_total": n},
        "label": label,
        "bars": bars,
        "conventions": conv,
        # what the page updates (the totals); the split, the reasons and the sources are the page's own
        "tools": [{"key": t["key"], "bytes": t["bytes"], "cells": t["cells"]} for t in tools_table(n)],
        "chosen": chosen["key"],
        "summary": summary,
        "figure": _figure(bars, chosen, card),
    }


def _figure(bars: list[dict], chosen: dict, card: int) -> dict:
    rows = [(b["short"], b["parts"]) for b in bars] + [
        # named, so the bottom bar does not read as another 16-byte bar's twin
        (units.joined(chosen["short"], f"口径：{chosen['bytes_per_param']} 字节/参数"), chosen["parts"])
    ]
    ys = [r[0] for r in rows]
    data, seen = [], set()
    for y, parts in rows:
        for part in parts:
            name = part["label"]
            data.append(
                {
                    "type": "bar",
                    "orientation": "h",
                    "name": name,
                    "x": [part["bytes"] / units.GB],
                    "y": [y],
                    "marker": marker(name),
                    "legendgroup": name,
                    "showlegend": name not in seen,
                    # the part as the site rounds it (half-up on the exact bytes; Plotly's own format
                    # rounds the float), so a part reads in the hover as it does everywhere else
                    "text": [units.size(part["bytes"], "GB")],
                    "textposition": "none",
                    "hovertemplate": f"{y} · {name}：%{{text}}<extra></extra>",
                }
            )
            seen.add(name)
    card_gb = card / units.GB
    return {
        "data": data,
        "layout": {
            "barmode": "stack",
            "height": 540,
            # Below 45em its 16 legend entries wrap onto many lines, and charts.js grew the chart to 735 px
            # as Plotly drew it (at 320–390 px): the box holds this height there from the start.
            "meta": {"narrow_height": 760},
            "margin": {"l": 10, "r": 10, "t": 30, "b": 50},
            "xaxis": {
                "title": {"text": "GB（10⁹ 字节）"},
                "rangemode": "tozero",
                "fixedrange": True,
                "automargin": True,
            },
            "yaxis": {
                "categoryorder": "array",
                "categoryarray": ys[::-1],
                "automargin": True,
                "fixedrange": True,
            },
            # At the foot of the whole figure (container coordinates): Plotly reserves room for it below the
            # x-axis title, which a legend at a fraction of the plot's height ran into on a phone.
            "legend": {
                "orientation": "h",
                "xref": "container",
                "yref": "container",
                "x": 0,
                "y": 0,
                "yanchor": "bottom",
                "traceorder": "normal",
            },
            "font": {"family": "Noto Sans SC, sans-serif", "size": 13},
            "shapes": [
                {
                    "type": "line",
                    "x0": card_gb,
                    "x1": card_gb,
                    "yref": "paper",
                    "y0": 0,
                    "y1": 1,
                    "line": {"color": var("card-line"), "width": 2, "dash": "dash"},
                }
            ],
            "annotations": [
                {
                    "x": card_gb,
                    "y": 1.06,
                    "yref": "paper",
                    "text": f"{units.size(card, 'GB', 0)} 单卡",
                    "showarrow": False,
                    "xanchor": "left",
                }
            ],
        },
    }


def page_context(**options) -> dict:
    v = view(options or None)
    return dict(
        view=v,
        model_keys=MODELS,
        lo=LOG10_MIN,
        hi=LOG10_MAX,
        step=LOG10_STEP,
        conventions=CONVENTIONS,
        fp8_notes=fp8_notes(),
        pure_notes=fp8_notes(PURE_BF16_RECIPES),
        tools=tools_table(v["params"]["param_total"]),
        card=units.size(card_bytes(), "GB", 0),  # the reference card, as its caption and column name it
    )


def neighbours(context: dict) -> list[dict]:
    """For the build's answer cache (c9/views/nearby.py): what ledger.js sends one control from the default.
    Moving the slider also picks 「自定义参数量」; every stop (a tap lands anywhere on the track; the answers
    differ little, so they compress to about 0.5 KB each), as the browser gives the slider's value."""
    from c9.views.nearby import one_step

    p = context["view"]["params"]
    base = {"model": p["model"], "log10_params": p["log10_params"], "convention": p["convention"]}
    stops = [
        round(LOG10_MIN + i * LOG10_STEP, 2) for i in range(round((LOG10_MAX - LOG10_MIN) / LOG10_STEP) + 1)
    ]
    custom = {**base, "model": "custom"}
    return one_step(
        base, model=[*context["model_keys"], "custom"], convention=list(context["conventions"])
    ) + one_step(custom, log10_params=stops)


def nearby(view: dict) -> list[dict]:
    """For the worker's answers ahead (c9.views.nearby): the slider one stop either side of the state
    ``view`` shows (which picks 「自定义参数量」), then each convention and each model."""
    from c9.views.nearby import one_step

    p = view["params"]
    base = {"model": p["model"], "log10_params": p["log10_params"], "convention": p["convention"]}
    i = round((p["log10_params"] - LOG10_MIN) / LOG10_STEP)
    stops = [
        round(LOG10_MIN + k * LOG10_STEP, 2)
        for k in (i + 1, i - 1)
        if LOG10_MIN <= LOG10_MIN + k * LOG10_STEP <= LOG10_MAX + 1e-9
    ]
    return [{**base, "model": "custom", "log10_params": x} for x in stops] + one_step(
        base, convention=list(CONVENTIONS), model=[*MODELS, "custom"]
    )[1:]
