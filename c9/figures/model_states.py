"""Model states of the anchor by recipe: the ledger tables of the guide and lessons 1 and 5 (every part
and the total, at the precision where the rows add up as shown), and how many cards they fill.
"""

from __future__ import annotations

from fractions import Fraction

from c9.base import units
from c9.core.ledger import bytes_per_parameter, model_states
from c9.core.models import anchor, card_bytes
from c9.figures.figure import figure

__all__ = ["figures"]


def figures() -> list[dict]:
    figs: list[dict] = []
    m = anchor()
    states = model_states(m.param_total, "bf16_mixed_adamw")
    per = bytes_per_parameter("bf16_mixed_adamw")
    figs.append(
        figure(
            "bytes_per_param",
            per,
            str(per),
            "每参数字节数 = 2 + 2 + 4 + 4 + 4（BF16 权重、BF16 梯度、FP32 主权重、Adam 的 m 与 v）",
        )
    )
    figs.append(
        figure(
            "model_states_anchor",
            states.bytes,
            units.size(states.bytes, "GB"),
            "模型状态 = 16 B × Ψ",
            Ψ=m.param_total,
        )
    )
    figs.append(
        figure(
            "weights_anchor_bf16",
            2 * m.param_total,
            units.size(2 * m.param_total, "GB"),
            "BF16 权重 = 2 B × Ψ",
            Ψ=m.param_total,
        )
    )
    mv = states.find("adam_m").bytes + states.find("adam_v").bytes
    figs.append(
        figure("adam_mv_anchor", mv, units.size(mv, "GB"), "Adam 的 m 与 v = (4 + 4) B × Ψ", Ψ=m.param_total)
    )
    # The ledger tables (guide, lessons 1 and 5): every part with the total, at the fewest decimals (at least
    # two) at which the rows add up to the total as shown (units.adding_up). At one decimal they would not:
    # 55.6 + 55.6 + 111.1 + 222.3 = 444.6 against a total of 444.5.
    rows = [
        ("weights", "BF16 权重", 2),
        ("grads", "BF16 梯度", 2),
        ("master", "FP32 主权重", 4),
        ("mv", "Adam 的 m 与 v（FP32）", 8),
    ]
    texts, total = units.adding_up([k * m.param_total for _, _, k in rows], "GB", 2)
    for (key, what, k), text in zip(rows, texts):
        figs.append(
            figure(
                f"ledger_{key}",
                k * m.param_total,
                text,
                f"{what}：每参数 {k} 字节，{k} B × Ψ",
                Ψ=m.param_total,
            )
        )
    figs.append(
        figure("ledger_total", states.bytes, total, "模型状态合计：(2 + 2 + 4 + 8) B × Ψ", Ψ=m.param_total)
    )
    ratio = Fraction(states.bytes, card_bytes())
    figs.append(
        figure(
            "model_states_cards",
            float(ratio),
            units.number(ratio, 1),
            "相当于几张卡 = 16 B × Ψ ÷ 80 GB",
            Ψ=m.param_total,
        )
    )
    return figs
