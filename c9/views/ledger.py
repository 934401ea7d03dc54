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
from c9.core.ledger import RECIPES, bytes_per_parameter, model_states, open_rows
from c9.core.models import card_bytes, model
from c9.views.params import shown, with_defaults

WIDGET = "ledger"

#: The recipes the chart shows, in order (keys of c9.core.ledger.RECIPES) with short axis labels.
CHART_RECIPES = [
    ("fp32_adamw", "FP32 + AdamW"),
    ("bf16_mixed_adamw", "BF16 混合精度 + AdamW"),
    ("bf16_weights_only", "只算 BF16 权重"),
    ("deepseek_v3_fp8", "DeepSeek-V3 FP8"),
    ("te_fp8_delayed", "TE FP8（Hopper）"),
    ("te_mxfp8", "TE MXFP8（Blackwell）"),
]
FP8_RECIPES = ["deepseek_v3_fp8", "te_fp8_delayed", "te_mxfp8"]
MODELS = ["qwen3.8-27b", "qwen3-8b"]
LOG10_MIN, LOG10_MAX, LOG10_STEP = 8.0, 12.0, 0.05
DEFAULTS = {"model": "qwen3.8-27b", "log10_params": 10.0, "convention": "zero"}

#: Conventions for "bytes per parameter" in training with Adam, as data: (part key, label, bytes).
CONVENTIONS: dict[str, dict] = {
    "zero": {
        "label": "ZeRO 论文：2Ψ + 2Ψ + KΨ，K = 12",
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
        "label": "再加一份 FP32 梯度（18 字节）",
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
        "label": "16 位梯度和 FP32 梯度都记（20 字节）",
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
        "label": "FP32 + AdamW（16 字节）",  # the name the recipe table uses
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

#: One colour per legend entry (the chart's legend lists each label once).
LABEL_COLORS = {
    "权重（BF16）": var("weights"),
    "梯度（BF16）": var("grads"),
    "主权重（FP32）": var("master"),
    "权重（FP32）": var("weights-fp32"),
    "梯度（FP32）": var("grads-fp32"),
    "Adam m（FP32）": var("adam-m"),
    "Adam v（FP32）": var("adam-v"),
    "权重梯度（FP32）": var("grads-fp32"),
    "Adam m（BF16）": var("adam-m"),
    "Adam v（BF16）": var("adam-v"),
    "FP8 权重": var("fp8-copy"),
    "FP8 权重转置": var("fp8-transpose"),
    "MXFP8 权重（按行）": var("fp8-copy"),
    "MXFP8 权重（按列）": var("fp8-transpose"),
    "E8M0 缩放因子": var("mx-scales"),
}


def per_text(k) -> str:
    """Bytes per parameter as the tables print it: 16, or 18.0625 where scales add a share of a byte."""
    k = Fraction(k)
    return str(k.numerator) if k.denominator == 1 else units.number(k, 4)


def fp8_notes() -> list[dict]:
    """Each FP8 recipe with its sources and the copies its source leaves without a byte count."""
    return [
        {
            "key": key,
            "label": RECIPES[key]["label"],
            "per": per_text(bytes_per_parameter(key)),
            "open": [{"label": a, "why": b} for a, b in open_rows(key)],
            "cite": [{"text": t, "url": u} for t, u in RECIPES[key]["cite"]],
        }
        for key in FP8_RECIPES
    ]


def conventions_table(param_total: int) -> list[dict]:
    """Every convention: bytes per parameter, its parts and its total for ``param_total`` parameters."""
    rows = []
    for key, c in CONVENTIONS.items():
        per = sum(p[2] for p in c["parts"])
        rows.append(
            {
                "key": key,
                "label": c["label"],
                "bytes_per_param": per,
                "parts_text": " + ".join(f"{p[1]} {p[2]}" for p in c["parts"]),
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
    is "custom"), convention (a key of CONVENTIONS, drawn as a fourth bar). Raises InputError.
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
    least_fp8 = min((b for b in bars if b["key"] in FP8_RECIPES), key=lambda b: b["bytes"])
    summary = (
        f"{label}（{units.number(n)} 个参数）：只算 BF16 权重是 {weights['text']}，"
        f"一张 {card_gb} 卡{'装得下' if weights['fits'] else '已经装不下'}；"
        f"可训练一步的模型状态，BF16 混合精度 + AdamW 是 {mixed['text']}（{mixed['bytes_per_param']} 字节/参数），"
        f"FP32 + AdamW 也是 {fp32['text']}，"
        + (
            f"一张 {card_gb} 卡装得下（占卡的 {units.percent(mixed['bytes'], card)}）"
            if mixed["fits"]
            else f"是 {card_gb} 单卡的 {mixed['cards']} 倍"
        )
        + "，还没算激活。"
        f"FP8 训练的几种配方里最省的是「{least_fp8['label']}」，{least_fp8['text']}（{least_fp8['bytes_per_param']} 字节/参数，"
        f"只计来源给了字节数的几份），是 BF16 混合精度的 {units.percent(least_fp8['bytes'], mixed['bytes'])}，远不到一半。"
        f"所选口径「{chosen['label']}」：{chosen['bytes_per_param']} 字节/参数，共 {chosen['total_text']}。"
    )
    return {
        "params": {**p, "param_total": n},
        "label": label,
        "bars": bars,
        "conventions": conv,
        "chosen": chosen["key"],
        "summary": summary,
        "figure": _figure(bars, chosen, card),
    }


def _figure(bars: list[dict], chosen: dict, card: int) -> dict:
    rows = [(b["short"], b["parts"]) for b in bars] + [
        (f"口径：{chosen['bytes_per_param']} 字节/参数", chosen["parts"])
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
                    "marker": {"color": LABEL_COLORS[name]},
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
            "height": 480,
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
