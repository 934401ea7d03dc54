"""Lessons 1–3: the ledger, bit-flipper, repeated-update and loss-scale views, and their figures, against
independent oracles (ml_dtypes / numpy with float32 inputs, closed forms worked out by hand)."""

from __future__ import annotations

import json
import math
import random
import re
import time
from fractions import Fraction

import ml_dtypes
import numpy as np
import plotly.graph_objects as go
import pytest
from conftest import ROOT

from c9.base import palette, typed
from c9.base.errors import InputError
from c9.figures import lessons123 as lessons123_figures
from c9.views import api, bit_flipper, loss_scale, repeated_update
from c9.views import ledger as ledger_chart
from c9.views.part_colors import LABEL_COLORS, LABEL_PATTERNS

PSI = 27_781_427_952
LEDGER_HTML = (ROOT / "c9" / "views" / "ledger.html").read_text(encoding="utf-8")
QWEN3_8B = 8_190_735_360
NP = {"float16": np.float16, "float32": np.float32, "bfloat16": ml_dtypes.bfloat16}
UINT = {"float16": np.uint16, "float32": np.uint32, "bfloat16": np.uint16}


def ask(widget, **params):
    return json.loads(api.handle(json.dumps({"widget": widget, "params": params})))


def oracle_code(fmt: str, x: float) -> int:
    """The code ml_dtypes / numpy give a float32 input (every test input here is a float32 value)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return int(np.array([x], dtype=np.float32).astype(NP[fmt]).view(UINT[fmt])[0])


def oracle_value(fmt: str, code: int) -> float:
    return float(np.array([code], dtype=UINT[fmt]).view(NP[fmt])[0])


# ---------------------------------------------------------------- lesson 1: ledger


def test_ledger_default_is_the_anchor_at_16_bytes_against_the_card():
    v = ledger_chart.view()
    fp32, mixed, weights = v["bars"][:3]
    assert fp32["bytes"] == mixed["bytes"] == 16 * PSI  # mixed precision does not shrink model states
    assert weights["bytes"] == 2 * PSI and weights["fits"] and not mixed["fits"]
    assert "444.5 GB" in v["summary"] and "55.6 GB" in v["summary"] and "5.6 倍" in v["summary"]
    assert [p["bytes"] for p in mixed["parts"]] == [2 * PSI, 2 * PSI, 4 * PSI, 4 * PSI, 4 * PSI]
    fig = go.Figure(v["figure"])
    assert fig.layout.shapes[0].x0 == 80  # the card, in GB


@pytest.mark.timeout(60)
@pytest.mark.parametrize("model, psi", [("qwen3-8b", QWEN3_8B), ("qwen3.8-27b", PSI)])
def test_ledger_fp8_bars_and_their_open_rows(model, psi):
    """The FP8 recipes' bars: DeepSeek-V3 4 + 4 + 2 + 2 = 12 B (its FP8 copy open), TE 18 B on Hopper and
    18 + 2/32 B with MXFP8; the summary quotes the least of them against BF16 mixed precision's 16 B."""
    v = ask("ledger", model=model)["view"]
    bars = {b["key"]: b for b in v["bars"]}
    assert bars["deepseek_v3_fp8"]["bytes"] == 12 * psi
    assert bars["te_fp8_delayed"]["bytes"] == 18 * psi
    assert bars["te_mxfp8"]["bytes"] == 18 * psi + -(-psi // 16)
    assert bars["te_mxfp8"]["bytes_per_param"] == "18.0625"
    share = Fraction(12, 16)
    assert f"是 BF16 混合精度的 {float(share):.1%}" in v["summary"]
    html = ledger_chart.page_context()
    notes = {r["key"]: r for r in html["fp8_notes"]}
    assert [o["label"] for o in notes["deepseek_v3_fp8"]["open"]] == ["FP8 权重（矩阵乘用）"]
    assert all(r["cite"] for r in notes.values())


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "model, psi, sr_gb, kahan_gb",
    # 8Ψ and 10Ψ by hand: 65.525… and 81.907… GB; 222.251… and 277.814… GB
    [("qwen3-8b", QWEN3_8B, "65.5 GB", "81.9 GB"), ("qwen3.8-27b", PSI, "222.3 GB", "277.8 GB")],
)
def test_ledger_pure_bf16_bars_and_their_notes(model, psi, sr_gb, kahan_gb):
    v = ask("ledger", model=model)["view"]
    bars = {b["key"]: b for b in v["bars"]}
    assert bars["bf16_pure_sr"]["bytes"] == 8 * psi and bars["bf16_pure_kahan"]["bytes"] == 10 * psi
    assert bars["bf16_pure_kahan"]["parts"][1] == {
        "key": "kahan",
        "label": "Kahan 补偿（BF16）",
        "bytes": 2 * psi,
    }
    assert (
        f"随机舍入是 {sr_gb}（8 字节/参数），加一份 Kahan 补偿是 {kahan_gb}（10 字节/参数）" in v["summary"]
    )
    notes = {r["key"]: r for r in ledger_chart.page_context()["pure_notes"]}
    assert set(notes) == {"bf16_pure_sr", "bf16_pure_kahan"} and all(r["cite"] for r in notes.values())


