"""Korthikanti et al. 2022 eq. 1 and its recomputation modes, against an independent oracle: the
paper's own tensor-by-tensor count (§4.1), summed here without the closed form."""

from __future__ import annotations

from fractions import Fraction

import pytest

from c9.base import units
from c9.core.activations import activation_memory
from c9.core.models import anchor, model

GiB, GB, MB = 2**30, 10**9, 10**6


def korthikanti_tensor_list(s, b, h, a):
    """Bytes stored by one layer, tensor by tensor (Korthikanti et al. 2022, §4.1, 16-bit values,
    1-byte dropout masks). Returns (linear part, score part)."""
    attention_linear = (
        2 * s * b * h  # QKV matmul input
        + 4 * s * b * h  # Q and K for QK^T
        + 2 * s * b * h  # V for the attention-over-values matmul
        + 2 * s * b * h  # input of the output projection
        + s * b * h  # its dropout mask
    )
    scores = 2 * a * s * s * b + a * s * s * b + 2 * a * s * s * b  # softmax out, dropout mask, dropout out
    mlp = 2 * s * b * h + 8 * s * b * h + 8 * s * b * h + s * b * h  # inputs of fc1, GeLU, fc2; dropout mask
    layernorms = 2 * (2 * s * b * h)
    return attention_linear + mlp + layernorms, scores


def anchor_dims(**over):
    m = anchor()
    d = dict(s=4096, b=1, h=m.h, a=m.a, L=m.L)
    d.update(over)
    return d


@pytest.mark.parametrize("s,b", [(5, 1), (4096, 1), (8192, 2), (131072, 8), (1, 1)])
@pytest.mark.parametrize("key", ["qwen3.8-27b", "qwen3-8b", "gpt2-1.5b-zero"])
def test_store_all_equals_tensor_by_tensor_count(key, s, b):
    m = model(key)
    lin, sc = korthikanti_tensor_list(s, b, m.h, m.a)
    tree = activation_memory(s, b, m.h, m.a, m.L)
    assert tree.find("act_linear").bytes == m.L * lin
    assert tree.find("act_scores").bytes == m.L * sc
    assert tree.bytes == m.L * (lin + sc)


def test_anchor_figures_of_lesson_5():
    d = anchor_dims()
    full = activation_memory(**d)
    assert units.size(full.bytes, "GiB") == "162.5 GiB"
    assert full.bytes == 174_483_046_400  # 64 × (713,031,680 + 2,013,265,920) bytes
    assert units.percent(full.find("act_scores").bytes, full.bytes) == "73.8%"
    assert units.size(activation_memory(**d, mode="selective").bytes, "GiB") == "42.5 GiB"
    assert activation_memory(**d, mode="flash").bytes == activation_memory(**d, mode="selective").bytes
    assert units.size(activation_memory(**d, mode="full_recompute").bytes, "GiB") == "2.5 GiB"
    assert units.size(activation_memory(**d, s2_layers=16).bytes, "GiB") == "72.5 GiB"
    sentence = activation_memory(**anchor_dims(s=5))
    assert units.size(sentence.bytes, "MB") == "55.9 MB"
    assert round(Fraction(full.bytes, sentence.bytes)) == 3121


def test_qwen3_8b_figures():
    m = model("qwen3-8b")
    act = activation_memory(4096, 1, m.h, m.a, m.L)
    assert round(act.bytes / GiB) == 109
    assert units.percent(act.find("act_scores").bytes, act.bytes) == "82.5%"


def test_batch_scales_linearly_and_s_squared_term_quadratically():
    d = anchor_dims()
    one = activation_memory(**d)
    eight = activation_memory(**{**d, "b": 8})
    assert eight.bytes == 8 * one.bytes
    doubled = activation_memory(**{**d, "s": 8192})
    assert doubled.find("act_linear").bytes == 2 * one.find("act_linear").bytes
    assert doubled.find("act_scores").bytes == 4 * one.find("act_scores").bytes


def test_full_recompute_keeps_each_layer_input():
    d = anchor_dims()
    assert activation_memory(**d, mode="full_recompute").bytes == d["L"] * 2 * d["s"] * d["b"] * d["h"]


@pytest.mark.parametrize(
    "bad", [dict(s=0), dict(b=-1), dict(h=1.5), dict(s=True), dict(s2_layers=65), dict(s2_layers=-1)]
)
def test_bad_sizes_raise_value_error(bad):
    with pytest.raises(ValueError):
        activation_memory(**{**anchor_dims(), **bad})


def test_unknown_mode_raises_key_error():
    with pytest.raises(KeyError, match="unknown mode"):
        activation_memory(**anchor_dims(), mode="magic")
