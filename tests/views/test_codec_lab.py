"""The bit flipper in all five formats (FP8 E4M3/E5M2 on lesson 4, E2M1/E8M0 on the FP4
branch): typed values stored exactly as ml_dtypes stores float32 inputs, the saturating choice, every code
of every format reachable by flipping bits, and a Chinese message for what a format cannot hold."""

from __future__ import annotations

import json
import math
import random
import struct

import pytest

from c9.core import formats as F
from c9.figures import codec_lab as codec_lab_figures
from c9.views import api
from c9.views import bit_flipper as B

ml_dtypes = pytest.importorskip("ml_dtypes")
np = pytest.importorskip("numpy")

FP8 = "float8_e4m3fn,float8_e5m2"
FP4 = "float4_e2m1fn,float8_e8m0fnu"
E4, E5, E2, E8 = "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "float8_e8m0fnu"


def rows(**params) -> dict:
    return {r["format"]: r for r in B.view(params)["rows"]}


def ask(**params) -> dict:
    return json.loads(api.handle(json.dumps({"widget": "bit-flipper", "params": params})))


# ---- the reported cases -----------------------------------------------------------------------------


@pytest.mark.parametrize("overflow", ["default", "saturate"])
def test_464_is_448_and_0x7E_in_e4m3_in_both_modes(overflow):
    r = rows(formats=FP8, value="464", overflow=overflow)[E4]
    assert (r["value"], r["code"], r["hex"], r["exact"]) == (448.0, 0x7E, "0x7E", "448")
    assert r["error_text"] == "−16（相对 3.45%）"  # a tie to even, not a clamp
    assert r["bits_text"] == "0.1111.110"


def test_465_is_nan_0x7F_without_saturation_and_448_with_it():
    nan = rows(formats=FP8, value="465")[E4]
    assert nan["code"] == 0x7F and nan["cls"] == "nan" and nan["value"] is None
    assert "NaN" in nan["error_text"] and "非饱和" in nan["error_text"]
    sat = rows(formats=FP8, value="465", overflow="saturate")[E4]
    assert sat["code"] == 0x7E and sat["value"] == 448.0 and "饱和到最大值" in sat["error_text"]
    assert rows(formats=FP8, value="-465")[E4]["hex"] == "0xFF"  # −NaN keeps its sign
    assert rows(formats=FP8, value="-465", overflow="saturate")[E4]["value"] == -448.0
    # ml_dtypes (non-saturating) agrees
    assert np.array([465, 464], np.float32).astype(ml_dtypes.float8_e4m3fn).view(np.uint8).tolist() == [
        0x7F,
        0x7E,
    ]


def test_e5m2_overflows_to_infinity_or_saturates_to_57344():
    assert rows(formats=FP8, value="465")[E5]["value"] == 448.0
    inf = rows(formats=FP8, value="65536")[E5]
    assert (inf["code"], inf["cls"], inf["error_text"]) == (0x7C, "infinity", "溢出成了无穷大")
    sat = rows(formats=FP8, value="65536", overflow="saturate")[E5]
    assert (sat["code"], sat["value"]) == (0x7B, 57344.0)
    # the edge: 61,440 is the tie above 57,344 and goes up (57,344's significand 111₂ is odd)
    assert rows(formats=FP8, value="61440")[E5]["code"] == 0x7C
    assert rows(formats=FP8, value="61439.99")[E5]["code"] == 0x7B
    assert rows(formats=FP8, value="-inf", overflow="saturate")[E5]["code"] == 0xFB
    assert np.array([61440, 65536], np.float32).astype(ml_dtypes.float8_e5m2).view(np.uint8).tolist() == [
        0x7C,
        0x7C,
    ]


def test_the_interval_of_448_depends_on_the_mode():
    assert rows(formats=FP8, value="448")[E4]["interval"] == "[432，464]"
    assert rows(formats=FP8, value="448", overflow="saturate")[E4]["interval"] == "[432，+∞]"
    neg = rows(formats=FP8, value="-448")[E5]["interval"]
    assert neg == "(−480，−416)" and "-" not in neg  # reader's minus, no e-notation


def test_the_summary_says_the_mode_only_where_there_is_a_choice():
    assert "（饱和模式）" in B.view({"formats": FP8, "value": "465", "overflow": "saturate"})["summary"]
    assert "（非饱和模式）" in B.view({"formats": FP8, "value": "465"})["summary"]
    assert "模式" not in B.view({"formats": FP4, "value": "7"})["summary"]
    assert B.page_context(formats=FP8, value="1")["overflow_choice"] is True
    assert B.page_context(formats=FP4, value="1")["overflow_choice"] is False
    assert B.page_context(formats="float16,float32", value="1")["overflow_choice"] is False