@pytest.mark.timeout(60)
@pytest.mark.parametrize("model, psi", [("qwen3-8b", QWEN3_8B), ("qwen3.8-27b", PSI)])
def test_ledger_other_tools_rows_are_their_formulas_split_into_the_ledgers_rows(model, psi):
    """Each tool's row for the model on screen: the bytes its own formula gives on one GPU (DeepSpeed ZeRO-2
    4Ψ + 16Ψ, ZeRO-3 18Ψ without the largest layer, accelerate's largest stage 2 × 4Ψ, the HF docs' 6 + 4 + 8,
    the Playbook widget's 2 + 2 + 12, Megatron's 18), the parts adding up as shown to the total as shown."""
    v = ask("ledger", model=model)["view"]
    rows = {t["key"]: t for t in ledger_chart.page_context(model=model)["tools"]}
    assert v["tools"] == [{"key": t["key"], "bytes": t["bytes"], "cells": t["cells"]} for t in rows.values()]
    expected = {
        "ledger": 16,
        "deepspeed_zero2": 4 + 16,
        "deepspeed_zero3": 18,
        "accelerate": 8,
        "hf_docs": 6 + 4 + 8,
        "playbook_widget": 2 + 2 + 12,
        "megatron": 18,
    }
    assert {k: r["bytes"] for k, r in rows.items()} == {k: per * psi for k, per in expected.items()}
    for r in rows.values():
        total, gib = (Fraction(c.split()[0].replace(",", "")) for c in r["cells"])
        assert abs(total - Fraction(r["bytes"], 10**9)) <= Fraction(1, 20), r["key"]  # one decimal
        assert abs(gib - Fraction(r["bytes"], 2**30)) <= Fraction(1, 20), r["key"]
        # the split, bytes per parameter, adds up to the row's total per parameter
        *terms, per = r["parts_text"].split(" = ")
        # each term ends in its bytes (「Adam m、v（FP32）8」: no space after a full-width bracket)
        got = sum(int(re.search(r"(\d+)$", t).group(1)) for t in terms[0].split(" + "))
        assert got == int(per) == expected[r["key"]]
        assert r["key"] == "ledger" or r["cite"]
    # accelerate counts only its largest stage: the two FP32 Adam states
    assert rows["accelerate"]["parts_text"] == "Adam m、v（FP32）8 = 8"
    # 20Ψ / 2³⁰ by hand: 152.56… GiB (Qwen3-8B), 517.47… GiB (the anchor), as DeepSpeed would print it
    assert rows["deepspeed_zero2"]["cells"][1] == {QWEN3_8B: "152.6 GiB", PSI: "517.5 GiB"}[psi]


@pytest.mark.parametrize("key, per", [("zero", 16), ("hf", 18), ("playbook", 20), ("fp32", 16)])
def test_each_convention_sums_its_parts(key, per):
    v = ask("ledger", model="qwen3-8b", convention=key)["view"]
    row = next(c for c in v["conventions"] if c["key"] == key)
    assert row["bytes_per_param"] == per and row["total_bytes"] == per * QWEN3_8B
    assert sum(p["bytes"] for p in row["parts"]) == per * QWEN3_8B
    assert v["chosen"] == key
    go.Figure(v["figure"])


