"""The exercises' checker (c9/core/exercises.py), as mutation tests: for every exercise the reference
solution passes, and every wrong answer in its library fails, on the case where it first differs, with
its own hint. The oracle for the right answers is independent of the chapter's codec: struct's
float32 packing for BF16 (round to nearest even, as the hardware does) and the OCP table of E4M3FN
values built here from the spec's formula; the ledger's 16 bytes come from ZeRO's 2 + 2 + 12."""

from __future__ import annotations

import json
import math
import re
import struct
from fractions import Fraction
from pathlib import Path

import pytest

from c9.core import exercises as E

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("ex", E.EXERCISES.values(), ids=lambda e: e.id)
def test_the_reference_solution_passes_every_case(ex):
    out = E.check(ex, ex.solution)
    assert out.passed, (out.case, out.message)
    assert out.tried == out.total == len(ex.cases) > 0


MISTAKES = [(ex, m) for ex in E.EXERCISES.values() for m in ex.mistakes]


@pytest.mark.parametrize("ex,mistake", MISTAKES, ids=[f"{e.id}-{m.key}" for e, m in MISTAKES])
def test_each_known_wrong_answer_fails_with_its_own_hint(ex, mistake):
    out = E.check(ex, mistake.source)
    assert not out.passed
    assert out.mistake == mistake.key and out.hint == mistake.hint
    # the hints are distinct, so "its own hint" means something
    assert [m.hint for m in ex.mistakes].count(mistake.hint) == 1
    # the case named is the first one that differs, with the reader's and the right answer
    assert out.case["got"] != out.case["want"]
    right = E.load(ex.solution, ex.function)
    wrong = E.load(mistake.source, ex.function)
    first = next(
        i for i, (_, x) in enumerate(ex.cases) if not ex.same(E.answer(ex, wrong, x), E.answer(ex, right, x))
    )
    assert out.tried == first


def test_the_library_names_the_typical_mistakes():
    keys = {ex.id: {m.key for m in ex.mistakes} for ex in E.EXERCISES.values()}
    assert {"truncate", "half_up"} <= keys["bf16-round"]
    assert {"ieee_240", "half_up", "truncate", "no_subnormals"} <= keys["e4m3-encode"]
    assert {"fp32_gradient", "both_gradients", "no_master"} <= keys["ledger-bytes"]
    assert {"half_up", "truncate", "flush_subnormals", "saturate_65504"} <= keys["fp16-encode"]
    assert {"half_up", "no_saturation"} <= keys["e2m1-encode"]
    assert {"flash_keeps_s2", "element_size_twice"} <= keys["activation-bytes"]
    assert {"mean_scale", "ieee_240", "no_scale"} <= keys["tile-1x128"]
    assert {"b_not_rounded", "scale_448", "no_tensor_scale"} <= keys["nvfp4-block"]


# ---- the right answers against oracles of their own -------------------------------------------------


def _bf16_by_struct(bits: int) -> int:
    """BF16 of an FP32 pattern, by float64 arithmetic: round the value to 8 significant bits, ties to even."""
    x = struct.unpack("<f", struct.pack("<I", bits))[0]
    if x != x:
        return -1  # NaN: any NaN code
    if math.isinf(x) or x == 0:
        return bits >> 16
    m, e = math.frexp(abs(x))
    q = round(m * 256) if e - 8 >= -133 else round(abs(x) * 2.0**133)  # below 2^-126 the step is 2^-133
    y = math.ldexp(q, e - 8) if e - 8 >= -133 else math.ldexp(q, -133)
    y = math.copysign(y, x)
    if abs(y) >= 2.0**128:
        return (bits >> 16 & 0x8000) | 0x7F80
    return struct.unpack("<I", struct.pack("<f", y))[0] >> 16


def test_bf16_cases_agree_with_an_oracle_of_float_arithmetic():
    ex = E.BF16
    for _, bits in ex.cases:
        want = _bf16_by_struct(bits)
        got = ex.right(bits)
        if want == -1:
            assert (got >> 7) & 0xFF == 0xFF and got & 0x7F, hex(bits)
        else:
            assert got == want, hex(bits)
    labels = {label for label, _ in ex.cases}
    assert {"恰好一半的平局", "次正规数", "溢出", "负零", "NaN"} <= labels


def _e4m3_values() -> list[float]:
    """OCP OFP8 §5.1: E4M3FN positive values, from the formula (bias 7, 3 mantissa bits, 1111.111 NaN)."""
    out = []
    for code in range(0x7F):
        e, m = code >> 3, code & 7
        out.append(m * 2.0**-9 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))
    return out


