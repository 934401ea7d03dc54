"""The tensor-by-tensor activation count (c9/core/model_activations.py) against the real model code.

The measurements are lab/results/activation-check.json (``python -m lab.activation_check``: tiny Hugging Face
models of each family, saved-tensor hooks, eager and sdpa, FP32 and BF16, several s and b). The live test
re-measures new points with torch and transformers and is skipped only when they are not installed.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import textwrap

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from c9.base.errors import InputError
from c9.core import activations as eq1
from c9.core import lab_results
from c9.core import model_activations as M
from c9.core import param_count as P
from c9.core.architecture import parse_config
from c9.figures import activation_check as C

DATA = lab_results.activation_check()
ROWS = C.rows(DATA)
CONFIGS = DATA["configs"]


def _id(r):
    return f"{r['family']}-{r['implementation']}-{r['dtype']}-s{r['s']}-b{r['b']}"


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_predicted_within_five_percent_of_measured(row):
    assert abs(row["predicted"] - row["measured"]) <= C.TOLERANCE * row["measured"]
    assert row["logits_predicted"] == row["logits_measured"]


def test_predicted_equals_measured_byte_for_byte():
    off = [(_id(r), r["predicted"] - r["measured"]) for r in ROWS if r["predicted"] != r["measured"]]
    assert off == []
    assert C.summary(DATA) == {
        "rows": len(ROWS),
        "within": len(ROWS),
        "exact": len(ROWS),
        "worst_relative": 0.0,
        "tolerance": C.TOLERANCE,
    }


def test_the_file_covers_every_family_mode_and_the_s_and_b_it_needs():
    assert DATA["versions"]["transformers"] == "5.24.0" and DATA["versions"]["torch"].startswith("2.13")
    cases = {(c["family"], c["attn_implementation"], c["dtype"]) for c in DATA["cases"]}
    # transformers runs Gemma 2's attention eagerly only
    impls = {f: ("eager",) if c["model_type"] == "gemma2" else ("eager", "sdpa") for f, c in CONFIGS.items()}
    assert cases == {(f, i, d) for f in CONFIGS for i in impls[f] for d in ("float32", "bfloat16")}
    assert {r["mode"] for r in ROWS} == {"store_all", "flash"}
    pts = {(r["s"], r["b"]) for r in ROWS}
    assert {(16, 1), (16, 2), (32, 1), (64, 1)} <= pts  # b doubles at fixed s; s doubles twice at b = 1
    # the real structures: GQA, head_dim ≠ h/a with q/k norms, tied embeddings, MoE, GPT-2's dropout
    arch = {f: parse_config(c) for f, c in CONFIGS.items()}
    assert arch["llama"].kv_heads < arch["llama"].a
    assert arch["qwen3"].qk_norm and arch["qwen3"].head_dim != arch["qwen3"].h // arch["qwen3"].a
    assert arch["qwen3_tied"].tied_embeddings and not arch["qwen3"].tied_embeddings
    assert arch["mixtral"].is_moe and arch["qwen3_moe"].is_moe and arch["gpt2"].attn_dropout > 0
    # DeepSeek-V3 with and without the query latent, with and without shared experts and dense layers
    ds, wide = arch["deepseek_v3"], arch["deepseek_v3_wide"]
    assert ds.mla[0] > 0 == wide.mla[0] and ds.shared_experts > 1 > wide.shared_experts
    assert 0 < ds.moe_layers < ds.L == wide.moe_layers and ds.h != wide.h and ds.a != wide.a
    # torch's CPU sdpa takes its flash kernel except for GPT-2 with attention dropout and for V's head size
    # differing from Q's (DeepSeek-V3's 128 and 192; the tiny one's 12 and 24): the math backend
    for c in DATA["cases"]:
        if c["attn_implementation"] == "sdpa":
            a = arch[c["family"]]
            math = a.attn_dropout > 0 or (a.mla is not None and a.mla[4] != a.head_dim)
            assert c["sdpa_backend"] == ("math" if math else "flash"), c["family"]
    assert {c["sdpa_backend"] for c in DATA["cases"] if c["family"].startswith("deepseek")} == {
        None,
        "math",
        "flash",
    }


def test_eager_keeps_the_scores_and_the_flash_kernel_does_not():
    """What eager keeps beyond the flash kernel grows like s²; at s = 16 it can even be less (GPT-2's
    kernel keeps the whole c_attn output alive), by s = 64 eager keeps more in every family."""
    by = {(r["family"], r["implementation"], r["dtype"], r["s"], r["b"]): r["measured"] for r in ROWS}
    for (f, impl, dt, s, b), _meas in by.items():
        # (past their window of 32, the *_window models' sdpa keeps an s×s mask of its own: the next test)
        if impl == "sdpa" and (s, b) == (64, 1) and not f.endswith("_window"):
            extra = {s2: by[(f, "eager", dt, s2, 1)] - by[(f, "sdpa", dt, s2, 1)] for s2 in (16, 32, 64)}
            assert extra[64] > 0
            assert (
                extra[64] - 2 * extra[32] > 2 * (extra[32] - 2 * extra[16]) > 0
            )  # the s² part doubles twice


@pytest.mark.parametrize(
    "case", DATA["cases"], ids=lambda c: f"{c['family']}-{c['attn_implementation']}-{c['dtype']}"
)
def test_parameters_saved_do_not_depend_on_s_or_b_and_match_the_parameter_count(case):
    # matmuls save their weights: the same storages at every (s, b); they are not counted as activations
    assert len({p["saved_parameter_bytes"] for p in case["points"]}) == 1
    assert 0 < case["points"][0]["saved_parameter_bytes"] <= case["parameter_bytes"]
    assert P.param_total(parse_config(CONFIGS[case["family"]])) == case["parameters"]


def test_the_per_tensor_record_adds_up_and_names_the_code():
    for c in DATA["cases"]:
        p = c["points"][0]
        assert sum(t["bytes"] for t in p["tensors"]) == p["saved_activation_bytes"]
        assert all(t["saved_by"] for t in p["tensors"])


# ---- the model against the paper's eq. 1 ----------------------------------------------------------------

GPT2_XL = {
    "model_type": "gpt2",
    "n_embd": 1600,
    "n_layer": 48,
    "n_head": 25,
    "vocab_size": 50257,
    "n_positions": 1024,
}


@pytest.mark.parametrize("mode", list(M.MODES))
def test_the_paper_column_is_eq1(mode):
    arch = parse_config(GPT2_XL)
    rows = M.eq1_rows(arch, 1024, 2, mode)
    assert sum(r["paper"] for r in rows if r["paper"] is not None) == M.eq1_item(arch, 1024, 2, mode).bytes
    assert sum(r["model"] for r in rows) == M.saved_bytes(M.tensors(arch, 1024, 2, mode)) + M.logits_bytes(
        M.tensors(arch, 1024, 2, mode)
    )


def test_gpt2_in_bf16_on_a_gpu_matches_every_term_of_the_paper_and_adds_only_what_it_leaves_out():
    """GPT-2 is the paper's model (MHA, 4h GeLU MLP, dropout, LayerNorm): each of eq. 1's terms is one of
    the code's tensors, byte for byte; what the code keeps beyond them is listed, not folded in."""
    arch = parse_config(GPT2_XL)
    rows = M.eq1_rows(arch, 1024, 2, "store_all", "bf16")
    assert all(r["model"] == r["paper"] for r in rows if r["paper"] is not None)
    extra = {r["key"] for r in rows if r["paper"] is None}
    assert {"gelu_tanh", "gelu_half", "gelu_one_plus", "norm1_stats", "log_probs", "logits"} <= extra