def test_zero_papers_example_7_5b_is_120_gb():
    figs = {f["name"]: f for f in lessons123_figures.figures()}
    assert figs["l1_zero_gb"]["value"] == 120 * 10**9 and figs["l1_zero_gb"]["text"] == "120 GB"
    assert figs["l1_conv18_anchor"]["value"] == 18 * PSI and figs["l1_conv20_anchor"]["value"] == 20 * PSI


@pytest.mark.parametrize("x", [8.0, 9.5, 12.0, "10.7"])
def test_ledger_slider_is_a_log10_parameter_count(x):
    v = ledger_chart.view({"model": "custom", "log10_params": x})
    n = round(10 ** float(x))
    assert v["params"]["param_total"] == n and v["bars"][1]["bytes"] == 16 * n


def _fill(trace: dict, scheme: str) -> tuple[str, str]:
    """What a bar trace is filled with on ``scheme``: its role's colour there, and its pattern ("" for none)."""
    marker = trace["marker"]
    return palette.colour(marker["color"], scheme), marker.get("pattern", {}).get("shape", "")


def test_every_legend_entry_of_the_ledger_chart_is_its_own_fill():
    """The chart stacks every recipe's parts and one convention in one figure under one legend (up to 16
    entries): a reader matches a segment to its entry by its fill alone. In every state the widget can show
    (each model, each convention, the slider's ends and middle), on both schemes, no two entries share a
    colour and pattern, and each entry's segments are all drawn in its fill. 「梯度（FP32）」 and
    「权重梯度（FP32）」, 「FP8 权重」 and 「MXFP8 权重（按行）」, 「FP8 权重转置」 and 「MXFP8 权重（按列）」 shared one."""
    states = [
        {"model": m, "convention": c, **({"log10_params": x} if m == "custom" else {})}
        for c in ledger_chart.CONVENTIONS
        for m in ledger_chart.MODELS + ["custom"]
        for x in ([8.0, 10.0, 12.0] if m == "custom" else [None])
    ]
    assert len(states) == 4 * (2 + 3)
    names = set()
    for params in states:
        data = ledger_chart.view(params)["figure"]["data"]
        for scheme in (palette.LIGHT, palette.DARK):
            fills: dict[str, set] = {}
            for t in data:
                fills.setdefault(t["name"], set()).add(_fill(t, scheme))
            assert {n: f for n, f in fills.items() if len(f) > 1} == {}, (params, scheme)
            by_fill: dict[tuple, list[str]] = {}
            for n, (f,) in fills.items():
                by_fill.setdefault(f, []).append(n)
            assert [ns for ns in by_fill.values() if len(ns) > 1] == [], (params, scheme)
            # the legend lists each name once, and every name drawn is in it
            shown_names = [t["name"] for t in data if t["showlegend"]]
            assert sorted(shown_names) == sorted(fills)
        names |= set(fills)
    # every legend entry the view knows was drawn in some state: 16, the count the chart's height is set for
    assert names == set(LABEL_COLORS) and len(names) == 16


def test_parts_whose_colours_a_colour_blind_reader_confuses_differ_in_pattern():
    """Reader check: under a deuteranopia simulation 「梯度（BF16）」 and 「Adam m（BF16）」 were 1.2 apart, and the
    chart told its 16 parts apart by colour alone. Any two parts whose colours lie closer than 10 in CAM02-UCS
    (colorspacious: Machado et al. 2009 at full severity for the three dichromacies, and normal vision), on
    either scheme, now differ in pattern; and the pattern reaches the figure."""
    import colorspacious

    def rgb(label, scheme):
        value = palette.colour(LABEL_COLORS[label], scheme)
        return np.array([int(value[i : i + 2], 16) / 255 for i in (1, 3, 5)])

    labels = list(LABEL_COLORS)
    confused = set()
    for scheme in (palette.LIGHT, palette.DARK):
        for cvd in (None, "deuteranomaly", "protanomaly", "tritanomaly"):
            seen = {}
            for label in labels:
                seen[label] = rgb(label, scheme)
                if cvd:
                    space = {"name": "sRGB1+CVD", "cvd_type": cvd, "severity": 100}
                    seen[label] = np.clip(colorspacious.cspace_convert(seen[label], space, "sRGB1"), 0, 1)
            for i, a in enumerate(labels):
                for b in labels[i + 1 :]:
                    if colorspacious.deltaE(seen[a], seen[b], input_space="sRGB1") < 10:
                        confused.add((a, b))
    assert (
        "梯度（BF16）",
        "Adam m（BF16）",
    ) in confused  # the pair the reader check found: the test can see it
    same = [(a, b) for a, b in confused if LABEL_PATTERNS[a] == LABEL_PATTERNS[b]]
    assert same == [], same
    data = ledger_chart.view()["figure"]["data"]
    assert {t["name"]: t["marker"].get("pattern", {}).get("shape", "") for t in data} == LABEL_PATTERNS


