#!/usr/bin/env python3
"""Compute every figure the lessons quote, from anchor-model.json through widgets/.

Each figure carries its value, its display text, the formula and the inputs, so a page can show where
it comes from. MkDocs calls :func:`compute` on every build (hooks/course.py), so a page never sees a
stale figure; ``python build_numbers.py`` writes the same figures to build/numbers.json for review.

Units: GB = 10^9 bytes, GiB = 2^30 bytes, MB = 10^6 bytes.
"""

from __future__ import annotations

import html
import json
import sys
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from c9.base import units  # noqa: E402
from c9.core.activations import activation_memory, per_layer, score_term  # noqa: E402
from c9.core.formats import FORMATS  # noqa: E402
from c9.core.ledger import bytes_per_parameter, model_states  # noqa: E402
from c9.core.models import anchor, card_bytes, load_facts, model  # noqa: E402


@dataclass(frozen=True)
class Figure:
    """One quoted figure: ``value`` (exact number or string), ``text`` (what the page shows),
    ``formula`` and ``inputs`` (how it was computed)."""

    name: str
    value: int | float | str
    text: str
    formula: str
    inputs: dict = field(default_factory=dict)

    def __str__(self) -> str:
        return self.text

    def __html__(self) -> str:
        """The figure as inline HTML: the text, and its provenance shown on hover or keyboard focus (kept
        out of the search index, so a search finds the lessons' prose, not 400 tooltips)."""
        how = "依据：" + units.reader_powers(self.formula)  # 2^p as 2ᵖ, as the lessons write it
        if self.inputs:
            how += "；代入：" + "，".join(
                f"{INPUT_NAMES.get(k, k)} = {v if k == 'seed' else _show(v)}" for k, v in self.inputs.items()
            )

        # "|" as an entity: a figure in a Markdown table cell must not end the cell (|x − q| / |x|).
        def esc(s):
            return html.escape(s).replace("|", "&#124;")

        return (
            f'<span class="fig" tabindex="0" data-fig="{self.name}">{esc(self.text)}'
            f'<span class="fig-how" role="tooltip" data-search-exclude>{esc(how)}</span></span>'
        )


def _show(v) -> str:
    if isinstance(v, int) and not isinstance(v, bool):
        return units.number(v)
    if isinstance(v, list):
        return "[" + ", ".join(map(_show, v)) + "]"
    if isinstance(v, float) and "e" in repr(v):  # 1e-08 as the pages write it: 1×10⁻⁸
        mantissa, exp = repr(v).split("e")
        return units.superscript_powers(f"{mantissa}×10^{int(exp)}").replace("-", "−")
    if isinstance(v, float):  # a negative with the minus sign of reader text: −26.0
        return repr(v).replace("-", "−")
    return VALUE_NAMES.get(v, str(v)) if isinstance(v, str) else str(v)


