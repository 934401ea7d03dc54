"""A decoder-only model's parameters, counted term by term from its :class:`~c9.core.architecture.Architecture`.

Each term is one kind of tensor, with the shape the Hugging Face modelling code gives it (``nn.Linear``'s
weight is (out, in); GPT-2's ``Conv1D`` stores (in, out), the same count), how many copies the model holds
(one per layer, per expert, …) and its bias. The rows add up to the total; tests/test_param_count.py checks
them against the published totals and, group by group, against the real models built on the ``meta`` device.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from c9.core.architecture import Architecture

SOURCE = "按 Hugging Face transformers 5.24.0 中该模型族的建模代码（modeling_<family>.py）逐个张量计数"


@dataclass(frozen=True)
class Term:
    """One kind of parameter tensor.

    key: stable identifier ("q_proj"); label: Chinese name; shape: one copy's weight shape;
    bias: bias elements per copy (0 if none); copies: how many such tensors the model has;
    count: (elements of ``shape`` + ``bias``) × ``copies``; formula: the count in the config's letters;
    note: one Chinese sentence on what it is or why it has this size.
    """

    key: str
    label: str
    shape: tuple[int, ...]
    bias: int
    copies: int
    count: int
    formula: str
    note: str = ""

    def to_dict(self) -> dict:
        return {
            "key": self.key,
            "label": self.label,
            "shape": list(self.shape),
            "bias": self.bias,
            "copies": self.copies,
            "count": self.count,
            "formula": self.formula,
            "note": self.note,
        }


def _term(key, label, shape, copies, formula, note="", bias=0) -> Term:
    return Term(key, label, tuple(shape), bias, copies, (prod(shape) + bias) * copies, formula, note)


def terms(m: Architecture) -> list[Term]:
    """The model's parameter tensors, in the order of the forward pass."""
    h, L, hd, V = m.h, m.L, m.head_dim, m.V
    ln = m.norm == "layernorm"  # LayerNorm has a bias beside its weight; RMSNorm only a weight
    norm_name = "LayerNorm" if ln else "RMSNorm"
    out = [_term("embed", "词嵌入表", (V, h), 1, "V × h", "每个词元一行 h 维向量")]
    if m.positions == "learned":
        out.append(
            _term(
                "pos_embed",
                "位置嵌入表",
                (m.n_positions, h),
                1,
                "n_positions × h",
                "每个位置一行，最长只能处理 n_positions 个词元",
            )
        )
    out.append(
        _term(
            "attn_norm",
            "注意力前的归一化",
            (h,),
            L,
            "h × L" if not ln else "2h × L",
            f"{norm_name}，每层一个",
            bias=h if ln else 0,
        )
    )
    out += _mla_terms(m) if m.mla else _attention_terms(m)
    if m.qk_norm:
        out += [
            _term("q_norm", "查询的 RMSNorm", (hd,), L, "d_head × L", "每个头共用一份 d_head 维权重"),
            _term("k_norm", "键的 RMSNorm", (hd,), L, "d_head × L"),
        ]
    if m.sandwich_norms:
        out.append(
            _term("attn_out_norm", "注意力输出的归一化", (h,), L, "h × L", "Gemma 每层四个 RMSNorm 之一")
        )
    out.append(
        _term(
            "mlp_norm",
            "MLP 前的归一化",
            (h,),
            L,
            "h × L" if not ln else "2h × L",
            f"{norm_name}，每层一个",
            bias=h if ln else 0,
        )
    )
    dense = L - m.moe_layers
    I, b = m.intermediate, m.mlp_bias
    if dense and m.gated_mlp:
        out += [
            _term(
                "gate_proj",
                "门控投影（SwiGLU）",
                (I, h),
                dense,
                "I × h × L",
                "代码里门控和上投影是同一个 gate_up_proj 矩阵的两半" if m.fused else "",
                bias=I if b else 0,
            ),
            _term("up_proj", "上投影", (I, h), dense, "I × h × L", "", bias=I if b else 0),
            _term("down_proj", "下投影", (h, I), dense, "h × I × L", "", bias=h if b else 0),
        ]
    elif dense:
        out += [
            _term("fc_in", "MLP 第一层", (I, h), dense, "I × h × L", "", bias=I if b else 0),
            _term("fc_out", "MLP 第二层", (h, I), dense, "h × I × L", "", bias=h if b else 0),
        ]
    if m.moe_layers:
        E, Ie, n = m.experts, m.expert_intermediate, m.moe_layers
        out += [
            _term(
                "router",
                "路由器",
                (E, h),
                n,
                "E × h × 层数",
                "给每个词元的 E 个专家打分"
                + (
                    "；打分的修正偏置 e_score_correction_bias 是缓冲区，不算参数"
                    if m.router_correction
                    else ""
                ),
                bias=E if m.router_bias else 0,
            ),
            _term(
                "experts_gate_up",
                "专家的门控与上投影",
                (E, 2 * Ie, h),
                n,
                "E × 2I_e × h × 层数",
                "每个专家一个 SwiGLU MLP；全部专家都算在总数里",
            ),
            _term("experts_down", "专家的下投影", (E, h, Ie), n, "E × h × I_e × 层数"),
        ]
        if m.shared_experts:
            Is = m.shared_intermediate
            out += [
                _term(
                    "shared_gate_up",
                    "共享专家的门控与上投影",
                    (2 * Is, h),
                    n,
                    "2I_s × h × 层数",
                    f"{m.shared_experts} 个共享专家合成一个 MLP，I_s = {m.shared_experts} × I_e；每个词元都经过",
                ),
                _term("shared_down", "共享专家的下投影", (h, Is), n, "h × I_s × 层数"),
            ]
    if m.sandwich_norms:
        out.append(_term("mlp_out_norm", "MLP 输出的归一化", (h,), L, "h × L", "Gemma 每层四个 RMSNorm 之一"))
    out.append(
        _term("final_norm", "最后的归一化", (h,), 1, "h" if not ln else "2h", norm_name, bias=h if ln else 0)
    )
    if m.tied_embeddings:
        out.append(Term("lm_head", "输出层", (V, h), 0, 0, 0, "0", "与词嵌入表共用同一矩阵，不另计"))
    else:
        out.append(_term("lm_head", "输出层", (V, h), 1, "V × h", "单独一份，与词嵌入表不共用"))
    return out