@pytest.mark.parametrize(
    "params, words",
    [
        ({"model": "gpt9"}, "没有这个模型"),
        ({"model": "custom", "log10_params": "abc"}, "要是数字"),
        ({"model": "custom", "log10_params": float("nan")}, "有限"),
        ({"model": "custom", "log10_params": 13}, "之间"),
        ({"model": "custom", "log10_params": ""}, "要是数字"),
        ({"convention": "x"}, "没有这种口径"),
        ({"zz": 1}, "不认识"),
    ],
)
def test_ledger_bad_input_gets_a_chinese_message(params, words):
    out = ask("ledger", **params)
    assert not out["ok"] and words in out["error"]


# ---------------------------------------------------------------- lessons 2–3: bit flipper

VALUES = [
    1.0,
    1e-8,
    70000.0,
    257.0,
    1.0001,
    1.001,
    0.1,
    -2.5,
    6e-8,
    3e-8,
    65504.0,
    65520.0,
    1e-40,
    3.4e38,
    0.0,
    -0.0,
]


@pytest.mark.parametrize("x", VALUES)
def test_typed_value_matches_ml_dtypes_in_each_format(x):
    # float32 inputs: the oracle's float32 → format cast is then a single rounding, like ours.
    x32 = float(np.float32(x))
    v = bit_flipper.view({"formats": "float32,float16,bfloat16", "value": repr(x32)})
    for row in v["rows"]:
        code = oracle_code(row["format"], x32)
        assert row["code"] == code, (row["format"], x32)
        assert row["hex"] == f"0x{code:0{len(row['hex']) - 2}X}"
        bits = "".join("1" if b["on"] else "0" for b in row["bits"])
        assert int(bits, 2) == code


def test_the_lessons_three_fp16_numbers_and_bf16_257():
    rows = lambda value, fmts="float16,float32": {
        r["format"]: r for r in bit_flipper.view({"formats": fmts, "value": value})["rows"]
    }
    assert rows("1e-8")["float16"]["cls"] == "zero"
    assert rows("1.0001")["float16"]["exact"] == "1"
    assert rows("70000")["float16"]["cls"] == "infinity" and rows("70000")["float16"]["value_text"] == "+∞"
    r = rows("257", "float32,float16,bfloat16")
    assert r["bfloat16"]["exact"] == "256" and r["float16"]["exact"] == "257"


@pytest.mark.parametrize("fmt", ["float16", "bfloat16"])
def test_every_bit_of_random_codes_decodes_like_ml_dtypes(fmt):
    rng = random.Random(4)
    for code in [0, 1, 0x3C00, 0x7BFF, 0x7C00, 0x8001] + [rng.randrange(1 << 16) for _ in range(40)]:
        row = next(r for r in bit_flipper.view({"formats": fmt, "source": fmt, "code": code})["rows"])
        want = oracle_value(fmt, code)
        if math.isnan(want):
            assert row["cls"] == "nan"
            continue
        assert row["code"] == code
        if math.isfinite(want):
            assert row["value"] == want and math.copysign(1, row["value"]) == math.copysign(1, want)
            # the text is the exact value (a decimal or a power of two), read back by the site's parser
            assert typed.parse(row["value_text"]) == want
            if row["cls"] in ("normal", "subnormal") and row["up"] is not None:
                with np.errstate(over="ignore"):
                    up = float(np.nextafter(NP[fmt](want), NP[fmt](np.inf))) if fmt == "float16" else None
                if up is not None and math.isfinite(up):
                    assert typed.parse(row["up"]) == up


