"""The FP4 branch's callback to the inference chapters: the KV cache stored in lower precision.

At inference every full-attention layer keeps, for each token, one key and one value vector per KV head,
``head_dim`` numbers each: 2 · layers · kv_heads · head_dim numbers per token. Linear-attention layers keep
a fixed-size state instead, so they add nothing per token. The bits each number costs come from the
course's own block formats (c9.core.blockscale: element bits + scale bits / block size), the blocks
running along head_dim; a per-tensor scale is one number per tensor and is left out.

:func:`figures` returns the figures the FP4 page quotes; the model facts come from anchor-model.json
(``models`` and ``kv_cache``).
"""

from __future__ import annotations

from fractions import Fraction

from c9.base import units
from c9.core import blockscale as B
from c9.core.models import load_facts, model
from c9.figures.figure import figure

__all__ = ["SCHEMES", "values_per_token", "bytes_per_token", "figures"]

# (key, label, block format of c9.core.blockscale or None for BF16)
SCHEMES = [
    ("bf16", "BF16", None),
    ("fp8", "FP8 E4M3，整张量一个缩放", "per_tensor_e4m3"),
    ("mxfp8", "MXFP8（E4M3，每 32 个数一个 E8M0）", "mxfp8_e4m3"),
    ("nvfp4", "NVFP4（E2M1，每 16 个数一个 E4M3）", "nvfp4"),
    ("mxfp4", "MXFP4（E2M1，每 32 个数一个 E8M0）", "mxfp4"),
]


def bits(scheme: str | None) -> Fraction:
    """Bits per cached number, block scales included (a per-tensor scale amortised away)."""
    if scheme is None:
        return Fraction(16)
    f = B.get_block_format(scheme)
    eb = f.element_format.bits
    return Fraction(eb) if f.tile is None else eb + Fraction(f.scale.bits, f.block_size)


def values_per_token(layers: int, kv_heads: int, head_dim: int) -> int:
    """K and V: 2 · layers · kv_heads · head_dim numbers per token."""
    return 2 * layers * kv_heads * head_dim


def bytes_per_token(values: int, scheme: str | None) -> Fraction:
    return values * bits(scheme) / 8


def _kib(n) -> str:
    return units.size(n, "KiB", 2)


def figures() -> list[dict]:
    facts = load_facts()
    anchor = model(facts["anchor"])
    small = model("qwen3-8b")
    kv = facts["kv_cache"]["qwen3-8b"]["num_key_value_heads"]
    seq = facts["training_sequence"]["tokens"]
    # The anchor: 16 full-attention layers (the other 48 are linear attention), per KV head
    per_head = values_per_token(anchor.full_attention_layers, 1, anchor.head_dim)
    full = values_per_token(small.L, kv, small.head_dim)
    out = [
        figure(
            "kv_anchor_values_per_head",
            per_head,
            units.number(per_head),
            "锚点每个 token、每个键值头缓存的数 = 2（K 与 V）× 全注意力层数 × 每头维度",
            **{"全注意力层数": anchor.full_attention_layers, "每头维度": anchor.head_dim},
        ),
        figure("kv_8b_heads", kv, str(kv), "Qwen3-8B 的键值头数（anchor-model.json: kv_cache.qwen3-8b）"),
        figure(
            "kv_8b_head_dim",
            small.head_dim,
            str(small.head_dim),
            "Qwen3-8B 每个头的维度（anchor-model.json: models.qwen3-8b.head_dim）",
        ),
        figure(
            "kv_8b_values",
            full,
            units.number(full),
            "Qwen3-8B 每个 token 缓存的数 = 2（K 与 V）× 层数 × 键值头数 × 每头维度",
            **{"层数": small.L, "键值头数": kv, "每头维度": small.head_dim},
        ),
        figure("kv_seq", seq, units.number(seq), "序列长度（anchor-model.json: training_sequence.tokens）"),
    ]
    bf16 = bytes_per_token(full, None)
    for key, label, scheme in SCHEMES:
        b = bits(scheme)
        out.append(
            figure(
                f"kv_bits_{key}",
                b,
                units.number(b, 2).rstrip("0").rstrip("."),
                f"{label}：每个数的位数 = 元素位数 + 缩放因子位数 ÷ 块大小",
            )
        )
        scale = b - (16 if scheme is None else B.get_block_format(scheme).element_format.bits)
        out.append(
            figure(
                f"kv_scale_share_{key}",
                scale / b,
                units.percent(scale, b) if scale else "0",
                f"{label}：缩放因子占缓存的比例 = 缩放因子位数 ÷ 每个数的位数",
            )
        )
        ph = bytes_per_token(per_head, scheme)
        out.append(
            figure(
                f"kv_anchor_head_{key}",
                ph,
                _kib(ph),
                "锚点每个 token、每个键值头：缓存的数 × 每个数的位数 ÷ 8 ÷ 2¹⁰",
                **{"缓存的数": per_head, "位数": float(b)},
            )
        )
        t = bytes_per_token(full, scheme)
        out.append(
            figure(
                f"kv_8b_token_{key}",
                t,
                _kib(t),
                "Qwen3-8B 每个 token：缓存的数 × 每个数的位数 ÷ 8 ÷ 2¹⁰",
                **{"缓存的数": full, "位数": float(b)},
            )
        )
        out.append(
            figure(
                f"kv_8b_seq_{key}",
                t * seq,
                units.size(t * seq, "MiB", 1),
                "Qwen3-8B 一条序列：每个 token 的字节数 × token 数 ÷ 2²⁰",
                **{"每个 token 的字节数": float(t), "token 数": seq},
            )
        )
        out.append(
            figure(
                f"kv_8b_saving_{key}",
                bf16 / t,
                f"{units.number(bf16 / t, 2)} 倍",
                f"BF16 的缓存 ÷ {label}的缓存（每个 token 的字节数）",
                bf16=float(bf16),
                this=float(t),
            )
        )
    return out
