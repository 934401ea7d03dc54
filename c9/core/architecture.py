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

FAMILIES = (
    "gpt2",
    "llama",
    "mistral",
    "qwen2",
    "qwen3",
    "mixtral",
    "qwen3_moe",
    "deepseek_v3",
    "gemma2",
    "gemma3",
    "gemma3_text",
    "phi3",
    "llava",
    "qwen2_vl",
)

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
    shared_experts: int = 0  # always-on experts beside the routed ones (DeepSeek-V3: n_shared_experts)
    shared_intermediate: int = 0  # the shared experts' MLP inner size (DeepSeek: n_shared × I_e, one MLP)
    router_bias: bool = False  # the router is a linear h → experts; biased or not
    router_correction: bool = False  # DeepSeek-V3's e_score_correction_bias: a buffer, not a parameter
    norm_topk_prob: bool = False  # the top-k routing weights are renormalised to sum 1 (Mixtral always)
    name: str = ""  # a display name, if the config names the model
    wrapper: str = ""  # the vision-language model_type whose language model this is ("" for a text model)
    # DeepSeek-V3's latent attention: (q_lora_rank or 0, kv_lora_rank, qk_nope, qk_rope, v_head_dim)
    mla: tuple[int, int, int, int, int] | None = None
    sandwich_norms: bool = False  # Gemma: norms after attention and after the MLP too (four per layer)
    fused: bool = False  # Phi-3: one qkv_proj and one gate_up_proj matrix
    sliding_window: int = 0  # tokens a sliding-window layer attends to (0: none)
    sliding_layers: int = 0  # layers that use the window
    attn_softcap: float = 0.0  # Gemma 2: tanh soft-capping of the attention scores (0: off)
    logit_softcap: float = 0.0  # Gemma 2: tanh soft-capping of the output logits (0: off)
    left_out: tuple[str, ...] = ()  # what the config describes that the count leaves out, in Chinese

    @property
    def is_moe(self) -> bool:
        return self.experts > 0


def _load(text_or_dict) -> dict:
    if isinstance(text_or_dict, dict):
        return text_or_dict
    if not isinstance(text_or_dict, str) or not text_or_dict.strip():
        raise InputError("没有配置：请粘贴或从文件读入一个 config.json")
    d = json_text.loads(text_or_dict, "config.json")
    if not isinstance(d, dict):
        raise InputError(f"config.json 应当是一个以 {{ 开头的对象，这里是{described(d)}")
    return d