def test_fp32_spacing_and_class_against_numpy():
    row = bit_flipper.view({"formats": "float32", "value": "1"})["rows"][0]
    assert row["ulp"] == float(np.spacing(np.float32(1)))
    sub = bit_flipper.view({"formats": "float32", "source": "float32", "code": 1})["rows"][0]
    assert sub["cls"] == "subnormal" and sub["value"] == float(np.finfo(np.float32).smallest_subnormal)


def test_a_bit_flip_is_a_code_in_one_format_and_the_value_in_the_others():
    v = ask("bit-flipper", formats="float16,float32", source="float16", code=0x3C01)["view"]
    fp16, fp32 = v["rows"]
    assert fp16["value"] == 1 + 2**-10 and fp32["value"] == 1 + 2**-10
    assert fp16["bits"][-1]["on"] and fp16["bits"][-1]["label"] == "尾数位 10"
    assert fp16["bits"][0]["label"] == "符号位" and fp16["bits"][1]["label"] == "指数位 4"


def test_hex_entry_and_a_bit_view_are_fast():
    bit_flipper.view({"formats": "float32,float16,bfloat16", "value": "1"})  # warm the 16-bit tables
    t = time.perf_counter()
    for code in range(0x3C00, 0x3C20):
        bit_flipper.view({"formats": "float32,float16,bfloat16", "source": "float16", "code": code})
    assert (time.perf_counter() - t) / 32 < 0.02


@pytest.mark.parametrize(
    "params, words",
    [
        ({"value": ""}, "空"),
        ({"value": "abc"}, "读不成数字"),
        ({"value": "1e999"}, "量级"),
        ({"value": "1" * 80}, "太长"),
        ({"source": "float16", "code": "0x12345"}, "最多 4 位"),
        ({"source": "float16", "code": "0xZZ"}, "无法"),
        ({"source": "float16", "code": ""}, "空"),
        ({"source": "float16", "code": 70000}, "超出范围：16 位编码只能是 0 … 65,535"),
        ({"source": "float16", "code": -1}, "编码 −1 超出范围"),
        ({"source": "bfloat16", "code": 1}, "不在"),
        ({"formats": "float99"}, "没有「float99」这种数字格式"),
        ({"formats": "float16,float16"}, "两次"),
        ({"source": "float16", "code": 1.5}, "整数"),
    ],
)
def test_bit_flipper_bad_input_gets_a_chinese_message(params, words):
    out = ask("bit-flipper", **params)
    assert not out["ok"] and words in out["error"], out


@pytest.mark.parametrize("text", ["inf", "-inf", "nan", "-0", "1e-400"[:-1] + "0"])
def test_specials_do_not_break_the_view(text):
    out = ask("bit-flipper", formats="float16,float32,bfloat16", value=text)
    assert out["ok"], out


# ---------------------------------------------------------------- repeated update


def oracle_run(np_type, w0, delta, steps):
    w, d = np_type(np.float32(w0)), np_type(np.float32(delta))
    for _ in range(steps):
        w = np_type(np.float32(w) + np.float32(d)) if np_type is not np.float32 else np.float32(w + d)  # noqa: E501
    return float(w)


@pytest.mark.parametrize(
    "fmt, w0, delta, steps",
    [
        ("float16", 1, 1e-4, 1000),
        ("bfloat16", 1, 1e-3, 1000),
        ("bfloat16", 0, 1, 1000),
        ("float16", 0, 1, 3000),
        ("float16", 0.5, 3e-4, 700),
        ("bfloat16", 3, 0.02, 400),
    ],
)
def test_repeated_update_matches_numpy(fmt, w0, delta, steps):
    v = repeated_update.view({"fmt": fmt, "w0": str(w0), "delta": str(delta), "steps": steps})
    # The 16-bit sums are exact in float32 (both terms are 16-bit values with nearby exponents), so the
    # oracle's float32 add followed by one cast is a single rounding, like ours.
    assert v["final"]["low"] == oracle_run(NP[fmt], w0, delta, steps)
    assert v["final"]["master"] == oracle_run(np.float32, w0, delta, steps)
    assert v["final"]["copy"] == float(NP[fmt](np.float32(v["final"]["master"])))
    go.Figure(v["figure"])


