"""Lesson 5's opening: the stages of one training step, each chosen to see what it leaves in memory.

The figures are the memory bar's own ledger (:func:`c9.views.memory_bar.ledger` at its default state: the
anchor model, BF16 mixed precision + AdamW, s = 4,096, b = 1, every activation stored), grouped by the
stage of the step that creates each part. ``view({"stage": key})`` returns the chosen stage's figure,
its parts and what it holds; the build writes every stage into the page, so the table reads whole
without scripts.
"""

from __future__ import annotations

from c9.base import units
from c9.base.errors import InputError
from c9.core.models import model
from c9.views import memory_bar
from c9.views.params import shown, with_defaults

WIDGET = "step-stages"

# (key, label, parts, what it holds), in the order a step runs. A part is the ledger's leaves it sums
# (Adam's m and v as one part, as lesson 1's table shows them), with a label and formula where it joins two.
STAGES = [
    (
        "weights",
        "① 开始之前：权重",
        [("weights",)],
        "前向和反向都要读的 16 位权重。它只和参数个数有关；推理时也只需要这一份。",
    ),
    (
        "forward",
        "② 前向：留给反向的激活",
        [("act_linear",), ("act_scores",)],
        "前向算出、要等反向来取用的中间张量：矩阵乘的输入、softmax 的输出、dropout 掩码等。"
        "它和参数个数无关，只看序列长度、batch、宽度、头数和层数；注意力分数那一份还随 s² 增长。",
    ),
    (
        "backward",
        "③ 反向：梯度",
        [("gradients",)],
        "反向给每个参数算出的 16 位梯度，和权重一样大，也只和参数个数有关。",
    ),
    (
        "update",
        "④ 优化器更新：主权重与 Adam 状态",
        [("master_weights",), ("adam_m", "adam_v", "Adam 的 m 与 v（FP32）", "8 B × Ψ")],
        "AdamW 的更新落在一份 FP32 主权重上，还要为每个参数记 FP32 的一阶矩 m 和二阶矩 v；"
        "从第一次更新起，这三份一直留在显存里。",
    ),
]
KEYS = [s[0] for s in STAGES]
DEFAULTS = {"stage": "forward"}


def _part(leaves: dict, spec: tuple) -> dict:
    keys = [k for k in spec if k in leaves]
    one = leaves[keys[0]]
    label, formula = (one.label, one.formula) if len(spec) == 1 else spec[len(keys) :]
    return {
        "key": "+".join(keys),
        "label": label,
        "formula": formula,
        "bytes": sum(leaves[k].bytes for k in keys),
    }


def stages() -> tuple[list[dict], int, str, dict, str]:
    """Every stage on the anchor model at the memory bar's default state, in step order; the step's
    total (bytes and text), the memory bar's parameters, and the shares' total as shown ("100%").
    GB at two decimals or more, at the fewest at which the parts add up to their stage's value and the
    stages to the step's total, as shown (units.sum_decimals)."""
    p = memory_bar.normalise(None)
    tree = memory_bar.ledger(p)
    leaves = {leaf.key: leaf for leaf in tree.leaves()}
    rows = [
        {"key": key, "label": label, "holds": holds, "parts": [_part(leaves, spec) for spec in specs]}
        for key, label, specs, holds in STAGES
    ]
    for r in rows:
        r["bytes"] = sum(x["bytes"] for x in r["parts"])
    d = units.sum_decimals(
        [[x["bytes"] for x in r["parts"]] for r in rows] + [[r["bytes"] for r in rows]], "GB", 2
    )
    for r in rows:
        for x in r["parts"]:
            x["text"] = units.size(x["bytes"], "GB", d)
        r["text"] = r["gb_text"] = units.size(r["bytes"], "GB", d)
        if (
            r["key"] == "forward"
        ):  # activations are quoted in GiB across the chapter: both, as the memory bar does
            r["text"] += f"（{units.activation_quote(r['bytes'])}）"
    # each stage's share of the step, in whole percent where the shown shares add up to the table's 100%
    # (at one decimal they would not: 9.0 + 28.2 + 9.0 + 53.9 = 100.1)
    shares, whole = units.shares_adding_up([r["bytes"] for r in rows], 0)
    for r, text in zip(rows, shares):
        r["share"] = text
    return rows, tree.bytes, units.size(tree.bytes, "GB", d), p, whole


def view(params: dict | None = None) -> dict:
    """The chosen stage (params: stage, one of KEYS) with its size on the anchor and what it holds.
    Raises InputError (Chinese message) for an unknown stage."""
    p = with_defaults(params, DEFAULTS)
    if p["stage"] not in KEYS:
        raise InputError(f"训练一步里没有这个环节：{shown(p['stage'])}")
    rows, total, total_text, bar, whole = stages()
    chosen = next(r for r in rows if r["key"] == p["stage"])
    m = model(bar["model"])
    # no space after a full-width bracket: "主权重（FP32）111.13 GB"
    parts = "，".join(
        f"{x['label']}{'' if x['label'].endswith('）') else ' '}{x['text']}（{x['formula']}）"
        for x in chosen["parts"]
    )
    how = (
        f"其中{parts}。"
        if len(chosen["parts"]) > 1
        else f"按 {chosen['parts'][0]['formula']} 算，Ψ = {units.number(m.param_total)}。"
    )
    setting = f"s = {units.number(bar['s'])}、b = {bar['b']}"
    summary = (
        f"{chosen['label']}：在{m.label} 上（{setting}，BF16 混合精度 + AdamW）"
        f"占 {chosen['text']}，是训练一步合计 {total_text} 的 {chosen['share']}。{how}{chosen['holds']}"
    )
    return {
        "params": p,
        "stage": chosen,
        "stages": rows,
        "total_bytes": total,
        "total_text": total_text,
        "summary": summary,
        "total_share": whole,
        "setting": setting,
        "model_label": m.label,
    }


def page_context() -> dict:
    return {"view": view()}


def neighbours(context: dict) -> list[dict]:
    """For the build's answer cache (c9/views/nearby.py): step-stages.js sends {stage} for each button."""
    return [{"stage": s["key"]} for s in context["view"]["stages"]]
