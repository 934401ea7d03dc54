"""Lesson 4 and the FP4 branch: the views checked against independent oracles (ml_dtypes, numpy),
their bad-input messages, their Plotly specs, the evolution map, the figures, and the built pages."""

from __future__ import annotations

import json
import math
import re

import ml_dtypes
import numpy as np
import plotly.graph_objects as go
import pytest
from conftest import ROOT

from c9.base import typed
from c9.base.errors import InputError
from c9.figures.lesson4_fp4 import figures
from c9.views import api, block_lab, evolution_map, fp4_line, mx_nv, pattern_table

DTYPES = {"float8_e4m3fn": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2}


def ask(widget, **params):
    return json.loads(api.handle(json.dumps({"widget": widget, "params": params})))


# ---------------------------------------------------------------- pattern-table


@pytest.mark.parametrize("fmt", list(DTYPES))
def test_every_cell_matches_ml_dtypes(fmt):
    t = pattern_table.table(fmt)
    oracle = np.arange(256, dtype=np.uint8).view(DTYPES[fmt]).astype(np.float64)
    for hi, row in enumerate(t["rows"]):
        for lo, c in enumerate(row):
            code = hi * 16 + lo
            want = oracle[code]
            assert c["code"] == code
            assert c["bits"].replace(".", "") == format(code, "08b"), f"{fmt} code {code:#04x}"
            if np.isnan(want):
                assert c["cls"] == "nan", f"{fmt} code {code:#04x}"
            elif np.isinf(want):
                assert c["cls"] == "infinity" and c["value"] == ("+∞" if want > 0 else "−∞")
            elif want == 0:
                assert c["cls"] == "zero"
            else:
                info = ml_dtypes.finfo(DTYPES[fmt])
                assert c["cls"] == ("subnormal" if abs(want) < float(info.smallest_normal) else "normal"), (
                    f"{fmt} {code:#04x}"
                )
                # the value in reader notation ("−448", "1,024"), read back by the site's own reader
                assert float(typed.parse(c["value"])) == want, f"{fmt} code {code:#04x}"


@pytest.mark.parametrize(
    "fmt,counts",
    [
        (
            "float8_e4m3fn",
            {"zero": 2, "subnormal": 14, "normal": 238, "infinity": 0, "nan": 2},
        ),  # OCP OFP8 §5.1
        ("float8_e5m2", {"zero": 2, "subnormal": 6, "normal": 240, "infinity": 2, "nan": 6}),
    ],
)
def test_class_counts(fmt, counts):
    assert pattern_table.table(fmt)["counts"] == counts


def test_pattern_table_refuses_other_formats():
    with pytest.raises(ValueError):
        pattern_table.page_context(format="bf16")
    assert pattern_table.short_value(-0.0) == "−0" and pattern_table.short_value(57344.0) == "57344"


@pytest.mark.parametrize("fmt", ["float8_e4m3fn", "float8_e5m2"])
def test_each_cell_is_two_short_lines_that_read_back_as_its_value(fmt):
    """So that 16 columns fit 1280 px: no line of a cell is wider than five characters besides the sign,
    and the two lines read back (as a reader reads m×10ⁿ) as the code's value to 3 significant digits."""
    sup = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹−", "-0123456789-")
    for row in pattern_table.table(fmt)["rows"]:
        for c in row:
            lead, power = c["lines"]
            assert len(lead.lstrip("−")) <= pattern_table.CELL_CHARS and len(power) <= 5, c["hex"]
            v = float(ml_dtypes_value(fmt, c["code"]))
            if c["cls"] in ("nan", "infinity", "zero"):
                assert (lead, power) == (c["short"], ""), c["hex"]
                continue
            shown = float(lead.translate(sup)) * (10.0 ** int(power[3:].translate(sup)) if power else 1)
            assert shown == pytest.approx(v, rel=5e-3), (c["hex"], lead, power)


@pytest.mark.parametrize("fmt", ["float8_e4m3fn", "float8_e5m2"])
def test_the_values_of_one_decade_read_in_one_style(fmt):
    """Reader check: E4M3's row 1_ read 3.91×10⁻² and then 0.043 (0.04296875 rounds to 0.0430, which is short
    enough to fit). Values of one power of ten are now written alike: all with the power line or none."""
    styles = {}  # power of ten → the styles its cells were written in
    for row in pattern_table.table(fmt)["rows"]:
        for c in row:
            if c["cls"] in ("normal", "subnormal"):
                v = ml_dtypes_value(fmt, c["code"])
                styles.setdefault(math.floor(math.log10(abs(v))), set()).add(bool(c["lines"][1]))
                if c["lines"][1]:  # a lead always has three significant digits: 4.30 beside 4.69, not 4.3
                    assert re.fullmatch(r"−?[1-9]\.\d\d", c["lines"][0]), c
    assert {e: s for e, s in styles.items() if len(s) > 1} == {}
    assert styles[-1] == {False} and styles[-2] == {True}  # 0.125 as it is; 0.0391 as 3.91 above ×10⁻²


def ml_dtypes_value(fmt: str, code: int) -> float:
    """The code's value by ml_dtypes (the oracle), as a float."""
    dtype = {"float8_e4m3fn": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2}[fmt]
    return float(np.array([code], dtype=np.uint8).view(dtype)[0])


# ---------------------------------------------------------------- block-lab


