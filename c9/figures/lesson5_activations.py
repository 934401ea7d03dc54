"""Lesson 5's activation figures: Korthikanti et al. eq. 1 on the anchor (store all, selective and full
recomputation, s² only on full-attention layers), its terms per layer, the running sentence, the score
tensor, Qwen3-8B, doubling the sequence and ZeRO's GPT-2 1.5B example through eq. 1.
"""

from __future__ import annotations

from fractions import Fraction

from c9.base import units
from c9.core.activations import activation_memory, per_layer, score_term
from c9.core.models import anchor, card_bytes, load_facts, model
from c9.figures.figure import figure

__all__ = ["figures"]


def figures() -> list[dict]:
    figs: list[dict] = []
    facts = load_facts()
    m = anchor()
    s, b = facts["training_sequence"]["tokens"], facts["training_sequence"]["batch"]
    dims = dict(s=s, b=b, h=m.h, a=m.a, L=m.L)

    def act(mode="store_all", s2_layers=None, **over):
        d = {**dims, **over}
        return activation_memory(d["s"], d["b"], d["h"], d["a"], d["L"], mode, s2_layers)

    full = act()
    dbl = act(s=2 * s)
    # The two terms add up to the total, at s and at 2s, as the lesson quotes them side by side: one precision
    # for the six (units.sum_decimals).
    terms = [[a.find("act_linear").bytes, a.find("act_scores").bytes] for a in (full, dbl)]
    dg = units.sum_decimals(terms, "GiB", 1)
    figs.append(
        figure(
            "act_anchor",
            full.bytes,
            units.size(full.bytes, "GiB", dg),
            "全部留着的激活 = L × sbh(34 + 5as/h) 字节（Korthikanti 式 1）",
            **dims,
        )
    )
    figs.append(
        figure(
            "act_anchor_gb",
            full.bytes,
            units.size(full.bytes, "GB"),
            "全部留着的激活 = L × sbh(34 + 5as/h) 字节，按 GB 计",
            **dims,
        )
    )
    scores = full.find("act_scores").bytes
    figs.append(
        figure(
            "act_anchor_score_share",
            float(Fraction(scores, full.bytes)),
            units.percent(scores, full.bytes),
            "注意力分数所占比例 = L × 5as²b ÷ [L × sbh(34 + 5as/h)]",
            **dims,
        )
    )
    linear = full.find("act_linear").bytes
    figs.append(
        figure("act_anchor_linear", linear, units.size(linear, "GiB", dg), "线性项 = L × 34sbh 字节", **dims)
    )
    figs.append(
        figure(
            "act_anchor_scores",
            scores,
            units.size(scores, "GiB", dg),
            "注意力分数项 = L × 5as²b 字节",
            **dims,
        )
    )
    sel = act("selective")
    figs.append(
        figure(
            "act_anchor_selective",
            sel.bytes,
            units.size(sel.bytes, "GiB"),
            "选择性重计算后只剩线性项 = L × 34sbh 字节",
            **dims,
        )
    )
    rec = act("full_recompute")
    figs.append(
        figure(
            "act_anchor_full_recompute",
            rec.bytes,
            units.size(rec.bytes, "GiB"),
            "全量重计算只留每层的 16 位输入 = L × 2sbh 字节",
            **dims,
        )
    )
    part = act(s2_layers=m.full_attention_layers)
    figs.append(
        figure(
            "act_anchor_s2_full_only",
            part.bytes,
            units.size(part.bytes, "GiB"),
            "只有全注意力层带分数项 = L × 34sbh + L_full × 5as²b 字节（L_full 为全注意力层数）",
            L_full=m.full_attention_layers,
            **dims,
        )
    )
    figs.append(
        figure(
            "act_anchor_b8",
            act(b=8).bytes,
            units.size(act(b=8).bytes, "GiB"),
            "全部留着的激活 = L × sbh(34 + 5as/h) 字节，b 取 8",
            **{**dims, "b": 8},
        )
    )
    from c9.views.memory_bar import S_MAX as s_max

    figs.append(
        figure(
            "s_max",
            s_max,
            units.number(s_max),
            "显存条上序列长度滑杆的右端 2²⁰（c9/views/memory_bar.py: S_MAX）",
        )
    )
    big = act(s=s_max)
    figs.append(
        figure(
            "act_anchor_s_max",
            big.bytes,
            units.auto_size(big.bytes),
            "全部留着的激活 = L × sbh(34 + 5as/h) 字节，s 取滑杆右端",
            **{**dims, "s": s_max},
        )
    )
    figs.append(
        figure(
            "act_anchor_s_max_score_share",
            float(Fraction(big.find("act_scores").bytes, big.bytes)),
            units.percent(big.find("act_scores").bytes, big.bytes),
            "注意力分数所占比例 = L × 5as²b ÷ [L × sbh(34 + 5as/h)]，s 取滑杆右端",
            **{**dims, "s": s_max},
        )
    )

    # Per-layer terms at the reference sequence, for the formula walk-through.
    # One unit for the one-layer table (lesson 5), at the precision where the rounded terms add up.
    lin1, sc1 = 34 * s * b * m.h, score_term(s, b, m.a)
    (lin_t, sc_t), tot_t = units.adding_up([lin1, sc1], "GiB", 2)
    figs.append(figure("layer_linear_anchor", lin1, lin_t, "一层的线性项：34sbh 字节", s=s, b=b, h=m.h))
    figs.append(figure("layer_scores_anchor", sc1, sc_t, "一层的注意力分数项：5as²b 字节", s=s, b=b, a=m.a))
    figs.append(
        figure(
            "layer_total_anchor",
            per_layer(s, b, m.h, m.a),
            tot_t,
            "一层的激活：sbh(34 + 5as/h) 字节",
            s=s,
            b=b,
            h=m.h,
            a=m.a,
        )
    )
    figs.append(
        figure(
            "five_as_over_h",
            float(Fraction(5 * m.a * s, m.h)),
            units.number(Fraction(5 * m.a * s, m.h), 0),
            "括号里分数项相对 34 的大小：5as/h",
            a=m.a,
            s=s,
            h=m.h,
        )
    )

    # The running sentence: 5 tokens against one 4,096-token document.
    n = facts["example_sentence"]["tokens"]
    small = act(s=n)
    figs.append(
        figure(
            "act_anchor_sentence",
            small.bytes,
            units.size(small.bytes, "MB"),
            "例句的激活 = L × sbh(34 + 5as/h) 字节，s 取例句的 token 数",
            **{**dims, "s": n},
        )
    )
    figs.append(
        figure(
            "growth_s",
            float(Fraction(s, n)),
            units.number(Fraction(s, n), 1),
            "序列长了几倍 = s ÷ s_例句",
            s=s,
            s_sentence=n,
        )
    )
    figs.append(
        figure(
            "growth_act",
            float(Fraction(full.bytes, small.bytes)),
            units.number(Fraction(full.bytes, small.bytes), 0),
            "激活涨了几倍 = 激活（s = 4,096）÷ 激活（s = 5）",
            **dims,
            s_sentence=n,
        )
    )

    # The attention-score tensor of one full-attention layer, one sequence.
    count = m.a * s * s
    figs.append(
        figure("score_count", count, units.number(count), "一层注意力分数的个数 = a × s²", a=m.a, s=s)
    )
    figs.append(
        figure(
            "score_bf16",
            2 * count,
            units.size(2 * count, "MB"),
            "按 BF16 存的分数表 = 2 B × a × s²",
            a=m.a,
            s=s,
        )
    )
    # MB, as the BF16 row above it in the same table column
    figs.append(
        figure(
            "score_formula_bytes",
            5 * count,
            units.size(5 * count, "MB"),
            "按式 1 存的分数表（每个 5 字节）= 5 B × a × s²",
            a=m.a,
            s=s,
        )
    )
    out = m.a * s * m.head_dim
    figs.append(
        figure(
            "output_count",
            out,
            units.number(out),
            "注意力输出的元素个数 = a × s × d_h",
            a=m.a,
            s=s,
            d_h=m.head_dim,
        )
    )
    figs.append(
        figure(
            "score_over_output",
            float(Fraction(count, out)),
            units.number(Fraction(count, out), 0),
            "分数表是输出的几倍 = a × s² ÷ (a × s × d_h)",
            a=m.a,
            s=s,
            d_h=m.head_dim,
        )
    )

    # Qwen3-8B at the same sequence.
    q = model("qwen3-8b")
    qa = activation_memory(s, b, q.h, q.a, q.L)
    figs.append(
        figure(
            "act_qwen3_8b",
            qa.bytes,
            units.size(qa.bytes, "GiB"),
            "Qwen3-8B 全部留着的激活 = L × sbh(34 + 5as/h) 字节",
            s=s,
            b=b,
            h=q.h,
            a=q.a,
            L=q.L,
        )
    )
    figs.append(
        figure(
            "act_qwen3_8b_score_share",
            float(Fraction(qa.find("act_scores").bytes, qa.bytes)),
            units.percent(qa.find("act_scores").bytes, qa.bytes),
            "Qwen3-8B 上注意力分数所占比例 = L × 5as²b ÷ [L × sbh(34 + 5as/h)]",
            s=s,
            b=b,
            h=q.h,
            a=q.a,
            L=q.L,
        )
    )
    figs.append(
        figure(
            "qwen3_8b_five_as_over_h",
            float(Fraction(5 * q.a * s, q.h)),
            units.number(Fraction(5 * q.a * s, q.h), 0),
            "Qwen3-8B 上的 5as/h",
            a=q.a,
            s=s,
            h=q.h,
        )
    )

    # Lesson 5's text: activations against the weights and the card.
    w = 2 * m.param_total
    figs.append(
        figure(
            "act_over_weights",
            float(Fraction(full.bytes, w)),
            units.number(Fraction(full.bytes, w), 1),
            "激活是 BF16 权重的几倍 = L × sbh(34 + 5as/h) ÷ (2 B × Ψ)",
            **dims,
            Ψ=m.param_total,
        )
    )
    figs.append(
        figure(
            "act_anchor_cards",
            float(Fraction(full.bytes, card_bytes())),
            units.number(Fraction(full.bytes, card_bytes()), 1),
            "激活相当于几张 80 GB 的卡 = L × sbh(34 + 5as/h) ÷ 80 GB",
            **dims,
        )
    )
    # The query width a·d_h of the anchor, which eq. 1 assumes equal to h.
    figs.append(
        figure(
            "anchor_q_width",
            m.a * m.head_dim,
            units.number(m.a * m.head_dim),
            "查询的总宽度 = a × d_h",
            a=m.a,
            d_h=m.head_dim,
        )
    )
    # One layer's 16-bit input, all a layer keeps under full recomputation.
    figs.append(
        figure(
            "layer_input_anchor",
            2 * s * b * m.h,
            units.size(2 * s * b * m.h, "MB"),
            "一层的 16 位输入 = 2sbh 字节",
            s=s,
            b=b,
            h=m.h,
        )
    )

    # Doubling the sequence: the linear part doubles, the scores quadruple.
    s2x = 2 * s
    figs.append(figure("seq_double", s2x, units.number(s2x), "序列加倍 = 2 × s", s=s))
    figs.append(
        figure(
            "act_anchor_s_double",
            dbl.bytes,
            units.size(dbl.bytes, "GiB", dg),
            "序列加倍后的激活 = L × sbh(34 + 5as/h) 字节",
            **{**dims, "s": s2x},
        )
    )
    figs.append(
        figure(
            "act_anchor_s_double_linear",
            dbl.find("act_linear").bytes,
            units.size(dbl.find("act_linear").bytes, "GiB", dg),
            "序列加倍后的线性项 = L × 34sbh 字节",
            **{**dims, "s": s2x},
        )
    )
    figs.append(
        figure(
            "act_anchor_s_double_scores",
            dbl.find("act_scores").bytes,
            units.size(dbl.find("act_scores").bytes, "GiB", dg),
            "序列加倍后的分数项 = L × 5as²b 字节",
            **{**dims, "s": s2x},
        )
    )
    figs.append(
        figure(
            "growth_act_s_double",
            float(Fraction(dbl.bytes, full.bytes)),
            units.number(Fraction(dbl.bytes, full.bytes), 2),
            "序列加倍时激活涨了几倍 = 激活（2s）÷ 激活（s）",
            **dims,
        )
    )

    # ZeRO's GPT-2 1.5B example run through eq. 1, to set beside the paper's own 12·h·b·s·L estimate.
    g = facts["models"]["gpt2-1.5b-zero"]
    gd = dict(
        s=g["sequence_length"],
        b=g["batch_size"],
        h=g["hidden_size"],
        a=g["num_attention_heads"],
        L=g["num_hidden_layers"],
    )
    ge = activation_memory(gd["s"], gd["b"], gd["h"], gd["a"], gd["L"])
    figs.append(
        figure(
            "zero_gpt2_act_eq1",
            ge.bytes,
            units.size(ge.bytes, "GB", 0),
            "ZeRO 的 GPT-2 1.5B 例子代入式 1 = L × sbh(34 + 5as/h) 字节",
            **gd,
        )
    )
    figs.append(
        figure(
            "zero_gpt2_act_eq1_linear",
            ge.find("act_linear").bytes,
            units.size(ge.find("act_linear").bytes, "GB", 0),
            "同一例子的线性项 = L × 34sbh 字节",
            **gd,
        )
    )
    figs.append(
        figure(
            "zero_gpt2_act_eq1_scores",
            ge.find("act_scores").bytes,
            units.size(ge.find("act_scores").bytes, "GB", 0),
            "同一例子的分数项 = L × 5as²b 字节",
            **gd,
        )
    )
    return figs
