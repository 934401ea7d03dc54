"""One decoder-only model's architecture, read from a Hugging Face ``config.json``.

Letters follow Korthikanti et al. 2022 where the paper has one (h hidden size, a heads, L layers, V vocabulary);
the other fields are what a parameter or activation count needs beyond the paper's GPT: grouped-query attention,
head_dim ≠ h/a, gated MLPs, RMSNorm, qk-norm, biases, tied embeddings, rotary positions, Mixture of Experts.

Every default below is the default of the family's configuration class in Hugging Face ``transformers``
(5.24.0: ``models/<family>/configuration_<family>.py``) or a value its modelling code hard-codes; a key the
class has no default for must be in the config.
"""

from __future__ import annotations

from dataclasses import dataclass

from c9.base import json_text, units
from c9.base.errors import InputError
from c9.base.json_text import described

FAMILIES = ("gpt2", "llama", "mistral", "qwen2", "qwen3", "mixtral", "qwen3_moe")

# Sane upper limits: a value beyond them is a typo (or a pasted file that is not a model config).
LIMITS = {
    "h": 1 << 17,
    "a": 1 << 12,
    "L": 1 << 12,
    "V": 1 << 22,
    "head_dim": 1 << 12,
    "intermediate": 1 << 20,
    "n_positions": 1 << 22,
    "experts": 1 << 12,
}


# The activation names transformers knows (5.24.0: activations.ACT2CLS); any other fails to build.
ACTIVATIONS = frozenset(
    "gelu gelu_10 gelu_accurate gelu_fast gelu_new gelu_python gelu_python_tanh gelu_pytorch_tanh "
    "hardswish laplace leaky_relu linear mish prelu quick_gelu relu relu2 relu6 sigmoid silu sqrtsoftplus "
    "swish tanh xielu".split()
)


@dataclass(frozen=True)
class Architecture:
    family: str  # the config's model_type, one of FAMILIES
    h: int  # hidden size
    a: int  # attention (query) heads
    L: int  # decoder layers
    kv_heads: int  # key/value heads (= a: multi-head attention; < a: grouped-query attention)
    head_dim: int  # per-head size (h/a unless the config says otherwise)
    intermediate: int  # the dense MLP's inner size (GPT-2: n_inner, default 4h)
    V: int  # vocabulary
    gated_mlp: bool  # SwiGLU-style MLP: gate and up projections, then down (False: fc → act → proj)
    activation: str  # hidden_act / activation_function, e.g. "silu", "gelu_new"
    norm: str  # "layernorm" (weight and bias) or "rmsnorm" (weight only)
    qk_norm: bool  # an RMSNorm over head_dim on queries and keys (Qwen3)
    qkv_bias: bool  # biases on the q, k, v projections
    o_bias: bool  # bias on the attention output projection
    mlp_bias: bool  # biases on the MLP projections
    tied_embeddings: bool  # the output layer reuses the token embedding matrix
    positions: str  # "learned" (a position table, GPT-2) or "rotary" (RoPE: no parameters)
    n_positions: int  # rows of the learned position table; 0 with rotary positions
    embd_dropout: float  # dropout probability on the embeddings' output
    attn_dropout: float  # dropout probability on the attention probabilities
    resid_dropout: float  # dropout probability on each sublayer's output before the residual add
    experts: int = 0  # routed experts per MoE layer (0: dense model)
    experts_per_token: int = 0  # experts each token is routed to (top-k)
    expert_intermediate: int = 0  # one expert's inner size
    moe_layers: int = 0  # layers whose MLP is the MoE block (the others are dense)
    shared_experts: int = 0  # always-on experts beside the routed ones (none in the families supported)
    shared_intermediate: int = 0
    router_bias: bool = False  # the router is a linear h → experts; biased or not
    norm_topk_prob: bool = False  # the top-k routing weights are renormalised to sum 1 (Mixtral always)
    name: str = ""  # a display name, if the config names the model

    @property
    def is_moe(self) -> bool:
        return self.experts > 0


def _load(text_or_dict) -> dict:
    if isinstance(text_or_dict, dict):
        return text_or_dict
    if not isinstance(text_or_dict, str) or not text_or_dict.strip():
        raise InputError("没有配置：请粘贴一个 config.json 的内容")
    d = json_text.loads(text_or_dict, "config.json")
    if not isinstance(d, dict):
        raise InputError(f"config.json 应当是一个以 {{ 开头的对象，这里是{described(d)}")
    return d