# How a figure's inputs read in its tooltip: the paper's letters stay as they are (s, b, h, a, L, Ψ, k,
# x, S, X …); every other name, and the codes of formats, modes and schemes, in Chinese.
INPUT_NAMES = {
    "param_total": "Ψ",
    "psi": "Ψ",
    "vocab_size": "词表大小",
    "card": "单卡显存（字节）",
    "mixed": "混合精度的模型状态（字节）",
    "weights": "BF16 权重（字节）",
    "convention": "口径",
    "iteration": "第几次迭代",
    "mode": "激活的存法",
    "full": "全注意力层数",
    "s_sentence": "例句的 s",
    "min_subnormal_exponent": "最小次正规数的指数",
    "max_exponent": "最大的指数",
    "bias": "指数偏置",
    "mantissa_bits": "尾数位数",
    "max": "最大有限值",
    "format": "格式",
    "bits": "位数",
    "values": "各个码点",
    "tensor": "张量",
    "entry": "所看的数 v",
    "scale": "缩放因子",
    "code": "编码",
    "dequantized": "还原值",
    "block": "块",
    "element_bits": "元素位数",
    "scale_bits": "缩放因子位数",
    "w0": "w₀",
    "delta": "Δ",
    "steps": "步数",
    "seed": "随机种子",
    "n": "样本数",
    "mu": "μ",
    "sigma": "σ",
    "source": "数据",
    "wall_time_s": "总耗时（秒）",
    "batch_size": "batch",
    "context": "上下文长度",
    "tokens_per_step": "每步 token 数",
    "files": "文件数",
    "train_files": "训练用的文件数",
    "bytes": "字节数",
    "measured": "实测（字节）",
    "ledger": "账本（字节）",
    "fp32": "FP32",
    "bf16": "BF16",
    "this": "这一行",
    "fp16": "FP16 不缩放",
    "fp16_scaled": "FP16 + 动态缩放",
    "count": "个数",
    "elements": "全部元素",
    "diff_bytes": "差值（字节）",
    "step": "第几步",
    "scheme": "缩放方案",
    "entries": "元素总数",
    "formula_bytes": "公式（字节）",
}
VALUE_NAMES = {
    **{f.name: f.label for f in FORMATS},  # a format by its reader's name (E4M3, not float8_e4m3fn)
    "store_all": "全部留着",
    "full_recompute": "全量重计算",
    "selective": "选择性重计算",
    "hf": "再加一份 FP32 梯度",
    "playbook": "16 位与 FP32 梯度都记",
    "per_tensor_e4m3": "整张量一个缩放因子（E4M3）",
    "deepseek_1x128": "1×128 分块",
    "deepseek_128x128": "128×128 分块",
}


class Figures(dict):
    """name → Figure, refusing duplicates so one figure has one origin."""

    def add(self, name: str, value, text: str, formula: str, **inputs) -> Figure:
        if name in self:
            raise ValueError(f"figure {name!r} defined twice")
        if isinstance(value, Fraction):
            value = float(value)
        # Pages show powers typeset (2⁻²⁴); modules may write them ASCII-style (2^-24).
        self[name] = Figure(name, value, units.superscript_powers(text), formula, inputs)
        return self[name]


def _facts(f: Figures) -> None:
    """Facts from anchor-model.json, quoted through the build so the page and the file never disagree."""
    facts = load_facts()
    m = anchor()
    src = "anchor-model.json"
    f.add("anchor_name", m.name, m.name, f"锚点模型的名字（{src}）")
    f.add(
        "anchor_params", m.param_total, units.number(m.param_total), f"锚点的参数个数 Ψ（{src}: param_total）"
    )
    f.add(
        "anchor_params_b",
        m.param_total / 1e9,
        f"{units.number(Fraction(m.param_total, 10**9), 1)}B",
        "以十亿计的参数个数：Ψ ÷ 10⁹",
        Ψ=m.param_total,
    )
    f.add("anchor_L", m.L, str(m.L), f"层数 L（{src}: num_hidden_layers）")
    f.add(
        "anchor_full_layers",
        m.full_attention_layers,
        str(m.full_attention_layers),
        f"全注意力层的层数（{src}: layer_types）",
    )
    f.add(
        "anchor_linear_layers",
        m.L - m.full_attention_layers,
        str(m.L - m.full_attention_layers),
        "线性注意力层数 = L − 全注意力层数",
        L=m.L,
        full=m.full_attention_layers,
    )
    f.add("anchor_h", m.h, units.number(m.h), f"隐藏宽度 h（{src}: hidden_size）")
    f.add("anchor_a", m.a, str(m.a), f"注意力头数 a（{src}: num_attention_heads）")
    f.add("anchor_head_dim", m.head_dim, str(m.head_dim), f"每个头的宽度 d_h（{src}: head_dim）")
    seq = facts["training_sequence"]["tokens"]
    f.add("seq", seq, units.number(seq), f"训练序列长度 s（{src}: training_sequence.tokens）")
    batch = facts["training_sequence"]["batch"]
    f.add("batch", batch, str(batch), f"micro-batch 大小 b（{src}: training_sequence.batch）")
    sent = facts["example_sentence"]
    f.add("sentence", sent["text"], sent["text"], f"贯穿全章的例句（{src}: example_sentence）")
    f.add(
        "sentence_tokens",
        sent["tokens"],
        str(sent["tokens"]),
        f"例句切成的 token 数（{src}: example_sentence.tokens）",
    )
    card = card_bytes()
    f.add(
        "card", card, units.size(card, "GB", 0), f"单卡显存（{src}: cards 里 default 那张卡的 memory_bytes）"
    )
    q = model("qwen3-8b")
    f.add("qwen3_8b_L", q.L, str(q.L), f"Qwen3-8B 的层数 L（{src}: num_hidden_layers）")
    f.add("qwen3_8b_h", q.h, units.number(q.h), f"Qwen3-8B 的隐藏宽度 h（{src}: hidden_size）")
    f.add("qwen3_8b_a", q.a, str(q.a), f"Qwen3-8B 的注意力头数 a（{src}: num_attention_heads）")