def test_the_overflow_choice_is_a_parameter_with_a_chinese_refusal():
    v = B.view({"formats": FP8, "value": "465", "overflow": "saturate"})
    assert v["params"]["overflow"] == "saturate"
    assert B.view({"formats": FP8, "value": "465"})["params"]["overflow"] == "default"
    out = ask(formats=FP8, value="465", overflow="clamp")
    assert not out["ok"] and "「clamp」" in out["error"] and "饱和" in out["error"]


# ---- every code of every format reachable by flipping bits ------------------------------------------


def _flip_closure(fmts: str, fmt: str, start: int) -> dict[int, dict]:
    """Every code reached from ``start`` by flipping one bit at a time, as the widget does it: the next
    code is the row's shown bits with one toggled, sent back as hex text."""
    seen, todo = {}, [start]
    while todo:
        code = todo.pop()
        if code in seen:
            continue
        f = F.get_format(fmt)
        row = rows(formats=fmts, source=fmt, code=f"0x{code:0{(f.bits + 3) // 4}X}")[fmt]
        seen[code] = row
        shown = sum(1 << b["pos"] for b in row["bits"] if b["on"])
        assert shown == code == row["code"]
        todo += [shown ^ (1 << b["pos"]) for b in row["bits"]]
    return seen


def _ml(fmt: str, codes) -> list[float]:
    dt = getattr(ml_dtypes, fmt)
    return np.array(list(codes), np.uint8).view(dt).astype(np.float64).tolist()


@pytest.mark.parametrize("fmts,fmt,n", [(FP4, E2, 16), (FP8, E4, 256), (FP8, E5, 256), (FP4, E8, 256)])
def test_every_code_is_reachable_by_flipping_and_decodes_as_ml_dtypes(fmts, fmt, n):
    seen = _flip_closure(fmts, fmt, 0)
    assert sorted(seen) == list(range(n))
    codes = sorted(seen)
    for code, want in zip(codes, _ml(fmt, codes) if F.get_format(fmt).bits == 8 else _ml4(codes)):
        got = F.decode(fmt, code)
        assert (math.isnan(got) and math.isnan(want)) or (
            got == want and math.copysign(1, got) == math.copysign(1, want)
        ), (fmt, code)
        row = seen[code]
        assert (row["value"] is None) == (not math.isfinite(want))


def _ml4(codes) -> list[float]:
    """float4_e2m1fn codes (one per byte's low nibble) through ml_dtypes."""
    return np.array(list(codes), np.uint8).view(ml_dtypes.float4_e2m1fn).astype(np.float64).tolist()


def test_e2m1_values_are_ml_dtypes_values():
    vals = [F.decode(E2, c) for c in range(16)]
    assert vals == _ml4(range(16))
    assert [abs(v) for v in vals[:8]] == [0, 0.5, 1, 1.5, 2, 3, 4, 6]
    assert F.get_format(E2).has_nan is False and F.get_format(E2).has_inf is False


def test_e8m0_codes_have_no_sign_bit_and_0xFF_is_nan():
    lo, one, hi, nan = (rows(formats=FP4, source=E8, code=c)[E8] for c in ("0x00", "0x7F", "0xFE", "0xFF"))
    assert [b["kind"] for b in lo["bits"]] == ["exponent"] * 8 and lo["sign"] is None
    assert (lo["value_text"], one["value"], hi["value_text"], nan["cls"]) == ("2⁻¹²⁷", 1.0, "2¹²⁷", "nan")
    assert lo["down"] is None and hi["up"] is None  # no 0 below, nothing finite above
    e8 = rows(formats=FP4, value="0")[E8]
    assert e8["code"] == 0xFF and "没有 0" in e8["error_text"]
    assert rows(formats=FP4, value="-1")[E8]["code"] == 0xFF
    assert rows(formats=FP4, value="3")[E8]["code"] == 0x81  # tie goes to the even significand, 4


def test_a_nan_code_beside_e2m1_leaves_that_row_empty_with_a_reason():
    v = B.view({"formats": FP4, "source": E8, "code": "0xFF"})
    e2 = v["rows"][0]
    assert e2["format"] == E2 and e2["code"] is None and "没有 NaN" in e2["missing"]
    assert not any(b["on"] for b in e2["bits"])
    assert "FP4 E2M1 存不下" in v["summary"]
    assert B.view({"formats": FP4, "source": E8, "code": "0x7F"})["rows"][0]["missing"] is None


