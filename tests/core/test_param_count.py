"""c9/core/architecture.py and c9/core/param_count.py: configs parsed, parameters counted term by term.

Two independent checks of the count: the published totals recorded in anchor-model.json, and the real
Hugging Face model built from the same config on the ``meta`` device (no memory), compared group by group.
"""

from __future__ import annotations

import json
import re

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from c9.base.errors import InputError
from c9.base.paths import LAB_PRECISION
from c9.core import models
from c9.core.architecture import FAMILIES, Architecture, lab_architecture, parse_config
from c9.core.models import FACTS_FILE, card_bytes, load_facts
from c9.core.param_count import active_params, breakdown, param_total, terms

MODELS = load_facts()["models"]
WITH_CONFIG = [k for k, m in MODELS.items() if m.get("config")]

# The published totals: a model's total must equal the figure its source gives (not a computed one).
PUBLISHED = {"llama-3.1-8b": 8_030_261_248, "gpt2-xl": 1_557_611_200, "qwen3-8b": 8_190_735_360}


def test_shipped_configs_and_sources():
    assert {"gpt2-xl", "llama-3.1-8b", "llama-3.1-70b", "qwen3-8b", "qwen3-30b-a3b"} <= set(WITH_CONFIG)
    for key in WITH_CONFIG:
        m = MODELS[key]
        assert m["config_source"] and m["param_total_source"], key
        a = parse_config(m["config"])
        # The lesson's own fields agree with the config they were read from.
        assert (a.L, a.h, a.a, a.head_dim) == (
            m["num_hidden_layers"],
            m["hidden_size"],
            m["num_attention_heads"],
            m["head_dim"],
        ), key
    assert MODELS["qwen3.8-27b"]["config"] is None and "not found" in MODELS["qwen3.8-27b"]["config_source"]


@pytest.mark.parametrize("key", sorted(PUBLISHED))
def test_total_equals_published(key):
    assert MODELS[key]["param_total"] == PUBLISHED[key]
    assert param_total(parse_config(MODELS[key]["config"])) == PUBLISHED[key]


def test_rows_add_up_and_moe_active():
    for key in WITH_CONFIG:
        b = breakdown(parse_config(MODELS[key]["config"]))
        assert b["total"] == sum(t["count"] for t in b["terms"])
        for t in b["terms"]:
            n = 1
            for d in t["shape"]:
                n *= d
            assert t["count"] == (n + t["bias"]) * t["copies"], (key, t["key"])
    moe = parse_config(MODELS["qwen3-30b-a3b"]["config"])
    assert (moe.experts, moe.experts_per_token, moe.expert_intermediate, moe.moe_layers) == (128, 8, 768, 48)
    # Active: the total minus the 120 experts a token skips in each of the 48 layers (3 matrices of h × I_e).
    assert active_params(moe) == param_total(moe) - 120 * 3 * 2048 * 768 * 48
    dense = parse_config(MODELS["llama-3.1-8b"]["config"])
    assert active_params(dense) == param_total(dense)


def test_gqa_and_tying_terms():
    t = {x.key: x for x in terms(parse_config(MODELS["llama-3.1-8b"]["config"]))}
    assert (
        t["q_proj"].shape == (4096, 4096) and t["k_proj"].shape == (1024, 4096) and t["k_proj"].copies == 32
    )
    assert t["lm_head"].count == 128256 * 4096
    g = {x.key: x for x in terms(parse_config(MODELS["gpt2-xl"]["config"]))}
    assert g["lm_head"].count == 0 and g["pos_embed"].shape == (1024, 1600)
    assert g["attn_norm"].bias == 1600 and g["q_proj"].bias == 1600 and g["fc_in"].shape == (6400, 1600)
    q = {x.key: x for x in terms(parse_config(MODELS["qwen3-8b"]["config"]))}
    assert q["q_norm"].count == 128 * 36 and "pos_embed" not in q


# --- the oracle: the real model code, built on the meta device --------------------------------------------