def test_e4m3_cases_cover_every_code_and_tie_and_agree_with_the_spec_table():
    ex = E.E4M3
    values = _e4m3_values()
    assert max(values) == 448
    xs = [x for _, x in ex.cases]
    for v in values[1:]:  # every finite code's value, both signs
        assert v in xs and -v in xs
    for a, b in zip(values, values[1:]):
        assert (a + b) / 2 in xs  # every tie
    for x in xs:
        if x != x:
            continue
        a = abs(x)
        best = min(range(len(values)), key=lambda c: (abs(values[c] - a), c & 1))  # nearest, ties to even
        want = 0x7E if a >= 448 else best
        want |= 0x80 if math.copysign(1, x) < 0 else 0
        assert ex.right(x) == want, x


@pytest.mark.parametrize("n", [1, 1000, 7_000_000_000])
def test_the_ledger_answer_is_zeros_sixteen_bytes(n):
    assert E.LEDGER.right(n) == (2 + 2 + 12) * n


def _fp16_by_struct(x: float) -> int:
    """FP16 of a float by struct's "e" packing (round to nearest even); past 65504 it refuses: infinity."""
    try:
        return struct.unpack("<H", struct.pack("<e", x))[0]
    except OverflowError:
        return 0xFC00 if x < 0 else 0x7C00


def _fp16_value(code: int) -> float:
    """IEEE 754 binary16 from its fields: bias 15, 10 mantissa bits, exponent 0 subnormal."""
    e, m = code >> 10 & 0x1F, code & 0x3FF
    return m * 2.0**-24 if e == 0 else (1 + m / 1024) * 2.0 ** (e - 15)


def test_fp16_cases_agree_with_struct_and_cover_every_binades_ties_and_edges():
    ex = E.FP16
    for _, x in ex.cases:
        assert struct.unpack("<f", struct.pack("<f", x))[0] == x or x != x, x  # every input is an FP32 value
        want, got = _fp16_by_struct(x), ex.right(x)
        if x != x:
            assert got >> 10 & 0x1F == 0x1F and got & 0x3FF, x
        else:
            assert got == want, x
    xs = {abs(x) for _, x in ex.cases}
    for e in range(31):  # a tie with an even and with an odd lower neighbour in every binade
        for m in (0, 1):
            lo = e << 10 | m
            assert (_fp16_value(lo) + _fp16_value(lo + 1)) / 2 in xs, (e, m)
    assert {2.0**-24, 2.0**-25, 2.0**-14, 1023.5 * 2.0**-24, 65504.0, 65520.0, math.inf} <= xs
    signs = {math.copysign(1, x) for _, x in ex.cases if x == 0}
    assert signs == {1.0, -1.0}
    assert ex.right(65520.0) == 0x7C00 and ex.right(65519.0) == 0x7BFF and ex.right(-0.0) == 0x8000
    labels = {label for label, _ in ex.cases}
    assert {"恰好一半的平局", "次正规数的边界", "最大的有限数", "溢出", "负零", "NaN"} <= labels


def _e2m1_values() -> list[float]:
    """OCP MX v1.0 §5.3.3: E2M1 positive values, from the formula (bias 1, 1 mantissa bit, no Inf/NaN)."""
    return [m * 0.5 if e == 0 else (1 + m / 2) * 2.0 ** (e - 1) for e in range(4) for m in range(2)]


def test_e2m1_cases_cover_every_code_and_tie_and_agree_with_the_spec_table():
    ex = E.E2M1
    values = _e2m1_values()
    assert values == [0, 0.5, 1, 1.5, 2, 3, 4, 6]
    xs = [x for _, x in ex.cases]
    for v in values[1:]:
        assert v in xs and -v in xs
    for a, b in zip(values, values[1:]):
        assert (a + b) / 2 in xs and -(a + b) / 2 in xs
    assert any(abs(x) > 6 for x in xs) and math.inf in xs and -math.inf in xs
    for x in xs:
        a = min(abs(x), 6.0)  # saturate first: far past 6, float differences would tie with 0
        best = min(range(8), key=lambda c: (abs(values[c] - a), c & 1))  # nearest, ties to even
        assert ex.right(x) == best | (8 if math.copysign(1, x) < 0 else 0), x


