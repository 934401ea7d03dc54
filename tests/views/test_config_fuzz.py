"""Malformed config.json texts pasted into lesson 5's estimator: each kind is answered quickly, with a view
or a short Chinese refusal that shows no Python repr ("nan", "True", "['llama']", "{'a': 1}", a number of
hundreds of digits), in CPython and in the page's Pyodide (tests/pyodide_runner.mjs).

The kinds: what a fuzz of 76 malformed configs and bug reports from other config readers tried,
among them the six that once got through: 6,000 levels of nesting (it killed the page's Python), a
qwen3_moe with 49,865 entries in mlp_only_layers (seconds per answer), reprs in messages, 1e300 and a
400-digit integer printed in full, Mixtral's num_experts alias and a qwen3_moe without experts."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import textwrap
import time

import pytest
from conftest import ROOT
from test_fuzz_views import reader_notation, reads_as_chinese

from c9.core.models import CONFIG_MAX, load_facts
from c9.views import api

LLAMA = load_facts()["models"]["llama-3.1-8b"]["config"]
QWEN_MOE = load_facts()["models"]["qwen3-30b-a3b"]["config"]
GPT2 = load_facts()["models"]["gpt2-xl"]["config"]
PASTED = {k: v["config"] for k, v in load_facts()["pasted_configs"].items() if k != "about"}
# Mixtral-8x7B's sizes (mistralai/Mixtral-8x7B-v0.1 config.json), its experts under MixtralConfig's alias.
MIXTRAL_8X7B = {
    "model_type": "mixtral",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "num_experts_per_tok": 2,
    "vocab_size": 32000,
    "tie_word_embeddings": False,
}
MIXTRAL_8X7B_TOTAL = 46_702_792_704  # the parameters transformers' MixtralForCausalLM builds of it

# A Python repr or a run of digits no reader notation writes: never in a message, even inside 「」
# (the one exception: the reader's own text, shown as 文字「…」).
REPR = re.compile(r"\b(?:nan|inf|True|False|None)\b|\[['\"]|\{['\"]|\d{16,}|e\+\d")
MAX_MESSAGE = 200  # characters: a refusal names the key, the kind of value and what was expected
MAX_SECONDS = 2.0


def nested(n: int, open_: str = "[", close: str = "]") -> str:
    return open_ * n + close * n


def deep_object(n: int) -> str:
    return '{"a": ' * n + "1" + "}" * n


def with_(base: dict, **changes) -> dict:
    out = {**base, **changes}
    return {k: v for k, v in out.items() if v is not DROP}


DROP = object()

# Values that break a key expecting a positive integer (JSON's NaN/Infinity literals included: Python's
# json reads them, as transformers does).
BAD_INTEGERS = {
    "text": "4096x",
    "fraction": 1.5,
    "zero": 0,
    "negative": -3,
    "huge": 10**400,
    "huge_negative": -(10**400),
    "1e300": 1e300,
    "nan": float("nan"),
    "inf": float("inf"),
    "bool": True,
    "list": [4096],
    "object": {"a": 1},
}
INT_KEYS = ["hidden_size", "num_attention_heads", "num_hidden_layers", "vocab_size", "intermediate_size"]


# A minimal qwen3_moe of 4,096 layers whose mlp_only_layers lists 49,865 layer numbers (0-9 over and over,
# written compactly to fit the 100,000 characters a paste may have): the list is asked once per layer.
LONG_MLP_ONLY = json.dumps(
    {
        "model_type": "qwen3_moe",
        "hidden_size": 64,
        "num_attention_heads": 4,
        "num_hidden_layers": 4096,
        "intermediate_size": 128,
        "moe_intermediate_size": 32,
        "num_experts": 8,
        "num_experts_per_tok": 2,
        "vocab_size": 1000,
        "mlp_only_layers": [i % 10 for i in range(49_865)],
    },
    separators=(",", ":"),
)


def _text(config) -> str:
    return config if isinstance(config, str) else json.dumps(config)


def _cases() -> list[tuple[str, str, bool]]:
    """(kind, pasted text, answered): ``answered`` True where transformers builds the model."""
    c: list[tuple[str, object, bool]] = [
        ("blank", " \n\t", True),  # no config: the chosen model is shown
        ("open brace", "{", False),
        ("not json", "{not json", False),
        ("trailing comma", '{"model_type": "llama",}', False),
        ("python dict repr", str({"model_type": "llama", "hidden_size": 64}), False),
        ("unterminated string", '{"model_type": "llama', False),
        ("byte order mark", "\ufeff" + json.dumps(LLAMA), False),
        ("array", "[1, 2]", False),
        ("null", "null", False),
        ("string", '"llama"', False),
        ("number", "42", False),
        ("too long", "{" + " " * CONFIG_MAX + "}", False),
        ("6,000 levels of arrays", nested(6000), False),
        ("6,000 levels of objects", deep_object(6000), False),
        ("49,000 levels of arrays", nested(49_000), False),
        ("65 levels inside the config", with_(LLAMA, extra=json.loads(nested(64))), False),
        ("deep brackets inside a string", with_(LLAMA, _name_or_path=nested(3000)), True),
        ("5,000-digit integer", '{"model_type": "llama", "hidden_size": 1' + "0" * 5000 + "}", False),
        ("NaN literal", json.dumps(LLAMA)[:-1] + ', "vocab_size": NaN}', False),
        ("Infinity literal", json.dumps(LLAMA)[:-1] + ', "hidden_size": Infinity}', False),
        ("-Infinity literal", json.dumps(LLAMA)[:-1] + ', "hidden_size": -Infinity}', False),
        ("1e400", json.dumps(LLAMA)[:-1] + ', "vocab_size": 1e400}', False),
        ("duplicate key", json.dumps(LLAMA)[:-1] + ', "model_type": "llama"}', True),
        ("no model_type", with_(LLAMA, model_type=DROP), False),
        ("model_type null", with_(LLAMA, model_type=None), False),
        ("unknown model_type", with_(LLAMA, model_type="bert"), False),
        ("model_type list", with_(LLAMA, model_type=["llama"]), False),
        ("model_type object", with_(LLAMA, model_type={"a": 1}), False),
        ("model_type bool", with_(LLAMA, model_type=True), False),
        ("model_type number", with_(LLAMA, model_type=5), False),
        ("model_type empty", with_(LLAMA, model_type=""), False),
        ("model_type 10,000 characters", with_(LLAMA, model_type="x" * 10_000), False),
        ("model_type markup", with_(LLAMA, model_type="<script>alert(1)</script>"), False),
        ("kv heads 5 of 32", with_(LLAMA, num_key_value_heads=5), False),
        ("kv heads above heads", with_(LLAMA, num_key_value_heads=64), False),
        ("kv heads NaN", with_(LLAMA, num_key_value_heads=float("nan")), False),
        ("head_dim text", with_(LLAMA, head_dim="128"), False),
        ("head_dim null", with_(LLAMA, head_dim=None), True),  # None: h / a, as LlamaConfig does
        ("heads do not divide h", with_(LLAMA, num_attention_heads=31, num_key_value_heads=31), False),
        ("tied text", with_(LLAMA, tie_word_embeddings="no"), False),
        ("tied number", with_(LLAMA, tie_word_embeddings=1), False),
        ("tied list", with_(LLAMA, tie_word_embeddings=[True]), False),
        ("dropout 2", with_(LLAMA, attention_dropout=2), False),
        ("dropout negative", with_(LLAMA, attention_dropout=-0.1), False),
        ("dropout NaN", with_(LLAMA, attention_dropout=float("nan")), False),
        ("dropout bool", with_(LLAMA, attention_dropout=True), False),
        ("dropout text", with_(LLAMA, attention_dropout="0.1"), False),
        ("activation unknown", with_(LLAMA, hidden_act="swiglu-x"), False),
        ("activation number", with_(LLAMA, hidden_act=5), False),
        ("activation 10,000 characters", with_(LLAMA, hidden_act="s" * 10_000), False),
        ("mlp_bias text", with_(LLAMA, mlp_bias="false"), False),
        ("gpt2 heads do not divide", with_(GPT2, n_head=7), False),
        ("gpt2 n_embd fraction", with_(GPT2, n_embd=1.5), False),
        ("gpt2 n_inner text", with_(GPT2, n_inner="x"), False),
        ("gpt2 activation list", with_(GPT2, activation_function=["gelu"]), False),
        ("mixtral num_experts alias", with_(MIXTRAL_8X7B, num_experts=8), True),
        ("mixtral both names differ", with_(MIXTRAL_8X7B, num_experts=8, num_local_experts=4), False),
        ("mixtral no experts", MIXTRAL_8X7B, False),
        (
            "mixtral top-k above experts",
            with_(MIXTRAL_8X7B, num_local_experts=2, num_experts_per_tok=3),
            False,
        ),
        ("qwen3_moe without experts", with_(QWEN_MOE, num_experts=0), True),
        ("qwen3_moe num_experts null", with_(QWEN_MOE, num_experts=None), False),
        ("qwen3_moe top-k above experts", with_(QWEN_MOE, num_experts_per_tok=500), False),
        ("mlp_only_layers text", with_(QWEN_MOE, mlp_only_layers="all"), False),
        ("mlp_only_layers fractions", with_(QWEN_MOE, mlp_only_layers=[1.5]), False),
        ("mlp_only_layers bools", with_(QWEN_MOE, mlp_only_layers=[True]), False),
        ("mlp_only_layers object", with_(QWEN_MOE, mlp_only_layers={"a": 1}), False),
        ("49,865 mlp_only_layers over 4,096 layers", LONG_MLP_ONLY, True),
        ("decoder_sparse_step 0", with_(QWEN_MOE, decoder_sparse_step=0), False),
        ("deepseek q_lora_rank text", with_(PASTED["deepseek-v3"], q_lora_rank="1536"), False),
        ("deepseek experts both names differ", with_(PASTED["deepseek-v3"], num_local_experts=8), False),
        (
            "deepseek first_k_dense_replace negative",
            with_(PASTED["deepseek-v3"], first_k_dense_replace=-1),
            False,
        ),
        ("gemma soft-capping text", with_(PASTED["gemma-2-9b"], final_logit_softcapping="30"), False),
        ("gemma sliding_window NaN", with_(PASTED["gemma-2-9b"], sliding_window=float("nan")), False),
        ("text_config a list", with_(PASTED["gemma-3-4b-it"], text_config=[1]), False),
        (
            "text_config of another family",
            with_(PASTED["llava-1.5-7b"], text_config={"model_type": "bert"}),
            False,
        ),
        (
            "text_config hidden_size text",
            with_(PASTED["llava-1.5-7b"], text_config={"hidden_size": "4k"}),
            False,
        ),
        ("norm_topk_prob text", with_(QWEN_MOE, norm_topk_prob="yes"), False),
    ]
    for key in INT_KEYS:
        c.append((f"{key} missing", with_(LLAMA, **{key: DROP}), False))
        for name, v in BAD_INTEGERS.items():
            c.append((f"{key} {name}", with_(LLAMA, **{key: v}), False))
    c += [(f"real {key}", PASTED[key], True) for key in PASTED]
    return [(kind, _text(config), answered) for kind, config, answered in c]


CASES = _cases()


def ask(text: str) -> tuple[dict, float]:
    request = json.dumps({"widget": "memory-bar", "params": {"config": text}})
    t0 = time.perf_counter()
    answer = json.loads(api.handle(request))
    return answer, time.perf_counter() - t0


def refusal_problems(message: str, sent_text: str) -> list[str]:
    found = []
    if not reads_as_chinese(message, sent_text if len(sent_text) < 2000 else None):
        found.append("not Chinese")
    bare = re.sub(r"文字「[^」]*」", "文字「」", message)  # the reader's own text may hold anything
    found += [f"repr {m.group()!r}" for m in REPR.finditer(bare)]
    found += reader_notation(message)
    if len(message) > MAX_MESSAGE:
        found.append(f"{len(message)} characters")
    if "内部出错" in message:
        found.append("an internal error")
    return found


def test_there_are_enough_kinds_and_each_is_named_once():
    kinds = [k for k, _, _ in CASES]
    assert len(kinds) >= 76 and len(set(kinds)) == len(kinds)


def test_the_checks_catch_what_the_fuzz_found():
    # the messages the fuzz once got back
    assert refusal_problems("「vocab_size」应当是整数，这里是「nan」", "")
    assert refusal_problems("「tie_word_embeddings」应当是 true 或 false，这里是「True」", "")
    assert refusal_problems("不支持的模型类型「model_type」=「['llama']」", "")
    assert refusal_problems("「hidden_size」应当是整数，这里是「{'a': 1}」", "")
    assert refusal_problems("「hidden_size」= " + "1" + "0" * 300 + " 大得不合理", "")
    assert not refusal_problems("「hidden_size」应当是整数，这里是小数 1.5", "")


@pytest.mark.parametrize("kind,text,answered", CASES, ids=[k for k, _, _ in CASES])
def test_each_kind_is_answered_quickly_in_chinese(kind, text, answered):
    answer, seconds = ask(text)
    assert seconds < MAX_SECONDS, f"{kind}: {seconds:.2f} s"
    if answered:
        assert answer["ok"], answer.get("error")
    else:
        assert not answer["ok"], kind
        assert refusal_problems(answer["error"], text) == [], answer["error"]


def test_the_six_kinds_get_their_own_answers():
    by_kind = {k: t for k, t, _ in CASES}
    assert "嵌套超过了 64 层" in ask(by_kind["6,000 levels of arrays"])[0]["error"]
    assert "嵌套超过了 64 层" in ask(by_kind["65 levels inside the config"])[0]["error"]
    assert ask(by_kind["NaN literal"])[0]["error"] == "「vocab_size」应当是整数，这里是非数 NaN"
    assert (
        ask(by_kind["tied number"])[0]["error"]
        == "「tie_word_embeddings」应当是「true」或「false」，这里是整数 1"
    )
    assert "列表（1 项）" in ask(by_kind["model_type list"])[0]["error"]
    assert ask(by_kind["hidden_size 1e300"])[0]["error"].endswith(
        "这里是小数 1×10³⁰⁰，大得不合理：请检查配置"
    )
    assert "整数约 1×10⁴⁰⁰" in ask(by_kind["hidden_size huge"])[0]["error"]
    assert "整数约 1×10⁵⁰⁰⁰" in ask(by_kind["5,000-digit integer"])[0]["error"]
    mixtral = ask(by_kind["mixtral num_experts alias"])[0]["view"]
    assert mixtral["parameter_total"] == MIXTRAL_8X7B_TOTAL
    dense = ask(by_kind["qwen3_moe without experts"])[0]["view"]
    assert "专家" not in json.dumps(dense["detail"], ensure_ascii=False)


def test_a_request_nested_too_deep_is_refused_before_parsing():
    answer = json.loads(api.handle('{"widget": "memory-bar", "params": {"s": ' + nested(6000) + "}}"))
    assert answer["error"].startswith("请求的参数嵌套超过了 64 层")
    assert api.nearby('{"widget": "memory-bar", "params": {"s": ' + nested(6000) + "}}") == []
    assert json.loads(api.handle("{")) == {"ok": False, "error": "请求不是合法的 JSON"}


# --- the same cases in the page's Python -----------------------------------------------------------------

JOB = textwrap.dedent("""
    import json, time
    from c9.views import api
    api.handle('{"widget": "memory-bar", "params": {}}')  # the widget's modules imported, as on the page
    out = []
    for kind, text in json.loads(CASES):
        request = json.dumps({"widget": "memory-bar", "params": {"config": text}})
        t0 = time.perf_counter()
        answer = json.loads(api.handle(request))
        out.append([kind, time.perf_counter() - t0, answer["ok"], answer.get("error", "")])
    RESULT = json.dumps(out, ensure_ascii=False)
""")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_each_kind_in_pyodide(tmp_path):
    script = tmp_path / "fuzz.py"
    script.write_text(f"CASES = {json.dumps([[k, t] for k, t, _ in CASES])!r}\n" + JOB, encoding="utf-8")
    run = subprocess.run(
        ["node", str(ROOT / "tests" / "pyodide_runner.mjs"), str(script)],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    results = json.loads(run.stdout)
    expected = {k: (t, answered) for k, t, answered in CASES}
    assert [r[0] for r in results] == list(expected)
    slow = [(k, round(s, 2)) for k, s, _, _ in results if s >= MAX_SECONDS]
    assert slow == []
    for kind, _, ok, error in results:
        text, answered = expected[kind]
        assert ok == answered, (kind, error)
        if not ok:
            assert refusal_problems(error, text) == [], (kind, error)