# ---- typed values against ml_dtypes (float32 inputs) ------------------------------------------------


def _f32_samples(k: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    out = [struct.unpack("<f", struct.pack("<I", rng.getrandbits(32)))[0] for _ in range(k)]
    out += [rng.uniform(-600, 600) for _ in range(k)] + [rng.uniform(-8, 8) for _ in range(k)]
    return [float(np.float32(x)) for x in out if not math.isnan(x)]


@pytest.mark.parametrize("fmt", [E4, E5, E2, E8])
def test_typed_float32_values_store_as_ml_dtypes_stores_them(fmt):
    xs = _f32_samples(3000, 13) + [
        464.0,
        465.0,
        -0.0,
        0.0,
        1e-45,
        math.inf,
        -math.inf,
        57344.0,
        61440.0,
        6.5,
        7.0,
    ]
    if fmt == E8:  # ml_dtypes rounds float32 subnormals in [2⁻¹²⁷, 1.5 × 2⁻¹²⁷) up: see the test below
        xs = [x for x in xs if not 2.0**-127 < abs(x) < 2.0**-126]
    want = np.array(xs, np.float32).astype(getattr(ml_dtypes, fmt)).view(np.uint8).tolist()
    if fmt == E2:
        want = [w & 0xF for w in want]
    got = [F.encode(fmt, x) for x in xs]
    assert got == want
    # and the widget shows the same code (a sample: one view per value)
    fmts = FP8 if fmt in (E4, E5) else FP4
    for x, w in list(zip(xs, want))[::97]:
        assert rows(formats=fmts, value=repr(x))[fmt]["code"] == w, x


def test_e8m0_rounds_a_float32_subnormal_to_the_nearest_power_where_ml_dtypes_rounds_up():
    """The one place ml_dtypes 0.6 and one exact rounding differ for float32 inputs: 1.25 × 2⁻¹²⁷ (a
    float32 subnormal) is nearer 2⁻¹²⁷ (code 0x00) than 2⁻¹²⁶, but ml_dtypes gives 0x01. Above
    1.5 × 2⁻¹²⁷, and for every normal float32, the two agree."""
    x = 1.25 * 2.0**-127
    assert F.encode(E8, x) == 0x00 and rows(formats=FP4, value=repr(x))[E8]["code"] == 0x00
    ml = (
        np.array([x, 1.5 * 2.0**-127, 1.75 * 2.0**-127], np.float32)
        .astype(ml_dtypes.float8_e8m0fnu)
        .view(np.uint8)
        .tolist()
    )
    assert ml == [0x01, 0x01, 0x01]
    assert [F.encode(E8, v) for v in (1.5 * 2.0**-127, 1.75 * 2.0**-127)] == [0x01, 0x01]


@pytest.mark.parametrize("fmt", [E4, E5])
def test_saturating_mode_only_replaces_an_overflow_by_the_largest_finite_value(fmt):
    f = F.get_format(fmt)
    for x in _f32_samples(2000, 7) + [math.inf, -math.inf, 465.0, 1e6]:
        free, sat = F.encode(f, x), F.encode(f, x, "saturate")
        overflowed = not math.isinf(x) and math.isfinite(abs(x)) and not math.isfinite(F.decode(f, free))
        if overflowed or math.isinf(x):
            assert sat == f.max_code | (f.sign_bit if x < 0 else 0), x
        else:
            assert sat == free, x


# ---- bad input, in Chinese ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params,words",
    [
        (dict(formats=FP4, value="nan"), ["E2M1 没有 NaN", "存不进去"]),
        (dict(formats=FP4, source=E2, code="0x10"), ["4 位的编码", "十六进制最多 1 位"]),
        (dict(formats=FP4, source=E2, code="0b10101"), ["4 位的编码"]),
        (dict(formats=FP8, source=E4, code="0x3C00"), ["8 位的编码", "十六进制最多 2 位"]),
        (dict(formats=FP4, source=E8, code="0x100"), ["8 位的编码"]),
        (dict(formats=FP8, value="465", overflow=""), ["饱和"]),
    ],
)
def test_bad_input_gets_a_chinese_message(params, words):
    out = ask(**params)
    assert not out["ok"]
    for w in words:
        assert w in out["error"], out["error"]