def _attention_terms(m: Architecture) -> list[Term]:
    # Queries have a·d_head outputs; keys and values only kv_heads·d_head (grouped-query attention).
    h, L, hd = m.h, m.L, m.head_dim
    q, kv = m.a * hd, m.kv_heads * hd
    fused = "代码里 q、k、v 是同一个 qkv_proj 矩阵的三段" if m.fused else ""
    return [
        _term("q_proj", "查询投影 W_Q", (q, h), L, "a·d_head × h × L", fused, bias=q if m.qkv_bias else 0),
        _term(
            "k_proj",
            "键投影 W_K",
            (kv, h),
            L,
            "kv·d_head × h × L",
            "键和值只有 kv_heads 个头" if kv < q else "",
            bias=kv if m.qkv_bias else 0,
        ),
        _term("v_proj", "值投影 W_V", (kv, h), L, "kv·d_head × h × L", "", bias=kv if m.qkv_bias else 0),
        _term("o_proj", "输出投影 W_O", (h, q), L, "h × a·d_head × L", "", bias=h if m.o_bias else 0),
    ]


def _mla_terms(m: Architecture) -> list[Term]:
    """DeepSeek-V3's multi-head latent attention (DeepseekV3Attention): queries through a rank-r_q bottleneck
    (or one q_proj), keys and values from one shared latent of kv_lora_rank plus the rotary key part."""
    h, L, a = m.h, m.L, m.a
    rq, rkv, nope, rope, v = m.mla
    b = m.qkv_bias  # attention_bias: on q_a_proj, kv_a_proj_with_mqa and o_proj only
    if rq:
        q = [
            _term(
                "q_a_proj",
                "查询的降维投影",
                (rq, h),
                L,
                "r_q × h × L",
                "先压到 q_lora_rank 维",
                bias=rq if b else 0,
            ),
            _term("q_a_norm", "查询低秩部分的 RMSNorm", (rq,), L, "r_q × L"),
            _term(
                "q_b_proj",
                "查询的升维投影",
                (a * (nope + rope), rq),
                L,
                "a·(d_nope + d_rope) × r_q × L",
                "每个头的查询分不带位置的 d_nope 维和带旋转位置的 d_rope 维",
            ),
        ]
    else:
        q = [_term("q_proj", "查询投影 W_Q", (a * (nope + rope), h), L, "a·(d_nope + d_rope) × h × L")]
    return q + [
        _term(
            "kv_a_proj",
            "键值的共享降维投影",
            (rkv + rope, h),
            L,
            "(r_kv + d_rope) × h × L",
            "所有头共用一个 kv_lora_rank 维的潜向量，外加一份带旋转位置的键",
            bias=rkv + rope if b else 0,
        ),
        _term("kv_a_norm", "键值潜向量的 RMSNorm", (rkv,), L, "r_kv × L"),
        _term(
            "kv_b_proj",
            "键值的升维投影",
            (a * (nope + v), rkv),
            L,
            "a·(d_nope + d_v) × r_kv × L",
            "从潜向量还原每个头的键（不带位置的部分）和值",
        ),
        _term("o_proj", "输出投影 W_O", (h, a * v), L, "h × a·d_v × L", "", bias=h if m.o_bias else 0),
    ]


def param_total(m: Architecture) -> int:
    """Ψ: every parameter the model stores (all experts of an MoE model included)."""
    return sum(t.count for t in terms(m))


def active_params(m: Architecture) -> int:
    """Parameters one token passes through: an MoE layer's router plus its top-k experts only."""
    if not m.moe_layers:
        return param_total(m)
    per_expert = 3 * m.h * m.expert_intermediate
    return param_total(m) - (m.experts - m.experts_per_token) * per_expert * m.moe_layers


def breakdown(m: Architecture) -> dict:
    """JSON-ready: the terms, their total (the sum of the rows) and the active parameters."""
    ts = terms(m)
    return {
        "terms": [t.to_dict() for t in ts],
        "total": sum(t.count for t in ts),
        "active": active_params(m),
        "source": SOURCE,
    }