def _oracle_per_block(t: np.ndarray, tile):
    """Independent: FP32 scale 448/amax per tile, v·s rounded to E4M3 by ml_dtypes, back to float."""
    rows, cols = t.shape
    tr, tc = (rows, cols) if tile is None else tile
    deq = np.empty_like(t)
    for r0 in range(0, rows, tr):
        for c0 in range(0, cols, tc):
            blk = t[r0 : r0 + tr, c0 : c0 + tc]
            s = np.float64(np.float32(448.0 / np.max(np.abs(blk))))
            q = (blk * s).astype(ml_dtypes.float8_e4m3fn).astype(np.float64)
            deq[r0 : r0 + tr, c0 : c0 + tc] = q / s
    return np.abs(deq - t) / np.abs(t)


def _oracle_mx_2d(t: np.ndarray, dtype, emax: int, top: float):
    """OCP MX v1.0 §6.3 on every 1×32 block: X = 2^(floor(log2 amax) − emax), elements saturated."""
    deq = np.empty_like(t)
    for r in range(t.shape[0]):
        for c0 in range(0, t.shape[1], 32):
            blk = t[r, c0 : c0 + 32]
            x = 2.0 ** (math.floor(math.log2(np.max(np.abs(blk)))) - emax)
            deq[r, c0 : c0 + 32] = np.clip(blk / x, -top, top).astype(dtype).astype(np.float64) * x
    return np.abs(deq - t) / np.abs(t)


def _oracle_nv_2d(t: np.ndarray):
    """NVFP4: FP32 tensor scale amax/(448·6), E4M3 scale per 1×16 block, E2M1 elements."""
    tt = np.float64(np.float32(np.max(np.abs(t)) / 2688.0))
    deq = np.empty_like(t)
    for r in range(t.shape[0]):
        for c0 in range(0, t.shape[1], 16):
            blk = t[r, c0 : c0 + 16]
            b = np.float64(np.clip(np.max(np.abs(blk)) / (6 * tt), 0, 448).astype(ml_dtypes.float8_e4m3fn))
            deq[r, c0 : c0 + 16] = _e2m1(blk / (b * tt)) * (b * tt) if b else 0.0
    return np.abs(deq - t) / np.abs(t)


ORACLES = {
    "per_tensor_e4m3": (None, lambda t: _oracle_per_block(t, None)),
    "deepseek_1x128": ((1, 128), lambda t: _oracle_per_block(t, (1, 128))),
    "deepseek_128x128": ((128, 128), lambda t: _oracle_per_block(t, (128, 128))),
    "mxfp8_e4m3": ((1, 32), lambda t: _oracle_mx_2d(t, ml_dtypes.float8_e4m3fn, 8, 448.0)),
    "mxfp4": ((1, 32), lambda t: _oracle_mx_2d(t, ml_dtypes.float4_e2m1fn, 2, 6.0)),
    "nvfp4": ((1, 16), _oracle_nv_2d),
}


