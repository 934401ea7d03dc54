"""Model states: the bytes a training step keeps per parameter, by recipe.

Sources: Micikevicius et al. 2017 §3.1 (FP32 master weights); ZeRO, Rajbhandari et al. 2020 §3.1
(mixed precision + Adam: 2Ψ + 2Ψ + KΨ bytes with K = 12, i.e. 16 bytes per parameter). The FP8 recipes
cite DeepSeek-V3's technical report §3.3 and Transformer Engine's maintainers, row by row.

A recipe may also carry ``open`` (copies its source names without a byte count: listed, never guessed, and
left out of the total), ``fp8_act`` (how many of eq. 1's activations per s·b·h of a layer the recipe
caches in 1-byte FP8 instead of 16 bits: c9.core.activations reads it) and ``fp8_act_scale`` (the bytes of
scale each cached FP8 number carries where the scales come in blocks: MXFP8's one E8M0 byte per 32).
"""

from __future__ import annotations

import math
from fractions import Fraction

from c9.core.items import Item

DS3 = "DeepSeek-AI, DeepSeek-V3 Technical Report (arXiv:2412.19437)"
TE_1261 = "https://github.com/NVIDIA/TransformerEngine/issues/1261"
TE_257 = "https://github.com/NVIDIA/TransformerEngine/issues/257"
TE_1429 = "https://github.com/NVIDIA/TransformerEngine/issues/1429"
TE_1764 = "https://github.com/NVIDIA/TransformerEngine/issues/1764"
TE_1880 = "https://github.com/NVIDIA/TransformerEngine/issues/1880"
ZAMIRAI = "https://arxiv.org/abs/2010.06192"
TORCHAO_OPTIM = "https://github.com/pytorch/ao/blob/main/torchao/optim/README.md"
OPTIMI_KAHAN = "https://optimi.benjaminwarner.dev/kahan_summation/"

