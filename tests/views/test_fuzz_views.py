"""Whatever JSON the address or the worker API sends, every widget's ``view`` answers
with a view or a Chinese message, never a Python exception's text.

The rule for a message (``reads_as_chinese``): it contains Chinese, and once the reader's own input
(quoted in 「…」, or any text the request held) is taken out, no run of four or more ASCII letters is left except the names
readers know from the lessons (ALLOWED): so no "ValueError", "Traceback", "could not convert", "float16".
A view that answers must also be JSON without NaN or ±∞ *before* c9.views.api's last guard replaces
them (a view draws and words ∞ itself)."""

from __future__ import annotations

import json
import math
import re

import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from c9.views import api

ALLOWED = {
    "MXFP",
    "NVFP",
    "token",
    "batch",
    "micro",  # micro-batch, the term lesson 5 uses for b
    "GELU",
    "Adam",
    "AdamW",
    "SwiGLU",
    "FlashAttention",
    "Infinity",
    "Python",
    # the memory bar's pasted Hugging Face config: the file's name and the model families it may name
    "config",
    "json",
    "JSON",
    "llama",
    "mistral",
    "qwen",
    "mixtral",
}
QUOTED = re.compile(r"「[^」]*」")
CJK = re.compile(r"[\u4e00-\u9fff]")


def _texts(x) -> list[str]:
    """Every string inside a JSON value (keys too), longest first."""
    if isinstance(x, str):
        return [x]
    if isinstance(x, dict):
        return [t for k, v in x.items() for t in [k, *_texts(v)]]
    if isinstance(x, list):
        return [t for v in x for t in _texts(v)]
    return []


def reads_as_chinese(message: str, sent=None) -> bool:
    """True when ``message`` is Chinese with no English word or exception name outside the reader's own
    input (quoted in 「…」, or part of any text ``sent`` held)."""
    bare = QUOTED.sub("", message)
    own = _texts(sent)
    words = {w for w in re.findall(r"[A-Za-z]{4,}", bare) if not any(w in t for t in own)} - ALLOWED
    return bool(CJK.search(bare)) and not words


def reader_notation(message: str) -> list[str]:
    """What in a message is not reader notation (a repr such as Fraction(…), a run of
    30+ digits, e-notation, a caret power, an ASCII minus), the reader's quoted input left out."""
    from test_text_rules import NOTATION

    bare = QUOTED.sub("「」", message)
    found = [f"{name}：{m.group()}" for name, rule in NOTATION for m in rule.finditer(bare)]
    found += [f"一长串数字：{m.group()[:40]}" for m in re.finditer(r"\d{30,}", bare)]
    # 「65535」 for 「65,535」 (a hex code such as 40490FDB is no integer: letters or a point beside it)
    unseparated = re.finditer(r"(?<![\dA-Fa-fxX.,])\d{5,29}(?![\dA-Fa-f.,])", bare)
    return found + [f"没有千位分隔符：{m.group()}" for m in unseparated]


def test_the_notation_check_catches_the_qa_examples():
    assert reader_notation(
        "输入有误：第 1 行第 1 列是 Fraction(1000000"
        + "0" * 400
        + ", 1)：必须是有限数，且在 FP32 范围 ±3.4e38 之内"
    )
    assert (
        reader_notation("「1.00000e+400」超出了 FP32 的范围") == []
    )  # quoted: judged as the reader's text …
    assert reader_notation("参数量要在 10^8 到 10^12 之间，收到的是约 1e+20")
    assert not reader_notation("第 1 行第 1 列「1e400」超出了 FP32 的范围（±3.4×10³⁸）")
    assert reader_notation("FP16 的编码 -1 超出范围：16 位编码只能是 0 … 65535") == [
        "半角减号当负号（应写 −）：-",
        "没有千位分隔符：65535",
    ]
    assert not reader_notation("编码 40490FDB（十六进制）；0.00001；65,535；「65535」")


def test_the_check_catches_english_and_lets_quoted_input_and_format_names_through():
    assert not reads_as_chinese("计算出错：ValueError: Out of range float values are not JSON compliant: inf")
    assert not reads_as_chinese("could not convert string to float: 'x'")
    assert not reads_as_chinese("不认识的格式 float16")
    assert reads_as_chinese("没有这个模型：「gpt-nine」")
    assert reads_as_chinese("FP16、BF16、E4M3、MXFP4 里没有 NaN")