def test_llama_differs_from_eq1_where_its_architecture_does():
    llama = parse_config(
        CONFIGS["llama"]
        | {
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "num_key_value_heads": 8,
            "intermediate_size": 14336,
            "num_hidden_layers": 32,
            "vocab_size": 128256,
        }
    )
    r = {x["key"]: x for x in M.eq1_rows(llama, 4096, 1, "flash", "bf16")}
    sbh = 4096 * 4096 * 32
    assert r["qk"]["model"] == 2 * sbh + 2 * sbh // 4  # Q at 32 heads, K at 8 KV heads
    assert r["act_in"]["model"] == 2 * 2 * 4096 * 14336 * 32  # gate and up outputs, not 4h
    assert r["norms"]["model"] == 2 * 4 * sbh  # RMSNorm keeps an FP32 copy of its input
    assert r["attn_mask"]["model"] == 0 == r["resid_mask1"]["model"]  # no dropout in the config


# ---- properties ---------------------------------------------------------------------------------------

FAMILY = st.sampled_from(sorted(CONFIGS))
MODE = st.sampled_from(list(M.MODES))
PREC = st.sampled_from(list(M.PRECISIONS))
S2_KEYS = {"softmax", "softmax_cast", "attn_mask", "attn_drop"}


@settings(max_examples=examples(60), deadline=None)
@given(FAMILY, MODE, PREC, st.integers(1, 4096), st.integers(2, 512))
def test_bytes_grow_linearly_in_b(family, mode, prec, s, b):
    arch = parse_config(CONFIGS[family])
    f = [M.saved_bytes(M.tensors(arch, s, b + k, mode, prec)) for k in range(3)]
    assert f[2] - f[1] == f[1] - f[0] > 0
    # b = 1 breaks the line only where the code keeps a view instead of a copy (the labels; GPT-2's Q;
    # eager's K and V repeated from a single KV head)
    t1, t2, t3 = (M.tensors(arch, s, b, mode, prec) for b in (1, 2, 3))
    bent = {x.key for x, y, z in zip(t1, t2, t3) if z.bytes - y.bytes != y.bytes - x.bytes}
    # (and DeepSeek-V3's V, a slice of kv_b_proj's output that eager's matmul copies except at b = 1)
    assert bent <= {"labels", "q"} | ({"k", "v"} if arch.kv_heads == 1 and mode != "flash" else set()) | (
        {"v"} if arch.mla and mode != "flash" else set()
    )