# Each recipe is data: (key, label, bytes per parameter, what it is). A new recipe is one new row. A label
# too long for a phone's closed menu has a shorter "menu" name beside it.
RECIPES: dict[str, dict] = {
    "bf16_mixed_adamw": {
        "label": "BF16 混合精度 + AdamW（FP32 主权重）",
        "parts": [
            ("weights", "权重（BF16）", 2, "前向、反向用的 16 位权重"),
            ("gradients", "梯度（BF16）", 2, "反向算出的 16 位梯度"),
            ("master_weights", "主权重（FP32）", 4, "更新落在这份 32 位副本上"),
            ("adam_m", "Adam m（FP32）", 4, "梯度的一阶矩"),
            ("adam_v", "Adam v（FP32）", 4, "梯度的二阶矩"),
        ],
        "source": "ZeRO (Rajbhandari et al. 2020) §3.1: 2Ψ + 2Ψ + 12Ψ; Micikevicius et al. 2017 §3.1",
    },
    "fp32_adamw": {
        "label": "FP32 + AdamW",
        "parts": [
            ("weights", "权重（FP32）", 4, "32 位权重，同时就是更新的对象"),
            ("gradients", "梯度（FP32）", 4, "反向算出的 32 位梯度"),
            ("adam_m", "Adam m（FP32）", 4, "梯度的一阶矩"),
            ("adam_v", "Adam v（FP32）", 4, "梯度的二阶矩"),
        ],
        "source": "Kingma & Ba 2015 (Adam keeps m and v per parameter); 4 bytes per FP32 number (IEEE 754 binary32)",
    },
    "bf16_weights_only": {
        "label": "只算 BF16 权重",
        "parts": [("weights", "权重（BF16）", 2, "推理时只需要这一份")],
        "source": "2 bytes per BF16 number",
    },
    "deepseek_v3_fp8": {
        "label": "DeepSeek-V3 的 FP8 训练",
        "parts": [
            ("master_weights", "主权重（FP32）", 4, "优化器手里的那一份，更新落在这里"),
            ("gradients_fp32", "权重梯度（FP32）", 4, "为跨 micro-batch 累加而留在 FP32"),
            ("adam_m_bf16", "Adam m（BF16）", 2, "一阶矩改用 BF16 存"),
            ("adam_v_bf16", "Adam v（BF16）", 2, "二阶矩改用 BF16 存"),
        ],
        "open": [
            (
                "FP8 权重（矩阵乘用）",
                "每 128×128 块一个缩放因子；报告没写这份副本常驻多少字节、是否另存转置或 BF16 副本，不计入合计",
            ),
        ],
        # §3.3.3's general rule, Linear inputs cached in FP8: QKV, the MLP's first and second linear inputs
        # (h + h + 4h). The output projection's input is cached in E5M6, whose storage the report does not
        # state, so it stays at 2 bytes. Its MoE rule (SwiGLU inputs in FP8, the output recomputed) is for
        # MoE layers; eq. 1's dense MLP is not one, so it is said in the note and not counted.
        "fp8_act": 6,
        "act_note": "线性层的输入缓存为 FP8（QKV、MLP 两个线性层）；注意力输出投影的输入用 E5M6，报告没写怎么存，仍按 2 字节计；报告在 MoE 层还把 SwiGLU 的输入存成 FP8、反向时重算它的输出，式 1 的 MLP 是稠密层，这一条没有计入",
        "cite": [("DeepSeek-AI，DeepSeek-V3 技术报告 §3.3.3", "https://arxiv.org/abs/2412.19437")],
        "source": f"{DS3} §3.3: FP8 GEMMs; §3.3.3: AdamW moments in BF16, master weights and gradients in FP32, Linear inputs cached in FP8 (attention output projection's in E5M6)",
    },
    "te_fp8_delayed": {
        "label": "Transformer Engine FP8（延迟缩放，Hopper）",
        "menu": "Transformer Engine FP8（延迟缩放）",
        "parts": [
            ("weights", "权重（BF16）", 2, "默认仍留着高精度权重，每次矩阵乘前现转 FP8"),
            ("fp8_weights", "FP8 权重", 1, "前向矩阵乘用的 FP8 副本"),
            ("fp8_transpose", "FP8 权重转置", 1, "Hopper 的 FP8 矩阵乘只收 TN 排布，反向要一份转置"),
            ("gradients", "梯度（BF16）", 2, "梯度仍是高精度，位数按 BF16 混合精度计"),
            ("master_weights", "主权重（FP32）", 4, "更新落在这份 32 位副本上"),
            ("adam_m", "Adam m（FP32）", 4, "梯度的一阶矩"),
            ("adam_v", "Adam v（FP32）", 4, "梯度的二阶矩"),
        ],
        "open": [
            (
                "amax 历史",
                "延迟缩放给每个 FP8 张量留一份 1024 项的历史：按张量个数算，不按参数个数，这里不计",
            ),
        ],
        # the four Linear inputs of eq. 1 (h + h + h + 4h), cached as FP8 (its transpose on Hopper)
        "fp8_act": 7,
        "act_note": "四个线性层的输入缓存为 FP8（Hopper 上存它的转置）",
        "cite": [
            ("Transformer Engine 维护者的答复：议题 1261（FP8 副本和转置）", TE_1261),
            ("议题 257（两份权重、amax 历史）", TE_257),
            ("议题 1429（权重、梯度、优化器状态留在高精度）", TE_1429),
            ("议题 1764（线性层输入存 FP8）", TE_1764),
        ],
        "source": f"Transformer Engine maintainers: {TE_1261} (FP8 copy plus its transpose for the TN-only FP8 GEMM), {TE_257} (high-precision and FP8 weight copies; 1024-entry amax history per FP8 tensor), {TE_1429} (weights, gradients, optimizer state stay high precision), {TE_1764} (Linear inputs cached in FP8, their transpose on Hopper); the high-precision rows take the BF16 mixed-precision recipe's widths (ZeRO §3.1), as the maintainers name no width",
    },
    "te_mxfp8": {
        "label": "Transformer Engine MXFP8（块缩放，Blackwell）",
        "menu": "Transformer Engine MXFP8（块缩放）",
        "parts": [
            ("weights", "权重（BF16）", 2, "默认仍留着高精度权重"),
            ("fp8_weights", "MXFP8 权重（按行）", 1, "前向用，每 1×32 块一个缩放因子"),
            ("fp8_transpose", "MXFP8 权重（按列）", 1, "反向用，每 32×1 块一个缩放因子"),
            ("mx_scales", "E8M0 缩放因子", Fraction(2, 32), "两份各每 32 个数 1 字节"),
            ("gradients", "梯度（BF16）", 2, "梯度仍是高精度，位数按 BF16 混合精度计"),
            ("master_weights", "主权重（FP32）", 4, "更新落在这份 32 位副本上"),
            ("adam_m", "Adam m（FP32）", 4, "梯度的一阶矩"),
            ("adam_v", "Adam v（FP32）", 4, "梯度的二阶矩"),
        ],
        # the four Linear inputs (TE_1764: one FP8 copy cached on Blackwell), each with its block's share of
        # an E8M0 scale (OCP MX v1.0: one byte per 32 numbers), so each saves 31/32 of a byte
        "fp8_act": 7,
        "fp8_act_scale": Fraction(1, 32),
        "act_note": "四个线性层的输入缓存为 MXFP8，每 32 个数另带 1 字节缩放因子",
        "cite": [
            ("Transformer Engine 维护者的答复：议题 1880（MXFP8 按行、按列两份，每参数 2 字节）", TE_1880),
            ("议题 257（默认同时留着高精度权重和 FP8 副本）", TE_257),
            ("议题 1429（权重、梯度、优化器状态留在高精度）", TE_1429),
            ("议题 1764（Blackwell 上线性层的输入缓存一份 FP8）", TE_1764),
        ],
        "source": f"Transformer Engine maintainers: {TE_1880} (MXFP8 needs 2 bytes/param: 1x32 and 32x1 scaling), {TE_257} (high-precision and FP8 weight copies kept by default), {TE_1429}, {TE_1764} (Linear inputs cached in FP8 on Blackwell); OCP MX v1.0 (one 8-bit E8M0 scale per 32 elements); the high-precision rows take the BF16 mixed-precision recipe's widths (ZeRO §3.1)",
    },
    # Pure BF16: no FP32 copy at all; the update that round-to-nearest would swallow is kept by stochastic
    # rounding (expected value exact) or by a BF16 compensation buffer (Kahan). Lesson 3's repeated update
    # shows both (c9/core/accumulate.py).
    "bf16_pure_sr": {
        "label": "纯 BF16 + AdamW，随机舍入",
        "parts": [
            ("weights", "权重（BF16）", 2, "没有 FP32 主权重：更新直接写回这份 16 位权重，写回时随机舍入"),
            ("gradients", "梯度（BF16）", 2, "反向算出的 16 位梯度"),
            ("adam_m_bf16", "Adam m（BF16）", 2, "一阶矩也存成 BF16"),
            ("adam_v_bf16", "Adam v（BF16）", 2, "二阶矩也存成 BF16"),
        ],
        "cite": [
            (
                "torchao 低比特优化器文档：_AdamW(bf16_stochastic_round=True)，纯 BF16 训练时参数、梯度、优化器状态都是 BF16",
                TORCHAO_OPTIM,
            ),
            ("Zamirai 等，Revisiting BFloat16 Training（arXiv:2010.06192）", ZAMIRAI),
        ],
        "source": f"torchao optim README ({TORCHAO_OPTIM}): _AdamW(bf16_stochastic_round=True) on a model cast to BF16, stochastic rounding when the FP32 update is written back to the BF16 weight; full BF16 training keeps parameters, gradients and optimizer states in BF16. Zamirai et al. 2020 ({ZAMIRAI}): pure BF16 training with stochastic rounding",
    },
    # The buffer's 2 bytes: optimi's own figure, 37.5% less non-activation memory than 16-byte mixed
    # precision with Adam (torch-optimi on PyPI), is 1 − 10/16.
    "bf16_pure_kahan": {
        "label": "纯 BF16 + AdamW，Kahan 补偿",
        "parts": [
            ("weights", "权重（BF16）", 2, "没有 FP32 主权重：更新写回这份 16 位权重"),
            ("kahan", "Kahan 补偿（BF16）", 2, "每个权重一份 16 位补偿，留住这一步没加进去的余量"),
            ("gradients", "梯度（BF16）", 2, "反向算出的 16 位梯度"),
            ("adam_m_bf16", "Adam m（BF16）", 2, "一阶矩也存成 BF16"),
            ("adam_v_bf16", "Adam v（BF16）", 2, "二阶矩也存成 BF16"),
        ],
        "cite": [
            ("optimi 文档：BF16 训练用 Kahan 求和，误差另记在一份补偿缓冲里", OPTIMI_KAHAN),
            ("Zamirai 等，Revisiting BFloat16 Training（arXiv:2010.06192）", ZAMIRAI),
        ],
        "source": f"optimi docs ({OPTIMI_KAHAN}): BF16 training with Kahan summation, errors accumulated in a separate compensation buffer of the parameter's precision; Zamirai et al. 2020 ({ZAMIRAI}): Kahan summation for BF16 weight updates",
    },
}


