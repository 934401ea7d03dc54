"""ZeRO §3.1–3.2's GPT-2 1.5B example as the paper estimates it: 12·h·b·s·L values in 16 bits."""

from __future__ import annotations

from c9.base import units
from c9.core.ledger import model_states
from c9.core.models import load_facts
from c9.figures.figure import figure

__all__ = ["figures"]


def figures() -> list[dict]:
    """ZeRO §3.1–3.2's GPT-2 1.5B example: the paper's own estimate, 12·h·b·s·L values in 16 bits."""
    figs: list[dict] = []
    g = load_facts()["models"]["gpt2-1.5b-zero"]
    h, L, s, b, psi = (
        g["hidden_size"],
        g["num_hidden_layers"],
        g["sequence_length"],
        g["batch_size"],
        g["param_total"],
    )
    zero_act = 2 * 12 * h * b * s * L
    figs.append(
        figure(
            "zero_gpt2_act",
            zero_act,
            units.size(zero_act, "GB", 0),
            "ZeRO §3.2 的估法：每层每个位置 12h 个 16 位数 = 2 B × 12 × h × b × s × L",
            h=h,
            b=b,
            s=s,
            L=L,
        )
    )
    states = model_states(psi).bytes
    figs.append(
        figure(
            "zero_gpt2_states", states, units.size(states, "GB", 0), "模型状态 = 16 B × Ψ（ZeRO §3.1）", Ψ=psi
        )
    )
    figs.append(
        figure(
            "zero_gpt2_seq",
            s,
            units.number(s),
            "ZeRO 例子的序列长度 s（anchor-model.json: gpt2-1.5b-zero.sequence_length）",
        )
    )
    figs.append(
        figure(
            "zero_gpt2_batch",
            b,
            str(b),
            "ZeRO 例子的 batch b（anchor-model.json: gpt2-1.5b-zero.batch_size）",
        )
    )
    return figs