class _Reader:
    """Typed reads of config keys, each failing with a Chinese message that names the key."""

    def __init__(self, d: dict):
        self.d = d

    def int(self, key: str, default=None, *, limit: int | None = None, zero_ok: bool = False) -> int:
        v = raw = self.d.get(key, default)
        if v is None:
            raise InputError(f"配置里缺少「{key}」：算这个模型的大小要用到它")
        if isinstance(v, bool) or not isinstance(v, int):
            if isinstance(v, float) and v.is_integer():
                v = int(v)
            else:
                raise InputError(f"「{key}」应当是整数，这里是{described(v)}")
        if v < 0 or (v == 0 and not zero_ok):
            raise InputError(f"「{key}」应当是正整数，这里是{described(raw)}")
        if limit is not None and v > limit:
            raise InputError(
                f"「{key}」应当不超过 {units.number(limit)}，这里是{described(raw)}，大得不合理：请检查配置"
            )
        return v

    def bool(self, key: str, default=None) -> bool:
        v = self.d.get(key, default)
        if not isinstance(v, bool):
            if v is None:
                raise InputError(f"配置里缺少「{key}」")
            raise InputError(f"「{key}」应当是 true 或 false，这里是{described(v)}")
        return v

    def prob(self, key: str, default=0.0) -> float:
        v = self.d.get(key, default)
        if v is None:
            v = 0.0
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < 1:
            raise InputError(f"「{key}」应当是 0 到 1 之间的概率，这里是{described(v)}")
        return float(v)

    def str(self, key: str, default=None) -> str:
        v = self.d.get(key, default)
        if not isinstance(v, str) or not v:
            if v is None:
                raise InputError(f"配置里缺少「{key}」")
            raise InputError(f"「{key}」应当是一段文字，这里是{described(v)}")
        return v

    def activation(self, key: str, default=None) -> str:
        v = self.str(key, default)
        if v not in ACTIVATIONS:
            raise InputError(
                f"「{key}」应当是一个激活函数的名字（例如「silu」「gelu_new」），这里是{described(v)}"
            )
        return v


def _alias(d: dict, key: str, alias: str) -> str:
    """The key a count reads: ``key``, or its alias when only the alias is given (a configuration class's
    attribute_map: MixtralConfig maps num_experts to num_local_experts)."""
    if key not in d and alias in d:
        return alias
    if key in d and alias in d and d[key] != d[alias]:
        raise InputError(f"「{key}」和它的别名「{alias}」给了不同的值：请只留一个")
    return key


def parse_config(text_or_dict) -> Architecture:
    """The architecture a Hugging Face config.json (text or parsed dict) describes, or InputError."""
    d = _load(text_or_dict)
    r = _Reader(d)
    family = d.get("model_type")
    if family is None:
        raise InputError("配置里缺少「model_type」：无法判断是哪一类模型")
    if not isinstance(family, str):
        raise InputError(f"「model_type」应当是一段文字（模型类型的名字），这里是{described(family)}")
    if family not in FAMILIES:
        raise InputError(
            f"不支持的模型类型「model_type」={json_text.quoted(family, 30)}：目前支持 {'、'.join(FAMILIES)}"
        )
    name = d.get("_name_or_path") if isinstance(d.get("_name_or_path"), str) else ""
    return (_gpt2 if family == "gpt2" else _llama_like)(r, family, name[:80])