def _nearest_code(values: list, x) -> int:
    """The code of x (exact) on a table of non-negative values: nearest, ties to the even code, saturating."""
    a = min(abs(Fraction(x)), Fraction(values[-1]))
    return min(range(len(values)), key=lambda c: (abs(Fraction(values[c]) - a), c & 1))


def _signed(values: list, x, sign_bit: int) -> int:
    return _nearest_code(values, x) | (sign_bit if x < 0 else 0)


def _fp32_of(x) -> float:
    return struct.unpack("<f", struct.pack("<f", float(x)))[0]


def test_tile_cases_agree_with_deepseeks_rule_from_the_spec_table():
    # DeepSeek-V3 §3.3.1 as the chapter states it: s = FP32(448 / amax), codes E4M3FN(x · s), all-zero s = 1
    ex = E.TILE_1X128
    values = _e4m3_values()
    for _, xs in ex.cases:
        assert len(xs) == 128 and all(_fp32_of(v) == v for v in xs)
        amax = max(abs(v) for v in xs)
        s = 1.0 if amax == 0 else _fp32_of(Fraction(448) / Fraction(amax))
        want = (s, tuple(_signed(values, Fraction(v) * Fraction(s), 0x80) for v in xs))
        assert ex.right(xs) == want
    labels = {label for label, _ in ex.cases}
    assert {"有离群值的小块", "全零的小块", "含平局的小块", "全是负数"} <= labels
    tie = next(xs for label, xs in ex.cases if label == "含平局的小块")
    assert ex.right(tie)[0] == 2 and ex.right(tie)[1][1:3] == (0x58, 0x5A)  # 17 → 16, 19 → 20
    assert ex.right((0.0,) * 128) == (1.0, (0,) * 128)


def test_nvfp4_cases_agree_with_nvidias_two_level_rule_from_the_spec_tables():
    # arXiv:2509.25149 §2: t = FP32(amax_tensor / (448 · 6)), b = E4M3(amax_block / (6t)), q = E2M1(v / (b t))
    ex = E.NVFP4
    e4m3, e2m1 = _e4m3_values(), _e2m1_values()
    ts = set()
    for _, x in ex.cases:
        assert len(x.block) == 16 and x.tensor_amax >= max(abs(v) for v in x.block)
        t = Fraction(_fp32_of(Fraction(x.tensor_amax) / 2688))
        ts.add(t)
        amax = max(abs(Fraction(v)) for v in x.block)
        code = _nearest_code(e4m3, amax / (6 * t))
        b = Fraction(e4m3[code])
        qs = tuple(
            (8 if v < 0 else 0) if b == 0 else _signed(e2m1, Fraction(v) / (b * t), 8) for v in x.block
        )
        assert ex.right(x) == (code, qs), x
        assert Fraction(E._nvfp4_t(x)) == t
    assert len(ts) > 2 and 1 in ts
    labels = {label for label, _ in ex.cases}
    assert {"全零的块", "块缩放舍入成 0", "块缩放和元素都有平局"} <= labels
    tie = next(x for label, x in ex.cases if label == "块缩放和元素都有平局")
    assert ex.right(tie)[0] == 0x58 and ex.right(tie)[1][:2] == (7, 4)  # b 17 → 16; 6.375 → 6; 2.5 → 2


# Korthikanti et al. 2022, §4's table of what one layer keeps: bytes per s·b·h, and per a·s²·b.
_PER_SBH = {"qkv_in": 2, "q_k": 4, "v": 2, "out_proj_in": 2, "attn_mask": 1, "mlp_in": 2, "gelu_in": 8}
_PER_SBH |= {"gelu_out": 8, "mlp_mask": 1, "layernorms": 4}
_PER_SCORE = {"softmax_out": 2, "dropout_mask": 1, "dropout_out": 2}


def _layer_bytes(s, b, h, a, mode) -> int:
    linear = sum(_PER_SBH.values()) * s * b * h
    return linear + (sum(_PER_SCORE.values()) * a * s * s * b if mode == "store_all" else 0)


def test_activation_cases_are_the_files_model_shapes_and_agree_with_the_papers_table():
    ex = E.ACTIVATIONS
    facts = json.loads((Path(__file__).parents[2] / "anchor-model.json").read_text(encoding="utf-8"))
    shapes = {(m["hidden_size"], m["num_attention_heads"]) for m in facts["models"].values()}
    xs = [x for _, x in ex.cases]
    assert shapes <= {(x.h, x.a) for x in xs}
    assert {x.mode for x in xs} == {"store_all", "selective", "flash"}
    for x in xs:
        assert ex.right(x) == _layer_bytes(x.s, x.b, x.h, x.a, x.mode), x
    anchor = next(x for x in xs if (x.h, x.a) == (5120, 24) and x.s == 32768 and x.mode == "flash")
    assert ex.right(anchor) == 34 * 32768 * 4 * 5120