def test_the_lessons_repeated_updates():
    assert repeated_update.view()["final"]["low"] == 1.0
    assert repeated_update.view({"fmt": "bfloat16", "delta": "1e-3"})["final"]["low"] == 1.0
    v = repeated_update.view({"fmt": "bfloat16", "w0": "0", "delta": "1"})
    assert v["final"]["low"] == 256.0 and v["final"]["master"] == 1000.0 and "停住" in v["summary"]


@pytest.mark.parametrize(
    "params, words",
    [
        ({"delta": "0"}, "不能是 0"),
        ({"delta": "x"}, "读不成数字"),
        ({"delta": ""}, "空"),
        ({"w0": "inf"}, "有限"),
        ({"w0": "nan"}, "有限"),
        ({"steps": 0}, "之间"),
        ({"steps": 10**6}, "之间"),
        ({"steps": "ten"}, "整数"),
        ({"fmt": "float32"}, "只比较"),
        ({"delta": "1e-300"}, "之间"),
        ({"w0": "1e300"}, "之间"),
    ],
)
def test_repeated_update_bad_input(params, words):
    out = ask("repeated-update", **params)
    assert not out["ok"] and words in out["error"], out


# ---------------------------------------------------------------- loss scale


def test_loss_scale_thresholds_are_fp16s_rounding_boundaries():
    t = loss_scale.thresholds("float16")
    assert t["zero_max"] == 2**-25 and t["inf_min"] == 65520.0

    # against numpy: the boundary values themselves, and their float32 neighbours
    def f16(x):
        with np.errstate(over="ignore"):
            return float(np.float16(np.float32(x)))

    assert f16(2**-25) == 0 and f16(np.nextafter(np.float32(2**-25), np.float32(1))) > 0
    assert math.isinf(f16(65520)) and f16(np.nextafter(np.float32(65520), np.float32(0))) == 65504


@pytest.mark.parametrize("k", [0, 5, 16, 28, 40])
def test_loss_scale_counts_match_numpy_on_the_stand_in(k):
    v = loss_scale.view({"k": k})
    g = np.array(loss_scale.SOURCES["stand-in"]["g"], dtype=np.float64) * 2.0**k
    # The oracle rounds float64 → float16 through float32; that double rounding can only differ from one
    # rounding on values within a float32 ulp of a float16 tie, which random doubles do not hit.
    with np.errstate(over="ignore"):
        h = g.astype(np.float32).astype(np.float16)
    c = v["counts"]
    assert c["zero"] == int(np.sum(h == 0))
    assert c["inf"] == int(np.sum(np.isinf(h)))
    assert c["subnormal"] == int(np.sum((h != 0) & (np.abs(h) < 2.0**-14)))
    assert sum(c[k2] for k2 in ("zero", "subnormal", "normal", "inf")) == loss_scale.STAND_IN["n"]
    go.Figure(v["figure"])


def test_stand_in_is_deterministic_and_labelled():
    a = loss_scale.view()
    assert "替身" in a["source_label"] and "不是实测" in a["source_label"]
    rng = random.Random(loss_scale.STAND_IN["seed"])
    first = rng.gauss(loss_scale.STAND_IN["mu"], loss_scale.STAND_IN["sigma"])
    assert first in loss_scale.SOURCES["stand-in"]["log2"]


def test_a_real_source_can_replace_the_stand_in():
    loss_scale.register_source("test-real", [-30.0, -20.0, 0.0, 20.0], "测试数据")
    try:
        c = loss_scale.view({"source": "test-real", "k": 0})["counts"]
        assert (c["zero"], c["subnormal"], c["normal"], c["inf"]) == (1, 1, 1, 1)
    finally:
        del loss_scale.SOURCES["test-real"]


def test_loss_scale_view_is_fast():
    loss_scale.view()
    t = time.perf_counter()
    for k in range(41):
        loss_scale.view({"k": k})
    assert (time.perf_counter() - t) / 41 < 0.02


