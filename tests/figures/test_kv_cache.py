"""The FP4 branch's KV-cache example (c9/figures/kv_cache.py): bytes per token at BF16, FP8 and FP4 with
their block scales, from anchor-model.json and the course's block formats."""

from __future__ import annotations

from fractions import Fraction

import pytest

from c9.core import blockscale
from c9.core.models import load_facts, model
from c9.figures import kv_cache


@pytest.fixture(scope="module")
def figs():
    return {f["name"]: f for f in kv_cache.figures()}


def test_values_per_token_come_from_the_configs(figs):
    q = model("qwen3-8b")
    kv = load_facts()["kv_cache"]["qwen3-8b"]["num_key_value_heads"]
    assert figs["kv_8b_values"]["value"] == 2 * q.L * kv * q.head_dim == 2 * 36 * 8 * 128
    a = model(load_facts()["anchor"])
    # only the full-attention layers keep a per-token cache; the anchor's KV heads have no stored source
    assert figs["kv_anchor_values_per_head"]["value"] == 2 * a.full_attention_layers * a.head_dim == 8192
    assert load_facts()["kv_cache"]["qwen3.8-27b"]["num_key_value_heads"] is None


def test_bits_include_the_block_scales():
    assert kv_cache.bits(None) == 16
    assert kv_cache.bits("per_tensor_e4m3") == 8
    assert kv_cache.bits("mxfp8_e4m3") == Fraction(33, 4)  # 8 + 8/32
    assert kv_cache.bits("mxfp4") == Fraction(17, 4)  # 4 + 8/32
    assert kv_cache.bits("nvfp4") == Fraction(9, 2)  # 4 + 8/16
    for _, _, scheme in kv_cache.SCHEMES[1:]:
        assert kv_cache.bits(scheme) == pytest.approx(blockscale.bits_per_element(scheme))


def test_bytes_and_texts(figs):
    # Qwen3-8B: 73,728 numbers per token; BF16 2 B each = 144 KiB; NVFP4 4.5 bits = 40.5 KiB
    assert figs["kv_8b_token_bf16"]["value"] == 73728 * 2 and figs["kv_8b_token_bf16"]["text"] == "144.00 KiB"
    assert figs["kv_8b_token_nvfp4"]["value"] == 73728 * Fraction(9, 16)
    assert figs["kv_8b_token_nvfp4"]["text"] == "40.50 KiB"
    seq = load_facts()["training_sequence"]["tokens"]
    assert figs["kv_8b_seq_mxfp4"]["value"] == 73728 * Fraction(17, 32) * seq
    assert figs["kv_8b_seq_bf16"]["text"] == "576.0 MiB"
    # the scale's share of the cache, and the saving against BF16 below the nominal 2× and 4×
    assert figs["kv_scale_share_nvfp4"]["text"] == "11.1%" and figs["kv_scale_share_fp8"]["text"] == "0"
    assert figs["kv_8b_saving_mxfp4"]["value"] == Fraction(16) / Fraction(17, 4)
    assert figs["kv_8b_saving_nvfp4"]["text"] == "3.56 倍"
    # blocks run along head_dim and are full for both models
    for m in ("qwen3-8b", load_facts()["anchor"]):
        assert model(m).head_dim % 32 == 0