# Which parameter names (transformers 5.24.0) each term counts; terms sharing a pattern are summed
# (GPT-2 and our lab model fuse q, k and v into one matrix).
LLAMA_NAMES = {
    "embed": r"embed_tokens",
    "attn_norm": r"input_layernorm",
    "q_proj": r"q_proj",
    "k_proj": r"k_proj",
    "v_proj": r"v_proj",
    "o_proj": r"o_proj",
    "q_norm": r"q_norm",
    "k_norm": r"k_norm",
    "mlp_norm": r"post_attention_layernorm",
    "gate_proj": r"mlp\.gate_proj",
    "up_proj": r"mlp\.up_proj",
    "down_proj": r"mlp\.down_proj",
    "router": r"mlp\.gate\.weight",
    "experts_gate_up": r"mlp\.experts\.gate_up",
    "experts_down": r"mlp\.experts\.down",
    "final_norm": r"^model\.(language_model\.)?norm\.",
    "lm_head": r"lm_head",
}
NAMES = {
    "deepseek_v3": {
        **LLAMA_NAMES,
        "q_a_proj": r"q_a_proj",
        "q_a_norm": r"q_a_layernorm",
        "q_b_proj": r"q_b_proj",
        "kv_a_proj": r"kv_a_proj_with_mqa",
        "kv_a_norm": r"kv_a_layernorm",
        "kv_b_proj": r"kv_b_proj",
        "shared_gate_up": r"shared_experts\.(gate|up)_proj",
        "shared_down": r"shared_experts\.down_proj",
    },
    # Gemma: post_attention_layernorm normalises the attention's output; the MLP's input norm is the
    # pre_feedforward one
    "gemma2": {
        **LLAMA_NAMES,
        "attn_out_norm": r"post_attention_layernorm",
        "mlp_norm": r"pre_feedforward_layernorm",
        "mlp_out_norm": r"post_feedforward_layernorm",
    },
    "phi3": {**LLAMA_NAMES, "q_proj": r"qkv_proj", "k_proj": r"qkv_proj", "v_proj": r"qkv_proj"}
    | {"gate_proj": r"gate_up_proj", "up_proj": r"gate_up_proj"},
    "gpt2": {
        "embed": r"wte",
        "pos_embed": r"wpe",
        "attn_norm": r"ln_1",
        "q_proj": r"c_attn",
        "k_proj": r"c_attn",
        "v_proj": r"c_attn",
        "o_proj": r"attn\.c_proj",
        "mlp_norm": r"ln_2",
        "fc_in": r"c_fc",
        "fc_out": r"mlp\.c_proj",
        "final_norm": r"ln_f",
        "lm_head": r"lm_head",
    },
    "lab": {
        "embed": r"^tok\.",
        "pos_embed": r"^pos\.",
        "attn_norm": r"norm1",
        "q_proj": r"qkv",
        "k_proj": r"qkv",
        "v_proj": r"qkv",
        "o_proj": r"\.proj\.",
        "mlp_norm": r"norm2",
        "fc_in": r"fc1",
        "fc_out": r"fc2",
        "final_norm": r"^norm\.",
        "lm_head": r"lm_head",
    },
}


NAMES["gemma3_text"] = NAMES["gemma2"]
# The parts of a vision-language model that are not its language model (the count leaves them out).
VISION = re.compile(r"^model\.(visual|vision_tower|multi_modal_projector)\.")


def _by_pattern(arch: Architecture, named: dict[str, int]) -> tuple[dict, dict]:
    names = NAMES.get(arch.family, LLAMA_NAMES)
    ours, theirs = {}, {}
    for t in terms(arch):
        pat = names[t.key]
        ours[pat] = ours.get(pat, 0) + t.count
        theirs[pat] = sum(n for name, n in named.items() if re.search(pat, name))
    assert sum(theirs.values()) == sum(named.values()), "every real parameter is in some term"
    return ours, theirs


def _hf_model(config: dict):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    cfg = {k: v for k, v in config.items() if k != "model_type"}
    c = transformers.AutoConfig.for_model(config["model_type"], **cfg)
    auto = (
        transformers.AutoModelForImageTextToText
        if "vision_config" in config
        else transformers.AutoModelForCausalLM
    )
    with torch.device("meta"):
        return auto.from_config(c)


def _language_model(config: dict) -> tuple[dict[str, int], int]:
    """The parameters of transformers' own model of ``config``, built on the meta device: those of the
    language model by name, and how many the vision tower and projector add."""
    named = {n: p.numel() for n, p in _hf_model(config).named_parameters()}  # a tied matrix is listed once
    vision = sum(n for name, n in named.items() if VISION.match(name))
    return {name: n for name, n in named.items() if not VISION.match(name)}, vision


