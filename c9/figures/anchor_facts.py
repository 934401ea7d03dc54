"""The facts of anchor-model.json that the pages quote (the anchor model, the training sequence, the
example sentence, the reference card, Qwen3-8B's shape), each read through the build so a page and the
file never disagree.
"""

from __future__ import annotations

from fractions import Fraction

from c9.base import units
from c9.core.models import anchor, card_bytes, load_facts, model
from c9.figures.figure import figure

__all__ = ["figures"]


def figures() -> list[dict]:
    """Facts from anchor-model.json, quoted through the build so the page and the file never disagree."""
    figs: list[dict] = []
    facts = load_facts()
    m = anchor()
    src = "anchor-model.json"
    figs.append(figure("anchor_name", m.name, m.name, f"锚点模型的名字（{src}）"))
    figs.append(
        figure(
            "anchor_params",
            m.param_total,
            units.number(m.param_total),
            f"锚点的参数个数 Ψ（{src}: param_total）",
        )
    )
    figs.append(
        figure(
            "anchor_params_b",
            m.param_total / 1e9,
            f"{units.number(Fraction(m.param_total, 10**9), 1)}B",
            "以十亿计的参数个数：Ψ ÷ 10⁹",
            Ψ=m.param_total,
        )
    )
    figs.append(figure("anchor_L", m.L, str(m.L), f"层数 L（{src}: num_hidden_layers）"))
    figs.append(
        figure(
            "anchor_full_layers",
            m.full_attention_layers,
            str(m.full_attention_layers),
            f"全注意力层的层数（{src}: layer_types）",
        )
    )
    figs.append(
        figure(
            "anchor_linear_layers",
            m.L - m.full_attention_layers,
            str(m.L - m.full_attention_layers),
            "线性注意力层数 = L − 全注意力层数",
            L=m.L,
            full=m.full_attention_layers,
        )
    )
    figs.append(figure("anchor_h", m.h, units.number(m.h), f"隐藏宽度 h（{src}: hidden_size）"))
    figs.append(figure("anchor_a", m.a, str(m.a), f"注意力头数 a（{src}: num_attention_heads）"))
    figs.append(
        figure("anchor_head_dim", m.head_dim, str(m.head_dim), f"每个头的宽度 d_h（{src}: head_dim）")
    )
    seq = facts["training_sequence"]["tokens"]
    figs.append(figure("seq", seq, units.number(seq), f"训练序列长度 s（{src}: training_sequence.tokens）"))
    batch = facts["training_sequence"]["batch"]
    figs.append(figure("batch", batch, str(batch), f"micro-batch 大小 b（{src}: training_sequence.batch）"))
    sent = facts["example_sentence"]
    figs.append(figure("sentence", sent["text"], sent["text"], f"贯穿全章的例句（{src}: example_sentence）"))
    figs.append(
        figure(
            "sentence_tokens",
            sent["tokens"],
            str(sent["tokens"]),
            f"例句切成的 token 数（{src}: example_sentence.tokens）",
        )
    )
    card = card_bytes()
    figs.append(
        figure(
            "card",
            card,
            units.size(card, "GB", 0),
            f"单卡显存（{src}: cards.default 所指的卡）",
        )
    )
    q = model("qwen3-8b")
    figs.append(figure("qwen3_8b_L", q.L, str(q.L), f"Qwen3-8B 的层数 L（{src}: num_hidden_layers）"))
    figs.append(figure("qwen3_8b_h", q.h, units.number(q.h), f"Qwen3-8B 的隐藏宽度 h（{src}: hidden_size）"))
    figs.append(figure("qwen3_8b_a", q.a, str(q.a), f"Qwen3-8B 的注意力头数 a（{src}: num_attention_heads）"))
    return figs