def _model_states(f: Figures) -> None:
    m = anchor()
    states = model_states(m.param_total, "bf16_mixed_adamw")
    per = bytes_per_parameter("bf16_mixed_adamw")
    f.add(
        "bytes_per_param",
        per,
        str(per),
        "每参数字节数 = 2 + 2 + 4 + 4 + 4（BF16 权重、BF16 梯度、FP32 主权重、Adam 的 m 与 v）",
    )
    f.add(
        "model_states_anchor",
        states.bytes,
        units.size(states.bytes, "GB"),
        "模型状态 = 16 B × Ψ",
        Ψ=m.param_total,
    )
    f.add(
        "weights_anchor_bf16",
        2 * m.param_total,
        units.size(2 * m.param_total, "GB"),
        "BF16 权重 = 2 B × Ψ",
        Ψ=m.param_total,
    )
    mv = states.find("adam_m").bytes + states.find("adam_v").bytes
    f.add("adam_mv_anchor", mv, units.size(mv, "GB"), "Adam 的 m 与 v = (4 + 4) B × Ψ", Ψ=m.param_total)
    # The ledger tables (guide, lessons 1 and 5): every part with the total, at the precision where the
    # rows add up to the total as shown (units.adding_up). Two decimals: there the half-up rows already add
    # up, so no row is adjusted and the tables need no note (one decimal would move 222.25 to 222.2).
    rows = [
        ("weights", "BF16 权重", 2),
        ("grads", "BF16 梯度", 2),
        ("master", "FP32 主权重", 4),
        ("mv", "Adam 的 m 与 v（FP32）", 8),
    ]
    shown, _, adjusted = units.apportion([k * m.param_total for _, _, k in rows], "GB", 2)
    assert not adjusted, "the ledger tables would need a note on the adjusted last digit"
    texts, total = units.adding_up([k * m.param_total for _, _, k in rows], "GB", 2)
    for (key, what, k), text in zip(rows, texts):
        f.add(
            f"ledger_{key}", k * m.param_total, text, f"{what}：每参数 {k} 字节，{k} B × Ψ", Ψ=m.param_total
        )
    f.add("ledger_total", states.bytes, total, "模型状态合计：(2 + 2 + 4 + 8) B × Ψ", Ψ=m.param_total)
    ratio = Fraction(states.bytes, card_bytes())
    f.add(
        "model_states_cards",
        float(ratio),
        units.number(ratio, 1),
        "相当于几张卡 = 16 B × Ψ ÷ 80 GB",
        Ψ=m.param_total,
    )