def _gpt2(r: _Reader, family: str, name: str) -> Architecture:
    # GPT2Config defaults used: n_positions 1024, n_inner None (→ 4 × n_embd in GPT2Block), activation gelu_new,
    # dropouts 0.1, tie_word_embeddings True. The sizes (n_embd, n_head, n_layer, vocab_size) are required.
    h = r.int("n_embd", limit=LIMITS["h"])
    a = r.int("n_head", limit=LIMITS["a"])
    if h % a:
        raise InputError(f"「n_embd」= {h} 不能被「n_head」= {a} 整除")
    inner = r.d.get("n_inner")
    return Architecture(
        family=family,
        h=h,
        a=a,
        L=r.int("n_layer", limit=LIMITS["L"]),
        kv_heads=a,
        head_dim=h // a,
        intermediate=4 * h if inner is None else r.int("n_inner", limit=LIMITS["intermediate"]),
        V=r.int("vocab_size", limit=LIMITS["V"]),
        gated_mlp=False,
        activation=r.activation("activation_function", "gelu_new"),
        norm="layernorm",
        qk_norm=False,
        qkv_bias=True,
        o_bias=True,
        mlp_bias=True,  # GPT-2's Conv1D layers always carry a bias
        tied_embeddings=r.bool("tie_word_embeddings", True),
        positions="learned",
        n_positions=r.int("n_positions", 1024, limit=LIMITS["n_positions"]),
        embd_dropout=r.prob("embd_pdrop", 0.1),
        attn_dropout=r.prob("attn_pdrop", 0.1),
        resid_dropout=r.prob("resid_pdrop", 0.1),
        name=name,
    )


# Per-family defaults of the configuration classes (transformers 5.24.0), only for keys a count needs.
# The sizes themselves (hidden_size, num_attention_heads, num_hidden_layers, intermediate_size, vocab_size,
# and the MoE sizes) are required even though the classes default them: save_pretrained always writes them,
# so a config.json without one is cut short, and a silent 7B-sized default would mislead.
_DEFAULTS = {
    "llama": dict(
        hidden_act="silu",
        tie_word_embeddings=False,
        attention_bias=False,
        mlp_bias=False,
        attention_dropout=0.0,
    ),
    "mistral": dict(
        num_key_value_heads=8, hidden_act="silu", tie_word_embeddings=False, attention_dropout=0.0
    ),
    "qwen2": dict(
        num_key_value_heads=32, hidden_act="silu", tie_word_embeddings=False, attention_dropout=0.0
    ),
    "qwen3": dict(
        num_key_value_heads=32,
        head_dim=128,
        hidden_act="silu",
        tie_word_embeddings=False,
        attention_bias=False,
        attention_dropout=0.0,
    ),
    "mixtral": dict(
        num_key_value_heads=8, hidden_act="silu", tie_word_embeddings=False, attention_dropout=0.0
    ),
    "qwen3_moe": dict(
        num_key_value_heads=4,
        hidden_act="silu",
        tie_word_embeddings=False,
        attention_bias=False,
        attention_dropout=0.0,
        decoder_sparse_step=1,
    ),
}