@settings(max_examples=examples(60), deadline=None)
@given(FAMILY, PREC, st.integers(1, 2048), st.integers(1, 64))
def test_the_score_term_is_quadratic_in_s_and_only_store_all_keeps_it(family, prec, s, b):
    arch = parse_config(CONFIGS[family])

    def scores(s, mode):
        return sum(t.bytes for t in M.tensors(arch, s, b, mode, prec) if t.key in S2_KEYS)

    assert scores(2 * s, "store_all") == 4 * scores(s, "store_all") > 0
    assert scores(3 * s, "store_all") == 9 * scores(s, "store_all")
    assert all(scores(s, m) == 0 for m in ("selective", "flash", "full_recompute"))
    assert all("s×s" in t.shape for t in M.tensors(arch, s, b, "store_all", prec) if t.key in S2_KEYS)


@settings(max_examples=examples(40), deadline=None)
@given(FAMILY, MODE, st.integers(1, 1 << 20), st.integers(1, 1024))
def test_activations_hold_no_parameters(family, mode, s, b):
    """Weights do not grow with s or b, activations do: every tensor of the count shrinks to nothing
    per token, only the loss's one scalar is fixed (the measured side: the parameter test above)."""
    arch = parse_config(CONFIGS[family])
    one, more = M.tensors(arch, s, b, mode), M.tensors(arch, 2 * s, b, mode)
    fixed = {t.key for t, u in zip(one, more) if t.bytes == u.bytes}
    # besides the loss's scalar, only what Gemma computes from its weights: 1 + weight of each norm, √h
    assert fixed - {"loss_weight"} == {k for k in fixed if k.endswith("_weight1") or k == "embed_scale"}
    assert "loss_weight" in fixed
    assert P.param_total(arch) == P.param_total(parse_config(CONFIGS[family]))
    assert M.compare(arch, s, b, mode)["saved_bytes"] == M.saved_bytes(one)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.sampled_from(["llama", "qwen3", "mixtral", "qwen3_moe"]),
    MODE,
    PREC,
    st.integers(1, 2048),
    st.integers(1, 64),
)
def test_gqa_with_as_many_kv_heads_as_heads_is_multi_head_attention(family, mode, prec, s, b):
    cfg = dict(CONFIGS[family])
    mha = cfg | {"num_key_value_heads": None}  # None → num_attention_heads (the config classes)
    gqa = cfg | {"num_key_value_heads": cfg["num_attention_heads"]}
    assert M.tensors(parse_config(gqa), s, b, mode, prec) == M.tensors(parse_config(mha), s, b, mode, prec)
    # with fewer KV heads only K and V shrink, and only where the code keeps them at the KV heads (flash)
    small = {t.key: t.bytes for t in M.tensors(parse_config(cfg), s, b, mode, prec)}
    full = {t.key: t.bytes for t in M.tensors(parse_config(gqa), s, b, mode, prec)}
    changed = {k for k in full if full[k] != small[k]}
    assert changed == (
        {"k", "v", "k_norm_in32", "k_norm_rstd", "k_norm_normed"} & set(full)
        if mode == "flash"
        else {"k_norm_in32", "k_norm_rstd", "k_norm_normed"} & set(full)
    )


