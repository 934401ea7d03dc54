"""The widgets store a typed number by the seed's rule (FP32 first, then the format) and say so beside a
row, or in the summary, where one rounding of the exact value would give another result. Checked through
the worker's entry point (c9.views.api.handle) against the oracles of tests/fp32_oracle.py: ml_dtypes /
numpy on the float32 value, and one rounding as the nearest of the library's values by exact distance."""

from __future__ import annotations

import functools
import json
from decimal import Decimal
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from c9.core import formats as F
from c9.views import api
from tests.fp32_oracle import f32_oracle, lib_code, nearest_code

FLIPPERS = {  # the bit flipper as each lesson places it
    "lesson 2": "float16,float32",
    "lesson 3": "float32,float16,bfloat16",
    "lesson 4": "float8_e4m3fn,float8_e5m2",
    "fp4": "float4_e2m1fn,float8_e8m0fnu",
}
TEXTS = [
    "257.0000001",  # lesson 3: BF16 256 by FP32 first, 258 by one rounding
    "1.0039062500001",
    "1.000488281250001",
    "1.0625000001",
    "1.1250000001",
    "-431.99999999999994",
    "2.5000000001",
    "-2.5000000001",
    "1.4999999999",
    "0.7499999999",
    "0.1",
    "1e-8",
    "257",
    "1.0001",
    "3",
    "-2.7",
]


def ask(widget, **params) -> dict:
    out = json.loads(api.handle(json.dumps({"widget": widget, "params": params})))
    assert out["ok"], out
    return out["view"]


def hex_of(fmt: str, code: int) -> str:
    return f"0x{code:0{(F.get_format(fmt).bits + 3) // 4}X}"


def test_lesson_3s_257_0000001_through_the_worker():
    v = ask("bit-flipper", formats=FLIPPERS["lesson 3"], value="257.0000001")
    rows = {r["format"]: r for r in v["rows"]}
    bf16 = rows["bfloat16"]
    assert bf16["code"] == lib_code("bfloat16", f32_oracle(Fraction("257.0000001"))) == 0x4380
    assert (bf16["hex"], bf16["exact"]) == ("0x4380", "256")
    assert nearest_code("bfloat16", Fraction("257.0000001")) == 0x4381  # one rounding would give 258
    note = bf16["double"]
    for part in (
        "257.0000001",
        "FP32 是 257",
        "256 与 258 正中",
        "平局取偶",
        "256（0x4380）",
        "258（0x4381）",
    ):
        assert part in note, (part, note)
    assert rows["float32"]["hex"] == "0x43808000" and rows["float32"]["double"] is None
    assert rows["float16"]["double"] is None
    assert "BF16 存成 256（正规数，0x4380，直接舍入一次会是 258）" in v["summary"]


@pytest.mark.parametrize("lesson", FLIPPERS)
@pytest.mark.parametrize("text", TEXTS)
def test_each_row_is_fp32_first_and_notes_exactly_where_one_rounding_differs(lesson, text):
    x = Fraction(Decimal(text))
    v = ask("bit-flipper", formats=FLIPPERS[lesson], value=text)
    x32 = f32_oracle(x)
    for r in v["rows"]:
        fmt = r["format"]
        via = lib_code(fmt, x32)
        assert r["code"] == via, (fmt, text)
        once = nearest_code(fmt, x)
        assert (r["double"] is not None) == (via != once), (fmt, text, r["double"])
        if r["double"]:
            assert f"（{hex_of(fmt, via)}）" in r["double"] and f"（{hex_of(fmt, once)}）" in r["double"]
            assert text in r["double"] and "先存成 FP32" in r["double"]


def test_an_fp32_underflow_is_named_where_e8m0_has_no_zero():
    v = ask("bit-flipper", formats=FLIPPERS["fp4"], value="1e-50")
    e8 = next(r for r in v["rows"] if r["format"] == "float8_e8m0fnu")
    assert e8["code"] == lib_code("float8_e8m0fnu", f32_oracle(Fraction("1e-50"))) == 0xFF  # NaN
    assert "下溢成了 0" in e8["double"] and "2⁻¹²⁷（0x00）" in e8["double"]
    assert e8["error_text"] == "变成了 NaN：先存成 FP32 时已下溢成 0，而 E8M0 没有 0"


@functools.cache
def _midpoints(fmt: str) -> list[Fraction]:
    """The rounding midpoints of ``fmt`` between 2⁻²⁰ and 2²⁰ (short decimals), from the library's values."""
    dt = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}.get(fmt)
    f = F.get_format(fmt)
    vals = [F.decode_exact(f, c) for c in range(f.max_code + 1)]
    if dt is not None:  # the 16-bit formats' values as the library decodes them
        assert vals == [Fraction(float(v)) for v in np.arange(f.max_code + 1, dtype=np.uint16).view(dt)]
    mids = [(a + b) / 2 for a, b in zip(vals, vals[1:])]
    return [m for m in mids if Fraction(1, 2**20) <= m <= 2**20]


