"""Activation memory of a Transformer training step, after Korthikanti et al. 2022.

Korthikanti, Casper, Lym, McAfee, Andersch, Shoeybi, Catanzaro, "Reducing Activation Recomputation in
Large Transformer Models" (arXiv:2205.05198), §4, eq. 1: one standard Transformer layer stores

    s·b·h·(34 + 5·a·s/h)  bytes  =  34·s·b·h  +  5·a·s²·b

in 16-bit storage with 1-byte dropout masks, MLP width 4h, standard multi-head attention, LayerNorm
statistics ignored. Letters: s sequence length (tokens), b micro-batch size, h hidden size, a attention
heads, L layers. Table 2 of the paper gives the recomputation variants used by the modes below.
"""

from __future__ import annotations

import math
from fractions import Fraction

from c9.core.items import Item

SOURCE = "Korthikanti et al. 2022, §4 eq. 1"

# Storage modes: how much of eq. 1 each layer keeps for the backward pass.
MODES: dict[str, str] = {
    "store_all": "全存",
    "selective": "选择性重计算",
    "flash": "FlashAttention",
    "full_recompute": "全量重计算",
}


def linear_term(s: int, b: int, h: int) -> int:
    """34·s·b·h bytes: the inputs of the matrix multiplies, GeLU, dropout masks and LayerNorms of one layer."""
    return 34 * s * b * h


def score_term(s: int, b: int, a: int) -> int:
    """5·a·s²·b bytes: softmax output (2 B), dropout mask (1 B) and dropout output (2 B) per attention score."""
    return 5 * a * s * s * b


def per_layer(s: int, b: int, h: int, a: int) -> int:
    """s·b·h·(34 + 5·a·s/h) bytes for one layer that stores everything (eq. 1), computed in integers."""
    return linear_term(s, b, h) + score_term(s, b, a)


def activation_memory(
    s: int,
    b: int,
    h: int,
    a: int,
    L: int,
    mode: str = "store_all",
    s2_layers: int | None = None,
    fp8: int = 0,
    fp8_note: str = "",
    fp8_scale: Fraction = Fraction(0),
) -> Item:
    """Activation memory of L layers, in bytes, as a tree: ``activations`` → ``act_linear``, ``act_scores``.

    Args:
        s, b, h, a, L: sequence length, micro-batch, hidden size, heads, layers (positive integers).
        mode: ``store_all`` (eq. 1); ``selective`` or ``flash`` (34·s·b·h per layer: the 5·a·s²·b
            scores are recomputed, or never written by FlashAttention); ``full_recompute`` (each layer
            keeps only its 16-bit input, 2·s·b·h; Korthikanti et al. table 2).
        s2_layers: how many layers carry the 5·a·s²·b score term (default: all L). Set it to the number
            of full-attention layers when the rest use linear attention; those are approximated by 34·s·b·h.
        fp8: how many activations per s·b·h of a layer an FP8 recipe caches in 1 byte instead of 2 (the
            Linear inputs of eq. 1: QKV h, output projection h, MLP h and 4h; c9.core.ledger.fp8_activations).
            Each saves one byte: the linear term becomes (34 − fp8)·s·b·h. Full recomputation keeps its 16-bit
            layer inputs. ``fp8_note`` says which ones, for the item's note.
        fp8_scale: bytes of block scale each of those numbers carries (MXFP8: 1/32), so each saves
            1 − fp8_scale; a part-filled byte rounds up.

    Raises:
        ValueError: a non-positive or non-integer size, ``s2_layers`` outside 0…L.
        KeyError: an unknown mode.
    """
    for name, v in (("s", s), ("b", b), ("h", h), ("a", a), ("L", L)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    if mode not in MODES:
        raise KeyError(f"unknown mode {mode!r}; known: {', '.join(MODES)}")
    n_s2 = L if s2_layers is None else s2_layers
    if not isinstance(n_s2, int) or not 0 <= n_s2 <= L:
        raise ValueError(f"s2_layers must be an integer in 0…{L}, got {s2_layers!r}")

    if not isinstance(fp8, int) or isinstance(fp8, bool) or not 0 <= fp8 <= 7:
        raise ValueError(f"fp8 must be an integer in 0…7 (eq. 1's Linear inputs), got {fp8!r}")

    fp8_scale = Fraction(fp8_scale)
    if not 0 <= fp8_scale < 1:
        raise ValueError(f"fp8_scale must be in [0, 1), got {fp8_scale!r}")
    saved = fp8 * (1 - fp8_scale)  # bytes saved per s·b·h of a layer
    cut = f"{fp8}" if not fp8_scale else f"{fp8} × {_frac(1 - fp8_scale)}"
    each = "每个数省 1 字节" if not fp8_scale else f"每个数省 {_frac(1 - fp8_scale)} 字节"

    if mode == "full_recompute":
        linear = Item(
            "act_linear",
            "激活·每层输入",
            L * 2 * s * b * h,
            "L × 2sbh",
            SOURCE + "; table 2 (full recomputation)",
            "每层只存进入这一层的 16 位输入，反向时再把这一层前向算一遍",
        )
        scores = Item(
            "act_scores",
            "激活·注意力分数",
            0,
            "0（反向时重算）",
            SOURCE + "; table 2",
            "全量重计算不存分数表",
        )
    else:
        linear = Item(
            "act_linear",
            "激活·线性项" + ("（部分 FP8）" if fp8 else ""),
            math.ceil(L * (linear_term(s, b, h) - saved * s * b * h)),
            f"L × (34 − {cut})sbh" if fp8 else "L × 34sbh",
            SOURCE,
            "矩阵乘的输入、GeLU、dropout 掩码、LayerNorm 的输入：和 s 成正比"
            + (f"；{fp8_note}，{each}" if fp8 else ""),
        )
        if mode == "store_all":
            scores = Item(
                "act_scores",
                "激活·注意力分数",
                n_s2 * score_term(s, b, a),
                f"{'L' if n_s2 == L else n_s2} × 5as²b",
                SOURCE,
                "softmax 输出、dropout 掩码和 dropout 输出，每层 a·s² 个分数：和 s² 成正比",
            )
        else:
            how = "反向时重算" if mode == "selective" else "FlashAttention 从不写出分数表"
            scores = Item(
                "act_scores", "激活·注意力分数", 0, f"0（{how}）", SOURCE + "; §5", f"{how}，不占显存"
            )
    c = f"(34 − {cut})" if fp8 else "34"
    formula = {"store_all": f"L × sbh({c} + 5as/h)", "full_recompute": "L × 2sbh"}.get(mode, f"L × {c}sbh")
    if mode == "store_all" and n_s2 != L:
        formula = f"L × {c}sbh + {n_s2} × 5as²b"
    return Item.group("activations", "激活", [linear, scores], formula, SOURCE)


def _frac(k: Fraction) -> str:
    return str(k.numerator) if k.denominator == 1 else f"{k.numerator}/{k.denominator}"
