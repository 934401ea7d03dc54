"""Lesson 5's opening: the stages of one training step, each with what it leaves in memory.

The figures are the memory bar's own ledger (:func:`c9.views.memory_bar.ledger` at its default state: the
anchor model, BF16 mixed precision + AdamW, s = 4,096, b = 1, every activation stored), grouped by the
stage of the step that creates each part. Drawn once by the build (api.BUILD_ONLY): a table of the four
stages, the forward one marked as the part lesson 1's ledger lacks, and what each holds. (It once had a
button per stage that revealed a sentence the table already showed; the buttons gave their room back.)
"""

from __future__ import annotations

from c9.base import units
from c9.core.models import model
from c9.views import memory_bar

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
NEW = "forward"  # the stage lesson 1's ledger (the table just above the widget) does not have


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


def page_context() -> dict:
    rows, total, total_text, bar, whole = stages()
    return {
        "stages": rows,
        "new": NEW,
        "total_bytes": total,
        "total_text": total_text,
        "total_share": whole,
        "setting": f"s = {units.number(bar['s'])}、b = {bar['b']}",
        "model_label": model(bar["model"]).label,
    }