PASTED = {k: v for k, v in load_facts()["pasted_configs"].items() if k != "about"}
# transformers 5.24.0's totals for the real configs (the language model only), as the test below measures them
PASTED_TOTALS = {
    "deepseek-v3": 671_026_404_352,
    "gemma-2-9b": 9_241_705_984,
    "gemma-3-4b-it": 3_880_263_168,
    "phi-3-mini-4k-instruct": 3_821_079_552,
    "llava-1.5-7b": 6_738_939_904,
    "qwen2-vl-7b-instruct": 7_615_616_512,
}


@pytest.mark.parametrize("key", sorted(PASTED))
def test_each_pasted_config_against_transformers(key):
    config = PASTED[key]["config"]
    named, vision = _language_model(config)
    arch = parse_config(config)
    ours, theirs = _by_pattern(arch, named)
    assert ours == theirs
    assert param_total(arch) == sum(named.values()) == PASTED_TOTALS[key]
    assert PASTED[key]["config_source"] and PASTED[key]["published_source"]
    # a vision-language model: the vision tower is left out, and the count says so
    assert (vision > 0) == bool(arch.wrapper) == any("视觉" in t for t in arch.left_out)


def test_deepseek_v3_counts_the_main_model_and_says_what_it_leaves_out():
    arch = parse_config(PASTED["deepseek-v3"]["config"])
    assert round(param_total(arch) / 1e9) == 671  # the published main model, 685B with the MTP module
    assert "671B" in PASTED["deepseek-v3"]["published"]
    (mtp,) = arch.left_out
    assert "num_nextn_predict_layers = 1" in mtp and "B" not in mtp.replace("MTP", "")  # no typed totals
    t = {x.key: x for x in terms(arch)}
    assert arch.moe_layers == 58 and t["gate_proj"].copies == 3  # first_k_dense_replace = 3 dense layers
    assert t["kv_a_proj"].shape == (512 + 64, 7168) and t["kv_b_proj"].shape == (128 * (128 + 128), 512)
    assert t["q_b_proj"].shape == (128 * 192, 1536) and t["o_proj"].shape == (7168, 128 * 128)
    assert t["shared_gate_up"].shape == (2 * 2048, 7168) and "缓冲区" in t["router"].note
    # active: the total minus the 248 routed experts a token skips in each of the 58 MoE layers
    assert active_params(arch) == param_total(arch) - 248 * 3 * 7168 * 2048 * 58


@pytest.mark.parametrize("key", WITH_CONFIG)
def test_term_by_term_against_transformers(key):
    model = _hf_model(MODELS[key]["config"])
    named = {n: p.numel() for n, p in model.named_parameters()}  # a tied matrix is listed once
    arch = parse_config(MODELS[key]["config"])
    ours, theirs = _by_pattern(arch, named)
    assert ours == theirs
    assert param_total(arch) == sum(named.values())