def bytes_per_parameter(recipe: str) -> int | Fraction:
    """Bytes per parameter of ``recipe`` (a Fraction where scales add a share of a byte), the open rows
    left out. Raises KeyError naming the known recipes."""
    return sum(p[2] for p in _recipe(recipe)["parts"])


def open_rows(recipe: str) -> list[tuple[str, str]]:
    """The copies ``recipe``'s source names without a byte count: (label, why it is not counted)."""
    return list(_recipe(recipe).get("open", []))


def fp8_activations(recipe: str) -> int:
    """How many activations per s·b·h of one layer (eq. 1's terms) ``recipe`` caches in FP8 (0: none)."""
    return _recipe(recipe).get("fp8_act", 0)


def fp8_activation_scale(recipe: str) -> Fraction:
    """Bytes of block scale each FP8-cached number of ``recipe`` carries (0 for a per-tensor scale)."""
    return Fraction(_recipe(recipe).get("fp8_act_scale", 0))


def model_states(param_total: int, recipe: str = "bf16_mixed_adamw") -> Item:
    """Model states of a model with ``param_total`` parameters (Ψ) under ``recipe``.

    Returns an Item named ``model_states`` whose children are the parts (weights, gradients,
    master_weights, adam_m, adam_v as the recipe has them), each ``k · Ψ`` bytes.
    Raises KeyError for an unknown recipe, ValueError for a negative or non-integer parameter count.
    """
    if not isinstance(param_total, int) or param_total < 0:
        raise ValueError(f"param_total must be a non-negative integer, got {param_total!r}")
    r = _recipe(recipe)
    parts = [
        # a share of a byte (the MX scales) rounds up: a scale is a whole byte for a part-filled block
        Item(key, label, math.ceil(k * param_total), f"{_per(k)} B × Ψ", r["source"], note)
        for key, label, k, note in r["parts"]
    ]
    per = sum(p[2] for p in r["parts"])
    return Item.group("model_states", "模型状态", parts, f"{_per(per)} B × Ψ", r["source"])


def _per(k: int | Fraction) -> str:
    k = Fraction(k)
    return str(k.numerator) if k.denominator == 1 else f"{k.numerator}/{k.denominator}"


def _recipe(recipe: str) -> dict:
    if recipe not in RECIPES:
        raise KeyError(f"unknown recipe {recipe!r}; known: {', '.join(RECIPES)}")
    return RECIPES[recipe]
