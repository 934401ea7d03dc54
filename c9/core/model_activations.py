"""Activation memory of one training step of one model, two ways: the paper's eq. 1, and the model's own tensors.

(a) Eq. 1 of Korthikanti et al. 2022 (§4), as ``c9.core.activations`` computes it from h, a, L alone.
(b) Tensor by tensor, what the forward pass of the model's real code (Hugging Face transformers 5.24.0, the
    modelling file of the config's ``model_type``) keeps for the backward pass: the method is the paper's
    (§4: count the inputs each backward needs), the list follows the code, so it has what eq. 1 leaves out
    or sizes differently: K and V by the KV heads, head_dim ≠ h/a, SwiGLU's gate and up outputs, RMSNorm's
    float32 copies, dropout masks only where the config's dropout is > 0, rotary cos/sin (one per sequence in
    Qwen2-VL), the token ids, the log-probabilities of the loss over the whole vocabulary, each MoE expert's tokens, and DeepSeek-V3's
    latent attention (its latents, their norms, Q and K put together from two parts).
    The count is checked against a measurement of that code (lab/activation_check.py,
    tests/test_activation_check.py): each storage saved for backward counts once.

Modes (the same meaning for every family; keys of ``c9.core.activations.MODES``):
    store_all       attention writes the s×s scores and keeps them: transformers' ``attn_implementation="eager"``.
    selective       as store_all, but every tensor with s×s elements is recomputed in the backward pass
                    (Korthikanti et al. §5's selective recomputation): nothing of size s² is kept.
    flash           a fused attention kernel that never writes the scores (FlashAttention; transformers'
                    ``"sdpa"`` when torch picks a flash kernel, ``"flash_attention_2"``): it keeps q, k, v
                    (K and V at the KV heads), its output and one float32 log-sum-exp per query and head
                    (with dropout, a GPU kernel also keeps its random-number seed: a few bytes, left out).
    full_recompute  each layer keeps only its input (gradient checkpointing of every layer; the paper's
                    table 2); the embedding, final norm and loss tensors outside the layers stay.

Shapes use the paper's letters and these: a heads, k_h KV heads, d head_dim, I the MLP's inner size, E
experts, k experts per token, I_e one expert's inner size, V vocabulary; for DeepSeek-V3's latent attention
r_q and r_kv the query and key-value latents (q_lora_rank, kv_lora_rank), d_n and d_r the parts of a query or
key head without and with rotary positions (d = d_n + d_r), d_v a value head, I_s the shared experts' MLP.
A tensor kept as a view of a larger one keeps that one alive: it is counted at the size of what it keeps
(GPT-2's Q, the labels, DeepSeek-V3's V).

Precision (``PRECISIONS``): the model's weights and activations in one dtype (BF16, FP16 or FP32, no
autocast), on a GPU or, for the lab's check, the CPU. Three sizes follow from it: an activation (2 or 4
bytes); a dropout-mask element (GPU: a bool mask, 1 byte, as torch's ``native_dropout`` keeps; CPU:
``_dropout_impl`` multiplies by a float noise tensor of the activation's dtype); LayerNorm's mean and
1/std (GPU: float32; CPU: the input's dtype — torch/_refs ``native_layer_norm``). A few tensors are float32
or int64 whatever the precision, because the code makes them so (RMSNorm's upcast, the Llama family's
eager softmax, the loss's log-probabilities, the router, token ids); each term says its own bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from c9.base.errors import InputError
from c9.core import activations as eq1
from c9.core.architecture import Architecture
from c9.core.items import Item

PAPER = eq1.SOURCE
HF = "Hugging Face transformers 5.24.0"
MODES = eq1.MODES
#: the attention code the lab ran → (our mode, ``scores_by``, ``kernel``). transformers' "eager" writes the
#: scores; "sdpa" runs torch's scaled_dot_product_attention, whose CPU flash kernel never writes them (but,
#: given a sliding-window mask, keeps the mask and K, V at every head: ``kernel`` "sdpa"), and which falls back
#: to its "math" backend (scores written, like eager) when the attention has dropout (GPT-2 on the CPU).
IMPLEMENTATION_MODE = {
    "eager": ("store_all", "eager", "flash"),
    "sdpa": ("flash", "eager", "sdpa"),
    "sdpa_math": ("store_all", "sdpa_math", "flash"),
}
KERNELS = ("flash", "sdpa")

# The paper's per-layer terms (§4.1, 16-bit activations, 1-byte masks), in bytes: key → (label, sbh factor,
# as²b factor). Their sum is eq. 1. Each of our tensors names the one it corresponds to (or None: beyond eq. 1).
EQ1_TERMS: dict[str, tuple[str, int, int]] = {
    "qkv_in": ("QKV 矩阵乘的输入", 2, 0),
    "qk": ("QKᵀ 的输入 Q、K", 4, 0),
    "softmax": ("softmax 输出", 0, 2),
    "attn_mask": ("注意力 dropout 掩码", 0, 1),
    "attn_drop": ("注意力 dropout 输出", 0, 2),
    "v": ("V", 2, 0),
    "proj_in": ("输出投影的输入", 2, 0),
    "resid_mask1": ("注意力后 dropout 掩码", 1, 0),
    "mlp_in": ("MLP 第一个矩阵乘的输入", 2, 0),
    "act_in": ("GeLU 的输入", 8, 0),
    "act_out": ("GeLU 的输出（第二个矩阵乘的输入）", 8, 0),
    "resid_mask2": ("MLP 后 dropout 掩码", 1, 0),
    "norms": ("两个 LayerNorm 的输入", 4, 0),
}


@dataclass(frozen=True)
class Precision:
    """Bytes of an activation, of a dropout-mask element, of LayerNorm's per-row statistics."""

    key: str
    label: str
    act: int
    mask: int
    stats: int