def _activations(f: Figures) -> None:
    facts = load_facts()
    m = anchor()
    s, b = facts["training_sequence"]["tokens"], facts["training_sequence"]["batch"]
    dims = dict(s=s, b=b, h=m.h, a=m.a, L=m.L)

    def act(mode="store_all", s2_layers=None, **over):
        d = {**dims, **over}
        return activation_memory(d["s"], d["b"], d["h"], d["a"], d["L"], mode, s2_layers)

    full = act()
    f.add(
        "act_anchor",
        full.bytes,
        units.size(full.bytes, "GiB"),
        "全部留着的激活 = L × sbh(34 + 5as/h) 字节（Korthikanti 式 1）",
        **dims,
    )
    f.add(
        "act_anchor_gb",
        full.bytes,
        units.size(full.bytes, "GB"),
        "全部留着的激活 = L × sbh(34 + 5as/h) 字节，按 GB 计",
        **dims,
    )
    scores = full.find("act_scores").bytes
    f.add(
        "act_anchor_score_share",
        float(Fraction(scores, full.bytes)),
        units.percent(scores, full.bytes),
        "注意力分数所占比例 = L × 5as²b ÷ [L × sbh(34 + 5as/h)]",
        **dims,
    )
    linear = full.find("act_linear").bytes
    f.add("act_anchor_linear", linear, units.size(linear, "GiB"), "线性项 = L × 34sbh 字节", **dims)
    f.add("act_anchor_scores", scores, units.size(scores, "GiB"), "注意力分数项 = L × 5as²b 字节", **dims)
    sel = act("selective")
    f.add(
        "act_anchor_selective",
        sel.bytes,
        units.size(sel.bytes, "GiB"),
        "选择性重计算后只剩线性项 = L × 34sbh 字节",
        **dims,
    )
    rec = act("full_recompute")
    f.add(
        "act_anchor_full_recompute",
        rec.bytes,
        units.size(rec.bytes, "GiB"),
        "全量重计算只留每层的 16 位输入 = L × 2sbh 字节",
        **dims,
    )
    part = act(s2_layers=m.full_attention_layers)
    f.add(
        "act_anchor_s2_full_only",
        part.bytes,
        units.size(part.bytes, "GiB"),
        "只有全注意力层带分数项 = L × 34sbh + L_full × 5as²b 字节（L_full 为全注意力层数）",
        L_full=m.full_attention_layers,
        **dims,
    )
    f.add(
        "act_anchor_b8",
        act(b=8).bytes,
        units.size(act(b=8).bytes, "GiB"),
        "全部留着的激活 = L × sbh(34 + 5as/h) 字节，b 取 8",
        **{**dims, "b": 8},
    )
    from c9.views.memory_bar import S_MAX as s_max

    f.add(
        "s_max", s_max, units.number(s_max), "显存条上序列长度滑杆的右端 2²⁰（c9/views/memory_bar.py: S_MAX）"
    )
    big = act(s=s_max)
    f.add(
        "act_anchor_s_max",
        big.bytes,
        units.auto_size(big.bytes),
        "全部留着的激活 = L × sbh(34 + 5as/h) 字节，s 取滑杆右端",
        **{**dims, "s": s_max},
    )
    f.add(
        "act_anchor_s_max_score_share",
        float(Fraction(big.find("act_scores").bytes, big.bytes)),
        units.percent(big.find("act_scores").bytes, big.bytes),
        "注意力分数所占比例 = L × 5as²b ÷ [L × sbh(34 + 5as/h)]，s 取滑杆右端",
        **{**dims, "s": s_max},
    )

    # Per-layer terms at the reference sequence, for the formula walk-through.
    # One unit for the one-layer table (lesson 5), at the precision where the rounded terms add up.
    lin1, sc1 = 34 * s * b * m.h, score_term(s, b, m.a)
    assert not units.apportion([lin1, sc1], "GiB", 2)[2], "the one-layer table would need a note"
    (lin_t, sc_t), tot_t = units.adding_up([lin1, sc1], "GiB", 2)
    f.add("layer_linear_anchor", lin1, lin_t, "一层的线性项：34sbh 字节", s=s, b=b, h=m.h)
    f.add("layer_scores_anchor", sc1, sc_t, "一层的注意力分数项：5as²b 字节", s=s, b=b, a=m.a)
    f.add(
        "layer_total_anchor",
        per_layer(s, b, m.h, m.a),
        tot_t,
        "一层的激活：sbh(34 + 5as/h) 字节",
        s=s,
        b=b,
        h=m.h,
        a=m.a,
    )
    f.add(
        "five_as_over_h",
        float(Fraction(5 * m.a * s, m.h)),
        units.number(Fraction(5 * m.a * s, m.h), 0),
        "括号里分数项相对 34 的大小：5as/h",
        a=m.a,
        s=s,
        h=m.h,
    )

    # The running sentence: 5 tokens against one 4,096-token document.
    n = facts["example_sentence"]["tokens"]
    small = act(s=n)
    f.add(
        "act_anchor_sentence",
        small.bytes,
        units.size(small.bytes, "MB"),
        "例句的激活 = L × sbh(34 + 5as/h) 字节，s 取例句的 token 数",
        **{**dims, "s": n},
    )
    f.add(
        "growth_s",
        float(Fraction(s, n)),
        units.number(Fraction(s, n), 1),
        "序列长了几倍 = s ÷ s_例句",
        s=s,
        s_sentence=n,
    )
    f.add(
        "growth_act",
        float(Fraction(full.bytes, small.bytes)),
        units.number(Fraction(full.bytes, small.bytes), 0),
        "激活涨了几倍 = 激活（s = 4,096）÷ 激活（s = 5）",
        **dims,
        s_sentence=n,
    )

    # The attention-score tensor of one full-attention layer, one sequence.
    count = m.a * s * s
    f.add("score_count", count, units.number(count), "一层注意力分数的个数 = a × s²", a=m.a, s=s)
    f.add(
        "score_bf16", 2 * count, units.size(2 * count, "MB"), "按 BF16 存的分数表 = 2 B × a × s²", a=m.a, s=s
    )
    # MB, as the BF16 row above it in the same table column
    f.add(
        "score_formula_bytes",
        5 * count,
        units.size(5 * count, "MB"),
        "按式 1 存的分数表（每个 5 字节）= 5 B × a × s²",
        a=m.a,
        s=s,
    )
    out = m.a * s * m.head_dim
    f.add(
        "output_count",
        out,
        units.number(out),
        "注意力输出的元素个数 = a × s × d_h",
        a=m.a,
        s=s,
        d_h=m.head_dim,
    )
    f.add(
        "score_over_output",
        float(Fraction(count, out)),
        units.number(Fraction(count, out), 0),
        "分数表是输出的几倍 = a × s² ÷ (a × s × d_h)",
        a=m.a,
        s=s,
        d_h=m.head_dim,
    )

    # Qwen3-8B at the same sequence.
    q = model("qwen3-8b")
    qa = activation_memory(s, b, q.h, q.a, q.L)
    f.add(
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
    f.add(
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
    f.add(
        "qwen3_8b_five_as_over_h",
        float(Fraction(5 * q.a * s, q.h)),
        units.number(Fraction(5 * q.a * s, q.h), 0),
        "Qwen3-8B 上的 5as/h",
        a=q.a,
        s=s,
        h=q.h,
    )

    # Lesson 5's text: activations against the weights and the card.
    w = 2 * m.param_total
    f.add(
        "act_over_weights",
        float(Fraction(full.bytes, w)),
        units.number(Fraction(full.bytes, w), 1),
        "激活是 BF16 权重的几倍 = L × sbh(34 + 5as/h) ÷ (2 B × Ψ)",
        **dims,
        Ψ=m.param_total,
    )
    f.add(
        "act_anchor_cards",
        float(Fraction(full.bytes, card_bytes())),
        units.number(Fraction(full.bytes, card_bytes()), 1),
        "激活相当于几张 80 GB 的卡 = L × sbh(34 + 5as/h) ÷ 80 GB",
        **dims,
    )
    # The query width a·d_h of the anchor, which eq. 1 assumes equal to h.
    f.add(
        "anchor_q_width",
        m.a * m.head_dim,
        units.number(m.a * m.head_dim),
        "查询的总宽度 = a × d_h",
        a=m.a,
        d_h=m.head_dim,
    )
    # One layer's 16-bit input, all a layer keeps under full recomputation.
    f.add(
        "layer_input_anchor",
        2 * s * b * m.h,
        units.size(2 * s * b * m.h, "MB"),
        "一层的 16 位输入 = 2sbh 字节",
        s=s,
        b=b,
        h=m.h,
    )

    # Doubling the sequence: the linear part doubles, the scores quadruple.
    s2x = 2 * s
    dbl = act(s=s2x)
    f.add("seq_double", s2x, units.number(s2x), "序列加倍 = 2 × s", s=s)
    f.add(
        "act_anchor_s_double",
        dbl.bytes,
        units.size(dbl.bytes, "GiB"),
        "序列加倍后的激活 = L × sbh(34 + 5as/h) 字节",
        **{**dims, "s": s2x},
    )
    f.add(
        "act_anchor_s_double_linear",
        dbl.find("act_linear").bytes,
        units.size(dbl.find("act_linear").bytes, "GiB"),
        "序列加倍后的线性项 = L × 34sbh 字节",
        **{**dims, "s": s2x},
    )
    f.add(
        "act_anchor_s_double_scores",
        dbl.find("act_scores").bytes,
        units.size(dbl.find("act_scores").bytes, "GiB"),
        "序列加倍后的分数项 = L × 5as²b 字节",
        **{**dims, "s": s2x},
    )
    f.add(
        "growth_act_s_double",
        float(Fraction(dbl.bytes, full.bytes)),
        units.number(Fraction(dbl.bytes, full.bytes), 2),
        "序列加倍时激活涨了几倍 = 激活（2s）÷ 激活（s）",
        **dims,
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
    f.add(
        "zero_gpt2_act_eq1",
        ge.bytes,
        units.size(ge.bytes, "GB", 0),
        "ZeRO 的 GPT-2 1.5B 例子代入式 1 = L × sbh(34 + 5as/h) 字节",
        **gd,
    )
    f.add(
        "zero_gpt2_act_eq1_linear",
        ge.find("act_linear").bytes,
        units.size(ge.find("act_linear").bytes, "GB", 0),
        "同一例子的线性项 = L × 34sbh 字节",
        **gd,
    )
    f.add(
        "zero_gpt2_act_eq1_scores",
        ge.find("act_scores").bytes,
        units.size(ge.find("act_scores").bytes, "GB", 0),
        "同一例子的分数项 = L × 5as²b 字节",
        **gd,
    )


def _timeline(f: Figures) -> None:
    """Lesson 5's one-iteration timeline (c9/views/timeline.py): where the peak falls, how high."""
    from c9.views import timeline

    for it in (1, 2):
        for mode in ("store_all", "full_recompute"):
            v = timeline.view({"iteration": it, "mode": mode})
            key = f"timeline_it{it}_{mode}"
            f.add(
                f"{key}_peak",
                v["peak_bytes"],
                units.size(v["peak_bytes"], "GB"),
                "一次迭代里常驻显存的最大值（逐个事件累加的时间线）",
                iteration=it,
                mode=mode,
            )
            f.add(
                f"{key}_peak_at", v["peak_label"], v["peak_label"], "峰值出现的时刻", iteration=it, mode=mode
            )
            f.add(
                f"{key}_rise",
                v["peak_bytes"] - v["start_bytes"],
                units.size(v["peak_bytes"] - v["start_bytes"], "GB"),
                "峰值 − 迭代开始时的显存",
                iteration=it,
                mode=mode,
            )
        start = timeline.view({"iteration": it})["start_bytes"]
        f.add(
            f"timeline_it{it}_start",
            start,
            units.size(start, "GB"),
            "迭代开始时的显存 = 2Ψ + 4Ψ"
            + (" + 8Ψ" if it == 2 else "")
            + " 字节（BF16 权重、FP32 主权重"
            + ("、Adam 的 m 与 v）" if it == 2 else "）"),
            iteration=it,
        )
    a = timeline.view({"iteration": 2})["peak_bytes"]
    b = timeline.view({"iteration": 2, "mode": "full_recompute"})["peak_bytes"]
    f.add(
        "timeline_it2_recompute_saves",
        a - b,
        units.size(a - b, "GB"),
        "全量重计算省下的峰值 = 峰值（全部留着）− 峰值（全量重计算）",
        iteration=2,
    )


def _zero_gpt2(f: Figures) -> None:
    """ZeRO §3.1–3.2's GPT-2 1.5B example: the paper's own estimate, 12·h·b·s·L values in 16 bits."""
    g = load_facts()["models"]["gpt2-1.5b-zero"]
    h, L, s, b, psi = (
        g["hidden_size"],
        g["num_hidden_layers"],
        g["sequence_length"],
        g["batch_size"],
        g["param_total"],
    )
    zero_act = 2 * 12 * h * b * s * L
    f.add(
        "zero_gpt2_act",
        zero_act,
        units.size(zero_act, "GB", 0),
        "ZeRO §3.2 的估法：每层每个位置 12h 个 16 位数 = 2 B × 12 × h × b × s × L",
        h=h,
        b=b,
        s=s,
        L=L,
    )
    states = model_states(psi).bytes
    f.add("zero_gpt2_states", states, units.size(states, "GB", 0), "模型状态 = 16 B × Ψ（ZeRO §3.1）", Ψ=psi)
    f.add(
        "zero_gpt2_seq",
        s,
        units.number(s),
        "ZeRO 例子的序列长度 s（anchor-model.json: gpt2-1.5b-zero.sequence_length）",
    )
    f.add("zero_gpt2_batch", b, str(b), "ZeRO 例子的 batch b（anchor-model.json: gpt2-1.5b-zero.batch_size）")


# Modules that contribute figures: each has ``figures() -> list[dict]`` (name, value, text, formula,
# inputs), computed through widgets/. A lesson's figures live beside the widgets they come from.
FIGURE_MODULES = [
    "c9.figures.codecs",
    "c9.figures.lessons123",
    "c9.figures.lesson4_fp4",
    "c9.figures.codec_lab",
    "c9.figures.lab",
    "c9.figures.kv_cache",
    "c9.figures.reported",
    "c9.figures.codec_check",
    "c9.figures.activation_check",
]


def _modules(f: Figures) -> None:
    import importlib

    for name in FIGURE_MODULES:
        module = importlib.import_module(name)
        for row in module.figures():
            f.add(row["name"], row["value"], row["text"], row["formula"], **row.get("inputs", {}))


def compute() -> Figures:
    """Every figure, freshly computed. Raises if two sections define the same name."""
    f = Figures()
    for section in (_facts, _model_states, _activations, _timeline, _zero_gpt2, _modules):
        section(f)
    return f


def to_json(figs: Figures) -> str:
    return json.dumps({k: asdict(v) for k, v in figs.items()}, ensure_ascii=False, indent=1, default=str)


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else ROOT / "build" / "numbers.json"
    figs = compute()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(to_json(figs), encoding="utf-8")
    width = max(map(len, figs))
    for name, fig in figs.items():
        print(f"{name:<{width}}  {fig.text}")
    print(f"{len(figs)} figures → {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