class _Reader:
    """Typed reads of config keys, each failing with a Chinese message that names the key (inside a
    vision-language config, with its place: 「text_config.hidden_size」)."""

    def __init__(self, d: dict, where: str = ""):
        self.d = d
        self.where = where

    def key(self, key: str) -> str:
        return f"「{self.where}{key}」"

    def int(self, key: str, default=None, *, limit: int | None = None, zero_ok: bool = False) -> int:
        v = raw = self.d.get(key, default)
        if v is None:
            raise InputError(f"配置里缺少{self.key(key)}：算这个模型的大小要用到它")
        if isinstance(v, bool) or not isinstance(v, int):
            if isinstance(v, float) and v.is_integer():
                v = int(v)
            else:
                raise InputError(f"{self.key(key)}应当是整数，这里是{described(v)}")
        if v < 0 or (v == 0 and not zero_ok):
            raise InputError(f"{self.key(key)}应当是正整数，这里是{described(raw)}")
        if limit is not None and v > limit:
            raise InputError(
                f"{self.key(key)}应当不超过 {units.number(limit)}，这里是{described(raw)}，大得不合理：请检查配置"
            )
        return v

    def bool(self, key: str, default=None) -> bool:
        v = self.d.get(key, default)
        if not isinstance(v, bool):
            if v is None:
                raise InputError(f"配置里缺少{self.key(key)}")
            raise InputError(f"{self.key(key)}应当是「true」或「false」，这里是{described(v)}")
        return v

    def prob(self, key: str, default=0.0) -> float:
        v = self.d.get(key, default)
        if v is None:
            v = 0.0
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < 1:
            raise InputError(f"{self.key(key)}应当是 0 到 1 之间的概率，这里是{described(v)}")
        return float(v)

    def number(self, key: str, default=None) -> float:
        """A positive number, or 0.0 for null (a soft-capping value: null turns it off)."""
        v = self.d.get(key, default)
        if v is None:
            return 0.0
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < 1e6:
            raise InputError(f"{self.key(key)}应当是正数或「null」，这里是{described(v)}")
        return float(v)

    def str(self, key: str, default=None) -> str:
        v = self.d.get(key, default)
        if not isinstance(v, str) or not v:
            if v is None:
                raise InputError(f"配置里缺少{self.key(key)}")
            raise InputError(f"{self.key(key)}应当是一段文字，这里是{described(v)}")
        return v

    def activation(self, key: str, default=None) -> str:
        v = self.str(key, default)
        if v not in ACTIVATIONS:
            raise InputError(
                f"{self.key(key)}应当是一个激活函数的名字（例如「silu」「gelu_new」），这里是{described(v)}"
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


# Vision-language configs: where the language model's config sits, the model_type it has when the file does
# not say, and how the output layer's tying is read (5.24.0, checked on the built models: Gemma3ForConditional-
# Generation follows the top-level flag, default true; Llava and Qwen2-VL tie when either flag is true).
# The vision tower and the projector are left out of every count.
WRAPPERS = {
    "gemma3": ("text_config", "gemma3_text", "top"),
    "llava": ("text_config", "llama", "either"),
    "qwen2_vl": ("text_config", "qwen2_vl_text", "either"),  # or, in the older files, at the top level
}
VISION_LEFT_OUT = (
    "视觉部分（vision_config 描述的视觉塔和把图像特征接进语言模型的投影层）不在这里：只数语言模型"
)
TEXT_FAMILIES = (
    "llama",
    "mistral",
    "qwen2",
    "qwen3",
    "mixtral",
    "qwen3_moe",
    "gemma2",
    "gemma3_text",
    "phi3",
)


def parse_config(text_or_dict) -> Architecture:
    """The architecture a Hugging Face config.json (text or parsed dict) describes, or InputError. For a
    vision-language config, its language model (the vision tower is named in ``left_out``)."""
    d = _load(text_or_dict)
    family = d.get("model_type")
    if family is None:
        raise InputError("配置里缺少「model_type」：无法判断是哪一类模型")
    if not isinstance(family, str):
        raise InputError(f"「model_type」应当是一段文字（模型类型的名字），这里是{described(family)}")
    if family not in FAMILIES:
        raise InputError(
            f"不支持的模型类型「model_type」={json_text.quoted(family, 30)}：目前支持「{'、'.join(FAMILIES)}」"
        )
    name = d.get("_name_or_path") if isinstance(d.get("_name_or_path"), str) else ""
    if family == "gpt2":
        return _gpt2(_Reader(d), family, name[:80])
    if family not in WRAPPERS:
        return _decoder(_Reader({**_DEFAULTS[family], **d}), family, name[:80])
    key, inner_default, tying = WRAPPERS[family]
    inner = d.get(key)
    if inner is None and family == "qwen2_vl":  # the language model's keys at the top level
        return _decoder(_Reader({**_DEFAULTS[inner_default], **d}), inner_default, name[:80], wrapper=family)
    if not isinstance(inner, dict):
        raise InputError(f"「{key}」应当是语言模型的配置（一个对象），这里是{described(inner)}")
    inner_family = inner.get("model_type", inner_default)
    allowed = (inner_default,) if family != "llava" else TEXT_FAMILIES
    if inner_family not in allowed:
        shown = (
            json_text.quoted(inner_family, 30) if isinstance(inner_family, str) else described(inner_family)
        )
        raise InputError(f"「{key}.model_type」是{shown}：这里支持「{'、'.join(allowed)}」")
    # A sub-config is saved as its difference from the class's defaults, so its sizes may be absent.
    inner = {**_DEFAULTS[inner_family], **_SIZES.get(inner_family, {}), **inner}
    if tying == "top":
        inner["tie_word_embeddings"] = d.get("tie_word_embeddings", True)
    else:
        top = d.get("tie_word_embeddings", False)
        inner["tie_word_embeddings"] = top is True or inner.get("tie_word_embeddings") is True
    return _decoder(_Reader(inner, key + "."), inner_family, name[:80], wrapper=family)


def _gpt2(r: _Reader, family: str, name: str) -> Architecture:
    # GPT2Config defaults used: n_positions 1024, n_inner None (→ 4 × n_embd in GPT2Block), activation gelu_new,
    # dropouts 0.1, tie_word_embeddings True. The sizes (n_embd, n_head, n_layer, vocab_size) are required.
    h = r.int("n_embd", limit=LIMITS["h"])
    a = r.int("n_head", limit=LIMITS["a"])
    if h % a:
        raise InputError(f"「n_embd」= {units.number(h)} 不能被「n_head」= {units.number(a)} 整除")
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
# and the MoE sizes) are required at a config's top level even though the classes default them:
# save_pretrained always writes them there, so a config.json without one is cut short, and a silent
# 7B-sized default would mislead. Inside a vision-language config's text_config they default (_SIZES).
_DEFAULTS = {
    "llama": dict(
        hidden_act="silu",
        tie_word_embeddings=False,
        attention_bias=False,
        mlp_bias=False,
        attention_dropout=0.0,
    ),
    "mistral": dict(
        num_key_value_heads=8,
        hidden_act="silu",
        tie_word_embeddings=False,
        attention_dropout=0.0,
        sliding_window=4096,
    ),
    "qwen2": dict(
        num_key_value_heads=32, hidden_act="silu", tie_word_embeddings=False, attention_dropout=0.0
    ),
    "qwen2_vl_text": dict(
        num_key_value_heads=8, hidden_act="silu", tie_word_embeddings=False, attention_dropout=0.0
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
    "gemma2": dict(
        num_key_value_heads=4,
        head_dim=256,
        hidden_activation="gelu_pytorch_tanh",
        tie_word_embeddings=True,
        attention_bias=False,
        attention_dropout=0.0,
        sliding_window=4096,
        attn_logit_softcapping=50.0,
        final_logit_softcapping=30.0,
    ),
    "gemma3_text": dict(
        num_key_value_heads=4,
        head_dim=256,
        hidden_activation="gelu_pytorch_tanh",
        tie_word_embeddings=True,
        attention_bias=False,
        attention_dropout=0.0,
        sliding_window=4096,
        attn_logit_softcapping=None,
        final_logit_softcapping=None,
        sliding_window_pattern=6,
    ),
    "phi3": dict(
        hidden_act="silu",
        tie_word_embeddings=False,
        attention_dropout=0.0,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        sliding_window=None,
    ),
    "deepseek_v3": dict(
        num_key_value_heads=None,
        hidden_act="silu",
        tie_word_embeddings=False,
        attention_bias=False,
        attention_dropout=0.0,
        first_k_dense_replace=3,
        n_shared_experts=1,
        num_experts_per_tok=8,
        num_nextn_predict_layers=1,
    ),
}
# The size defaults of the classes a text_config may name (transformers 5.24.0).
_SIZES = {
    f: dict(
        zip(("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads"), v)
    )
    for f, v in {
        "llama": (32000, 4096, 11008, 32, 32),
        "mistral": (32000, 4096, 14336, 32, 32),
        "qwen2": (151936, 4096, 22016, 32, 32),
        "qwen3": (151936, 4096, 22016, 32, 32),
        "mixtral": (32000, 4096, 14336, 32, 32),
        "qwen3_moe": (151936, 2048, 6144, 24, 32),
        "gemma2": (256000, 2304, 9216, 26, 8),
        "gemma3_text": (262208, 2304, 9216, 26, 8),
        "phi3": (32064, 3072, 8192, 32, 32),
        "qwen2_vl_text": (152064, 8192, 29568, 80, 64),
    }.items()
}


@dataclass(frozen=True)
class _Code:
    """How a family's modelling code differs from Llama's, for the count (transformers 5.24.0)."""

    qkv_bias: bool | None = None  # None: the config's attention_bias; True/False: hard-coded
    o_bias: bool | None = None  # None: attention_bias
    mlp_bias_key: bool = False  # the MLP's biases follow mlp_bias (Llama only)
    qk_norm: bool = False  # RMSNorm over head_dim on queries and keys (Qwen3, Gemma 3)
    sandwich_norms: bool = False  # Gemma: a norm on each sublayer's output too (four per layer)
    fused: bool = False  # Phi-3: q, k, v in one qkv_proj and gate, up in one gate_up_proj
    activation_key: str = "hidden_act"


_CODE = {
    "llama": _Code(mlp_bias_key=True),
    "mistral": _Code(qkv_bias=False, o_bias=False),
    "qwen2": _Code(qkv_bias=True, o_bias=False),
    "qwen2_vl_text": _Code(qkv_bias=True, o_bias=False),
    "qwen3": _Code(qk_norm=True),
    "mixtral": _Code(qkv_bias=False, o_bias=False),
    "qwen3_moe": _Code(qk_norm=True),
    "gemma2": _Code(sandwich_norms=True, activation_key="hidden_activation"),
    "gemma3_text": _Code(qk_norm=True, sandwich_norms=True, activation_key="hidden_activation"),
    "phi3": _Code(qkv_bias=False, o_bias=False, fused=True),
    "deepseek_v3": _Code(),
}


def _heads(r: _Reader, h: int, a: int, head_dim_key: bool = True) -> tuple[int, int]:
    """(KV heads, head_dim). num_key_value_heads None → num_attention_heads (every family's __post_init__);
    head_dim None or absent → h // a (llama, mistral, mixtral __post_init__; qwen2, qwen3_moe, phi3:
    getattr(config, "head_dim", h // a)); Qwen3Config's and Gemma's defaults are 128 and 256. Without
    ``head_dim_key`` (Qwen2VLAttention: hidden_size // num_heads whatever the config says) always h // a."""
    kv = a if r.d.get("num_key_value_heads") is None else r.int("num_key_value_heads", limit=LIMITS["a"])
    if kv > a:
        raise InputError(
            f"{r.key('num_key_value_heads')}= {units.number(kv)} 不能多于{r.key('num_attention_heads')}= {units.number(a)}"
        )
    if a % kv:
        raise InputError(
            f"{r.key('num_attention_heads')}= {units.number(a)} 不能被{r.key('num_key_value_heads')}= {units.number(kv)} 整除"
        )
    if head_dim_key and r.d.get("head_dim") is not None:
        return kv, r.int("head_dim", limit=LIMITS["head_dim"])
    if h % a:
        raise InputError(
            f"{r.key('hidden_size')}= {units.number(h)} 不能被{r.key('num_attention_heads')}= {units.number(a)} 整除，又没有给{r.key('head_dim')}"
        )
    return kv, h // a


def _sliding(r: _Reader, family: str, L: int) -> tuple[int, int]:
    """(window, layers that use it), as each configuration class sets its layer_types: Gemma 2 alternates
    sliding and full layers, Gemma 3 has one full layer in every sliding_window_pattern (default 6); Qwen2,
    Qwen3 and Qwen3-MoE use a window only with use_sliding_window (Qwen2 and Qwen3 from layer
    max_window_layers on, default 28); Mistral (default window 4,096), Mixtral and Phi-3 on every layer."""
    qwen = family in ("qwen2", "qwen2_vl_text", "qwen3", "qwen3_moe")
    if r.d.get("sliding_window") is None or (qwen and r.d.get("use_sliding_window") is not True):
        return 0, 0
    window = r.int("sliding_window", limit=LIMITS["n_positions"])
    types = r.d.get("layer_types")
    if isinstance(types, list) and len(types) == L:
        return window, sum(1 for t in types if t == "sliding_attention")
    if family == "gemma2":
        return window, (L + 1) // 2  # layers 0, 2, 4, … slide
    if family == "gemma3_text":
        n = r.int("sliding_window_pattern", limit=LIMITS["L"])
        return window, sum(1 for i in range(L) if (i + 1) % n)
    if qwen and family != "qwen3_moe":
        return window, max(L - r.int("max_window_layers", 28, limit=LIMITS["L"], zero_ok=True), 0)
    return window, L


def _decoder(r: _Reader, family: str, name: str, wrapper: str = "") -> Architecture:
    """Every Llama-shaped decoder (and DeepSeek-V3, whose attention and MoE differ): read as the family's
    configuration class and modelling code read it."""
    code = _CODE[family]
    h = r.int("hidden_size", limit=LIMITS["h"])
    a = r.int("num_attention_heads", limit=LIMITS["a"])
    L = r.int("num_hidden_layers", limit=LIMITS["L"])
    kv, hd = _heads(r, h, a, family != "qwen2_vl_text")
    left_out = (VISION_LEFT_OUT,) if wrapper else ()
    mla, moe = None, {}
    if family == "deepseek_v3":
        mla, hd = _mla(r)
        moe, mtp = _deepseek_moe(r, L)
        if mtp:
            left_out += (
                f"配置里的 num_nextn_predict_layers = {units.number(mtp)}（多词元预测 MTP 模块）不在这里："
                "transformers 的模型类不构建它，检查点里的这部分权重加载时被忽略",
            )
    elif family == "mixtral":  # every layer is MoE; experts are SwiGLU MLPs of intermediate_size
        moe = dict(
            experts=r.int(_alias(r.d, "num_local_experts", "num_experts"), limit=LIMITS["experts"]),
            experts_per_token=r.int("num_experts_per_tok", limit=LIMITS["experts"]),
            expert_intermediate=r.int("intermediate_size", limit=LIMITS["intermediate"]),
            moe_layers=L,
            norm_topk_prob=True,
        )  # MixtralTopKRouter always divides by the top-k sum
    elif family == "qwen3_moe":
        moe = _qwen3_moe(r, L)
    if moe and moe["experts_per_token"] > moe["experts"]:
        raise InputError(
            f"{r.key('num_experts_per_tok')}= {moe['experts_per_token']} 比专家总数 {moe['experts']} 还多"
        )
    bias = r.bool("attention_bias") if code.qkv_bias is None or code.o_bias is None else False
    window, sliding = _sliding(r, family, L)
    softcap = {}
    if family.startswith("gemma"):
        softcap = dict(
            attn_softcap=r.number("attn_logit_softcapping"), logit_softcap=r.number("final_logit_softcapping")
        )
    return Architecture(
        family=family,
        h=h,
        a=a,
        L=L,
        kv_heads=kv if mla is None else a,
        head_dim=hd,
        intermediate=r.int("intermediate_size", limit=LIMITS["intermediate"]),
        V=r.int("vocab_size", limit=LIMITS["V"]),
        gated_mlp=True,
        activation=r.activation(code.activation_key),
        norm="rmsnorm",
        qk_norm=code.qk_norm,
        qkv_bias=bias if code.qkv_bias is None else code.qkv_bias,
        o_bias=bias if code.o_bias is None else code.o_bias,
        mlp_bias=r.bool("mlp_bias") if code.mlp_bias_key else False,
        tied_embeddings=r.bool("tie_word_embeddings"),
        positions="rotary",
        n_positions=0,
        embd_dropout=r.prob("embd_pdrop") if family == "phi3" else 0.0,
        attn_dropout=r.prob("attention_dropout"),
        resid_dropout=r.prob("resid_pdrop") if family == "phi3" else 0.0,
        name=name,
        wrapper=wrapper,
        mla=mla,
        sandwich_norms=code.sandwich_norms,
        fused=code.fused,
        sliding_window=window,
        sliding_layers=sliding,
        left_out=left_out,
        **softcap,
        **moe,
    )


def _mla(r: _Reader) -> tuple[tuple[int, int, int, int, int], int]:
    """DeepSeek-V3's multi-head latent attention (DeepseekV3Attention): (q_lora_rank, 0 for a plain q_proj;
    kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim), and the query/key head size nope + rope."""
    q = 0 if r.d.get("q_lora_rank", 1536) is None else r.int("q_lora_rank", 1536, limit=LIMITS["h"])
    kv = r.int("kv_lora_rank", 512, limit=LIMITS["h"])
    nope = r.int("qk_nope_head_dim", 128, limit=LIMITS["head_dim"])
    rope = r.int("qk_rope_head_dim", 64, limit=LIMITS["head_dim"])
    v = r.int("v_head_dim", 128, limit=LIMITS["head_dim"])
    return (q, kv, nope, rope, v), nope + rope


def _deepseek_moe(r: _Reader, L: int) -> tuple[dict, int]:
    """DeepSeek-V3's MoE (DeepseekV3DecoderLayer: layers from first_k_dense_replace on; the shared experts are
    one MLP of n_shared_experts × moe_intermediate_size), and its MTP layers (read, never built)."""
    first = r.int("first_k_dense_replace", limit=LIMITS["L"], zero_ok=True)
    E = r.int(_alias(r.d, "n_routed_experts", "num_local_experts"), 256, limit=LIMITS["experts"])
    Ie = r.int("moe_intermediate_size", limit=LIMITS["intermediate"])
    S = r.int("n_shared_experts", limit=LIMITS["experts"], zero_ok=True)
    mtp = r.int(_alias(r.d, "num_nextn_predict_layers", "num_mtp_layers"), limit=LIMITS["L"], zero_ok=True)
    moe = dict(
        experts=E,
        experts_per_token=r.int("num_experts_per_tok", limit=LIMITS["experts"]),
        expert_intermediate=Ie,
        moe_layers=max(L - first, 0),
        shared_experts=S,
        shared_intermediate=S * Ie,
        norm_topk_prob=r.bool("norm_topk_prob", True),
        router_correction=True,
    )
    return moe, mtp


def _qwen3_moe(r: _Reader, L: int) -> dict:
    E = r.int("num_experts", limit=LIMITS["experts"], zero_ok=True)
    step = r.int("decoder_sparse_step", limit=LIMITS["L"])
    only = r.d.get("mlp_only_layers") or []
    if not isinstance(only, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in only):
        raise InputError(f"{r.key('mlp_only_layers')}应当是一列层号（整数），这里是{described(only)}")
    only = set(only)  # a set: the list may be long, and it is asked once per layer
    # Qwen3MoeDecoderLayer: MoE where the layer is not in mlp_only_layers and (i + 1) % step == 0;
    # with num_experts 0 every layer is the dense MLP and no MoE key is read.
    n = sum(1 for i in range(L) if i not in only and (i + 1) % step == 0) if E else 0
    if not n:
        return {}
    return dict(
        experts=E,
        experts_per_token=r.int("num_experts_per_tok", limit=LIMITS["experts"]),
        expert_intermediate=r.int("moe_intermediate_size", limit=LIMITS["intermediate"]),
        moe_layers=n,
        norm_topk_prob=r.bool("norm_topk_prob", False),
    )  # Qwen3MoeConfig's default


def lab_architecture(cfg: dict) -> Architecture:
    """Our lab model (lab/model.py, TinyGPT) from the "model" part of lab/config.json: pre-norm RMSNorm,
    no biases, a fused q/k/v projection (counted here as q, k, v), a GELU MLP of ffn_mult·h, learned positions,
    tied embeddings, no dropout (the module has none)."""
    r = _Reader(cfg)
    h, a = r.int("d_model", limit=LIMITS["h"]), r.int("n_heads", limit=LIMITS["a"])
    if h % a:
        raise InputError(f"「d_model」= {units.number(h)} 不能被「n_heads」= {units.number(a)} 整除")
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