# Small made-up configs, one or more per supported family, for the structures no shipped model has
# (mistral, mixtral, qwen2's q/k/v biases, an untied GPT-2 with its own n_inner, head_dim ≠ h/a, tied Qwen3).
SMALL = [
    {
        "model_type": "gpt2",
        "n_embd": 64,
        "n_head": 4,
        "n_layer": 2,
        "n_inner": 96,
        "n_positions": 32,
        "vocab_size": 300,
        "tie_word_embeddings": False,
    },
    {
        "model_type": "llama",
        "hidden_size": 64,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 24,
        "num_hidden_layers": 2,
        "intermediate_size": 80,
        "vocab_size": 300,
        "attention_bias": True,
        "mlp_bias": True,
    },
    {
        "model_type": "mistral",
        "hidden_size": 64,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "num_hidden_layers": 2,
        "intermediate_size": 80,
        "vocab_size": 300,
    },
    {
        "model_type": "qwen2",
        "hidden_size": 64,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "num_hidden_layers": 2,
        "intermediate_size": 80,
        "vocab_size": 300,
        "tie_word_embeddings": True,
    },
    {
        "model_type": "qwen3",
        "hidden_size": 64,
        "num_attention_heads": 4,
        "num_key_value_heads": 1,
        "head_dim": 32,
        "num_hidden_layers": 2,
        "intermediate_size": 80,
        "vocab_size": 300,
        "tie_word_embeddings": True,
    },
    {
        "model_type": "mixtral",
        "hidden_size": 64,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "num_hidden_layers": 2,
        "intermediate_size": 40,
        "vocab_size": 300,
        "num_local_experts": 4,
        "num_experts_per_tok": 2,
    },
    {
        "model_type": "qwen3_moe",
        "hidden_size": 64,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 16,
        "num_hidden_layers": 4,
        "intermediate_size": 48,
        "moe_intermediate_size": 24,
        "num_experts": 6,
        "num_experts_per_tok": 2,
        "decoder_sparse_step": 2,
        "mlp_only_layers": [3],
        "vocab_size": 300,
    },
    {  # MixtralConfig's alias: num_experts for num_local_experts
        "model_type": "mixtral",
        "hidden_size": 64,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "num_hidden_layers": 2,
        "intermediate_size": 40,
        "vocab_size": 300,
        "num_experts": 3,
        "num_experts_per_tok": 2,
    },
    {  # DeepSeek-V3 without the query bottleneck (q_lora_rank null: one q_proj), with biases, 2 shared experts
        "model_type": "deepseek_v3",
        "hidden_size": 64,
        "num_attention_heads": 4,
        "num_hidden_layers": 3,
        "intermediate_size": 96,
        "moe_intermediate_size": 24,
        "n_routed_experts": 6,
        "n_shared_experts": 2,
        "num_experts_per_tok": 2,
        "first_k_dense_replace": 1,
        "q_lora_rank": None,
        "kv_lora_rank": 16,
        "qk_nope_head_dim": 8,
        "qk_rope_head_dim": 4,
        "v_head_dim": 12,
        "attention_bias": True,
        "n_group": 2,
        "topk_group": 1,
        "vocab_size": 300,
    },
    {  # Gemma 3 as a text model: qk-norm, four norms a layer, tied by default
        "model_type": "gemma3_text",
        "hidden_size": 64,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 24,
        "num_hidden_layers": 3,
        "intermediate_size": 96,
        "vocab_size": 300,
    },
    {  # Phi-3 with grouped-query attention in its fused qkv_proj, untied
        "model_type": "phi3",
        "hidden_size": 64,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "num_hidden_layers": 2,
        "intermediate_size": 96,
        "vocab_size": 300,
        "pad_token_id": 0,
    },
    {  # Qwen2-VL with its language model in text_config, tied there
        "model_type": "qwen2_vl",
        "text_config": {
            "hidden_size": 64,
            "num_attention_heads": 4,
            "num_key_value_heads": 2,
            "num_hidden_layers": 2,
            "intermediate_size": 96,
            "vocab_size": 300,
            "tie_word_embeddings": True,
        },
        "vision_config": {"depth": 1, "embed_dim": 32, "hidden_size": 64, "num_heads": 2, "mlp_ratio": 2},
    },
    {  # Qwen2-VL with its language model at the top level, as in the Hub's files; Qwen2VLAttention sizes its
        # heads as hidden_size // num_attention_heads and ignores a head_dim key
        "model_type": "qwen2_vl",
        "hidden_size": 64,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 32,
        "num_hidden_layers": 2,
        "intermediate_size": 96,
        "vocab_size": 300,
        "vision_config": {"depth": 1, "embed_dim": 32, "hidden_size": 64, "num_heads": 2, "mlp_ratio": 2},
    },
    {  # Llava around a Mistral
        "model_type": "llava",
        "text_config": {
            "model_type": "mistral",
            "hidden_size": 64,
            "num_attention_heads": 4,
            "num_key_value_heads": 2,
            "num_hidden_layers": 2,
            "intermediate_size": 96,
            "vocab_size": 300,
        },
        "vision_config": {
            "model_type": "clip_vision_model",
            "hidden_size": 32,
            "num_attention_heads": 2,
            "num_hidden_layers": 1,
            "intermediate_size": 48,
            "image_size": 28,
            "patch_size": 14,
        },
    },
    {  # no experts: every layer is Qwen3MoeMLP of intermediate_size, and no MoE key is needed
        "model_type": "qwen3_moe",
        "hidden_size": 64,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 16,
        "num_hidden_layers": 3,
        "intermediate_size": 48,
        "num_experts": 0,
        "vocab_size": 300,
    },
]