@pytest.mark.parametrize("fmts,overflow", [(FP4, "default"), (FP8, "saturate")])
@pytest.mark.parametrize(
    "text,error", [("1e400", "−1×10⁴⁰⁰"), ("-1e309", "+1×10³⁰⁹"), ("1.8e308", "−1.8×10³⁰⁸")]
)
def test_a_value_beyond_float_range_saturates_with_its_exact_error(fmts, overflow, text, error):
    # E2M1 always saturates, FP8 when asked: the error is the exact difference, beyond a float's
    # range too (float(err) overflowed and the reader got the generic "internal error" sentence)
    out = ask(formats=fmts, value=text, overflow=overflow)
    assert out["ok"], out
    first = out["view"]["rows"][0]
    f = F.get_format(first["format"])
    assert abs(first["value"]) == f.max and (first["value"] < 0) == text.startswith("-")
    assert first["error_text"] == f"{error}（相对 > 99.9%；饱和到最大值）"


@pytest.mark.parametrize(
    "fmts,src,example", [(FP8, E4, "0x38"), (FP8, E5, "0x3C"), (FP4, E2, "0x2"), (FP4, E8, "0x7F")]
)
def test_an_empty_code_box_suggests_a_code_of_that_format(fmts, src, example):
    out = ask(formats=fmts, source=src, code="  ")
    assert not out["ok"]
    assert out["error"].endswith(f"例如 1 的编码 {example}"), out["error"]
    assert (
        ask(formats=fmts, source=src, code=example)["view"]["rows"][[E4, E5, E2, E8].index(src) % 2]["value"]
        == 1
    )


# ---- the figures the tasks quote are the widget's own answers ----------------------------------------


def test_the_task_figures_are_the_widgets_answers():
    figs = {f["name"]: f for f in codec_lab_figures.figures()}
    assert (figs["cl_e4m3_464"]["text"], figs["cl_e4m3_464_hex"]["text"]) == ("448", "0x7E")
    assert (figs["cl_e4m3_465"]["text"], figs["cl_e4m3_465_hex"]["text"]) == ("NaN", "0x7F")
    assert (figs["cl_e4m3_465_sat"]["text"], figs["cl_e4m3_465_sat_hex"]["text"]) == ("448", "0x7E")
    assert (figs["cl_e5m2_65536"]["text"], figs["cl_e5m2_65536_sat"]["text"]) == ("+∞", "57,344")
    assert (figs["cl_e4m3_beyond_max"]["value"], figs["cl_e5m2_overflow_from"]["value"]) == (480, 61440)
    assert (figs["cl_e2m1_3"]["text"], figs["cl_e8m0_3"]["text"], figs["cl_e8m0_3_hex"]["text"]) == (
        "3",
        "4",
        "0x81",
    )
    assert (figs["cl_e2m1_5"]["text"], figs["cl_e8m0_0_hex"]["text"]) == ("4", "0xFF")


def test_signs_of_zero_and_nan_are_kept_in_every_format_that_has_them():
    fp8 = rows(formats=FP8, value="-nan")
    assert (fp8[E4]["hex"], fp8[E5]["hex"]) == ("0xFF", "0xFE")  # as ml_dtypes: −NaN keeps its sign
    assert np.array([-np.nan], np.float32).astype(ml_dtypes.float8_e5m2).view(np.uint8).tolist() == [0xFE]
    assert fp8[E4]["value_text"] == "−NaN"
    neg0 = rows(formats=FP4, value="-0")
    assert neg0[E2]["hex"] == "0x8" and neg0[E2]["value_text"] == "−0"
    assert rows(formats=FP8, value="-1e-9")[E4]["hex"] == "0x80"  # underflow keeps the sign: −0
    assert rows(formats=FP4, source=E2, code="0x8")[E2]["exact"] == "−0"


@pytest.mark.parametrize("fmts,value,want", [("float16,float32", "70000", "+∞"), (FP4, "1e39", "NaN")])
def test_saturation_applies_only_where_the_widget_offers_the_choice(fmts, value, want):
    # lesson 2's FP16 and the FP4 branch's E8M0 have no saturating control: an address asking for it
    # (bf.overflow=saturate) gave 65,504 and 2¹²⁷ with nothing on screen saying so
    v = B.view(dict(formats=fmts, value=value, overflow="saturate"))
    r = {r["format"]: r for r in v["rows"]}
    shown = r["float16"] if fmts.startswith("float16") else r[E8]
    assert shown["value_text"] == want and v["params"]["overflow"] == "default"
    assert (
        rows(formats=FP8, value="465", overflow="saturate")[E4]["value_text"] == "448"
    )  # where it is offered
