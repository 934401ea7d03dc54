"""Model states by recipe, against the ZeRO paper's 2Ψ + 2Ψ + KΨ (K = 12) and the lesson's figures."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from c9.base import units
from c9.core import ledger
from c9.core.ledger import (
    RECIPES,
    bytes_per_parameter,
    fp8_activation_scale,
    fp8_activations,
    model_states,
    open_rows,
)
from c9.core.models import FACTS_FILE, anchor, card_bytes, model, model_keys


def test_mixed_precision_adam_is_zero_papers_16_bytes():
    psi = 7_500_000_000  # ZeRO §3.1: a 7.5B model needs 120 GB of model states
    states = model_states(psi, "bf16_mixed_adamw")
    assert states.bytes == 2 * psi + 2 * psi + 12 * psi
    assert units.size(states.bytes, "GB", 0) == "120 GB"


def test_anchor_model_states():
    psi = anchor().param_total
    states = model_states(psi)
    assert units.size(states.bytes, "GB") == "444.5 GB"
    assert units.size(2 * psi, "GB") == "55.6 GB"
    assert [c.key for c in states.children] == ["weights", "gradients", "master_weights", "adam_m", "adam_v"]
    mv = states.find("adam_m").bytes + states.find("adam_v").bytes
    assert units.size(mv, "GB") == "222.3 GB"
    assert units.number(states.bytes / card_bytes(), 1) == "5.6"


@pytest.mark.parametrize(
    "recipe,per", [("bf16_mixed_adamw", 16), ("fp32_adamw", 16), ("bf16_weights_only", 2)]
)
def test_bytes_per_parameter(recipe, per):
    assert bytes_per_parameter(recipe) == per
    assert model_states(1000, recipe).bytes == per * 1000


def test_bad_recipe_and_count():
    with pytest.raises(KeyError, match="unknown recipe"):
        model_states(10, "fp8_magic")
    with pytest.raises(ValueError):
        model_states(-1)
    with pytest.raises(ValueError):
        model_states(1.5)


def test_presets_match_their_sources():
    """The configs the widgets use are the published ones (guards against drifting presets)."""
    facts = json.loads(FACTS_FILE.read_text())
    a = model("qwen3.8-27b")
    assert (a.param_total, a.L, a.full_attention_layers, a.h, a.a, a.head_dim) == (
        27_781_427_952,
        64,
        16,
        5120,
        24,
        256,
    )
    q = model("qwen3-8b")
    assert (q.L, q.h, q.a, q.head_dim) == (36, 4096, 32, 128)
    g = facts["models"]["gpt2-1.5b-zero"]
    assert (
        g["num_hidden_layers"],
        g["hidden_size"],
        g["num_attention_heads"],
        g["sequence_length"],
        g["batch_size"],
    ) == (48, 1600, 25, 1024, 32)
    assert card_bytes() == 80 * 10**9
    assert facts["example_sentence"] == {
        **facts["example_sentence"],
        "text": "小明把苹果给了小王",
        "tokens": 5,
    }
    for key in model_keys():
        m = facts["models"][key]
        assert m["full_attention_layers"] + m["linear_attention_layers"] == m["num_hidden_layers"]
        assert m["source"], key
    assert set(RECIPES) >= {"bf16_mixed_adamw", "fp32_adamw"}


# ---- FP8 recipes: each row against the sentence of its source --------------------------


@pytest.mark.timeout(30)
def test_deepseek_v3_fp8_is_12_counted_bytes_and_an_open_fp8_copy():
    # §3.3.3: master weights and gradients stay FP32 (4 + 4), AdamW's m and v are BF16 (2 + 2); the FP8
    # working copy of the weights has no byte count in the report, so it is listed, not added.
    assert bytes_per_parameter("deepseek_v3_fp8") == 4 + 4 + 2 + 2 == 12
    assert [label for label, _ in open_rows("deepseek_v3_fp8")] == ["FP8 权重（矩阵乘用）"]
    for psi in (1_557_611_200, 27_781_427_952):
        assert model_states(psi, "deepseek_v3_fp8").bytes == 12 * psi
    assert "§3.3" in RECIPES["deepseek_v3_fp8"]["source"]


@pytest.mark.timeout(30)
def test_transformer_engine_recipes_keep_every_copy_their_maintainers_name():
    # TransformerEngine#1261, TransformerEngine#257, TransformerEngine#1429 (Hopper, delayed scaling): the BF16 weights, an FP8 copy, its transpose, BF16 grads,
    # and the mixed-precision optimizer (FP32 master, m, v).
    assert bytes_per_parameter("te_fp8_delayed") == 2 + 1 + 1 + 2 + 4 + 4 + 4 == 18
    # TransformerEngine#1880 (Blackwell, MXFP8): row- and column-wise data, 2 B, plus one E8M0 byte per 32 values in each.
    assert bytes_per_parameter("te_mxfp8") == Fraction(18) + Fraction(2, 32) == Fraction(289, 16)
    for psi in (32 * 1000, 27_781_427_952):
        assert model_states(psi, "te_mxfp8").bytes == 18 * psi + -(-2 * psi // 32)
    assert [label for label, _ in open_rows("te_fp8_delayed")] == ["amax 历史"]
    assert open_rows("bf16_mixed_adamw") == []
    for key in ("te_fp8_delayed", "te_mxfp8"):
        assert "github.com/NVIDIA/TransformerEngine/" in RECIPES[key]["source"]


@pytest.mark.timeout(30)
def test_fp8_recipes_cache_the_activations_their_sources_name():
    # Of eq. 1's Linear inputs (QKV h, output projection h, MLP h and 4h): DeepSeek-V3 §3.3.3 caches them in
    # FP8 except the output projection's (E5M6, its storage unstated: not counted); its MoE SwiGLU rule is
    # said in the note, not counted on a dense MLP. Transformer Engine's maintainers say it caches all four in FP8.
    assert fp8_activations("deepseek_v3_fp8") == 1 + 1 + 4 == 6
    note = RECIPES["deepseek_v3_fp8"]["act_note"]
    assert "E5M6" in note and "SwiGLU" in note and "没有计入" in note
    assert fp8_activations("te_fp8_delayed") == fp8_activations("te_mxfp8") == 1 + 1 + 1 + 4 == 7
    # a per-tensor FP8 scale is one number per tensor; MXFP8 carries one E8M0 byte per 32 (OCP MX v1.0)
    assert fp8_activation_scale("te_fp8_delayed") == fp8_activation_scale("deepseek_v3_fp8") == 0
    assert fp8_activation_scale("te_mxfp8") == Fraction(1, 32)
    assert fp8_activations("bf16_mixed_adamw") == 0
    # the cites name every maintainer answer a row leans on
    assert {u for _, u in RECIPES["te_mxfp8"]["cite"]} >= {ledger.TE_1880, ledger.TE_257, ledger.TE_1764}


@pytest.mark.timeout(30)
def test_no_fp8_recipe_halves_the_mixed_precision_states():
    half = Fraction(bytes_per_parameter("bf16_mixed_adamw"), 2)
    for key in ("deepseek_v3_fp8", "te_fp8_delayed", "te_mxfp8"):
        assert bytes_per_parameter(key) > half


# ---- pure BF16: no FP32 copy, the update kept by stochastic rounding or a Kahan buffer --------


@pytest.mark.timeout(30)
def test_pure_bf16_recipes_are_8_and_10_bytes_with_their_sources():
    # torchao's optim README: full BF16 training keeps parameters, gradients and optimizer states in BF16
    # (2 + 2 + 2 + 2), _AdamW(bf16_stochastic_round=True) rounding the update stochastically; optimi's Kahan
    # summation adds a compensation buffer of the parameter's precision (+2), its 37.5% saving on 16 bytes.
    assert bytes_per_parameter("bf16_pure_sr") == 2 + 2 + 2 + 2 == 8
    assert bytes_per_parameter("bf16_pure_kahan") == 8 + 2 == 10
    assert 1 - Fraction(10, 16) == Fraction(375, 1000)
    for psi in (1_557_611_200, 27_781_427_952):
        assert model_states(psi, "bf16_pure_sr").bytes == 8 * psi
        assert model_states(psi, "bf16_pure_kahan").bytes == 10 * psi
        assert model_states(psi, "bf16_pure_kahan").find("kahan").bytes == 2 * psi
    for key in ("bf16_pure_sr", "bf16_pure_kahan"):
        parts = {p[0] for p in RECIPES[key]["parts"]}
        assert "master_weights" not in parts and open_rows(key) == []
        assert ledger.ZAMIRAI in {u for _, u in RECIPES[key]["cite"]}
    assert ledger.TORCHAO_OPTIM in {u for _, u in RECIPES["bf16_pure_sr"]["cite"]}
    assert ledger.OPTIMI_KAHAN in {u for _, u in RECIPES["bf16_pure_kahan"]["cite"]}