@pytest.mark.parametrize(
    "params, words",
    [
        ({"k": -1}, "之间"),
        ({"k": 41}, "之间"),
        ({"k": "x"}, "整数"),
        ({"k": 1.5}, "整数"),
        ({"k": ""}, "整数"),
        ({"source": "lab-2099"}, "没有这份"),
        ({"fmt": "float32"}, "只比较"),
    ],
)
def test_loss_scale_bad_input(params, words):
    out = ask("loss-scale", **params)
    assert not out["ok"] and words in out["error"], out


# ---------------------------------------------------------------- figures


def test_lesson_figures_against_closed_forms():
    f = {row["name"]: row for row in lessons123_figures.figures()}
    assert f["fp16_zero_threshold"]["value"] == -25 and f["fp16_swallow_threshold"]["value"] == -11
    assert f["bf16_swallow_threshold"]["value"] == -8 and f["bf16_powers_window"]["value"] == 261
    assert (
        f["l2_ru_low"]["value"] == 1
        and f["l3_sum_stops_at"]["value"] == 256
        and f["l2_sum_stops_at"]["value"] == 2048
    )
    assert f["l1_card_max_params_16"]["text"] == "5.0B" and f["l1_undercount"]["text"] == "8"
    assert float(np.float16(np.float32(1e-8) * np.float32(65536))) == f["fp16_of_1e_minus_8_scaled"]["value"]
    assert f["bf16_of_1001"]["value"] == float(ml_dtypes.bfloat16(1001.0)) == 1000.0


def test_loss_scale_lab_source_reads_the_probe_by_power_of_two_bins():
    """The lab's histogram, shifted by k bins: a unit bin [e, e + 1) is wholly ≤ 2^-25 (FP16 rounds it
    to 0) when e + k + 1 ≤ -25, and wholly ≥ 2^16 > 65,520 (∞) when e + k ≥ 16."""
    import json

    probe = json.loads((ROOT / "lab/results/c09-precision.json").read_text())["probe"][-1]
    bins, cnt = probe["bins_log2"], probe["counts"]
    for k in (0, 16, 24):
        v = ask("loss-scale", source="lab", k=k)["view"]["counts"]
        assert v["n"] == probe["elements"]
        assert v["zero"] == probe.get("exact_zero", 0) + sum(c for e, c in zip(bins, cnt) if e + k + 1 <= -25)
        assert v["inf"] == sum(c for e, c in zip(bins, cnt) if e + k >= 16)


def test_a_nan_is_named_once_in_the_summary():
    from c9.views import bit_flipper

    s = bit_flipper.view({"value": "nan"})["summary"]
    assert "FP16 存成 NaN（非数，0x7E00）" in s and "NaN(NaN" not in s


# --- What lessons 1–3 say about a typed number ------------------------------------------------------


def test_the_value_box_says_when_it_read_hex():
    """「0x3c00」 in the decimal box quietly gave 「FP16 存成 15360」; now the summary says it read the
    number 15,360 in hexadecimal, that it is not a code, and where a code goes."""
    v = bit_flipper.view({"value": "0x3c00"})
    assert v["summary"].startswith(
        "输入「0x3c00」（十六进制，读作数值 15360；它不是编码：要看编码 0x3C00 代表的数，"
    )
    assert "编码（十六进制）" in v["summary"]
    assert bit_flipper.view({"value": "15360"})["summary"].startswith("输入「15360」：")  # a decimal: no note


def test_a_typed_code_is_echoed_as_the_site_writes_it():
    """A full-width 「ＦＦＦＦ」 went to the address as typed; the view's params hold 0xFFFF."""
    assert (
        bit_flipper.view({"source": "float16", "code": "ＦＦＦＦ", "formats": "float16"})["params"]["code"]
        == "0xFFFF"
    )
    assert bit_flipper.view({"source": "float16", "code": 15360})["params"]["code"] == "0x3C00"