def _tile_means(rel: np.ndarray, tile):
    """Mean of each block by numpy reshaping (the blocks divide the tensor, or cover a whole side)."""
    rows, cols = rel.shape
    tr, tc = (rows, cols) if tile is None else (min(tile[0], rows), min(tile[1], cols))
    return rel.reshape(rows // tr, tr, cols // tc, tc).mean(axis=(1, 3))


# Each number's colour class by its relative error, as the lab's key reads: ≤ 6.25%, ≤ 25%, more; a number
# that became 0 (relative error exactly 1 for a nonzero number) is the last class.
CLASS_EDGES = [0.0625, 0.25]


def _classes(rel: np.ndarray) -> np.ndarray:
    out = np.searchsorted(CLASS_EDGES, rel, side="left")
    return np.where(rel == 1.0, len(CLASS_EDGES) + 1, out)


@pytest.mark.parametrize("scheme", list(ORACLES))
@pytest.mark.parametrize("token", [True, False])
def test_block_lab_against_ml_dtypes(scheme, token):
    """Per-element statistics, each number's colour class and the per-block means, against numpy/ml_dtypes."""
    tile, oracle = ORACLES[scheme]
    v = block_lab.view({"scheme": scheme, "token": token})
    t = np.array(block_lab.generate(token=token))
    rel = oracle(t)
    assert v["max_rel"] == pytest.approx(rel.max(), rel=1e-12)
    assert v["median_rel"] == pytest.approx(float(np.median(rel)), rel=1e-12)
    assert v["coarse"] == int((rel > 0.0625).sum())
    assert v["flushed"] == int((rel == 1.0).sum())
    assert v["shape"] == [block_lab.ROWS, block_lab.COLS]
    means = _tile_means(rel, tile)
    got = block_lab.tile_means(t.tolist(), block_lab.B.quantize(t.tolist(), scheme).rel_error, v["tile"])
    np.testing.assert_allclose(np.array(got, dtype=float), means, rtol=1e-12)
    assert v["figure"]["data"][0]["z"] == _classes(rel).tolist()
    assert v["ruined"] == int((means > 0.0625).sum())
    go.Figure(v["figure"])


@pytest.mark.parametrize("scheme", list(ORACLES))
def test_every_map_of_the_default_tensor_shows_more_than_one_colour(scheme):
    """Reviewer: the per-tensor, 128×128, MXFP4 and NVFP4 maps were one flat colour on the default tensor
    (a block's mean, one or two blocks). Every class shows on every map, none on 95 % of it."""
    z = np.array(block_lab.view({"scheme": scheme})["figure"]["data"][0]["z"])
    counts = np.bincount(z.ravel(), minlength=len(CLASS_EDGES) + 2)
    assert (counts > 0).sum() == 4 and counts.max() < 0.95 * z.size, counts


@pytest.mark.parametrize("scheme", list(ORACLES))
def test_block_boundaries_at_multiples_of_the_block(scheme):
    """The cells span whole blocks and the drawn lines sit at every inner multiple of the block size."""
    tile = ORACLES[scheme][0] or (block_lab.ROWS, block_lab.COLS)
    v = block_lab.view({"scheme": scheme})
    tr, tc = min(tile[0], block_lab.ROWS), tile[1]
    assert v["row_edges"] == list(range(0, block_lab.ROWS + 1, tr))
    assert v["col_edges"] == list(range(0, block_lab.COLS + 1, tc))
    d = v["figure"]["data"][0]  # one cell per number, centred on its index: block edges at k − 0.5
    assert (d["x0"], d["dx"], d["y0"], d["dy"]) == (0, 1, 0, 1)
    assert len(d["z"]) == block_lab.ROWS and {len(r) for r in d["z"]} == {block_lab.COLS}
    paths = " ".join(sh["path"] for sh in v["figure"]["layout"]["shapes"] if sh["type"] == "path")
    xs = sorted(float(x) + 0.5 for x in re.findall(r"M([\d.]+),0V1", paths))
    ys = sorted(float(y) + 0.5 for y in re.findall(r"M0,([\d.]+)H1", paths))
    assert xs == list(range(tc, block_lab.COLS, tc)) and ys == list(range(tr, block_lab.ROWS, tr))


def test_ragged_blocks_and_zero_blocks():
    """A typed 3×5 tensor under 1×128: one block per row, cut to 5 wide; a row of zeros has no mean."""
    v = block_lab.view(
        {
            "source": "typed",
            "text": "1, 2, 3, 4, 5\n0, 0, 0, 0, 0\n1000, 0.01, 0, 0, 0",
            "scheme": "deepseek_1x128",
        }
    )
    assert v["row_edges"] == [0, 1, 2, 3] and v["col_edges"] == [0, 5]
    t = block_lab.parse_tensor("1, 2, 3, 4, 5\n0, 0, 0, 0, 0\n1000, 0.01, 0, 0, 0")
    means = block_lab.tile_means(t, block_lab.B.quantize(t, "deepseek_1x128").rel_error, (1, 128))
    assert means[1] == [None] and v["figure"]["data"][0]["z"][1] == [None] * 5  # zeros are left blank
    rel = _oracle_per_block(np.array([[1000, 0.01]]), None)[0]
    assert means[2][0] == pytest.approx(rel.mean(), rel=1e-12)
    assert v["figure"]["data"][0]["z"][2][2:] == [None] * 3


def test_abs_map_shows_the_outliers():
    """The |x| map comes with the first scheme shown: log10|x| in tenths, the outlier columns dark."""
    v = block_lab.view()
    t, cols = block_lab.generate_with_outliers()
    z = np.array(v["abs_figure"]["data"][0]["z"], dtype=float)
    np.testing.assert_array_equal(z, np.round(10 * np.log10(np.abs(np.array(t)))))
    assert all(z[:, j].min() >= 10 * math.log10(300) - 0.5 for j in cols)
    assert "abs_figure" not in block_lab.view({"scheme": "nvfp4"})


def test_predict_task_answer():
    """The predict-first task: in the right half only 1×128 (and MXFP8) keep every block fine."""
    got = {a["scheme"]: (a["ruined"], a["blocks"]) for a in block_lab.page_context()["predict"]}
    assert got["per_tensor_e4m3"] == (1, 1) and got["deepseek_128x128"] == (1, 1)
    assert got["deepseek_1x128"] == (0, 64) and got["mxfp8_e4m3"] == (0, 256)
    assert got["mxfp4"][0] == got["mxfp4"][1] == 256


def test_block_shape_follows_the_outlier_token():
    """The page's claim: the outlier token hurts 128×128 blocks, hardly 1×128 tiles."""
    c = {
        (s, tok): block_lab.view({"scheme": s, "token": tok})["coarse"]
        for s in ("deepseek_1x128", "deepseek_128x128")
        for tok in (True, False)
    }
    assert c["deepseek_128x128", True] > 1.8 * c["deepseek_128x128", False]
    assert abs(c["deepseek_1x128", True] - c["deepseek_1x128", False]) < 0.05 * c["deepseek_1x128", False]


def test_typed_default_shows_12_8_and_0_45_percent():
    got = {
        s: ask("block-lab", source="typed", scheme=s)["view"]["max_rel_text"] for s in block_lab.SCHEMES[:3]
    }
    assert got == {"per_tensor_e4m3": "12.8%", "deepseek_1x128": "0.45%", "deepseek_128x128": "12.8%"}
    one_row = ask("block-lab", source="typed", text="[1000, 0.01, 0.02, 0.5]", scheme="deepseek_1x128")
    assert one_row["view"]["max_rel_text"] == "12.8%"


def test_generator_is_seeded_and_describes_its_outliers():
    t, cols = block_lab.generate_with_outliers(9, 4, 1000, True)
    assert t == block_lab.generate(9, 4, 1000, True)
    big = [j for j in range(block_lab.COLS) if all(abs(t[i][j]) >= 300 for i in range(block_lab.ROWS))]
    assert big == cols and all(c < 128 for c in cols)
    assert all(abs(x) >= 300 for x in t[5])
    assert "通道 1、48、67、83" in block_lab.view()["tensor_note"]


@pytest.mark.parametrize(
    "params,message",
    [
        ({"source": "typed", "text": ""}, "张量是空的"),
        # A number is named by its row and column, as a number past FP32's range is (it was 「第 1 行的」).
        ({"source": "typed", "text": "1, abc"}, "第 1 行第 2 列「abc」不是数字"),
        ({"source": "typed", "text": "1, 2\n3"}, "各行长度不一"),
        ({"source": "typed", "text": "1, 2, 3\n1, nan, abc"}, "第 2 行第 3 列「abc」不是数字"),
        ({"source": "typed", "text": "inf, 1e39"}, "FP32"),
        ({"source": "typed", "text": "1e39"}, "FP32"),
        ({"source": "typed", "text": "\n".join(["1"] * 65)}, "张量太大"),
        ({"seed": "x"}, "随机种子要是整数"),
        ({"seed": -1}, "随机种子要在"),
        ({"channels": 9}, "离群通道数要在"),
        ({"magnitude": 7}, "离群值的量级只能选"),
        ({"token": "yes"}, "只能是开或关"),
        ({"scheme": "fp3"}, "没有这种缩放方案"),
        ({"source": "web"}, "张量来源"),
        ({"colour": 1}, "不认识的参数"),
    ],
)
def test_block_lab_bad_input(params, message):
    out = ask("block-lab", **params)
    assert out["ok"] is False and message in out["error"], out


#: What block-lab.js sends for a typed tensor (every control; the rule with the MX schemes only).
JS_TYPED = {
    "source": "typed",
    "seed": "9",
    "channels": 4,
    "magnitude": 1000,
    "token": True,
    "preset": "all",
}


@pytest.mark.parametrize("special", ["nan", "inf", "-inf", "-nan", "∞"])
@pytest.mark.parametrize("scheme", block_lab.SCHEMES)
def test_block_lab_typed_nan_and_infinity(special, scheme):
    """A typed tensor holding NaN or ±∞, with the exact parameters block-lab.js sends: the MX schemes say that
    block's scale is NaN (OCP MX: E8M0 0xFF, every element NaN) and quantise the other block as usual; the
    schemes whose sources say nothing of it quantise nothing and say so."""
    row = ", ".join(["1.5"] * 32 + ["3"] * 32)
    text = f"{row}\n{', '.join(['2'] * 40 + [special] + ['0.25'] * 23)}"
    params = {**JS_TYPED, "text": text, "scheme": scheme}
    if scheme in block_lab.MX_SCHEMES:
        params["rule"] = "floor"
    out = ask("block-lab", **params)
    assert out["ok"] is True, out
    v = out["view"]
    if scheme in block_lab.MX_SCHEMES:
        assert v["quantized"] and v["nan_blocks"] == [[1, 1]]
        assert "按 OCP MX 规范，这些块的缩放因子记作 NaN（E8M0 编码 0xFF）" in v["summary"]
        assert "4 个块里有 1 个含 NaN 或无穷大" in v["summary"]
        assert (
            v["max_rel"] == 0 and v["total"] == 96
        )  # 1.5, 3, 2, 0.25: exact in every MX element format; not the NaN block
        dotted = [sh for sh in v["figure"]["layout"]["shapes"] if sh["line"].get("dash") == "dot"]
        assert [(sh["type"], sh["x0"], sh["y0"]) for sh in dotted] == [("rect", 31.5, 0.5)]  # block (1, 1)
        assert (
            v["figure"]["data"][0]["z"][1][32:] == [None] * 32 and None not in v["figure"]["data"][0]["z"][0]
        )
    else:
        assert v["quantized"] is False and "这种缩放这次不量化" in v["summary"]
        assert ("NVFP4 资料" in v["summary"]) == (scheme == "nvfp4")
    assert "另有 1 个 NaN 或无穷大（图里留白）" in v["abs_summary"] if "abs_summary" in v else True
    json.dumps(v, allow_nan=False)  # the answer travels as JSON: no NaN in it


def test_block_lab_one_nan_block():
    out = ask("block-lab", **JS_TYPED, text="1, nan, 3", scheme="mxfp4", rule="rceil")
    v = out["view"]
    assert v["nan_blocks"] == [[0, 0]]
    assert v["summary"].startswith(
        "MXFP4：每\u00a01×32 一个 2 的幂：这一块里有 NaN 或无穷大，按 OCP MX 规范整块的缩放因子记作 NaN"
    )


def _js(text, scheme):
    """What block-lab.js sends for one scheme of a typed tensor (the rule with the MX schemes only)."""
    params = {**JS_TYPED, "text": text, "scheme": scheme}
    if scheme in block_lab.MX_SCHEMES:
        params["rule"] = "floor"
    out = ask("block-lab", **params)
    assert out["ok"] is True, out
    return out["view"]


#: Three rows of 64 holding NaN, ∞ and −∞ (a 3 × 64 tensor), and a 1 × 16 one holding ∞.
NAN_3X64 = "\n".join(
    [
        ", ".join(["1.5"] * 64),
        ", ".join(["2"] * 10 + ["nan"] + ["3"] * 53),
        ", ".join(["inf"] + ["0.5"] * 62 + ["-inf"]),
    ]
)
INF_1X16 = ", ".join(["1"] * 15 + ["Infinity"])


@pytest.mark.parametrize("text, shape", [(NAN_3X64, (3, 64)), (INF_1X16, (1, 16))], ids=["3x64", "1x16"])
@pytest.mark.parametrize("scheme", ["per_tensor_e4m3", "deepseek_1x128", "deepseek_128x128", "nvfp4"])
def test_block_lab_scheme_not_run_shows_its_own_bits(text, shape, scheme):
    """A scheme that does not quantise a tensor holding NaN or ±∞ shows this tensor's storage, which depends on
    the shape only (not the format's nominal 8 / 8.25 / 8.002 / 4.5): element bits, one scale per block, NVFP4's
    FP32 tensor scale; its measured cells are dashes."""
    n, m = shape
    size = n * m
    per_block = {  # the blocks' count, by hand: per tensor 1; 1×128 one a row; 128×128 one; NVFP4 ⌈m/16⌉ a row
        "per_tensor_e4m3": (8, 1, 32, 0),
        "deepseek_1x128": (8, n * -(-m // 128), 32, 0),
        "deepseek_128x128": (8, 1, 32, 0),
        "nvfp4": (4, n * -(-m // 16), 8, 32),
    }[scheme]
    eb, blocks, sb, tb = per_block
    v = _js(text, scheme)
    assert v["quantized"] is False
    assert v["bits_actual"] == pytest.approx((size * eb + blocks * sb + tb) / size, rel=1e-12)
    assert v["n_scales"] == blocks
    assert (v["max_rel_text"], v["median_rel_text"], v["coarse"], v["flushed"]) == ("—", "—", None, None)


@pytest.mark.parametrize("text", ["nan nan nan", "1 Infinity 3", "-inf, nan"])
@pytest.mark.parametrize("scheme", ["mxfp8_e4m3", "mxfp4"])
def test_block_lab_every_block_nan_measures_nothing(text, scheme):
    """An MX tensor whose every block's scale is NaN: no number is measured, so no 0% or 0 / 0 but nothing
    (null: the page shows dashes), and no block in the clipped column's count."""
    v = _js(text, scheme)
    assert v["nan_blocks"] == [[0, 0]] and v["total"] == 0
    assert (v["max_rel"], v["max_rel_text"], v["median_rel"], v["median_rel_text"]) == (None, "—", None, "—")
    assert (v["coarse"], v["flushed"], v["clipped_blocks"], v["counted_blocks"]) == (None, None, None, 0)
    assert "最大值被截断" not in v["summary"] and "0%" not in v["summary"]
    json.dumps(v, allow_nan=False)


@pytest.mark.parametrize("scheme", ["mxfp8_e4m3", "mxfp4"])
def test_block_lab_nan_blocks_left_out_of_the_block_count(scheme):
    """Mixed: the 3 × 64 tensor's 1×32 blocks, by hand: row 0 two finite blocks, row 1 block 0 holds the NaN
    (column 10), row 2 both hold ±∞: 3 NaN blocks of 6. The numbers' columns count the 96 numbers of the
    3 others, and the clipped column counts those 3 blocks (not 6)."""
    v = _js(NAN_3X64, scheme)
    assert v["nan_blocks"] == [[1, 0], [2, 0], [2, 1]] and v["n_scales"] == 6
    assert v["total"] == 96 and v["counted_blocks"] == 3 and v["clipped_blocks"] == 0
    big = _js(", ".join(["1"] * 31 + ["7"]) + ", " + ", ".join(["1"] * 31 + ["nan"]), "mxfp4")
    # MXFP4, OCP floor: block 0's amax 7 → X = 2^(2 − 2) = 1, 7 saturates to 6: clipped; block 1 is NaN
    assert (big["clipped_blocks"], big["counted_blocks"], big["n_scales"]) == (1, 1, 2)
    assert "这个块的最大值被截断" in big["summary"]


@pytest.mark.parametrize(
    "text, cut",
    [
        ("1, 2, 3", "张量只有 1 行、只有 3 列，所以 128×128 的块在这里被截成 1×3。"),
        (NAN_3X64, "张量只有 3 行、只有 64 列，所以 128×128 的块在这里被截成 3×64。"),
        (", ".join(["1"] * 200), "张量只有 1 行，所以 128×128 的块在这里被截成 1×128。"),
    ],
)
def test_block_lab_cut_sentence_follows_the_tensor(text, cut):
    """The sentence on the cut 128×128 block is computed from the tensor shown (it came with the generated
    tensor's 64 rows in the caption, also under a 1-row tensor)."""
    v = _js(text, "per_tensor_e4m3")
    assert v["abs_summary"].endswith(cut)
    assert ask("block-lab", scheme="per_tensor_e4m3")["view"]["abs_summary"].endswith(
        f"张量只有 {block_lab.ROWS} 行，所以 128×128 的块在这里被截成 {block_lab.ROWS}×128。"
    )
    html = (ROOT / "c9" / "views" / "block-lab.html").read_text(encoding="utf-8")
    assert "张量只有" not in html


#: A typed number whose FP32 value rounds to another element code than the number itself, per scheme: 232 is
#: E4M3's tie between 224 and 240 (scale 1 under amax 448), 2.5 E2M1's between 2 and 3 (scale 1 under 6), and
#: under NVFP4's amax 7 (block scale 7/6) 0.875 = 0.75 × 7/6 is the tie between 0.5 × 7/6 and 1 × 7/6.
TWO_ROUNDINGS = {
    "per_tensor_e4m3": ("232.00000001, 448", "224", "240"),
    "deepseek_1x128": ("232.00000001, 448", "224", "240"),
    "deepseek_128x128": ("232.00000001, 448", "224", "240"),
    "mxfp8_e4m3": ("232.00000001, 448", "224", "240"),
    "mxfp4": ("2.5000000001, 6, 1", "2", "3"),
    "nvfp4": ("0.875000026952, 7", "0.583333", "1.16667"),
}


@pytest.mark.parametrize("scheme", block_lab.SCHEMES)
def test_block_lab_double_rounding_sentence_names_the_scheme(scheme):
    """The two-roundings note names the scheme as a quoted title, so a label ending in 「一个」 does not run
    into 「还原为」 (it read 「外加整张量一个还原为 3.35238」)."""
    text, via, direct = TWO_ROUNDINGS[scheme]
    v = _js(text, scheme)
    label = block_lab.SCHEME_LABELS[scheme]
    assert f"按「{label}」量化后还原为 {via}；若直接量化精确值，会还原为 {direct}。" in v["summary"], v[
        "summary"
    ]
    assert not label.endswith("一个")  # the panel title names what the tensor's one scale is


# ---------------------------------------------------------------- mx-nv


def _e2m1(x):
    return np.clip(np.asarray(x, dtype=np.float64), -6, 6).astype(ml_dtypes.float4_e2m1fn).astype(np.float64)


def _oracle_mx(v):
    v = np.asarray(v, dtype=np.float64)
    x = 2.0 ** (math.floor(math.log2(np.max(np.abs(v)))) - 2)  # OCP MX v1.0 §6.3
    return _e2m1(v / x) * x


def _oracle_nv(v):
    v = np.asarray(v, dtype=np.float64)
    amax = np.max(np.abs(v))
    t = np.float64(np.float32(amax / 2688.0))
    b = np.float64(np.clip(amax / (6 * t), 0, 448).astype(ml_dtypes.float8_e4m3fn))
    return _e2m1(v / (b * t)) * (b * t)


@pytest.mark.parametrize(
    "block",
    [
        [0.3, -1.2, 2.7, 0.05],
        [0.3, -1.2, 4, 0.05],
        [1e-3, 5e-4, -7e-3],
        [100.0, 1.0, -3.0, 0.2] * 4,
        [6.0, 5.0, 2.5, 1.75],
    ],
)
def test_mx_nv_against_ml_dtypes(block):
    v = mx_nv.view({"text": ", ".join(map(repr, block))})
    mx = np.array([r["mx"]["dequantized"] for r in v["rows"]])
    nv = np.array([r["nv"]["dequantized"] for r in v["rows"]])
    np.testing.assert_allclose(mx, _oracle_mx(block), rtol=0, atol=0)
    np.testing.assert_allclose(nv, _oracle_nv(block), rtol=1e-15)
    assert v["mx"]["bits_nominal"] == 4.25 and v["nv"]["bits_nominal"] == 4.5


def test_default_block_zeroes_0_05_in_both():
    v = mx_nv.view()
    last = v["rows"][-1]
    assert last["value"] == 0.05 and last["mx"]["zeroed"] and last["nv"]["zeroed"]
    assert v["mx"]["scale"] == 0.5 and v["mx"]["scale_code"] == 126  # E8M0: 2^(126 − 127)
    assert "1 个非零数变成了 0" in v["summary"]


@pytest.mark.parametrize(
    "text,message",
    [
        ("", "块是空的"),
        ("  ,  ", "块是空的"),
        ("0.3, x", "第 2 个数「x」不是数字"),
        ("nan", "NaN"),
        ("inf, 1", "第 1 个数「inf」是正无穷大：这里只量化有限数"),  # not 「超出了 FP32 的范围」
        ("1, -Infinity", "第 2 个数「-Infinity」是负无穷大"),
        ("1e39, 1", "第 1 个数「1e39」超出了 FP32"),
        (", ".join(["1"] * 17), "最多 16 个数"),
        ("0, 0, -0", "全是 0"),
        (3, "块是空的"),
    ],
)
def test_mx_nv_bad_input(text, message):
    out = ask("mx-nv", text=text)
    assert out["ok"] is False and message in out["error"], out


# ---------------------------------------------------------------- fp4-line, evolution-map, figures


def test_fp4_line_intervals_round_to_their_code():
    rows = fp4_line.rows()
    assert len(rows) == 16
    for r in rows:
        lo, hi = max(r["lo"], -7.0), min(r["hi"], 7.0)
        for x in np.linspace(lo, hi, 9)[1:-1]:
            assert _e2m1(x)[()] == r["value"], (r["hex"], x)
    assert [r["value_text"] for r in rows[:8]] == ["0", "0.5", "1", "1.5", "2", "3", "4", "6"]
    assert "<svg" in fp4_line.svg()


def test_evolution_map_marks_the_page():
    ctx = evolution_map.page_context(here="lesson-4")
    assert [s["page"] for s in ctx["stages"] if s["here"]] == ["lesson-4"]
    assert ctx["stages"][0]["href"] == "../lesson-1/"
    assert not any(s["here"] for s in evolution_map.page_context()["stages"])
    with pytest.raises(ValueError):
        evolution_map.page_context(here="lesson-9")


def test_figures_match_the_hand_calculation():
    f = {row["name"]: row for row in figures()}
    assert f["outlier_scale_in_block"]["value"] == 896.0
    assert f["outlier_scaled_in_block"]["text"] == "8.96"
    assert f["outlier_code_in_block"]["value"] == 9.0
    assert f["outlier_dequant_in_block"]["value"] == pytest.approx(9 / 896)
    assert f["outlier_code_per_tensor"]["value"] == 2 * 2.0**-9
    assert f["e5m2_max"]["value"] == float(ml_dtypes.finfo(ml_dtypes.float8_e5m2).max)
    assert f["mx_big4_0_3_rel_error"]["text"] == "66.7%"
    assert f["e2m1_of_1_75"]["value"] == 2.0 and f["e2m1_of_2_5"]["value"] == 2.0


# ---------------------------------------------------------------- the built pages


def test_built_pages_have_the_tables_and_maps(built_site):
    l4 = (built_site / "lesson-4" / "index.html").read_text()
    for fmt in ("float8_e4m3fn", "float8_e5m2"):
        table = re.search(rf'data-format="{fmt}".*?</table>', l4, re.S).group(0)
        assert len(re.findall(r"<td [^>]*data-code=", table)) == 256
        assert len(re.findall(r'<th scope="row">', table)) == 16
    assert l4.count('aria-current="step"') == 1 and "你在这里" in l4
    assert 'data-widget="block-lab"' in l4 and "12.8%" in l4 and "0.45%" in l4
    fp4 = (built_site / "fp4" / "index.html").read_text()
    assert 'data-widget="mx-nv"' in fp4 and "c9-fl-svg" in fp4 and fp4.count('aria-current="step"') == 1
    home = (built_site / "index.html").read_text()
    assert "c9-evo" in home and 'href="lesson-4/"' in home
    for page in (l4, fp4, home):
        assert "{{" not in page


# --- What a list box says about the reader's numbers ----------------------------------------------------


@pytest.mark.parametrize(
    "text,where",
    [
        ("1e400, 1", "第 1 行第 1 列「1e400」"),
        ("1e39, 1", "第 1 行第 1 列「1e39」"),
        ("1, 2\n3, -1e400", "第 2 行第 2 列「-1e400」"),
    ],
)
def test_a_number_beyond_fp32_is_quoted_as_typed(text, where):
    """「第 1 行第 1 列是 Fraction(1000000…, 1)：…±3.4e38」 quoted a repr; now the typed text, and the
    range in reader notation. MX/NV said 「1.00000e+400」: a reformatted value, not the input."""
    with pytest.raises(Exception) as e:
        block_lab.view({"source": "typed", "text": text})
    assert e.value.message_zh == f"{where}超出了 FP32 的范围（±3.4×10³⁸）{block_lab.INFINITY_INSTEAD}"
    with pytest.raises(Exception) as e:
        mx_nv.view({"text": text.replace("\n", ", ")})
    assert (
        "「" + where.split("「")[1] in e.value.message_zh and "FP32 的范围（±3.4×10³⁸）" in e.value.message_zh
    )
    assert "Fraction" not in e.value.message_zh and "e+" not in e.value.message_zh


@pytest.mark.parametrize("text", ["1,,2", "1, 2,", ",1", "1、、2"])
def test_an_empty_list_item_gets_a_message_in_both_list_boxes(text):
    """MX/NV read 「1,,2」 as 1 and 2 without a word; the block lab did the same."""
    for call in (
        lambda: mx_nv.view({"text": text}),
        lambda: block_lab.view({"source": "typed", "text": text}),
    ):
        with pytest.raises(Exception) as e:
            call()
        assert "有一项是空的" in e.value.message_zh and "「1,5」是 1 和 5 两个数" in e.value.message_zh


def test_list_boxes_read_commas_as_separators_and_say_so():
    """In a list box 「1,5」 is two numbers (the rule of c9/base/typed.py), and the box's label says it."""
    assert mx_nv.view({"text": "1,5"})["values"] == [1.0, 5.0]
    assert block_lab.view({"source": "typed", "text": "[1, 2], [3, 4]"})["shape"] == [2, 2]
    from c9.base import typed

    assert "「1,5」是 1 和 5 两个数" in typed.LIST_RULE
    assert mx_nv.page_context()["list_rule"] == block_lab.page_context()["list_rule"] == typed.LIST_RULE

    templates = ROOT / "c9" / "views"
    for name in ("mx-nv.html", "block-lab.html"):
        assert "{{ list_rule }}" in (templates / name).read_text(encoding="utf-8")


def test_mx_nv_scales_in_reader_notation():
    """「X = 2^97 = 1.58456e+29」, 「t = 3.72024e+26(FP32)」, cells 「1.00000e+30」."""
    v = mx_nv.view({"text": "1e30, 1"})
    assert v["mx"]["scale_text"] == "X = 2⁹⁷ ≈ 1.58456×10²⁹（E8M0 编码 0xE0）"
    assert "张量缩放 t ≈ 3.72024×10²⁶（FP32）" in v["nv"]["scale_text"]
    assert [r["value_text"] for r in v["rows"]] == ["1×10³⁰", "1"]
    assert mx_nv.view()["mx"]["scale_text"].startswith("X = 2⁻¹ = 0.5（")


def test_pattern_table_in_reader_notation():
    """Tooltips 「值 -448.0（= -1.75 × 2^8）」, 「值 -0.0」; summary 「2^-14 ≈ 6.1e-05」."""
    t = pattern_table.page_context("float8_e4m3fn")["t"]
    assert t["rows"][15][14]["info"] == "0xFE = 1.1111.110：正规数，值 −448（= −1.75 × 2⁸）"
    assert t["rows"][8][0]["info"].endswith("值 −0")
    e5m2 = pattern_table.page_context("float8_e5m2")
    assert "最大有限值 57,344，最小正规数 2⁻¹⁴ ≈ 6.1×10⁻⁵，最小次正规数 2⁻¹⁶ ≈ 1.53×10⁻⁵" in e5m2["summary"]
    assert e5m2["t"]["rows"][0][1]["short"] == "1.53×10⁻⁵"


def test_the_evolution_maps_note_defines_every_byte_unit_the_map_uses(built_site):
    """The map gives model states in GB and activations in GiB; its note defined only GB."""
    home = (built_site / "index.html").read_text()
    evo = re.search(r'<nav class="c9-evo".*?</nav>', home, re.S).group(0)
    note = re.search(r'<p class="c9-evo-note">(.*?)</p>', evo, re.S).group(1)
    for unit, definition in (("GB", "1 GB = 10⁹ 字节"), ("GiB", "1 GiB = 2³⁰ 字节")):
        assert re.search(rf"\d {unit}\b", evo) and definition in note, unit


@pytest.mark.parametrize(
    "rows, want",
    [(1, ["0"]), (2, ["0", "1"]), (8, [str(i) for i in range(8)]), (64, [str(i) for i in range(0, 64, 8)])],
)
def test_the_maps_axes_name_whole_tokens(rows, want):
    """Reviewer: the one-row typed tensor's y-axis ran −0.4 … 0.4. Each tick names a whole token at its
    row's centre, on the |x| map and on every error map."""
    text = "\n".join(", ".join(["1000", "0.01", "0.5"]) for _ in range(rows))
    for scheme in ("per_tensor_e4m3", "nvfp4"):
        v = block_lab.view(
            {"source": "typed", "text": text, "scheme": scheme} if rows < 64 else {"scheme": scheme}
        )
        for fig in [v["figure"]] + ([v["abs_figure"]] if "abs_figure" in v else []):
            y = fig["layout"]["yaxis"]
            assert y["ticktext"] == want and y["tickvals"] == [float(t) for t in want]
            assert y["range"] == [rows - 0.5, -0.5]


@pytest.mark.parametrize("text,odd", [("nan, inf", 2), ("nan nan nan", 3), ("-inf", 1)])
def test_block_lab_a_tensor_without_a_finite_number_says_so(text, odd):
    """QA: 「nan, inf」 read 「有限的数都是 0，另有 2 个 NaN 或无穷大」, of a tensor with no finite number at all."""
    v = _js(text, "per_tensor_e4m3")  # the first scheme's answer carries the |x| map and its text
    lead = "这个数" if odd == 1 else f"{odd:,} 个数全"  # not 「1 个数全是」
    assert f"：1 行 × {odd} 列，{lead}是 NaN 或无穷大（图里留白）" in v["abs_summary"]
    assert "有限的数" not in v["abs_summary"]
    assert "有限的数都是 0，另有 1 个" in _js("0, 0, nan", "per_tensor_e4m3")["abs_summary"]


@pytest.mark.parametrize("scheme", ["mxfp8_e4m3", "mxfp4"])
def test_block_lab_a_nan_block_is_not_counted_as_the_whole_tensor(scheme):
    """Reader check: 「1, 2\\nnan, 4」 read 「整张量只有一个块……2 个块里有 1 个含 NaN」 in one summary."""
    v = block_lab.view({"source": "typed", "text": "1, 2\nnan, 4", "scheme": scheme})
    assert "整张量只有一个块" not in v["summary"]
    assert "不含 NaN 或无穷大的块只有 1 个" in v["summary"] and "2 个块里有 1 个含 NaN" in v["summary"]
    whole = block_lab.view({"source": "typed", "text": "1, 2", "scheme": scheme})["summary"]
    assert "整张量只有一个块" in whole


@pytest.mark.parametrize("token", ["1e999", "1e300", "-1e500"])
def test_block_lab_numbers_beyond_fp32_are_refused_alike(token):
    """Reader check: 1e999 was 「超出了 10⁻⁴⁰⁰ 到 10⁴⁰⁰」 while 1e300 was 「超出了 FP32 的范围」. The lab takes
    ±∞ (lesson 4 says so), so a later check: the refusal says to type inf for an infinity."""
    with pytest.raises(InputError) as e:
        block_lab.parse_tensor(f"1, {token}")
    assert e.value.message_zh == (
        f"第 1 行第 2 列「{token}」超出了 FP32 的范围（±3.4×10³⁸）：要看块里有无穷大时会怎样，请直接写 inf 或 -inf"
    )
    assert block_lab.parse_tensor("1, -inf")[0][1] == float("-inf")


@pytest.mark.parametrize("token", ["1e999", "1e300", "-1e500"])
def test_mx_nv_numbers_beyond_fp32_are_refused_alike(token):
    """Reader check: the MX/NV box told 1e999 「量级超出了 10⁻⁴⁰⁰ 到 10⁴⁰⁰」 while the block lab beside it said
    「超出了 FP32 的范围」; both go through one reader now (params.fp32_numbers)."""
    with pytest.raises(InputError) as e:
        mx_nv.parse_block(f"1, {token}")
    assert e.value.message_zh == f"第 2 个数「{token}」超出了 FP32 的范围（±3.4×10³⁸）"