def test_deepseek_v3_routes_unevenly_yet_its_experts_rows_add_up_to_s_b_k():
    """Which expert gets how many tokens depends on the routing (the measured rows per expert differ), but every
    token goes to k experts, so the experts' tensors add up to s·b·k rows whatever the routing: the count is
    exact. The group-limited choice's intermediates are saved and freed within the router, never kept."""
    for c in (c for c in DATA["cases"] if c["family"].startswith("deepseek")):
        arch = parse_config(CONFIGS[c["family"]])
        cfg = CONFIGS[c["family"]]
        for p in c["points"]:
            n = p["s"] * p["b"]
            rows = p["rows_per_expert"]
            assert len(rows) == arch.moe_layers and all(len(r) == arch.experts for r in rows)
            assert all(sum(r) == n * arch.experts_per_token == p["tokens_routed"] for r in rows)
            assert any(len(set(r)) > 1 for r in rows)  # uneven: per-expert sizes depend on the routing
            # each MoE layer: each group's top two (int64), the chosen groups (int64), the mask (bool)
            per_layer = n * (cfg["n_group"] * 2 * 8 + cfg["topk_group"] * 8 + arch.experts)
            assert p["freed_before_backward_bytes"] == arch.moe_layers * per_layer
        assert all(t["saved_by"] for t in c["points"][0]["tensors"])
    assert all(
        p["freed_before_backward_bytes"] == 0
        for c in DATA["cases"]
        if not c["family"].startswith("deepseek")
        for p in c["points"]
    )


def test_deepseek_v3_adds_its_latents_and_router_beyond_eq1():
    """What DeepSeek-V3's code keeps that eq. 1 has no term for: the two latents and their norms, the FP32 copy the
    router multiplies, its sigmoid scores; Q and K at d = d_n + d_r per head; V at a × (d_n + d_v) in the fused
    kernel (a slice of kv_b_proj's output keeps it whole)."""
    cfg = CONFIGS["deepseek_v3"] | {
        "hidden_size": 7168,
        "num_attention_heads": 128,
        "num_key_value_heads": 128,
    }
    arch = parse_config(cfg)
    rq, rkv, nope, rope, dv = arch.mla
    s, b, L, a = 512, 2, arch.L, arch.a
    r = {x["key"]: x for x in M.eq1_rows(arch, s, b, "flash", "bf16")}
    extra = {k for k, x in r.items() if x["paper"] is None}
    assert {"q_a_norm_in32", "q_a_norm_rstd", "q_b_in", "kv_a_norm_in32", "kv_b_in", "router_in32"} <= extra
    assert {"router_scores", "attn_out", "lse"} <= extra
    assert "shared_gate_out" not in extra  # the shared experts' MLP plays eq. 1's MLP terms
    n = s * b
    assert r["qk"]["model"] == L * 2 * (n * a * (nope + rope) * 2)
    assert r["v"]["model"] == L * n * a * (nope + dv) * 2
    assert r["proj_in"]["model"] == L * n * a * dv * 2
    # in FP32 the key-value latent's norm keeps the whole kv_a output (its d_r rotary columns too)
    t32 = {t.key: t for t in M.tensors(arch, s, b, "flash", "fp32")}
    assert t32["kv_a_norm_in32"].elements == n * (rkv + rope) and "router_in32" not in t32


def test_mixture_of_experts_counts_s_b_k_token_rows():
    arch = parse_config(CONFIGS["mixtral"])
    one = {t.key: t for t in M.tensors(arch, 100, 3, "flash")}
    two = {t.key: t for t in M.tensors(dataclasses.replace(arch, experts_per_token=1), 100, 3, "flash")}
    assert one["expert_in"].elements == 100 * 3 * 2 * arch.h == 2 * two["expert_in"].elements
    assert one["expert_gate_up"].elements == 100 * 3 * 2 * 2 * arch.expert_intermediate


def test_the_tree_adds_up_and_every_leaf_says_where_it_comes_from():
    arch = parse_config(CONFIGS["qwen3_moe"])
    tree = M.model_activations(arch, 512, 4, "store_all")
    ts = M.tensors(arch, 512, 4, "store_all")
    assert tree.bytes == M.saved_bytes(ts) + M.logits_bytes(ts)
    assert tree.find("model_act_saved").bytes == M.saved_bytes(ts)
    assert all(leaf.source and leaf.label for leaf in tree.leaves())