def test_lessons123_numbers_in_reader_notation():
    """「均值 -26」, 「2^40」, 「10^8 到 10^12」, 「100M 参数」, 「1e-30 到 1,000,000」, 「纯 FP32 + Adam」."""
    assert "均值 −26，" in loss_scale.view()["source_label"]
    assert loss_scale.view({"k": 40})["k_text"] == "2⁴⁰"
    texts = json.dumps(ledger_chart.view({"model": "custom", "log10_params": 12}), ensure_ascii=False)
    assert "自定义 1 万亿参数" in texts and "1.0T" not in texts
    assert "自定义 1 亿参数" in json.dumps(
        ledger_chart.view({"model": "custom", "log10_params": 8}), ensure_ascii=False
    )
    with pytest.raises(Exception) as e:
        ledger_chart.view({"model": "custom", "log10_params": 13})
    assert e.value.message_zh == "参数量要在 1 亿到 1 万亿之间"
    with pytest.raises(Exception) as e:
        repeated_update.view({"delta": "1e-40"})
    assert e.value.message_zh == "每步加的 Δ 的绝对值要在 1×10⁻³⁰ 到 1,000,000 之间，收到的是「1e-40」"
    labels = {c["label"] for c in ledger_chart.CONVENTIONS.values()}
    assert "FP32 + AdamW（16 字节）" in labels and not any("纯 FP32" in x for x in labels)


@pytest.mark.timeout(30)
def test_playbook_widget_formula_counts_16_bytes_and_the_row_says_so():
    """The Playbook's memory widget (memory.js, paramGradsOpt): parameters and gradients 2 bytes each with
    mixed precision, optimizer k = 8 (Adam) plus 4 for the FP32 copy. Its published default, k = 8, mixed."""
    k, mixed = 8, True
    per = (2 if mixed else 4) * 2 + (k + (4 if mixed else 0))
    assert per == 16 == sum(b for _, _, b in ledger_chart.CONVENTIONS["zero"]["parts"])
    assert sum(b for _, _, b in ledger_chart.CONVENTIONS["playbook"]["parts"]) == 20
    assert "16 字节" in ledger_chart.CONVENTIONS["playbook"]["who"]


def test_the_convention_menu_names_the_bar_it_changes():
    # the menu's label says which bar it redraws: Plotly puts the first category of the array at the bottom
    v = ask("ledger", model="qwen3-8b", convention="hf")["view"]
    bottom = v["figure"]["layout"]["yaxis"]["categoryarray"][0]
    assert bottom == "HF 文档口径：18 字节/参数"
    label = re.search(r'<label class="c9-field">([^<]*)\n<select name="convention">', LEDGER_HTML).group(1)
    assert label == "口径（图中最下面那根条）"


@pytest.mark.parametrize("steps, dtick", [(1, 1), (3, 1), (9, 1), (10, None), (1000, None)])
def test_the_step_axis_never_marks_half_a_step(steps, dtick):
    """Reader check: with 步数 = 1 the axis read 0, 0.5, 1. Plotly's own ticks are whole from 10 steps on."""
    xaxis = repeated_update.view({"steps": steps})["figure"]["layout"]["xaxis"]
    assert xaxis.get("dtick") == dtick


@pytest.mark.parametrize("box, text", [("w0", "1e999"), ("delta", "1e-999"), ("delta", "-1e999")])
def test_a_number_past_the_parsers_bound_is_told_the_boxs_own_range(box, text):
    """Reader check: 1e999 in w₀ was told 「请换一个量级在 10⁴⁰⁰ 以内的数」, which 1e399 meets and the box
    refuses all the same; it now gets the range 1e39 gets."""
    with pytest.raises(InputError) as e:
        repeated_update.view({box: text})
    assert "的绝对值要在 1×10⁻³⁰ 到 1,000,000 之间" in e.value.message_zh
    assert f"收到的是「{text}」" in e.value.message_zh


def test_the_start_values_range_says_that_zero_is_allowed():
    """Reader check: w₀ = 1e-50 was told 「绝对值要在 1×10⁻³⁰ 到 1,000,000 之间」, yet w₀ = 0 is taken; Δ = 0 is not."""
    with pytest.raises(InputError) as e:
        repeated_update.view({"w0": "1e-50"})
    assert (
        e.value.message_zh
        == "初值 w₀ 的绝对值要在 1×10⁻³⁰ 到 1,000,000 之间（也可以是 0），收到的是「1e-50」"
    )
    assert repeated_update.view({"w0": "0"})["summary"]
    with pytest.raises(InputError) as e:
        repeated_update.view({"delta": "-0"})
    assert e.value.message_zh == "每步加的 Δ 不能是 0"