WIDGETS_WITH_VIEW = [n for n in api.WIDGETS if getattr(api.widget_module(n), "view", None) is not None]
PARAM_NAMES = {n: sorted(api.widget_module(n).view({})["params"]) for n in WIDGETS_WITH_VIEW}
# Texts a reader, an old link or a hand-made address could send.
TRICKY = st.sampled_from(
    [
        "",
        " ",
        "nan",
        "-nan",
        "NaN",
        "inf",
        "-inf",
        "Infinity",
        "∞",
        "-0",
        "0",
        "1",
        "-1",
        "65536",
        "4294967296",
        "1e999",
        "1e-999",
        "1e-330",
        "70000",
        "65504",
        "1e6",
        "-60000",
        "1000",
        "1,5",
        "8,192",
        "８，１９２",
        "１２．５",
        "0x7E",
        "0x1p-24",
        "2^-24",
        "2⁻²⁴",
        "1e309",
        "9" * 80,
        "abc",
        "null",
        "float16",
        "bfloat16",
        "fp8",
        "float32,float16",
        "float16,float16",
        "lab",
        "stand-in",
        "typed",
        "generated",
        "qwen3.8-27b",
        "gpt-9",
        "bf16_mixed_adamw",
        "fp8_recipe",
        "store_all",
        "selective",
        "full",
        "zero",
        "per_tensor_e4m3",
        "mxfp4",
        "1000, 0, 0\n0.01, 0.02, 0.5",
        "1, abc",
        "1e-330, 1",
        "[1, 2]; [3]",
        "<script>",
        # the memory bar's config (a pasted config.json) and card
        '{"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 2, "vocab_size": 100}',
        '{"model_type": "llama"}',
        '{"model_type": "bert"}',
        '{"model_type": "llama", "hidden_size": 40970, "num_attention_heads": 32, "num_hidden_layers": 2,'
        ' "intermediate_size": 11008, "vocab_size": 32000}',
        '{"model_type": "gpt2", "n_embd": 1e400}',
        "{",
        "h100-80gb",
        "rtx-4090-24gb",
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    TRICKY,
    st.text(max_size=30),
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def requests(draw, widget):
    names = PARAM_NAMES[widget]
    params = {k: draw(JSON_VALUES) for k in draw(st.lists(st.sampled_from(names), unique=True))}
    if draw(st.integers(0, 9)) == 0:
        params[draw(st.text(max_size=8))] = draw(JSON_VALUES)  # a name the widget does not take
    return params


@pytest.mark.parametrize("widget", WIDGETS_WITH_VIEW)
@settings(max_examples=examples(600), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_view_answers_any_json_with_a_view_or_a_chinese_message(widget, data):
    params = data.draw(requests(widget))
    answer = json.loads(api.handle(json.dumps({"widget": widget, "params": params})))
    if answer["ok"]:
        view = api.widget_module(widget).view(params)
        json.dumps(view, allow_nan=False)  # no NaN or ±∞ left for the last guard
    else:
        assert reads_as_chinese(answer["error"], params), (params, answer["error"])
        assert not reader_notation(answer["error"]), (params, answer["error"])
        assert answer["error"] != api.INTERNAL_ERROR, params  # bad input is named, never a crash


@pytest.mark.parametrize(
    "request_text",
    [
        "",
        "[]",
        "null",
        '{"widget": "bit-flipper", "params": []}',
        '{"widget": ["bit-flipper"]}',
        '{"widget": "pattern-table"}',
        '{"widget": "bit-flipper", "params": {"value": NaN}}',
    ],
)
def test_a_malformed_request_gets_a_chinese_message(request_text):
    answer = json.loads(api.handle(request_text))
    assert answer["ok"] or reads_as_chinese(answer["error"])


def test_an_unexpected_failure_is_reported_in_chinese(monkeypatch):
    from c9.views import mx_nv

    def broken(params):
        raise ValueError("Out of range float values are not JSON compliant: inf")

    monkeypatch.setattr(mx_nv, "view", broken)
    answer = json.loads(api.handle(json.dumps({"widget": "mx-nv", "params": {}})))
    assert answer == {"ok": False, "error": api.INTERNAL_ERROR} and reads_as_chinese(api.INTERNAL_ERROR)


def test_the_last_guard_turns_non_finite_floats_into_null():
    assert api.json_safe({"a": [1.0, math.inf, -math.inf, math.nan], "b": "∞"}) == {
        "a": [1.0, None, None, None],
        "b": "∞",
    }