@pytest.mark.parametrize(
    "args,needle",
    [
        ((None, 8, 1), "模型结构"),
        (("cfg", 0, 1), "正整数"),
        (("cfg", 8, 1.5), "正整数"),
        (("cfg", 8, 1, "fast"), "存储方式"),
        (("cfg", 8, 1, "flash", "int4"), "精度"),
    ],
)
def test_bad_input_gets_a_chinese_message(args, needle):
    arch = parse_config(CONFIGS["llama"])
    args = tuple(arch if a == "cfg" else a for a in args)
    with pytest.raises(InputError, match=needle):
        M.tensors(*args)


def test_our_lab_model_is_refused_in_chinese():
    from c9.core.architecture import lab_architecture
    from lab import load_config

    with pytest.raises(InputError, match="小模型"):
        M.tensors(lab_architecture(load_config()["model"]), 64, 1)


def test_eq1_figures_of_lesson_5_are_untouched():
    tree = eq1.activation_memory(4096, 1, 5120, 24, 64)
    assert tree.bytes == 174_483_046_400  # 162.5 GiB, as tests/core/test_activations.py pins


def test_a_sliding_window_costs_the_sdpa_path_a_mask_and_full_k_v_once_s_reaches_it():
    """The same Mistral with a window of 32 instead of 4,096: below the window (s = 16) sdpa keeps the same
    bytes; from s = 32 on, each layer also keeps a b×s×s mask and K, V at all a heads (eager: no change)."""
    by = {(r["family"], r["implementation"], r["dtype"], r["s"], r["b"]): r["measured"] for r in ROWS}
    arch = parse_config(CONFIGS["mistral_window"])
    a, kv, d, L = arch.a, arch.kv_heads, arch.head_dim, arch.L
    assert arch.sliding_window == 32 and arch.sliding_layers == L
    for dt, size in (("float32", 4), ("bfloat16", 2)):
        for s, b in ((16, 1), (16, 2), (32, 1), (32, 2), (64, 1)):
            gap = by[("mistral_window", "sdpa", dt, s, b)] - by[("mistral", "sdpa", dt, s, b)]
            mask_and_kv = L * size * (b * s * s + 2 * (a - kv) * s * b * d) if s >= 32 else 0
            assert gap == mask_and_kv, (dt, s, b)
            assert by[("mistral_window", "eager", dt, s, b)] == by[("mistral", "eager", dt, s, b)]


# ---- live: measure new points with the real code ------------------------------------------------------

HAVE_LAB = all(importlib.util.find_spec(m) for m in ("torch", "transformers"))


@pytest.mark.skipif(not HAVE_LAB, reason="re-measuring needs torch and transformers (pip install .[lab])")
@pytest.mark.parametrize(
    "family,attn,dtype,s,b",
    [
        ("llama", "eager", "float32", 24, 3),
        ("qwen3_moe", "sdpa", "bfloat16", 40, 2),
        ("gpt2", "sdpa", "float32", 20, 1),
        ("qwen3", "eager", "bfloat16", 8, 5),
        ("mistral_window", "sdpa", "bfloat16", 48, 3),  # past the window of 32: a mask, K and V at all heads
        ("mistral_window", "sdpa", "float32", 24, 2),  # below it: no mask
        ("phi3_wide", "sdpa", "float32", 40, 2),
        ("gemma2_wide", "eager", "bfloat16", 24, 1),  # one KV head at b = 1: K and V stay views
        ("gemma3_window", "sdpa", "bfloat16", 48, 2),
        ("deepseek_v3", "sdpa", "bfloat16", 40, 3),  # torch's math backend: Q, K, V and the scores in FP32
        ("deepseek_v3_wide", "eager", "float32", 24, 1),  # b = 1: V stays a slice of kv_b_proj's output
        ("deepseek_v3_wide", "sdpa", "bfloat16", 56, 2),  # the CPU flash kernel
    ],
)
def test_live_measurement_equals_the_prediction(family, attn, dtype, s, b):
    import torch

    from lab import activation_check as lab

    model = lab.build(family, attn, getattr(torch, dtype))
    m = lab.measure(model, s, b, detail=False)
    case = {"attn_implementation": attn, "dtype": dtype, "sdpa_backend": m["sdpa_backend"]}
    mode, scores_by, prec, kernel = C.setting(case)
    ts = M.tensors(parse_config(lab.FAMILIES[family]), s, b, mode, prec, scores_by, kernel)
    assert (M.saved_bytes(ts), M.logits_bytes(ts)) == (m["saved_activation_bytes"], m["logits_bytes"])


