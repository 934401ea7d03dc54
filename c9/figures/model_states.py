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
    figs += fp8_figures(m, states.bytes)
    figs += pure_bf16_figures(m)
    return figs


def pure_bf16_figures(m) -> list[dict]:
    """Lesson 3's pointer from the repeated update to the ledger's pure-BF16 rows: bytes per parameter and the
    anchor's model states with stochastic rounding and with a Kahan buffer."""
    figs = []
    for key, name in (("bf16_pure_sr", "bf16_sr"), ("bf16_pure_kahan", "bf16_kahan")):
        per = bytes_per_parameter(key)
        states = model_states(m.param_total, key).bytes
        figs.append(figure(f"{name}_per", per, str(per), "每参数字节数：这一配方各行之和"))
        figs.append(
            figure(
                f"{name}_anchor", states, units.size(states, "GB"), f"模型状态 = {per} B × Ψ", Ψ=m.param_total
            )
        )
    return figs


def fp8_figures(m, mixed_bytes: int) -> list[dict]:
    """Lesson 4's task "does FP8 training halve a step's memory?": each FP8 recipe's bytes per parameter and
    model states against BF16 mixed precision, and the memory bar's default step (lesson 5's s and b) with
    the Linear inputs cached in FP8."""
    from c9.views.ledger import per_text
    from c9.views.memory_bar import DEFAULTS, view

    figs = []
    for key, name in (("deepseek_v3_fp8", "ds3"), ("te_fp8_delayed", "te"), ("te_mxfp8", "mx")):
        per = bytes_per_parameter(key)
        states = model_states(m.param_total, key).bytes
        figs.append(
            figure(
                f"fp8_{name}_per",
                per,
                per_text(per),
                "每参数字节数：这一配方的来源给了字节数的各行之和",
            )
        )
        figs.append(
            figure(
                f"fp8_{name}_anchor",
                states,
                units.size(states, "GB"),
                f"模型状态 = {per_text(per)} B × Ψ",
                Ψ=m.param_total,
            )
        )
        figs.append(
            figure(
                f"fp8_{name}_share",
                Fraction(states, mixed_bytes),
                units.percent(states, mixed_bytes),
                "FP8 配方的模型状态 ÷ BF16 混合精度的模型状态",
                Ψ=m.param_total,
            )
        )
    base = view()
    s, b = DEFAULTS["s"], DEFAULTS["b"]
    figs.append(figure("fp8_s", s, units.number(s), "显存条默认的序列长度 s"))
    figs.append(
        figure(
            "fp8_act_bf16",
            base["activation_bytes"],
            units.size(base["activation_bytes"], "GB"),
            "激活 = L × sbh(34 + 5as/h)",
            s=s,
            b=b,
        )
    )
    flash = view({"mode": "flash"})
    flash_te = view({"mode": "flash", "recipe": "te_fp8_delayed"})
    figs.append(
        figure(
            "fp8_act_te_flash_share",
            Fraction(flash_te["activation_bytes"], flash["activation_bytes"]),
            units.percent(flash_te["activation_bytes"], flash["activation_bytes"]),
            "不存分数表时（FlashAttention）：(34 − 7) sbh ÷ 34 sbh",
        )
    )
    for key, name in (("te_fp8_delayed", "te"), ("deepseek_v3_fp8", "ds3")):
        v = view({"recipe": key})
        figs.append(
            figure(
                f"fp8_act_{name}",
                v["activation_bytes"],
                units.size(v["activation_bytes"], "GB"),
                "激活 = L × sbh(34 − k + 5as/h)，k 是存成 FP8 的线性层输入个数，每个省 1 字节",
                s=s,
                b=b,
            )
        )
        figs.append(
            figure(
                f"fp8_act_{name}_share",
                Fraction(v["activation_bytes"], base["activation_bytes"]),
                units.percent(v["activation_bytes"], base["activation_bytes"]),
                "FP8 配方的激活 ÷ BF16 的激活",
            )
        )
        figs.append(
            figure(
                f"fp8_step_{name}_share",
                Fraction(v["total_bytes"], base["total_bytes"]),
                units.percent(v["total_bytes"], base["total_bytes"]),
                "FP8 配方训练一步的显存 ÷ BF16 混合精度训练一步的显存",
            )
        )
    return figs