@pytest.mark.parametrize("config", SMALL, ids=[f"{c['model_type']}-{i}" for i, c in enumerate(SMALL)])
def test_each_family_against_transformers(config):
    named, _ = _language_model(config)
    arch = parse_config(config)
    ours, theirs = _by_pattern(arch, named)
    assert ours == theirs and param_total(arch) == sum(named.values())


def test_lab_model_against_its_code():
    torch = pytest.importorskip("torch")
    from lab.model import TinyGPT

    cfg = json.loads((FACTS_FILE.parent / "lab" / "config.json").read_text())
    with torch.device("meta"):
        model = TinyGPT(**cfg["model"])
    named = {n: p.numel() for n, p in model.named_parameters()}
    arch = lab_architecture(cfg["model"])
    ours, theirs = _by_pattern(arch, named)
    assert ours == theirs and param_total(arch) == cfg["expected_param_count"] == 3_688_704
    if LAB_PRECISION.exists():
        assert (
            param_total(models.model(models.LAB).arch)
            == json.loads(LAB_PRECISION.read_text())["model"]["param_count"]
        )


# --- properties -------------------------------------------------------------------------------------------

llama_like = st.fixed_dictionaries(
    {
        "model_type": st.sampled_from(["llama", "mistral", "qwen2", "qwen3"]),
        "hidden_size": st.sampled_from([64, 96, 128, 256]),
        "num_attention_heads": st.sampled_from([1, 2, 4, 8]),
        "num_hidden_layers": st.integers(1, 6),
        "intermediate_size": st.integers(1, 512),
        "vocab_size": st.integers(1, 5000),
        "tie_word_embeddings": st.booleans(),
    }
)


@settings(max_examples=examples(60), deadline=None)
@given(llama_like)
def test_kv_heads_equal_heads_is_multi_head_attention(cfg):
    mha = parse_config({**cfg, "num_key_value_heads": cfg["num_attention_heads"]})
    t = {x.key: x for x in terms(mha)}
    assert t["k_proj"].count == t["v_proj"].count == t["q_proj"].count
    # LlamaConfig's num_key_value_heads defaults to None, i.e. the head count (qwen2/qwen3 default to 32).
    if cfg["model_type"] == "llama":
        assert param_total(parse_config(cfg)) == param_total(mha)


@settings(max_examples=examples(60), deadline=None)
@given(llama_like, st.sampled_from([1, 2]))
def test_gqa_saves_exactly_the_kv_rows(cfg, kv):
    a = cfg["num_attention_heads"]
    if a % kv:
        kv = 1
    mha = parse_config({**cfg, "num_key_value_heads": a})
    gqa = parse_config({**cfg, "num_key_value_heads": kv})
    bias = 1 if mha.qkv_bias else 0
    saved = 2 * mha.L * (a - kv) * mha.head_dim * (mha.h + bias)
    assert param_total(mha) - param_total(gqa) == saved


# --- bad configs ------------------------------------------------------------------------------------------


def _zh(text_or_dict) -> str:
    with pytest.raises(InputError) as e:
        parse_config(text_or_dict)
    msg = e.value.message_zh
    assert re.search(r"[\u4e00-\u9fff]", msg) and "Error" not in msg and "Traceback" not in msg
    return msg


def test_parse_errors_name_the_key():
    good = MODELS["llama-3.1-8b"]["config"]
    assert "JSON" in _zh("{not json")
    assert "config.json" in _zh("")
    assert "对象" in _zh("[1, 2]")
    assert "model_type" in _zh({k: v for k, v in good.items() if k != "model_type"})
    assert "bert" in _zh({**good, "model_type": "bert"})
    assert "hidden_size" in _zh({**good, "hidden_size": "4096x"})
    assert "hidden_size" in _zh({**good, "hidden_size": 0})
    assert "num_hidden_layers" in _zh({**good, "num_hidden_layers": -3})
    assert "vocab_size" in _zh({**good, "vocab_size": 10**9})
    assert "num_key_value_heads" in _zh({**good, "num_key_value_heads": 5})
    assert "tie_word_embeddings" in _zh({**good, "tie_word_embeddings": "no"})
    assert "attention_dropout" in _zh({**good, "attention_dropout": 2})
    assert "num_experts_per_tok" in _zh({**MODELS["qwen3-30b-a3b"]["config"], "num_experts_per_tok": 500})
    assert "mlp_only_layers" in _zh({**MODELS["qwen3-30b-a3b"]["config"], "mlp_only_layers": "all"})
    gpt2 = MODELS["gpt2-xl"]["config"]
    assert "n_head" in _zh({**gpt2, "n_head": 7})
    assert "n_embd" in _zh({**gpt2, "n_embd": 1.5})
    # the anchor's config has no citable public copy: no architecture, and the reason in Chinese
    anchor = models.anchor()
    assert anchor.arch is None and anchor.why_eq1_only.startswith(
        "「锚点 Qwen3.8-27B」没有可引用的公开 config.json"
    )