def test_an_activation_answer_in_floats_is_still_right_but_not_twice_it():
    src = "def activation_bytes(s, b, h, a, mode):\n    return s * b * h * (34 + (5 * a * s / h if mode == 'store_all' else 0))\n"
    assert E.check(E.ACTIVATIONS, src).passed
    out = E.check(E.ACTIVATIONS, src.replace("return s", "return 1.0000001 * s"))
    assert not out.passed and out.tried == 0


# ---- the reader's code failing ------------------------------------------------------------------


@pytest.mark.parametrize(
    "source,line",
    [
        ("def encode_e4m3(x):\n    y = 1\n    return y / 0\n", 3),
        ("import math\ndef encode_e4m3(x):\n    return undefined_name\n", 3),
        ("def encode_e4m3(x)\n    return 0\n", 1),
        ("def encode_e4m3(x):\n    return encode_e4m3(x)\n", 2),
        ("raise ValueError('boom')\n", 1),
    ],
)
def test_a_failing_run_is_a_chinese_message_with_the_line(source, line):
    out = E.check(E.E4M3, source)
    assert not out.passed
    assert f"第 {line} 行" in out.message
    for english in ("Error", "Traceback", "boom", "line", "File"):
        assert english not in out.message


def test_a_missing_function_and_a_wrong_type_are_named():
    assert "没有找到函数 encode_e4m3" in E.check(E.E4M3, "def f(x):\n    return 0\n").message
    out = E.check(E.E4M3, "def encode_e4m3(x):\n    return 1.5\n")
    assert "整数" in out.message and not out.passed
    out = E.check(E.BF16, "def bf16_from_fp32_bits(bits):\n    return bits\n")
    assert "0 到 65,535" in out.message
    out = E.check(E.FP16, "def encode_fp16(x):\n    return -1\n")
    assert "返回值应当在 0 到 65,535 之间（16 位码字），你的函数返回了 −1。" in out.message


def test_any_nan_code_is_a_nan_and_nothing_else_is():
    src = E.E4M3.solution.replace("return 0x7F  #", "return 0xFF  #")
    assert E.check(E.E4M3, src).passed
    src = E.E4M3.solution.replace("return 0x7F  #", "return 0x7E  #")
    out = E.check(E.E4M3, src)
    assert not out.passed and out.case["label"] == "NaN"


def test_an_unknown_wrong_answer_gets_the_cases_hint_not_a_far_mistakes():
    # returns 0 everywhere: no library entry is near it, so the hint is the case's own
    out = E.check(E.E4M3, "def encode_e4m3(x):\n    return 0\n")
    assert out.mistake == "" and out.hint == E.E4M3.case_hints["每个码字的值"]


CJK = r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]"  # Chinese characters and full-width punctuation


@pytest.mark.parametrize("ex", E.EXERCISES.values(), ids=lambda e: e.id)
def test_an_error_names_the_case_and_its_input_in_one_readable_phrase(ex):
    out = E.check(ex, f"def {ex.function}(*args):\n    return 1 / 0\n")
    label, x = ex.cases[0]
    assert out.message == f"在情形「{label}」下（输入：{ex.show_in(x)}），第 2 行出错：除以了零。"
    assert not re.search(f"{CJK} +{CJK}", out.message), out.message  # no space between Chinese words
    assert not re.search(r"输入 |：）|（：", out.message), out.message


def test_the_activation_case_reads_as_one_phrase():
    out = E.check(E.ACTIVATIONS, "def activation_bytes(s, b, h, a, mode):\n    x = 1\n    return x / 0\n")
    assert out.message == (
        '在情形「全存」下（输入：小例子的一层，s = 4，b = 1，h = 8，a = 2，mode = "store_all"），第 3 行出错：除以了零。'
    )


def test_input_in_an_exercise_says_there_is_no_keyboard():
    out = E.check(E.ACTIVATIONS, "def activation_bytes(s, b, h, a, mode):\n    return int(input('?'))\n")
    assert out.message.endswith("第 2 行出错：页面里的 Python 读不到键盘输入（input() 用不了）。"), (
        out.message
    )