PRECISIONS: dict[str, Precision] = {
    p.key: p
    for p in (
        Precision("bf16", "BF16（GPU）", 2, 1, 4),
        Precision("fp16", "FP16（GPU）", 2, 1, 4),
        Precision("fp32", "FP32（GPU）", 4, 1, 4),
        Precision("cpu_bf16", "BF16（CPU，实验课）", 2, 2, 2),
        Precision("cpu_fp32", "FP32（CPU，实验课）", 4, 4, 4),
    )
}
#: the lab's torch dtype → precision key
LAB_PRECISION = {"float32": "cpu_fp32", "bfloat16": "cpu_bf16"}


@dataclass(frozen=True)
class Tensor:
    """One tensor kept for backward (or, with ``saved`` False, the logits buffer the step holds).

    ``bytes`` = elements × bytes_per_element × count; ``count`` is how many times the model has it
    (the layers that carry it, or 1 for a tensor of the whole model)."""

    key: str
    label: str
    shape: str
    elements: int
    bytes_per_element: int
    count: int
    source: str
    eq1: str | None = None
    note: str = ""
    saved: bool = True

    @property
    def bytes(self) -> int:
        return self.elements * self.bytes_per_element * self.count

    def to_dict(self) -> dict:
        return {
            "key": self.key,
            "label": self.label,
            "shape": self.shape,
            "elements": self.elements,
            "bytes_per_element": self.bytes_per_element,
            "count": self.count,
            "bytes": self.bytes,
            "source": self.source,
            "eq1": self.eq1,
            "note": self.note,
            "saved": self.saved,
        }


#: the families whose tensors this module lists, each checked against a measurement of its code
#: (lab/activation_check.py); a vision-language model's language model is counted by eq. 1 only, until its
#: tensors are listed and measured too.
MODELLED = frozenset(
    {
        "gpt2",
        "llama",
        "mistral",
        "qwen2",
        "qwen3",
        "mixtral",
        "qwen3_moe",
        "deepseek_v3",
        "phi3",
        "gemma2",
        "gemma3_text",
        "qwen2_vl_text",
    }
)


#: vision-language models whose text-only training step keeps exactly what their language model alone keeps
#: (measured on tiny random ones: tests/lab/test_activation_check.py)
TEXT_ONLY = frozenset({"llava", "gemma3", "qwen2_vl"})


def unmodelled(arch: Architecture) -> str:
    """Why ``arch``'s own tensors are not listed here (Chinese), or "" when they are."""
    if arch.wrapper and arch.wrapper not in TEXT_ONLY:
        return f"视觉语言模型（「{arch.wrapper}」）的语言模型参数已逐项数出，但它训练时的张量（含图像词元）还没有逐个列出并实测核对，激活只按式 1 估算"
    if arch.family not in MODELLED and arch.family != "lab":
        return f"「{arch.family}」这一族自己的张量还没有逐个列出并实测核对，激活只按式 1 估算"
    return ""


def text_only(arch: Architecture) -> str:
    """For a vision-language model, what its own-tensor count covers (Chinese), or "" for a text model."""
    if not arch.wrapper:
        return ""
    return (
        f"这里按只有文字输入的一步数：图像词元、视觉塔和投影层的张量都不在内，"
        f"语言模型的张量和单独的「{arch.family}」模型一样（在小模型上实测过）"
    )