def test_defaults_are_the_config_classes():
    # GPT2Config: n_inner None → 4h; tie_word_embeddings True; dropouts 0.1.
    g = parse_config({"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 2, "vocab_size": 100})
    assert (g.intermediate, g.tied_embeddings, g.resid_dropout, g.activation, g.n_positions) == (
        256,
        True,
        0.1,
        "gelu_new",
        1024,
    )
    # LlamaConfig: head_dim None → h / a, num_key_value_heads None → a; Qwen3Config head_dim defaults to 128.
    sizes = {
        "hidden_size": 256,
        "num_attention_heads": 8,
        "num_hidden_layers": 2,
        "intermediate_size": 512,
        "vocab_size": 1000,
    }
    ll = parse_config({"model_type": "llama", **sizes})
    assert (ll.head_dim, ll.kv_heads, ll.tied_embeddings, ll.mlp_bias) == (32, 8, False, False)
    assert parse_config({"model_type": "qwen3", **sizes, "num_key_value_heads": 8}).head_dim == 128
    assert "num_key_value_heads" in _zh({"model_type": "qwen3", **sizes})  # Qwen3Config's default is 32 > 8
    assert (
        parse_config({"model_type": "qwen2", **sizes, "num_key_value_heads": 8}).qkv_bias is True
    )  # hard-coded
    # The sizes have no silent default: a config cut short names what is missing.
    for key in sizes:
        assert key in _zh({"model_type": "llama", **{k: v for k, v in sizes.items() if k != key}})
    assert "n_layer" in _zh({"model_type": "gpt2", "n_embd": 64, "n_head": 4, "vocab_size": 100})
    assert "num_local_experts" in _zh({"model_type": "mixtral", **sizes, "num_experts_per_tok": 2})
    assert set(FAMILIES) == {"gpt2", "llama", "mistral", "qwen2", "qwen3", "mixtral", "qwen3_moe"} | {
        "deepseek_v3",
        "gemma2",
        "gemma3",
        "gemma3_text",
        "phi3",
        "llava",
        "qwen2_vl",
    }
    assert parse_config(json.dumps(MODELS["qwen3-8b"]["config"])) == parse_config(
        MODELS["qwen3-8b"]["config"]
    )


def test_cards_list():
    facts = load_facts()
    cards = facts["cards"]["list"]
    gb = [c["memory_bytes"] // 10**9 for c in cards]
    assert gb == sorted(gb) and gb[0] == 24 and gb[-1] == 288
    default = next(c for c in cards if c["key"] == facts["cards"]["default"])
    assert default["memory_bytes"] == card_bytes() == 80 * 10**9
    assert all(c["source"] and c["url"].startswith("https://") for c in cards)


def test_each_cards_memory_is_cited_from_its_maker():
    """A card's capacity comes from its maker (NVIDIA's or AMD's own pages), not a shop, a blog or a wiki;
    the source names the maker's page and the capacity the file records."""
    from urllib.parse import urlparse

    makers = {"NVIDIA": "nvidia.com", "AMD": "amd.com"}
    for c in load_facts()["cards"]["list"]:
        maker = "AMD" if "MI3" in c["label"] else "NVIDIA"
        host = urlparse(c["url"]).hostname
        assert host == makers[maker] or host.endswith("." + makers[maker]), (c["key"], c["url"])
        assert c["source"].startswith(f"{maker}'s own"), c["source"]
        assert str(c["memory_bytes"] // 10**9) in c["source"], c["source"]
