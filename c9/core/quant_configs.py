"""Real models' quantization configs (anchor-model.json: quantization_configs), read into the block
formats of :mod:`c9.core.blockscale`.

A config names an element format (``fmt``), a weight block (``weight_block_size``) and how activations
are scaled (``activation_scheme``: "dynamic" = computed at run time, per ``activation_tile``). The
schemes are looked up in BLOCK_FORMATS by element format and tile, never typed here: change the
config and the block lab follows.
"""

from __future__ import annotations

from c9.base.errors import InputError
from c9.core import blockscale as B
from c9.core import formats as F
from c9.core.models import load_facts

#: The config's ``fmt`` → the course's format name (DeepSeek's README: e4m3 is torch.float8_e4m3fn).
FMT_NAMES = {"e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2"}


def configs() -> dict:
    return load_facts()["quantization_configs"]


def scheme_for(element: str, tile) -> B.BlockFormat:
    """The block format with this element format and tile, scaled by amax (DeepSeek's rule)."""
    for b in B.BLOCK_FORMATS:
        if b.element == element and b.tile == tuple(tile) and b.scale_rule == "max_over_amax":
            return b
    raise InputError(f"课程的块格式里没有 {element} 配 {tile[0]}×{tile[1]} 的块")


def recipe(key: str = "deepseek-v3") -> dict:
    """What a model's config sets: the weight scheme and the activation scheme, with the fields
    they come from and the source. Raises InputError for a model without a usable config."""
    c = configs().get(key)
    qc = (c or {}).get("quantization_config")
    if not qc:
        raise InputError("这个模型没有可用的量化配置")
    element = FMT_NAMES[qc["fmt"]]
    fmt = F.get_format(element)
    weight = scheme_for(element, qc["weight_block_size"])
    act = scheme_for(element, c["activation_tile"]) if qc["activation_scheme"] == "dynamic" else None
    wr, wc = qc["weight_block_size"]
    ar, ac = c["activation_tile"]
    fields = [
        ("quant_method", f'"{qc["quant_method"]}"', "8 位浮点量化"),
        ("fmt", f'"{qc["fmt"]}"', f"元素格式 {qc['fmt'].upper()}（{element}），最大值 {fmt.max:g}"),
        ("weight_block_size", f"[{wr}, {wc}]", f"权重每 {wr}×{wc} 个数一个缩放因子"),
        (
            "activation_scheme",
            f'"{qc["activation_scheme"]}"',
            f"激活的缩放因子在运行时现算，每个 token 的每 {ac} 个通道（{ar}×{ac}）一个",
        ),
    ]
    return {
        "key": key,
        "name": c["name"],
        "weight": weight.name,
        "activation": act.name if act else None,
        "schemes": [s for s in (act and act.name, weight.name) if s],
        "fields": [{"key": k, "value": v, "meaning": m} for k, v, m in fields],
        "scale_dtype": c["scale_dtype"],
        "url": c["url"],
    }