def _llama_like(r: _Reader, family: str, name: str) -> Architecture:
    df = _DEFAULTS[family]
    r = _Reader({**{k: v for k, v in df.items()}, **r.d})
    h = r.int("hidden_size", limit=LIMITS["h"])
    a = r.int("num_attention_heads", limit=LIMITS["a"])
    L = r.int("num_hidden_layers", limit=LIMITS["L"])
    # num_key_value_heads None → num_attention_heads (every family's __post_init__).
    kv = a if r.d.get("num_key_value_heads") is None else r.int("num_key_value_heads", limit=LIMITS["a"])
    if kv > a:
        raise InputError(f"「num_key_value_heads」= {kv} 不能多于「num_attention_heads」= {a}")
    if a % kv:
        raise InputError(f"「num_attention_heads」= {a} 不能被「num_key_value_heads」= {kv} 整除")
    # head_dim None or absent → hidden_size // num_attention_heads (llama, mistral, mixtral __post_init__;
    # qwen2 and qwen3_moe modelling: getattr(config, "head_dim", h // a)); Qwen3Config's default is 128.
    if r.d.get("head_dim") is None:
        if h % a:
            raise InputError(
                f"「hidden_size」= {h} 不能被「num_attention_heads」= {a} 整除，又没有给「head_dim」"
            )
        hd = h // a
    else:
        hd = r.int("head_dim", limit=LIMITS["head_dim"])
    moe = {}
    if family == "mixtral":  # every layer is MoE; experts are SwiGLU MLPs of intermediate_size
        moe = dict(
            experts=r.int(_alias(r.d, "num_local_experts", "num_experts"), limit=LIMITS["experts"]),
            experts_per_token=r.int("num_experts_per_tok", limit=LIMITS["experts"]),
            expert_intermediate=r.int("intermediate_size", limit=LIMITS["intermediate"]),
            moe_layers=L,
            norm_topk_prob=True,
        )  # MixtralTopKRouter always divides by the top-k sum
    elif family == "qwen3_moe":
        E = r.int("num_experts", limit=LIMITS["experts"], zero_ok=True)
        step = r.int("decoder_sparse_step", limit=LIMITS["L"])
        only = r.d.get("mlp_only_layers") or []
        if not isinstance(only, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in only
        ):
            raise InputError(f"「mlp_only_layers」应当是一列层号（整数），这里是{described(only)}")
        only = set(only)  # a set: the list may be long, and it is asked once per layer
        # Qwen3MoeDecoderLayer: MoE where the layer is not in mlp_only_layers and (i + 1) % step == 0;
        # with num_experts 0 every layer is the dense MLP and no MoE key is read.
        n = sum(1 for i in range(L) if i not in only and (i + 1) % step == 0) if E else 0
        if n:
            moe = dict(
                experts=E,
                experts_per_token=r.int("num_experts_per_tok", limit=LIMITS["experts"]),
                expert_intermediate=r.int("moe_intermediate_size", limit=LIMITS["intermediate"]),
                moe_layers=n,
                norm_topk_prob=r.bool("norm_topk_prob", False),
            )  # Qwen3MoeConfig's default
    if moe and moe["experts_per_token"] > moe["experts"]:
        raise InputError(
            f"「num_experts_per_tok」= {moe['experts_per_token']} 比专家总数 {moe['experts']} 还多"
        )
    # Attention biases: qwen2 hard-codes bias=True on q, k, v (not o); mistral and mixtral none;
    # llama, qwen3, qwen3_moe follow attention_bias on all four.
    ab = {"qwen2": True, "mistral": False, "mixtral": False}.get(family)
    bias = r.bool("attention_bias") if ab is None else ab
    return Architecture(
        family=family,
        h=h,
        a=a,
        L=L,
        kv_heads=kv,
        head_dim=hd,
        intermediate=r.int("intermediate_size", limit=LIMITS["intermediate"]),
        V=r.int("vocab_size", limit=LIMITS["V"]),
        gated_mlp=True,
        activation=r.activation("hidden_act"),
        norm="rmsnorm",
        qk_norm=family in ("qwen3", "qwen3_moe"),
        qkv_bias=bias,
        o_bias=bias if family in ("llama", "qwen3", "qwen3_moe") else False,
        mlp_bias=r.bool("mlp_bias") if family == "llama" else False,
        tied_embeddings=r.bool("tie_word_embeddings"),
        positions="rotary",
        n_positions=0,
        embd_dropout=0.0,
        attn_dropout=r.prob("attention_dropout"),
        resid_dropout=0.0,
        name=name,
        **moe,
    )


def lab_architecture(cfg: dict) -> Architecture:
    """Our lab model (lab/model.py, TinyGPT) from the "model" part of lab/config.json: pre-norm RMSNorm,
    no biases, a fused q/k/v projection (counted here as q, k, v), a GELU MLP of ffn_mult·h, learned positions,
    tied embeddings, no dropout (the module has none)."""
    r = _Reader(cfg)
    h, a = r.int("d_model", limit=LIMITS["h"]), r.int("n_heads", limit=LIMITS["a"])
    if h % a:
        raise InputError(f"「d_model」= {h} 不能被「n_heads」= {a} 整除")
    return Architecture(
        family="lab",
        h=h,
        a=a,
        L=r.int("n_layers", limit=LIMITS["L"]),
        kv_heads=a,
        head_dim=h // a,
        intermediate=r.int("ffn_mult", limit=64) * h,
        V=r.int("vocab_size", limit=LIMITS["V"]),
        gated_mlp=False,
        activation="gelu",
        norm="rmsnorm" if r.str("norm") == "rmsnorm" else "layernorm",
        qk_norm=False,
        qkv_bias=r.bool("bias"),
        o_bias=r.bool("bias"),
        mlp_bias=r.bool("bias"),
        tied_embeddings=r.bool("tied_embeddings"),
        positions=r.str("positional"),
        n_positions=r.int("context", limit=LIMITS["n_positions"]),
        embd_dropout=0.0,
        attn_dropout=0.0,
        resid_dropout=0.0,
        name="lab",
    )
