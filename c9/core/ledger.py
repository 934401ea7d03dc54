"""Model states: the bytes a training step keeps per parameter, by recipe.

Sources: Micikevicius et al. 2017 §3.1 (FP32 master weights); ZeRO, Rajbhandari et al. 2020 §3.1
(mixed precision + Adam: 2Ψ + 2Ψ + KΨ bytes with K = 12, i.e. 16 bytes per parameter).
"""

from __future__ import annotations

from c9.core.items import Item

# Each recipe is data: (key, label, bytes per parameter, what it is). A new recipe is one new row.
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
}


def bytes_per_parameter(recipe: str) -> int:
    """Bytes per parameter of ``recipe``. Raises KeyError naming the known recipes."""
    return sum(p[2] for p in _recipe(recipe)["parts"])


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
        Item(key, label, k * param_total, f"{k} B × Ψ", r["source"], note)
        for key, label, k, note in r["parts"]
    ]
    per = sum(p[2] for p in r["parts"])
    return Item.group("model_states", "模型状态", parts, f"{per} B × Ψ", r["source"])


def _recipe(recipe: str) -> dict:
    if recipe not in RECIPES:
        raise KeyError(f"unknown recipe {recipe!r}; known: {', '.join(RECIPES)}")
    return RECIPES[recipe]