def _decimal_near_a_tie(fmt: str, data) -> tuple[str, Fraction]:
    """A decimal text a reader could type: a rounding midpoint of ``fmt`` in [2⁻²⁰, 2²⁰] with a 1 added or
    taken away ten digits past its last one (far inside FP32's half spacing), and its exact value."""
    f = F.get_format(fmt)
    mid = data.draw(st.sampled_from(_midpoints(fmt)), label="midpoint")
    text = format(Decimal(mid.numerator) / Decimal(mid.denominator), "f")
    places = len(text.partition(".")[2])
    step = Decimal(1).scaleb(-(places + 10))
    side = data.draw(st.sampled_from((-1, 1)), label="side")
    value = Decimal(text) + side * step
    neg = data.draw(st.booleans(), label="negative") and f.signed
    out = format(-value if neg else value, "f")
    return out, Fraction(Decimal(out))


@settings(max_examples=examples(60), deadline=None)
@given(lesson=st.sampled_from(list(FLIPPERS)), data=st.data())
def test_typed_decimals_next_to_a_tie_through_the_worker(lesson, data):
    formats = FLIPPERS[lesson].split(",")
    fmt = data.draw(st.sampled_from([f for f in formats if f != "float32"]), label="format")
    text, x = _decimal_near_a_tie(fmt, data)
    assert len(text) <= 60
    v = ask("bit-flipper", formats=FLIPPERS[lesson], value=text)
    for r in v["rows"]:
        via, once = lib_code(r["format"], f32_oracle(x)), nearest_code(r["format"], x)
        assert r["code"] == via, (r["format"], text)
        assert (r["double"] is not None) == (via != once), (r["format"], text)
        assert r["double"] is None or f"输入的 {text} 先存成 FP32" in r["double"]  # the value as typed, whole


# ------------------------------------------------------------------ the other widgets that take typed numbers


def test_the_repeated_update_stores_w0_and_delta_fp32_first():
    v = ask("repeated-update", fmt="bfloat16", w0="257.0000001", delta="1", steps=3)
    w = ml_dtypes.bfloat16(np.float32(f32_oracle(Fraction("257.0000001"))))
    for _ in range(3):
        w = ml_dtypes.bfloat16(np.float32(w) + np.float32(1))
    assert v["final"]["low"] == float(w) == 256.0
    assert "初值 w₀ = 257.0000001 先存成 FP32 是 257" in v["summary"] and "258（0x4381）" in v["summary"]
    v = ask("repeated-update", fmt="float16", w0="0", delta="1.000488281250001", steps=2)
    d = np.float16(np.float32(f32_oracle(Fraction("1.000488281250001"))))
    assert d == 1.0 and v["final"]["low"] == float(np.float16(np.float32(d) + np.float32(d))) == 2.0
    assert "增量 Δ = 1.000488281250001" in v["summary"] and "1.0009765625（0x3C01）" in v["summary"]
    assert "两次舍入" not in ask("repeated-update")["summary"]


def test_the_mx_nv_block_is_stored_fp32_first():
    v = ask("mx-nv", text="2.5000000001, 6, 1")
    # MX: amax 6, X = 2^(⌊log₂ 6⌋ − 2) = 1, so the element is E2M1 of the FP32 value itself
    x32 = f32_oracle(Fraction("2.5000000001"))
    assert v["rows"][0]["mx"]["code"] == lib_code("float4_e2m1fn", x32) == 0x4
    assert nearest_code("float4_e2m1fn", Fraction("2.5000000001")) == 0x5
    assert (
        "第 1 个数的 2.5000000001 先存成 FP32 是 2.5，MXFP4 还原为 2；若直接量化精确值，会还原为 3"
        in v["summary"]
    )
    assert "两次舍入" not in ask("mx-nv")["summary"]
    tiny = ask("mx-nv", text="1e-330, 1")
    assert "1 个数太小，先存成 FP32 时就已是 0" in tiny["summary"] and tiny["mx"]["zeroed"] == 1


def test_the_block_labs_typed_tensor_is_stored_fp32_first():
    v = ask("block-lab", source="typed", text="232.00000001, 448", scheme="per_tensor_e4m3")
    # one scale for the tensor: s = FP32(448 / 448) = 1, so 232.00000001 is E4M3 of its FP32 value
    x32 = f32_oracle(Fraction("232.00000001"))
    via = float(np.array([x32], np.float32).astype(ml_dtypes.float8_e4m3fn).astype(np.float64)[0])
    once = nearest_code("float8_e4m3fn", Fraction("232.00000001"))
    assert (via, F.decode("float8_e4m3fn", once)) == (224.0, 240.0)
    assert (
        "第 1 行第 1 列的 232.00000001 先存成 FP32 是 232，按「整张量一个缩放」量化后还原为 224；若直接量化精确值，会还原为 240"
        in v["summary"]
    )
    tiny = ask("block-lab", source="typed", text="1e-330, 1", scheme="mxfp4")
    assert "其中 1 个数太小，先存成 FP32 时就已是 0" in tiny["summary"] and tiny["max_rel_text"] == "100.0%"
    assert "两次舍入" not in ask("block-lab", source="typed", scheme="mxfp4")["summary"]