def _check(arch, s, b, mode, precision, scores_by, kernel="flash") -> Precision:
    if not isinstance(arch, Architecture):
        raise InputError("没有模型结构：请先选一个模型或粘贴 config.json")
    if arch.family == "lab":
        raise InputError("我们的小模型不是 Hugging Face 的模型代码，这里不逐个张量计算")
    if unmodelled(arch):
        raise InputError(unmodelled(arch))
    for name, v in (("s", s), ("b", b)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise InputError(f"{name} 应当是正整数")
    if mode not in MODES:
        raise InputError(f"不认识的存储方式：「{str(mode)[:20]}」")
    if precision not in PRECISIONS:
        raise InputError(f"不认识的精度：「{str(precision)[:20]}」")
    if scores_by not in ("eager", "sdpa_math") or kernel not in KERNELS:
        raise InputError(f"不认识的注意力实现：「{str(scores_by)[:20]}」")
    return PRECISIONS[precision]


def _norm(
    p: str, label: str, arch: Architecture, n: int, pr: Precision, count: int, what: str
) -> list[Tensor]:
    """The tensors one norm keeps over ``n`` rows of ``arch.h`` (per layer, or once for the final norm,
    which eq. 1 leaves out: it counts the layers only)."""
    h, act = arch.h, pr.act
    in_eq1 = "norms" if p != "final_norm" else None
    if arch.norm == "layernorm":
        src = HF + " nn.LayerNorm（native_layer_norm 的反向）"
        return [
            Tensor(p + "_in", f"{label}的输入", f"{what}×h", n * h, act, count, src, in_eq1),
            Tensor(
                p + "_stats",
                f"{label}的均值和 1/标准差",
                f"2×{what}",
                2 * n,
                pr.stats,
                count,
                src,
                None,
                "每行两个数：GPU 上是 FP32，CPU 上和输入同精度",
            ),
        ]
    if arch.family.startswith("gemma"):
        return _gemma_norm(p, label, n, h, count, what, in_eq1, act, cls=_gemma(arch))
    return _rms_norm(
        p, label, n, h, n * h, act, count, f"{what}×h", what, HF + " LlamaRMSNorm.forward", in_eq1
    )


def _rms_norm(
    p: str,
    label: str,
    n: int,
    width: int,
    in_elements: int,
    act: int,
    count: int,
    shape: str,
    what: str,
    src: str,
    in_eq1=None,
    in_note: str = "先转成 FP32 再求平方均值；FP32 训练时就是输入本身",
    in_shape: str = "",
) -> list[Tensor]:
    """LlamaRMSNorm.forward over ``n`` rows of ``width``: the FP32 input (``in_elements``: more than n × width
    where, in FP32, the input is a slice that keeps a wider tensor alive), 1/rms, the normalised rows."""
    return [
        Tensor(
            p + "_in32",
            f"{label}的输入（FP32）",
            in_shape or shape,
            in_elements,
            4,
            count,
            src,
            in_eq1,
            in_note,
        ),
        Tensor(p + "_rstd", f"{label}的 1/均方根", what, n, 4, count, src, None, "每行一个 FP32 数"),
        Tensor(
            p + "_normed",
            f"{label}：除以均方根后、乘权重前",
            shape,
            n * width,
            act,
            count,
            src,
            None,
            "乘权重那一步要用它求权重的梯度",
        ),
    ]


def _gemma(A: Architecture) -> str:
    """The prefix of a Gemma model's classes in transformers 5.24: Gemma 3 has its own (Gemma3MLP,
    Gemma3RMSNorm, …), so its rows name them, not the Gemma 2 classes they were copied from."""
    return "Gemma3" if A.family == "gemma3_text" else "Gemma2"


def _gemma_norm(
    p: str,
    label: str,
    n: int,
    width: int,
    count: int,
    what: str,
    in_eq1,
    act: int,
    dims: str = "h",
    cls="Gemma2",
) -> list[Tensor]:
    """Gemma's RMSNorm (Gemma2RMSNorm/Gemma3RMSNorm.forward, ``cls`` the prefix): it multiplies in FP32 by
    (1 + weight), so it keeps the normalised rows in FP32 too, and the vector 1 + weight, which is not a parameter."""
    src = HF + f" {cls}RMSNorm.forward（乘 1 + weight，全程 FP32）"
    return [
        Tensor(p + "_in32", f"{label}的输入（FP32）", f"{what}×{dims}", n * width, 4, count, src, in_eq1),
        Tensor(p + "_rstd", f"{label}的 1/均方根", what, n, 4, count, src, None, "每行一个 FP32 数"),
        Tensor(
            p + "_weight1",
            f"{label}的 1 + weight",
            dims,
            width,
            4,
            count,
            src,
            None,
            "由权重现算出的 FP32 向量，不是参数本身",
        ),
        Tensor(
            p + "_normed32",
            f"{label}：除以均方根后（FP32）",
            f"{what}×{dims}",
            n * width,
            4,
            count,
            src,
            None,
            "乘 1 + weight 那一步要用它求权重的梯度；Gemma 在 FP32 里乘，所以它也是 FP32",
        ),
    ]


def tensors(
    arch: Architecture,
    s: int,
    b: int,
    mode: str = "store_all",
    precision: str = "bf16",
    scores_by: str = "eager",
    kernel: str = "flash",
) -> list[Tensor]:
    """Every tensor one training step of ``arch`` keeps for backward at sequence length ``s`` and micro-batch
    ``b``, plus the logits buffer (``saved`` False), in forward order. Raises InputError on bad input.

    ``kernel`` (flash mode only) is the fused attention: "flash" (FlashAttention, which takes a sliding window
    as an argument) or "sdpa" (transformers' sdpa_attention_forward: once s reaches a sliding window it
    passes torch an explicit b×s×s mask, which each such layer keeps, and without enable_gqa it copies K
    and V to every head first; below the window it builds no mask).

    ``scores_by`` (store_all only) names the code that writes the scores: "eager" (transformers'
    eager_attention_forward) or "sdpa_math" (torch's math backend on the CPU, which the lab's GPT-2 with
    attention dropout falls back to: it scales a copy of Q first, and runs the attention of 16-bit inputs
    in float32, so Q, K, V, the scores and the mask are 4 bytes each; the lab measures it, a GPU run does
    not use it). Only GPT-2 is modelled with it."""
    pr = _check(arch, s, b, mode, precision, scores_by, kernel)
    A, act, mk = arch, pr.act, pr.mask
    N, h, d, L = s * b, A.h, A.head_dim, A.L
    out: list[Tensor] = []
    add = out.append
    # ---- before the first layer
    add(Tensor("token_ids", "词元编号", "s×b", N, 8, 1, HF + " nn.Embedding 的反向", None, "int64"))
    if A.family.startswith("gemma"):
        add(
            Tensor(
                "embed_scale",
                "嵌入的缩放系数 √h",
                "1",
                1,
                act,
                1,
                HF + f" {_gemma(A)}TextScaledWordEmbedding（embed_scale 缓冲区）",
                None,
                "词嵌入乘 √h 时留下的标量",
            )
        )
    if A.positions == "learned":
        add(
            Tensor(
                "position_ids",
                "位置编号",
                "s",
                s,
                8,
                1,
                HF + " GPT2Model（position_ids 形状 1×s）",
                None,
                "int64，一个批次共用",
            )
        )
    if A.embd_dropout > 0:
        add(Tensor("embd_mask", "嵌入后 dropout 掩码", "s×b×h", N * h, mk, 1, HF + " GPT2Model.drop", None))
    if A.positions == "rotary":
        # Gemma 3 with both sliding and full layers computes two rotary tables (local and global frequencies)
        tables = 2 if A.family == "gemma3_text" and 0 < A.sliding_layers < L else 1
        rot, dr = (A.mla[3], "d_r") if A.mla else (d, "d")  # DeepSeek-V3 rotates d_r of each head only
        # Qwen2-VL's multimodal rotary (mrope) expands the positions to 3×b×s (time, height, width) before the
        # table is built, so cos and sin come out per sequence, b×s×d, where the others share one 1×s×d
        mrope = A.family == "qwen2_vl_text"
        add(
            Tensor(
                "rope_cos_sin",
                "旋转位置编码的 cos 和 sin" + ("（局部、全局两套）" if tables == 2 else ""),
                f"{2 * tables}×{'b×' if mrope else ''}s×{dr}",
                2 * tables * s * rot * (b if mrope else 1),
                act,
                1,
                HF + (" Qwen2VLRotaryEmbedding.forward（mrope）" if mrope else " apply_rotary_pos_emb"),
                None,
                "多模态旋转位置编码（mrope）按时间、高、宽三轴的位置编号拼出每个样本自己的一份；"
                "各层共用，只算一次"
                if mrope
                else "各层共用同一份，只算一次",
            )
        )
    # ---- the layers
    if mode == "full_recompute":
        add(
            Tensor(
                "layer_in",
                "每层的输入",
                "s×b×h",
                N * h,
                act,
                L,
                PAPER + "; table 2（全量重计算）",
                "qkv_in",
                "反向时从它把这一层重算一遍",
            )
        )
    else:
        out += _layer(A, s, b, mode, pr, scores_by, kernel)
    # ---- after the last layer
    out += _norm("final_norm", "最后一个归一化", A, N, pr, 1, "s×b")
    add(Tensor("lm_head_in", "输出层的输入", "s×b×h", N * h, act, 1, HF + " lm_head（nn.Linear）", None))
    if A.logit_softcap:
        add(
            Tensor(
                "logits_tanh",
                "logits 软上限里 tanh 的结果",
                "s×b×V",
                N * A.V,
                act,
                1,
                HF + f" {_gemma(A)}ForCausalLM（logits 除以上限、tanh、再乘回）",
                None,
                f"final_logit_softcapping = {A.logit_softcap:g}：整张词表上再留一份",
            )
        )
    add(
        Tensor(
            "log_probs",
            "对数概率（交叉熵）",
            "s×b×V",
            N * A.V,
            4,
            1,
            HF + " ForCausalLMLoss（logits.float() 后 log_softmax）",
            None,
            "损失按 FP32 在整个词表上算，反向要用这张表",
        )
    )
    # shift_labels = labels[..., 1:].contiguous(): with b = 1 a view of the padded s+1 labels
    add(
        Tensor(
            "labels",
            "标签",
            "s×b",
            s + 1 if b == 1 else N,
            8,
            1,
            HF + " ForCausalLMLoss",
            None,
            "int64；b = 1 时是补了一位的 s+1 个标签的视图",
        )
    )
    add(Tensor("loss_weight", "损失的归一化系数", "1", 1, 4, 1, HF + " nll_loss", None))
    add(
        Tensor(
            "logits",
            "logits（前向输出，算完损失前一直在）",
            "s×b×V",
            N * A.V,
            act,
            1,
            HF + " CausalLMOutputWithPast.logits",
            None,
            "不是为反向保存的，但这一步里一直占着显存",
            False,
        )
    )
    return out


def _layer(
    A: Architecture, s: int, b: int, mode: str, pr: Precision, scores_by: str, kernel: str
) -> list[Tensor]:
    N, h, a, kv, d, L = s * b, A.h, A.a, A.kv_heads, A.head_dim, A.L
    act = pr.act
    gpt2 = A.family == "gpt2"
    math = scores_by == "sdpa_math" and mode == "store_all"
    att = 4 if math else act  # bytes of Q, K, V and the scores (the CPU math backend upcasts)
    flash = mode == "flash"
    scores = mode == "store_all"
    out = _norm("norm1", "注意力前的归一化", A, N, pr, L, "s×b")
    if A.mla:
        return out + _mla_attention(A, s, b, mode, pr, math) + _tail(A, N, pr, L)
    add = out.append
    if gpt2:
        add(Tensor("qkv_in", "c_attn 的输入", "s×b×h", N * h, act, L, HF + " GPT2Attention.c_attn", "qkv_in"))
    else:
        add(
            Tensor(
                "qkv_in",
                "q、k、v 投影的输入",
                "s×b×h",
                N * h,
                act,
                L,
                HF + " q_proj/k_proj/v_proj（同一个输入）",
                "qkv_in",
            )
        )
    if A.qk_norm and A.family.startswith("gemma"):
        for x, heads, name in (("q", a, "a"), ("k", kv, "k_h")):
            out += _gemma_norm(
                f"{x}_norm",
                f"{x.upper()} 的归一化",
                N * heads,
                d,
                L,
                f"s×b×{name}",
                None,
                act,
                "d",
                _gemma(A),
            )
    elif A.qk_norm:
        src = HF + " Qwen3Attention.q_norm/k_norm（RMSNorm）"
        for x, heads, name in (("q", a, "a"), ("k", kv, "k_h")):
            add(
                Tensor(
                    f"{x}_norm_in32",
                    f"{x.upper()} 归一化的输入（FP32）",
                    f"s×b×{name}×d",
                    N * heads * d,
                    4,
                    L,
                    src,
                    None,
                    "即投影的输出；FP32 训练时不另占",
                )
            )
            add(
                Tensor(
                    f"{x}_norm_rstd",
                    f"{x.upper()} 归一化的 1/均方根",
                    f"s×b×{name}",
                    N * heads,
                    4,
                    L,
                    src,
                    None,
                )
            )
            add(
                Tensor(
                    f"{x}_norm_normed",
                    f"{x.upper()} 归一化后、乘权重前",
                    f"s×b×{name}×d",
                    N * heads * d,
                    act,
                    L,
                    src,
                    None,
                )
            )
    if gpt2:
        src = HF + " GPT2Attention + eager_attention_forward（modeling_gpt2.py）"
        # Q stays a view of the whole c_attn output (3h wide) when nothing copies it: in the fused kernel,
        # and in eager at b = 1 (matmul can fold the heads into the batch without a copy); K and V are copies.
        if flash or (mode == "store_all" and b == 1 and scores_by == "eager"):
            add(
                Tensor(
                    "q",
                    "Q（c_attn 整块输出的视图）",
                    "s×b×3h",
                    N * 3 * h,
                    act,
                    L,
                    src,
                    "qk",
                    "Q 没有被复制，c_attn 的整块 QKV 输出因此一直留着",
                )
            )
        else:
            add(Tensor("q", "Q", "s×b×h", N * h, att, L, src, "qk"))
        add(Tensor("k", "K", "s×b×h", N * h, att, L, src, "qk"))
        add(Tensor("v", "V", "s×b×h", N * h, att, L, src, "v"))
    else:
        src = HF + (
            " sdpa_attention_forward（enable_gqa）" if flash else " eager_attention_forward（repeat_kv）"
        )
        # eager's repeat_kv copies K and V to a heads, except from one KV head at b = 1: the copy is then an
        # expanded view that matmul folds into its batch as it stands (measured on Gemma 2 with one KV head)
        kh, kname = (kv, "k_h") if flash or (kv == 1 and b == 1) else (a, "a")
        add(Tensor("q", "Q（旋转后）", "s×b×a×d", N * a * d, act, L, src, "qk"))
        # transformers' sdpa with a sliding window at s ≥ window: a mask, and K, V copied to every head
        masked = (
            A.sliding_layers
            if flash and kernel == "sdpa" and A.sliding_window and s >= A.sliding_window
            else 0
        )
        for suffix, n, heads, name, label, note in (
            (
                "",
                L - masked,
                kh,
                kname,
                "",
                ""
                if flash
                else "eager 路径用 repeat_kv 把 K、V 复制到 a 个头再相乘"
                if kh == a
                else "K、V 只有一个头且 b = 1 时，repeat_kv 的结果是原张量的视图，不另占",
            ),
            (
                "_masked",
                masked,
                a,
                "a",
                "（带滑动窗口掩码的层：复制到 a 个头）",
                "传了掩码，sdpa 就不用 enable_gqa，先复制 K、V",
            ),
        ):
            if not n:
                continue
            copied = "" if heads == kv else "，复制到 a 个头"
            add(
                Tensor(
                    "k" + suffix,
                    "K（旋转后）" + (label or copied),
                    f"s×b×{name}×d",
                    N * heads * d,
                    act,
                    n,
                    src,
                    "qk",
                    note,
                )
            )
            add(
                Tensor(
                    "v" + suffix,
                    "V" + (label or ("" if heads == kv else "（复制到 a 个头）")),
                    f"s×b×{name}×d",
                    N * heads * d,
                    act,
                    n,
                    src,
                    "v",
                )
            )
        if masked:
            add(
                Tensor(
                    "window_mask",
                    "滑动窗口的注意力掩码",
                    "b×s×s",
                    b * s * s,
                    act,
                    masked,
                    HF + " sdpa_attention_forward（attn_mask）",
                    None,
                    f"s 达到窗口 {A.sliding_window} 后，sdpa 拿到一张显式掩码，每层各留一份；FlashAttention 直接按窗口算，不要它",
                )
            )
    if scores:
        out += _scores(A, s, b, pr, math)
    if flash:
        add(_lse(a, N, L))
    if flash and A.fused:
        # Phi-3: q, k, v are slices of one qkv_proj output, and the fused kernel's output then comes back in
        # a layout that the reshape for o_proj copies (measured: Llama's reshape is a view, Phi-3's a copy)
        add(
            Tensor(
                "proj_in_copy",
                "注意力输出的副本（o_proj 的输入）",
                "s×b×a×d",
                N * a * d,
                act,
                L,
                HF + " Phi3Attention（reshape 复制了内核的输出）",
                None,
                "q、k、v 是 qkv_proj 同一块输出的切片，内核输出的内存排布因此需要重排一次",
            )
        )
    add(
        Tensor(
            "proj_in",
            "注意力输出（输出投影的输入）",
            "s×b×a×d",
            N * a * d,
            act,
            L,
            HF + (" GPT2Attention.c_proj" if gpt2 else " o_proj"),
            "proj_in",
            "融合内核的输出就是它，只存一份" if flash else "",
        )
    )
    return out + _tail(A, N, pr, L)


def _mla_attention(A: Architecture, s: int, b: int, mode: str, pr: Precision, math: bool) -> list[Tensor]:
    """DeepSeek-V3's multi-head latent attention (DeepseekV3Attention.forward), from the norm's output to o_proj's
    input. Queries through a rank-r_q latent and its RMSNorm (or one q_proj), keys and values from one latent
    of r_kv and its RMSNorm, then kv_b_proj gives every head its key part and value; the rotary part d_r of
    the key is one per token, shared by the heads. The rotary multiplications keep only cos and sin (they
    need no grad), so the projections' outputs are kept only where a later step keeps them."""
    rq, rkv, nope, rope, dv = A.mla
    N, h, a, L, d, act = s * b, A.h, A.a, A.L, A.head_dim, pr.act
    flash = mode == "flash"
    att = 4 if math else act
    src = HF + " DeepseekV3Attention.forward"
    first = "q_a_proj" if rq else "q_proj"
    out = [
        Tensor("qkv_in", f"{first}、kv_a_proj_with_mqa 的输入", "s×b×h", N * h, act, L, src, "qkv_in"),
    ]
    norm_src = HF + " DeepseekV3RMSNorm.forward"
    if rq:
        out += _rms_norm(
            "q_a_norm", "查询潜向量归一化（q_a_layernorm）", N, rq, N * rq, act, L, "s×b×r_q", "s×b", norm_src
        )
        out.append(Tensor("q_b_in", "q_b_proj 的输入（查询潜向量）", "s×b×r_q", N * rq, act, L, src, None))
    # in FP32 the norm's input is the r_kv slice of kv_a_proj_with_mqa's output itself, which keeps all r_kv + d_r
    wide = act == 4
    out += _rms_norm(
        "kv_a_norm",
        "键值潜向量归一化（kv_a_layernorm）",
        N,
        rkv,
        N * (rkv + rope * wide),
        act,
        L,
        "s×b×r_kv",
        "s×b",
        norm_src,
        None,
        "FP32 训练时它是 kv_a_proj_with_mqa 整块输出的切片，连旋转用的 d_r 列一起留着"
        if wide
        else "先转成 FP32 再求平方均值",
        "s×b×(r_kv+d_r)" if wide else "",
    )
    out.append(Tensor("kv_b_in", "kv_b_proj 的输入（键值潜向量）", "s×b×r_kv", N * rkv, act, L, src, None))
    qk_note = "不带位置的部分和旋转过的部分拼成的新张量"
    if math:
        qk_note = "math 后端在 FP32 里算，留的是 FP32 副本"
    out += [
        Tensor("q", "Q（两部分拼接后）", "s×b×a×d", N * a * d, att, L, src, "qk", qk_note),
        Tensor(
            "k",
            "K（每个头的键，含共用的旋转部分）",
            "s×b×a×d",
            N * a * d,
            att,
            L,
            src + "（expand_kv）",
            "qk",
            qk_note if math else "各头不带位置的部分来自 kv_b_proj，旋转部分 d_r 各头共用一份，复制进每个头",
        ),
    ]
    # V is a slice of kv_b_proj's output (every head's d_n key part and d_v value): the fused kernel keeps the
    # slice, and so the whole output; eager's matmul copies it, except at b = 1 (it folds the heads into the batch
    # as they stand); the math backend in 16 bits keeps an FP32 copy.
    view = flash or (b == 1 and not (math and act != 4))
    if view:
        out.append(
            Tensor(
                "v",
                "V（kv_b_proj 整块输出的切片）",
                "s×b×a×(d_n+d_v)",
                N * a * (nope + dv),
                act,
                L,
                src,
                "v",
                "V 没有被复制，kv_b_proj 的输出（各头的键和值）因此整块留着",
            )
        )
    else:
        out.append(
            Tensor("v", "V", "s×b×a×d_v", N * a * dv, att, L, src, "v", "从 kv_b_proj 的输出复制出的连续副本")
        )
    if mode == "store_all":
        out += _scores(A, s, b, pr, math)
    if flash:
        out += [
            _lse(a, N, L),
            Tensor(
                "attn_out",
                "融合内核的输出",
                "s×b×a×d_v",
                N * a * dv,
                act,
                L,
                HF + " scaled_dot_product_attention",
                None,
                "Q 是拼接出的新张量，内核按它的排布写输出；转成 o_proj 要的排布时另复制一份（CPU 上实测）",
            ),
        ]
    out.append(
        Tensor(
            "proj_in",
            "注意力输出（o_proj 的输入）",
            "s×b×a×d_v",
            N * a * dv,
            act,
            L,
            HF + " o_proj",
            "proj_in",
        )
    )
    return out


def _scores(A: Architecture, s: int, b: int, pr: Precision, math: bool) -> list[Tensor]:
    """What writing the a×s×s scores keeps (store_all): soft-capping's tanh, the softmax (the Llama family's
    in float32, then a copy in the training precision), attention dropout's mask and output; ``math``: torch's
    CPU math backend, which runs 16-bit attention in float32."""
    a, L, act, mk = A.a, A.L, pr.act, pr.mask
    att = 4 if math else act
    gpt2 = A.family == "gpt2"
    out: list[Tensor] = []
    add = out.append
    src = HF + (" eager_attention_forward（modeling_gpt2.py）" if gpt2 else " eager_attention_forward")
    if math:
        src = "torch 2.13 scaled_dot_product_attention（CPU 的 math 后端）"
    n2 = a * s * s * b
    if A.attn_softcap:
        add(
            Tensor(
                "scores_tanh",
                "分数软上限里 tanh 的结果",
                "a×s×s×b",
                n2,
                act,
                L,
                HF
                + f" eager_attention_forward（modeling_{_gemma(A).lower()}.py：分数除以上限、tanh、再乘回）",
                None,
                f"attn_logit_softcapping = {A.attn_softcap:g}：tanh 的反向要用它的输出",
            )
        )
    sm_bytes = att if gpt2 else 4  # the Llama family's eager softmax runs in float32
    add(
        Tensor(
            "softmax",
            "softmax 输出" + ("" if gpt2 else "（FP32）"),
            "a×s×s×b",
            n2,
            sm_bytes,
            L,
            src,
            "softmax",
        )
    )
    if sm_bytes != att:
        add(
            Tensor(
                "softmax_cast",
                "softmax 输出转回训练精度",
                "a×s×s×b",
                n2,
                act,
                L,
                src,
                "softmax",
                "和 V 相乘前的副本",
            )
        )
    if A.attn_dropout > 0:
        add(Tensor("attn_mask", "注意力 dropout 掩码", "a×s×s×b", n2, 4 if math else mk, L, src, "attn_mask"))
        add(Tensor("attn_drop", "注意力 dropout 输出", "a×s×s×b", n2, att, L, src, "attn_drop"))
    return out


def _tail(A: Architecture, N: int, pr: Precision, L: int) -> list[Tensor]:
    """A layer after its attention: dropout, norms, the MLP (dense, MoE or both across the layers)."""
    h, act, mk = A.h, pr.act, pr.mask
    out: list[Tensor] = []
    add = out.append
    if A.resid_dropout > 0:
        add(
            Tensor(
                "resid_mask1",
                "注意力后 dropout 掩码",
                "s×b×h",
                N * h,
                mk,
                L,
                HF + " GPT2Attention.resid_dropout",
                "resid_mask1",
            )
        )
    if A.sandwich_norms:  # Gemma: the attention's output is normalised before the residual add
        out += _norm("attn_out_norm", "注意力输出的归一化", A, N, pr, L, "s×b")
    out += _norm("norm2", "MLP 前的归一化", A, N, pr, L, "s×b")
    # (DeepSeek-V3's MoE layers keep it through the shared experts' MLP, even of width 0 when there are none)
    add(Tensor("mlp_in", "MLP 的输入", "s×b×h", N * h, act, L, HF + " MLP 第一个投影", "mlp_in"))
    dense = L - A.moe_layers
    if dense:
        out += _mlp(A, N, A.intermediate, act, dense, "s×b", "")
    if A.moe_layers:
        out += _moe(A, N, act, A.moe_layers)
    if A.sandwich_norms:  # …and so is the MLP's
        out += _norm("mlp_out_norm", "MLP 输出的归一化", A, N, pr, L, "s×b")
    if A.resid_dropout > 0:
        add(
            Tensor(
                "resid_mask2",
                "MLP 后 dropout 掩码",
                "s×b×h",
                N * h,
                mk,
                L,
                HF + " GPT2MLP.dropout",
                "resid_mask2",
            )
        )
    return out


def _lse(a: int, N: int, L: int) -> Tensor:
    """FlashAttention's per-query log-sum-exp (a×s×b, FP32), which its backward uses to recompute the scores."""
    return Tensor(
        "lse",
        "每个查询的 log-sum-exp",
        "a×s×b",
        a * N,
        4,
        L,
        HF + " scaled_dot_product_attention",
        None,
        "FP32；反向用它重算分数",
    )


def _mlp(A: Architecture, n: int, inner: int, act: int, count: int, rows: str, p: str) -> list[Tensor]:
    """A dense MLP over ``n`` rows (tokens), ``count`` times; ``p`` "shared_": DeepSeek-V3's shared experts, one
    MLP of n_shared_experts × I_e (I_s) beside the routed ones."""
    shared = p == "shared_"
    I = f"{rows}×{'I_s' if shared else 'I'}"
    if A.gated_mlp:
        mlp = f"{_gemma(A)}MLP" if A.family.startswith("gemma") else "LlamaMLP"
        src = HF + (" DeepseekV3MLP（共享专家）" if shared else f" {mlp}")
        who = "共享专家的 " if shared else ""  # before a code name (gate, up, silu)
        whose = "共享专家" if shared else ""  # before Chinese text
        return [
            Tensor(
                p + "gate_out",
                who + "gate 投影的输出（激活函数的输入）",
                I,
                n * inner,
                act,
                count,
                src,
                "act_in",
            ),
            Tensor(p + "up_out", who + "up 投影的输出", I, n * inner, act, count, src, "act_in"),
            Tensor(p + "act_out", who + f"{A.activation} 的输出", I, n * inner, act, count, src, "act_out"),
            Tensor(
                p + "down_in",
                whose + "两者之积（down 投影的输入）",
                I,
                n * inner,
                act,
                count,
                src,
                "act_out",
            ),
        ]
    src = HF + " GPT2MLP"
    t = [Tensor(p + "act_in", "c_fc 的输出（激活函数的输入）", I, n * inner, act, count, src, "act_in")]
    if (
        A.activation == "gelu_new"
    ):  # NewGELUActivation is written as Python arithmetic: autograd keeps three more
        src2 = HF + " NewGELUActivation（tanh 近似，逐步运算）"
        t += [
            Tensor(p + "gelu_tanh", "GeLU 里的 tanh 结果", I, n * inner, act, count, src2, None),
            Tensor(p + "gelu_half", "GeLU 里的 0.5·x", I, n * inner, act, count, src2, None),
            Tensor(p + "gelu_one_plus", "GeLU 里的 1 + tanh", I, n * inner, act, count, src2, None),
        ]
    t.append(
        Tensor(p + "act_out", "激活函数的输出（c_proj 的输入）", I, n * inner, act, count, src, "act_out")
    )
    return t


def _moe(A: Architecture, N: int, act: int, count: int) -> list[Tensor]:
    E, k, Ie, h = A.experts, A.experts_per_token, A.expert_intermediate, A.h
    R = N * k  # token-expert pairs: every token goes to k experts, so the experts' rows add up to s·b·k
    deepseek = A.family == "deepseek_v3"
    name = {"mixtral": "Mixtral", "qwen3_moe": "Qwen3Moe", "deepseek_v3": "DeepseekV3"}[A.family]
    src = HF + f" {name}{'TopkRouter' if deepseek else 'TopKRouter'}.forward"
    esrc = HF + f" {name}Experts.forward（eager）"
    # Qwen3-MoE casts the routing weights back; Mixtral and DeepSeek-V3 keep them in FP32
    w_bytes = act if A.family == "qwen3_moe" else 4
    t = _sigmoid_router(A, N, act, count, src) if deepseek else []
    if not deepseek:
        t += [
            Tensor("router_probs", "路由 softmax 概率", "s×b×E", N * E, 4, count, src, None, "FP32"),
            Tensor("router_topk", "选中的专家编号", "s×b×k", N * k, 8, count, src, None, "int64"),
        ]
    if A.norm_topk_prob:
        what = "分数" if deepseek else "概率"
        t += [
            Tensor("router_sum", f"前 k 个{what}之和", "s×b", N, 4, count, src, None, "归一化路由权重用"),
            Tensor("router_topv", f"前 k 个{what}", "s×b×k", N * k, 4, count, src, None),
        ]
    split = "；每个专家分到几行取决于路由，各专家加起来总是 s·b·k 行" if deepseek else ""
    t += [
        Tensor(
            "expert_index",
            "每个专家收到的词元位置",
            "2×s×b×k",
            2 * R,
            8,
            count,
            esrc,
            None,
            "torch.where 的两列 int64，各专家合计" + split,
        ),
        Tensor(
            "expert_in",
            "送进专家的词元（按专家取出的副本）",
            "s×b×k×h",
            R * h,
            act,
            count,
            esrc,
            "mlp_in",
            "每个词元去 k 个专家，各专家的行数加起来是 s·b·k"
            + ("；哪个专家分到多少行由路由决定" if deepseek else ""),
        ),
    ]
    t += [
        Tensor(
            "expert_gate_up",
            "专家 gate/up 投影的输出",
            "s×b×k×2I_e",
            R * 2 * Ie,
            act,
            count,
            esrc,
            "act_in",
            "gate 和 up 是同一块输出的两半",
        ),
        Tensor(
            "expert_act_out", f"专家 {A.activation} 的输出", "s×b×k×I_e", R * Ie, act, count, esrc, "act_out"
        ),
        Tensor(
            "expert_down_in",
            "专家两者之积（down 投影的输入）",
            "s×b×k×I_e",
            R * Ie,
            act,
            count,
            esrc,
            "act_out",
        ),
        Tensor("expert_weight", "每个词元在该专家的路由权重", "s×b×k", R, w_bytes, count, esrc, None),
        Tensor(
            "expert_down_out",
            "专家 down 投影的输出",
            "s×b×k×h",
            R * h,
            act,
            count,
            esrc,
            None,
            "乘路由权重时要用",
        ),
        Tensor(
            "expert_weighted",
            "乘过权重的专家输出",
            "s×b×k×h",
            R * h,
            act,
            count,
            esrc,
            None,
            "index_add_ 的反向留着它",
        ),
    ]
    if A.shared_experts:
        t += _mlp(A, N, A.shared_intermediate, act, count, "s×b", "shared_")
    return t


def _sigmoid_router(A: Architecture, N: int, act: int, count: int, src: str) -> list[Tensor]:
    """DeepSeek-V3's router (DeepseekV3TopkRouter.forward): a linear in FP32, sigmoid scores, the correction bias
    added for the choice only, then group-limited top-k. The choice's intermediates (each group's top two, the
    chosen groups, the mask) are saved by nodes nothing downstream needs: they are freed as the router returns."""
    E, k, h = A.experts, A.experts_per_token, A.h
    t = []
    if act != 4:
        t.append(
            Tensor(
                "router_in32",
                "路由器输入的 FP32 副本",
                "s×b×h",
                N * h,
                4,
                count,
                src,
                None,
                "路由器先把输入转成 FP32 再乘权重；FP32 训练时就是 MLP 的输入本身，不另占",
            )
        )
    return t + [
        Tensor(
            "router_scores",
            "路由 sigmoid 分数",
            "s×b×E",
            N * E,
            4,
            count,
            src,
            None,
            "FP32；选专家时再加 e_score_correction_bias，偏置不进路由权重",
        ),
        Tensor(
            "router_topk",
            "选中的专家编号",
            "s×b×k",
            N * k,
            8,
            count,
            src,
            None,
            "int64；先选 topk_group 个组、再在组内选 k 个，这一步的中间结果随即释放，不留给反向",
        ),
    ]


def saved_bytes(ts: list[Tensor]) -> int:
    """Bytes kept for backward (the logits buffer excluded)."""
    return sum(t.bytes for t in ts if t.saved)


def logits_bytes(ts: list[Tensor]) -> int:
    """Bytes of the logits the forward pass returns (held through the loss, not saved for backward)."""
    return sum(t.bytes for t in ts if not t.saved)


def eq1_item(arch: Architecture, s: int, b: int, mode: str = "store_all") -> Item:
    """The paper's eq. 1 for this model's h, a, L (16-bit, MLP 4h, multi-head): ``c9.core.activations``."""
    return eq1.activation_memory(s, b, arch.h, arch.a, arch.L, mode)


def eq1_rows(
    arch: Architecture, s: int, b: int, mode: str = "store_all", precision: str = "bf16"
) -> list[dict]:
    """Eq. 1 against this model, term by term: for each of the paper's per-layer terms (§4.1) its bytes
    over L layers and the bytes of our tensors that play its part; then our tensors eq. 1 has no term for
    (``paper`` None). Rows of the paper's terms that a mode drops are 0 on both sides."""
    ts = tensors(arch, s, b, mode, precision)
    L = arch.L
    rows = []
    if mode == "full_recompute":
        paper = {"qkv_in": ("每层的输入", 2 * s * b * arch.h * L)}
    else:
        s2 = mode == "store_all"  # the other modes drop the as²b terms
        paper = {
            k: (lab, L * (f_sbh * s * b * arch.h + f_s2 * arch.a * s * s * b * s2))
            for k, (lab, f_sbh, f_s2) in EQ1_TERMS.items()
        }
    for k, (lab, pb) in paper.items():
        mine = [t for t in ts if t.eq1 == k]
        rows.append(
            {
                "key": k,
                "label": lab,
                "paper": pb,
                "model": sum(t.bytes for t in mine),
                "tensors": [t.key for t in mine],
            }
        )
    for t in ts:
        if t.eq1 is None or t.eq1 not in paper:
            rows.append({"key": t.key, "label": t.label, "paper": None, "model": t.bytes, "tensors": [t.key]})
    return rows


def model_activations(
    arch: Architecture, s: int, b: int, mode: str = "store_all", precision: str = "bf16"
) -> Item:
    """This model's own tensors as an Item tree: ``model_act`` → ``model_act_saved`` (one leaf per tensor)
    and ``model_act_logits``. Leaves carry the tensor's shape and bytes per element in ``formula``."""
    ts = tensors(arch, s, b, mode, precision)
    leaves = [
        Item(
            "t_" + t.key,
            t.label,
            t.bytes,
            f"{t.shape} × {t.bytes_per_element} B" + (f" × {t.count} 层" if t.count > 1 else ""),
            t.source,
            t.note,
        )
        for t in ts
    ]
    saved = Item.group(
        "model_act_saved",
        "为反向保存的张量",
        [x for x, t in zip(leaves, ts) if t.saved],
        "逐个张量相加",
        PAPER + " 的方法；张量清单按 " + HF,
    )
    logits = Item.group("model_act_logits", "logits", [x for x, t in zip(leaves, ts) if not t.saved])
    return Item.group("model_act", "激活（这个模型自己的张量）", [saved, logits], "", saved.source)


def compare(arch: Architecture, s: int, b: int, mode: str = "store_all", precision: str = "bf16") -> dict:
    """Both counts for one model, JSON-ready (what a view sends the page): ``eq1`` and ``model`` as Item
    trees, ``tensors`` one dict per tensor, ``rows`` from :func:`eq1_rows`, and the three totals in bytes."""
    ts = tensors(arch, s, b, mode, precision)
    e = eq1_item(arch, s, b, mode)
    return {
        "eq1": e.to_dict(),
        "model": model_activations(arch, s, b, mode, precision).to_dict(),
        "tensors": [t.to_dict() for t in ts],
        "rows": eq1_rows(arch, s, b, mode, precision),
        "eq1_bytes": e.bytes,
        "saved_bytes": saved_bytes(ts),
        "logits_bytes": logits_bytes(ts),
    }