@pytest.mark.skipif(not HAVE_LAB, reason="re-measuring needs torch and transformers (pip install .[lab])")
@pytest.mark.parametrize(
    "name,attn,dtype,s,b",
    [
        ("llava", "sdpa", "bfloat16", 24, 3),
        ("llava", "eager", "float32", 16, 1),
        ("gemma3", "sdpa", "bfloat16", 40, 2),
        ("qwen2_vl", "eager", "float32", 24, 3),
        ("qwen2_vl", "sdpa", "bfloat16", 40, 2),
        ("qwen2_vl_wide", "sdpa", "float32", 64, 2),
        ("qwen2_vl_wide", "eager", "bfloat16", 16, 1),
        ("qwen2_vl_window", "sdpa", "bfloat16", 32, 2),
        ("qwen2_vl_window", "eager", "float32", 40, 1),
    ],
)
def test_a_vision_language_models_text_only_step_keeps_what_its_language_model_keeps(name, attn, dtype, s, b):
    """Llava (a Llama inside), Gemma 3 (a Gemma 3 text model with a sliding window inside) and Qwen2-VL (a Qwen2
    shape with multimodal rotary positions, at two sizes and with a sliding window), with no image in the input: the bytes saved equal the
    count of their language model, read from the vision-language config."""
    import torch

    from lab import activation_check as lab

    m = lab.measure(lab.build_vlm(name, attn, getattr(torch, dtype)), s, b, detail=False)
    case = {"attn_implementation": attn, "dtype": dtype, "sdpa_backend": m["sdpa_backend"]}
    mode, scores_by, prec, kernel = C.setting(case)
    arch = parse_config(lab.VLMS[name])
    assert arch.wrapper == lab.VLMS[name]["model_type"] and M.unmodelled(arch) == ""
    assert "图像词元" in M.text_only(arch)
    ts = M.tensors(arch, s, b, mode, prec, scores_by, kernel)
    assert (M.saved_bytes(ts), M.logits_bytes(ts)) == (m["saved_activation_bytes"], m["logits_bytes"])


def test_every_string_a_reader_sees_follows_the_text_rules():
    from test_text_rules import HAN, NOTATION, RULES

    texts = set()
    for family in CONFIGS:
        for mode in M.MODES:
            for t in M.tensors(parse_config(CONFIGS[family]), 64, 2, mode, "bf16"):
                texts |= {t.label, t.note, t.shape}
            texts |= {r["label"] for r in M.eq1_rows(parse_config(CONFIGS[family]), 64, 2, mode)}
    texts |= {r[k] for r in ROWS for k in ("label", "impl_label", "mode_label", "dtype_label")}
    texts |= {p.label for p in M.PRECISIONS.values()}
    bad = [(name, t) for t in texts if HAN.search(t) for name, rx in RULES + NOTATION if rx.search(t)]
    assert bad == []


# ---- the same count inside Pyodide (the page's Python) --------------------------------------------------


@pytest.mark.skipif(__import__("shutil").which("node") is None, reason="node is not installed")
def test_pyodide_counts_the_same_tensors(tmp_path):
    from test_codec_pyodide import run_in_pyodide

    cases = [
        (CONFIGS[f], s, b, mode, prec)
        for f in ("gpt2", "llama", "qwen3_moe", "deepseek_v3")
        for s, b, mode, prec in (
            (4096, 1, "store_all", "bf16"),
            (1 << 20, 1024, "flash", "fp32"),
            (7, 3, "selective", "cpu_bf16"),
            (512, 8, "full_recompute", "fp16"),
        )
    ]
    script = f"CASES = {json.dumps(json.dumps(cases))}\n" + textwrap.dedent("""
        import json
        from c9.core import model_activations as M
        from c9.core.architecture import parse_config
        RESULT = json.dumps([M.compare(parse_config(c), s, b, m, p) for c, s, b, m, p in json.loads(CASES)])
    """)
    got = run_in_pyodide(script, tmp_path)
    assert got == [json.loads(json.dumps(M.compare(parse_config(c), s, b, m, p))) for c, s, b, m, p in cases]
