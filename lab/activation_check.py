"""What the real model code keeps for backward: activation bytes measured tensor by tensor.

    python -m lab.activation_check          # writes lab/results/activation-check.json (< 1 min on 2 cores)

For each family the site supports (GPT-2, Llama with grouped-query attention, Qwen3 with q/k norms and
head_dim ≠ h/a, a tied-embedding Qwen3, Mixtral, Qwen3-MoE, and Phi-3, Gemma 2, Gemma 3 and DeepSeek-V3 at
two sizes each), a tiny random-initialised model is built
with Hugging Face transformers from a config dict of the family's real structure (the config keys of the
family's config.json, small sizes), dropout as the family's config has it, in train mode. One forward
with the loss runs under ``torch.autograd.graph.saved_tensors_hooks`` (lab/memory.SavedTensors):
every storage saved for backward and still held by the graph at the loss counts once, parameters saved
by the matmuls are kept apart (they are weights, not activations), and the logits the model returns are
counted as a buffer of their own. A storage saved by a node the forward itself dropped (DeepSeek-V3's
router: the group-limited top-k's intermediates) is freed before the backward and is reported apart.
Two attention implementations: "eager" (writes and keeps the score matrix) and "sdpa"
(torch's scaled_dot_product_attention; on the CPU its flash kernel keeps no s×s matrix; it falls back to
the "math" backend, which writes the scores in FP32, with attention dropout or when V's head size differs
from Q's, as in DeepSeek-V3).
Several (s, b) points show the linear growth in b and the s² term.

Per saved storage the file keeps its shape, dtype, bytes, the module that was running when it was
saved and the autograd nodes that hold it (for the smallest point of each case): the tensor-by-tensor
model in c9/core/model_activations.py is checked against these (tests/test_activation_check.py).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import sys
import warnings
from pathlib import Path

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForImageTextToText

from .memory import SavedTensors, _storage_bytes, _storage_key, unique_bytes

SCHEMA = "activation-check/1"
OUT_PATH = Path(__file__).resolve().parent / "results" / "activation-check.json"
SEED = 20261130
DTYPES = (torch.float32, torch.bfloat16)  # FP32 training, and BF16 weights and activations
IMPLEMENTATIONS = ("eager", "sdpa")
POINTS = [(16, 1), (16, 2), (32, 1), (32, 2), (64, 1)]  # (s, b)
MOE = ("mixtral", "qwen3_moe", "deepseek_v3")  # run with experts_implementation "eager" (the per-expert loop)

# Tiny configs with each family's real structure. The keys are those of the family's config.json on the
# Hugging Face Hub (transformers' configuration_<family>.py); the sizes are ours, small enough to run
# in seconds. Dropout is left at the family's default (GPT-2: 0.1 everywhere; the others: 0).
_DECODER = {
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "vocab_size": 512,
    "max_position_embeddings": 256,
    "hidden_act": "silu",
    "rms_norm_eps": 1e-6,
}
_GEMMA = {
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "intermediate_size": 176,
    "vocab_size": 512,
    "max_position_embeddings": 256,
    "rms_norm_eps": 1e-6,
    "attention_dropout": 0.0,
    "pad_token_id": 0,
    "bos_token_id": 1,
    "eos_token_id": 2,
}
FAMILIES: dict[str, dict] = {
    "gpt2": {
        "model_type": "gpt2",
        "n_embd": 64,
        "n_layer": 2,
        "n_head": 4,
        "n_inner": None,
        "vocab_size": 512,
        "n_positions": 256,
        "activation_function": "gelu_new",
        "bos_token_id": 0,
        "eos_token_id": 0,
        "resid_pdrop": 0.1,
        "embd_pdrop": 0.1,
        "attn_pdrop": 0.1,
        "tie_word_embeddings": True,
    },
    "llama": {
        "model_type": "llama",
        **_DECODER,
        "intermediate_size": 176,
        "attention_bias": False,
        "mlp_bias": False,
        "attention_dropout": 0.0,
        "tie_word_embeddings": False,
    },
    "mistral": {
        "model_type": "mistral",
        **_DECODER,
        "intermediate_size": 176,
        "sliding_window": 4096,
        "attention_dropout": 0.0,
        "tie_word_embeddings": False,
    },
    # Mistral with a window the points reach (s = 16 below it, 32 and 64 at or above it): transformers' sdpa then
    # passes torch an explicit mask and copies K, V to every head; eager masks its scores as before.
    "mistral_window": {
        "model_type": "mistral",
        **_DECODER,
        "intermediate_size": 176,
        "sliding_window": 32,
        "attention_dropout": 0.0,
        "tie_word_embeddings": False,
    },
    "qwen2": {
        "model_type": "qwen2",
        **_DECODER,
        "intermediate_size": 176,
        "attention_dropout": 0.0,
        "tie_word_embeddings": False,
    },
    "qwen3": {
        "model_type": "qwen3",
        **_DECODER,
        "intermediate_size": 192,
        "head_dim": 32,
        "attention_bias": False,
        "attention_dropout": 0.0,
        "tie_word_embeddings": False,
    },
    "qwen3_tied": {
        "model_type": "qwen3",
        **_DECODER,
        "intermediate_size": 192,
        "head_dim": 32,
        "attention_bias": False,
        "attention_dropout": 0.0,
        "tie_word_embeddings": True,
    },
    "mixtral": {
        "model_type": "mixtral",
        **_DECODER,
        "intermediate_size": 96,
        "num_local_experts": 4,
        "num_experts_per_tok": 2,
        "router_jitter_noise": 0.0,
        "attention_dropout": 0.0,
        "tie_word_embeddings": False,
    },
    # GPT-2 with its dropout set to 0 (as fine-tuning recipes often do): torch's CPU sdpa then takes the flash
    # kernel, which it does not with dropout > 0 (it falls back to the math backend that writes the scores).
    "gpt2_no_dropout": {
        "model_type": "gpt2",
        "n_embd": 64,
        "n_layer": 2,
        "n_head": 4,
        "n_inner": None,
        "vocab_size": 512,
        "n_positions": 256,
        "activation_function": "gelu_new",
        "bos_token_id": 0,
        "eos_token_id": 0,
        "resid_pdrop": 0.0,
        "embd_pdrop": 0.0,
        "attn_pdrop": 0.0,
        "tie_word_embeddings": True,
    },
    # Phi-3: q, k, v in one qkv_proj and gate, up in one gate_up_proj (Phi3Attention, Phi3MLP); at two sizes:
    # grouped-query attention, untied; and multi-head attention of six heads over three layers, tied.
    "phi3": {
        "model_type": "phi3",
        **_DECODER,
        "intermediate_size": 176,
        "attention_dropout": 0.0,
        "resid_pdrop": 0.0,
        "embd_pdrop": 0.0,
        "sliding_window": None,
        "pad_token_id": 0,
        "tie_word_embeddings": False,
    },
    "phi3_wide": {
        "model_type": "phi3",
        **_DECODER,
        "hidden_size": 96,
        "num_hidden_layers": 3,
        "num_attention_heads": 6,
        "num_key_value_heads": 6,
        "intermediate_size": 200,
        "attention_dropout": 0.0,
        "resid_pdrop": 0.0,
        "embd_pdrop": 0.0,
        "sliding_window": None,
        "pad_token_id": 0,
        "tie_word_embeddings": True,
    },
    # Llama with one KV head: at b = 1 eager's repeat_kv is then a view (no copy of K, V to every head)
    "llama_mqa": {
        "model_type": "llama",
        **_DECODER,
        "num_key_value_heads": 1,
        "intermediate_size": 176,
        "attention_bias": False,
        "mlp_bias": False,
        "attention_dropout": 0.0,
        "tie_word_embeddings": False,
    },
    # Gemma 2: four norms a layer that multiply by 1 + weight in FP32, tanh soft-capping of the scores and of
    # the logits, √h-scaled embeddings, tied; transformers runs its attention eagerly only (no sdpa). At two
    # sizes: grouped-query attention, and three layers with one KV head, head_dim 40, untied.
    "gemma2": {"model_type": "gemma2", **_GEMMA},
    "gemma2_wide": {
        "model_type": "gemma2",
        **_GEMMA,
        "hidden_size": 96,
        "num_hidden_layers": 3,
        "num_attention_heads": 3,
        "num_key_value_heads": 1,
        "head_dim": 40,
        "intermediate_size": 200,
        "tie_word_embeddings": False,
    },
    # Gemma 3 (text): Gemma 2's norms plus q/k norms, no soft-capping; and with a window of 32 over three
    # layers that alternate sliding and full attention (two rotary tables; sdpa's mask on the sliding ones).
    "gemma3_text": {"model_type": "gemma3_text", **_GEMMA},
    "gemma3_window": {
        "model_type": "gemma3_text",
        **_GEMMA,
        "hidden_size": 96,
        "num_hidden_layers": 3,
        "num_attention_heads": 6,
        "head_dim": 24,
        "sliding_window": 32,
        "sliding_window_pattern": 2,
    },
    # DeepSeek-V3: latent attention (a query latent of r_q and its norm, one key-value latent of r_kv and its
    # norm, a rotary key part d_r shared by the heads, v_head_dim ≠ the query's head size, as in the real model:
    # torch's CPU sdpa then takes its math backend), one dense layer then MoE layers with a sigmoid router,
    # group-limited top-k and two shared experts; YaRN rope as in the real config. At a second size: no query
    # latent (one q_proj), v_head_dim = the query's head size (the CPU flash kernel), every layer MoE, no
    # shared experts, top-k not renormalised, rotary halves not interleaved, tied embeddings.
    "deepseek_v3": {
        "model_type": "deepseek_v3",
        "hidden_size": 64,
        "num_hidden_layers": 3,
        "num_attention_heads": 4,
        "num_key_value_heads": 4,
        "intermediate_size": 160,
        "moe_intermediate_size": 32,
        "vocab_size": 512,
        "max_position_embeddings": 256,
        "hidden_act": "silu",
        "rms_norm_eps": 1e-6,
        "q_lora_rank": 48,
        "kv_lora_rank": 24,
        "qk_nope_head_dim": 16,
        "qk_rope_head_dim": 8,
        "v_head_dim": 12,
        "n_routed_experts": 8,
        "n_shared_experts": 2,
        "num_experts_per_tok": 2,
        "n_group": 4,
        "topk_group": 2,
        "first_k_dense_replace": 1,
        "moe_layer_freq": 1,
        "norm_topk_prob": True,
        "routed_scaling_factor": 2.5,
        "scoring_func": "sigmoid",
        "topk_method": "noaux_tc",
        "num_nextn_predict_layers": 1,
        "rope_theta": 10000,
        "rope_scaling": {
            "beta_fast": 32,
            "beta_slow": 1,
            "factor": 4,
            "mscale": 1.0,
            "mscale_all_dim": 1.0,
            "original_max_position_embeddings": 64,
            "type": "yarn",
        },
        "attention_bias": False,
        "attention_dropout": 0.0,
        "tie_word_embeddings": False,
        "bos_token_id": 0,
        "eos_token_id": 1,
    },
    "deepseek_v3_wide": {
        "model_type": "deepseek_v3",
        "hidden_size": 96,
        "num_hidden_layers": 3,
        "num_attention_heads": 6,
        "num_key_value_heads": 6,
        "intermediate_size": 200,
        "moe_intermediate_size": 24,
        "vocab_size": 512,
        "max_position_embeddings": 256,
        "hidden_act": "silu",
        "rms_norm_eps": 1e-6,
        "q_lora_rank": None,
        "kv_lora_rank": 32,
        "qk_nope_head_dim": 16,
        "qk_rope_head_dim": 16,
        "v_head_dim": 32,
        "n_routed_experts": 6,
        "n_shared_experts": 0,
        "num_experts_per_tok": 3,
        "n_group": 2,
        "topk_group": 1,
        "first_k_dense_replace": 0,
        "norm_topk_prob": False,
        "routed_scaling_factor": 1.0,
        "num_nextn_predict_layers": 0,
        "rope_theta": 10000,
        "rope_interleave": False,
        "attention_bias": False,
        "attention_dropout": 0.0,
        "tie_word_embeddings": True,
        "bos_token_id": 0,
        "eos_token_id": 1,
    },
    "qwen3_moe": {
        "model_type": "qwen3_moe",
        **_DECODER,
        "intermediate_size": 192,
        "head_dim": 32,
        "moe_intermediate_size": 48,
        "num_experts": 4,
        "num_experts_per_tok": 2,
        "decoder_sparse_step": 1,
        "mlp_only_layers": [],
        "norm_topk_prob": True,
        "attention_bias": False,
        "attention_dropout": 0.0,
        "tie_word_embeddings": False,
    },
}


# Vision-language models around families above (their config.json's shape: the language model in text_config,
# a vision tower in vision_config; Qwen2-VL's language model, in its Hub files, at the top level), tiny, for a
# text-only step: no image, so no image tokens in the input (the image token's id is the lowest of the special
# ids at the vocabulary's top, which the measured ids stay below).
_VISION = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2}
# Qwen2-VL: a Qwen2-shaped decoder with multimodal rotary positions (rope_scaling "mrope"; mrope_section splits
# d/2 frequencies into time, height and width); its vision tower's output width is the language model's h.
_QWEN2_VL_IDS = {
    "image_token_id": 508,
    "video_token_id": 509,
    "vision_start_token_id": 510,
    "vision_end_token_id": 511,
}


def _qwen2_vl_text(h: int, a: int, section: list[int]) -> dict:
    return {
        **{k: v for k, v in FAMILIES["qwen2"].items() if k != "model_type"},
        "hidden_size": h,
        "num_attention_heads": a,
        "rope_scaling": {"type": "mrope", "mrope_section": section},
        "bos_token_id": 1,
        "eos_token_id": 2,
    }


def _qwen2_vl_vision(h: int) -> dict:
    return {
        "depth": 1,
        "embed_dim": 32,
        "hidden_size": h,
        "num_heads": 2,
        "patch_size": 14,
        "spatial_merge_size": 2,
    }


VLMS: dict[str, dict] = {
    "llava": {
        "model_type": "llava",
        "text_config": FAMILIES["llama"],
        "vision_config": {"model_type": "clip_vision_model", **_VISION, "image_size": 28, "patch_size": 14},
        "image_token_index": 511,
        "tie_word_embeddings": False,
    },
    "gemma3": {
        "model_type": "gemma3",
        "text_config": FAMILIES["gemma3_window"],
        "vision_config": {"model_type": "siglip_vision_model", **_VISION, "image_size": 28, "patch_size": 14},
        "mm_tokens_per_image": 4,
        "image_token_index": 511,
    },
    # at two sizes: h = 64 over 4 heads (d = 16), the language model at the top level as in the Hub's files;
    # h = 96 over 4 heads (d = 24), in text_config as transformers 5 saves it
    "qwen2_vl": {
        "model_type": "qwen2_vl",
        **_qwen2_vl_text(64, 4, [2, 3, 3]),
        "vision_config": _qwen2_vl_vision(64),
        **_QWEN2_VL_IDS,
    },
    "qwen2_vl_wide": {
        "model_type": "qwen2_vl",
        "text_config": {"model_type": "qwen2_vl_text", **_qwen2_vl_text(96, 4, [4, 4, 4])},
        "vision_config": _qwen2_vl_vision(96),
        **_QWEN2_VL_IDS,
    },
    # with a sliding window of 16 on the layers from max_window_layers = 1 on (the second of two)
    "qwen2_vl_window": {
        "model_type": "qwen2_vl",
        **_qwen2_vl_text(64, 4, [2, 3, 3]),
        "use_sliding_window": True,
        "sliding_window": 16,
        "max_window_layers": 1,
        "vision_config": _qwen2_vl_vision(64),
        **_QWEN2_VL_IDS,
    },
}


def build_vlm(name: str, attn: str, dtype: torch.dtype) -> torch.nn.Module:
    cfg = dict(VLMS[name])
    config = AutoConfig.for_model(cfg.pop("model_type"), **cfg)
    torch.manual_seed(SEED)
    return AutoModelForImageTextToText.from_config(config, dtype=dtype, attn_implementation=attn).train()


class _Recorder(SavedTensors):
    """SavedTensors that also notes, per storage, the module running when it was saved, and the bytes
    of parameters saved (weights kept by the matmuls: not activations, reported apart). It holds every
    tensor it sees until the measurement ends: a storage that a node saved and the forward freed again
    (DeepSeek-V3's router saves some for nodes nothing needs) then cannot hand its address to a later one,
    so each storage is told apart; :func:`measure` counts those the graph still holds. A router's top-k
    indices give the rows each expert received (``rows_per_expert``, one list per MoE layer)."""

    def __init__(self, model: torch.nn.Module):
        self._params = {_storage_key(p): _storage_bytes(p) for p in model.parameters()}
        super().__init__()
        self.param_hits: dict = {}
        self.detail: dict = {}
        self.stack: list[str] = []
        self.rows_per_expert: list[list[int]] = []
        self._alive: list[torch.Tensor] = []
        self._handles = []
        for name, mod in model.named_modules():
            self._handles.append(mod.register_forward_pre_hook(lambda m, a, n=name: self._enter(n)))
            self._handles.append(mod.register_forward_hook(lambda m, a, o: self._leave(m, o)))

    # hooks must return None (a returned value would replace the module's input or output)
    def _enter(self, name: str) -> None:
        self.stack.append(name)

    def _leave(self, mod, out) -> None:
        self.stack.pop()
        if type(mod).__name__.lower().endswith("topkrouter") and isinstance(out, tuple):
            idx = out[-1]
            if isinstance(idx, torch.Tensor) and not idx.is_floating_point():
                n = getattr(mod, "num_experts", int(idx.max()) + 1)
                self.rows_per_expert.append(torch.bincount(idx.flatten(), minlength=n).tolist())

    def _pack(self, t: torch.Tensor):
        key = _storage_key(t)
        if key in self._params:
            self.param_hits[key] = self._params[key]
            return t
        if key not in self.storages:
            self._alive.append(t)
            self.detail[key] = {
                "module": self.stack[-1] if self.stack else "",
                "shape": list(t.shape),
                "dtype": str(t.dtype).replace("torch.", ""),
                "bytes": _storage_bytes(t),
                "storage_elements": _storage_bytes(t) // t.element_size(),
            }
        return super()._pack(t)

    def close(self):
        for h in self._handles:
            h.remove()


def _holders(root) -> dict:
    """storage key → names of the autograd nodes that saved it (walks the graph from the loss)."""
    out: dict = {}
    seen, todo = set(), [root]
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for attr in dir(node):
            if attr.startswith("_saved_"):
                try:
                    v = getattr(node, attr)
                except RuntimeError:
                    continue
                for t in v if isinstance(v, (tuple, list)) else [v]:
                    if isinstance(t, torch.Tensor):
                        out.setdefault(_storage_key(t), set()).add(f"{type(node).__name__}.{attr[7:]}")
        todo.extend(fn for fn, _ in node.next_functions)
    return out


def implementations(family: str) -> tuple[str, ...]:
    """The attention implementations transformers offers the family (Gemma 2: eager only)."""
    return ("eager",) if FAMILIES[family]["model_type"] == "gemma2" else IMPLEMENTATIONS


def build(family: str, attn: str, dtype: torch.dtype) -> torch.nn.Module:
    cfg = dict(FAMILIES[family])
    config = AutoConfig.for_model(cfg.pop("model_type"), **cfg)
    kw = {"attn_implementation": attn}
    if FAMILIES[family]["model_type"] in MOE:
        kw["experts_implementation"] = "eager"  # the per-expert loop of the modelling file
    torch.manual_seed(SEED)
    with warnings.catch_warnings():  # DeepSeek-V3 without shared experts builds their MLP at width 0
        warnings.filterwarnings("ignore", "Initializing zero-element tensors", UserWarning)
        model = AutoModelForCausalLM.from_config(config, dtype=dtype, **kw)
    return model.train()


def measure(model: torch.nn.Module, s: int, b: int, detail: bool) -> dict:
    g = torch.Generator().manual_seed(SEED + s * 1000 + b)
    cfg = getattr(model.config, "text_config", model.config)  # a vision-language model: its language model's
    image = getattr(model.config, "image_token_index", None) or getattr(model.config, "image_token_id", None)
    high = min(cfg.vocab_size, image or cfg.vocab_size)
    ids = torch.randint(0, high, (b, s), generator=g)
    rec = _Recorder(model)
    try:
        with rec:
            out = model(input_ids=ids, labels=ids)
    finally:
        rec.close()
    logits_key = _storage_key(out.logits)
    # what the graph holds at the loss: a storage saved by a node the forward already dropped is not kept
    holders = _holders(out.loss.grad_fn)
    held = {k: v for k, v in rec.storages.items() if k in holders}
    by_dtype: dict = {}
    for nbytes, dtype in held.values():
        by_dtype[dtype] = by_dtype.get(dtype, 0) + nbytes
    m = {
        "s": s,
        "b": b,
        "saved_activation_bytes": sum(nbytes for nbytes, _ in held.values()),
        "freed_before_backward_bytes": sum(
            nbytes for k, (nbytes, _) in rec.storages.items() if k not in held
        ),
        "saved_parameter_bytes": sum(rec.param_hits.values()),
        "logits_bytes": unique_bytes([out.logits]),
        "logits_also_saved": logits_key in rec.storages,
        "loss_bytes": unique_bytes([out.loss]),
        "by_dtype": by_dtype,
    }
    if model.config.model_type in MOE:
        m["tokens_routed"] = s * b * model.config.num_experts_per_tok
    if rec.rows_per_expert:  # the routing seen: rows per expert differ, their sum per layer is s·b·k
        m["rows_per_expert"] = rec.rows_per_expert
    nodes = {n.split(".")[0] for v in holders.values() for n in v}
    m["sdpa_backend"] = (
        "flash"
        if any("FlashAttention" in n for n in nodes)
        else "math"
        if any("SafeSoftmax" in n for n in nodes)
        else None
    )
    if detail:
        m["tensors"] = [{**d, "saved_by": sorted(holders[k])} for k, d in rec.detail.items() if k in held]
        m["freed_before_backward"] = [d for k, d in rec.detail.items() if k not in held]
    del out
    return m


def run(log=print) -> dict:
    torch.set_num_threads(min(2, torch.get_num_threads()))
    cases = []
    for dtype, family, attn in ((d, f, a) for d in DTYPES for f in FAMILIES for a in implementations(f)):
        model = build(family, attn, dtype)
        n_params = sum(p.numel() for p in model.parameters())
        points = [measure(model, s, b, detail=(i == 0)) for i, (s, b) in enumerate(POINTS)]
        log(
            f"{str(dtype)[6:]:8s} {family:15s} {attn:5s} "
            + " ".join(f"{p['saved_activation_bytes']:>9d}" for p in points)
        )
        backend = {p.pop("sdpa_backend") for p in points}
        assert len(backend) == 1, backend
        cases.append(
            {
                "family": family,
                "attn_implementation": attn,
                "dtype": str(dtype).replace("torch.", ""),
                "sdpa_backend": backend.pop(),
                "model_class": type(model).__name__,
                "parameters": n_params,
                "parameter_bytes": unique_bytes(model.parameters()),
                "points": points,
            }
        )
    return {
        "schema": SCHEMA,
        "generated": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "command": "python -m lab.activation_check",
        "versions": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
        },
        "dtypes": [str(d).replace("torch.", "") for d in DTYPES],
        "device": "cpu",
        "method": "one forward with labels (model loss) in train mode under "
        "torch.autograd.graph.saved_tensors_hooks; each saved storage counted once by "
        "untyped_storage().nbytes(); parameter storages counted apart; logits = the returned "
        "logits tensor",
        "configs": FAMILIES,
        "points": [list(p) for p in POINTS],
        "cases": cases,
    }


def dumps(data: dict) -> str:
    """JSON with one line per case point and per saved tensor (short, and diffs stay readable)."""

    def enc(v, depth):
        if isinstance(v, dict) and depth < 3 and "saved_by" not in v:
            inner = ",\n".join(
                " " * (depth + 1) + json.dumps(k) + ": " + enc(x, depth + 1) for k, x in v.items()
            )
            return "{\n" + inner + "\n" + " " * depth + "}"
        if isinstance(v, list) and v and isinstance(v[0], dict):
            inner = ",\n".join(" " * (depth + 1) + enc(x, depth + 1) for x in v)
            return "[\n" + inner + "\n" + " " * depth + "]"
        return json.dumps(v, ensure_ascii=False, separators=(",", ":"))

    return enc(data, 0) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=OUT_PATH)
    args = ap.parse_args(argv)
    data = run()
    args.out.write_text(dumps(data), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
