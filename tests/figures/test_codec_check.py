"""The value-by-value check of our codecs against PyTorch and ml_dtypes.

Without torch: the data file adds up, its claims hold (the double-rounding rows are re-derived with
Fraction, the E8M0 and E4M3 differences are what the page says), and the lab page shows the file's
figures. tests/lab/test_codec_check_torch.py recomputes the file with torch.
"""

from __future__ import annotations

import html
import re
from fractions import Fraction

import pytest

from c9.base.paths import LAB_CODEC_CHECK
from c9.core import formats as F
from c9.figures import codec_check

DATA = codec_check.load()
ROWS = {r["format"]: r for r in DATA["formats"]}


def test_every_format_of_the_guide_is_checked_and_every_code_of_the_small_ones():
    assert list(ROWS) == list(codec_check.FORMATS)
    for name, r in ROWS.items():
        f = F.get_format(name)
        assert r["decode"]["codes_total"] == f.n_codes
        if f.bits <= 16:
            assert r["decode"]["codes_checked"] == f.n_codes
        assert r["encode"]["random_inputs"] == DATA["provenance"]["random_inputs_per_format"] >= 10**5


def test_decoding_agrees_everywhere_it_can_be_compared():
    for name, r in ROWS.items():
        dec = r["decode"]
        assert dec["reference"] == dec["codes_checked"], name
        assert dec["torch"] == (None if name == "float4_e2m1fn" else dec["codes_checked"]), name


def test_torch_can_convert_its_8_bit_types_on_the_cpu_but_not_fp4():
    t = DATA["torch_dtypes"]
    assert all(
        t[n]["exists"] and t[n]["cpu_convert"] for n in ("float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu")
    )
    assert t["float4_e2m1fn_x2"]["exists"] and not t["float4_e2m1fn_x2"]["cpu_convert"]


def test_the_differences_are_the_ones_the_page_explains():
    diffs = {
        (name, lib, kind)
        for name, r in ROWS.items()
        for lib in ("reference", "torch", "torch_vs_default")
        for kind in r["encode"].get(f"{lib}_differences", {})
    }
    assert diffs == {
        ("bfloat16", "torch", "nan"),
        ("float8_e8m0fnu", "reference", "float32_subnormal"),
        ("float8_e8m0fnu", "torch", "float32_subnormal"),
        ("float8_e8m0fnu", "torch", "zero"),
        ("float8_e8m0fnu", "torch", "negative"),
        ("float4_e2m1fn", "reference", "nan"),
        ("float8_e4m3fn", "torch_vs_default", "overflow"),
        ("float8_e4m3fn", "torch_vs_default", "inf"),
    }
    e8 = ROWS["float8_e8m0fnu"]["encode"]
    sub = e8["reference_differences"]["float32_subnormal"]
    # the page: "above 2^-127 and below 1.5 × 2^-127", where 2^-127 is nearer, yet the libraries give 2^-126
    lo, hi = Fraction(float(sub["abs_min"])), Fraction(float(sub["abs_max"]))
    assert Fraction(1, 2**127) < lo <= hi < Fraction(3, 2**128)
    assert (sub["example"]["ours"], sub["example"]["library"]) == ("0x00", "0x01")
    assert e8["torch_differences"]["float32_subnormal"]["count"] == sub["count"]
    # every negative number the check encoded (NaNs aside) is one PyTorch encodes as if it were positive
    assert e8["torch_differences"]["negative"]["example"]["library"] != "0xFF"
    e4 = ROWS["float8_e4m3fn"]["encode"]
    assert e4["torch_mode"] == "saturate" and e4["torch"] == e4["inputs"]
    assert all(
        k["example"]["library"] == "0x7E" and k["example"]["ours"] == "0x7F"
        for k in e4["torch_vs_default_differences"].values()
    )
    assert float(e4["torch_vs_default_differences"]["overflow"]["abs_min"]) > 464  # above the last midpoint
    bf = ROWS["bfloat16"]["encode"]["torch_differences"]["nan"]["example"]
    assert (bf["ours"], bf["library"]) == ("0x7FC0", "0xFFFF")


def _nearest_code(f, x: Fraction) -> int:
    """The finite code nearest to x, found by brute force over every code (ties cannot happen here)."""
    finite = [c for c in range(f.n_codes) if F.classify(f, c) not in ("nan", "infinity")]
    best = min(finite, key=lambda c: abs(F.decode_exact(f, c) - x))
    dist = abs(F.decode_exact(f, best) - x)
    assert sum(abs(F.decode_exact(f, c) - x) == dist for c in finite) == 1 or x == 0
    return best


@pytest.mark.parametrize("row", DATA["double_rounding"], ids=lambda r: r["format"])
def test_double_rounding_rows_re_derived_with_fractions(row):
    f = F.get_format(row["format"])
    x = Fraction(float(row["input_float64"]))
    assert Fraction.from_float(float.fromhex(row["input_hex"])) == x
    x32 = Fraction(float(row["float32_of_input"]))
    # one rounding: the nearest code; two roundings: float32 first (a tie), then ties to even
    assert int(row["exact"], 16) == _nearest_code(f, x)
    lo, hi = sorted(
        (F.decode_exact(f, int(row["exact"], 16)), F.decode_exact(f, int(row["via_float32"], 16)))
    )
    assert x32 == (lo + hi) / 2 and row["float32_is_midpoint"]
    assert int(row["via_float32"], 16) != int(row["exact"], 16)
    assert (int(row["via_float32"], 16) >> 0) & 1 == 0 or f.mantissa_bits == 0  # the even neighbour
    # what the page says: PyTorch always gives the second rounding, the reference too except numpy's float16
    assert row["torch"] in (row["via_float32"], None)
    assert row["reference_code"] == (row["exact"] if row["format"] == "float16" else row["via_float32"])


def test_the_two_reported_examples_are_rows():
    rows = {r["format"]: r for r in DATA["double_rounding"]}
    bf = rows["bfloat16"]
    assert Fraction(float(bf["input_float64"])) == 1 + Fraction(1, 2**8) + Fraction(1, 2**40)
    assert (bf["exact"], bf["via_float32"]) == ("0x3F81", "0x3F80")
    e4 = rows["float8_e4m3fn"]
    assert float(e4["input_float64"]) == -431.99999999999994
    assert (e4["exact"], e4["via_float32"], F.decode("e4m3", 0xFD), F.decode("e4m3", 0xFE)) == (
        "0xFD",
        "0xFE",
        -416.0,
        -448.0,
    )


def test_the_page_shows_the_files_figures(built_site):
    page = (built_site / "lab" / "index.html").read_text(encoding="utf-8")
    section = page[page.index('id="codec-check"') :]
    shown = {
        m.group(1): html.unescape(m.group(2))
        for m in re.finditer(r'<span class="fig" tabindex="0" data-fig="(cc_[\w]+)">([^<]*)<span', section)
    }
    figs = {f["name"]: f["text"] for f in codec_check.figures()}
    assert shown and all(figs[name] == text for name, text in shown.items())
    for key, _ in codec_check.FORMATS.values():  # every format's counts in both tables
        for part in (
            "codes",
            "inputs",
            "decode_reference_diff",
            "decode_torch_diff",
            "encode_reference_diff",
            "encode_torch_diff",
        ):
            assert f"cc_{key}_{part}" in shown, (key, part)
    for r in DATA["formats"]:  # every difference kind is quoted with its count
        key = codec_check.FORMATS[r["format"]][0]
        for lib in ("reference", "torch", "torch_vs_default"):
            for kind in r["encode"].get(f"{lib}_differences", {}):
                same_count = lib == "torch" and kind in r["encode"]["reference_differences"]
                assert same_count or f"cc_{key}_{lib}_{kind}" in shown, (key, lib, kind)
    for r in DATA["double_rounding"]:
        key = codec_check.FORMATS[r["format"]][0]
        assert {f"cc_dr_{key}_input", f"cc_dr_{key}_exact", f"cc_dr_{key}_via32"} <= set(shown)
    # the counts the page shows: checked − agreeing, for every format
    for r in DATA["formats"]:
        key = codec_check.FORMATS[r["format"]][0]
        if r["encode"]["torch"] is not None:
            assert shown[f"cc_{key}_encode_torch_diff"] == f"{r['encode']['inputs'] - r['encode']['torch']:,}"


def test_a_file_that_does_not_add_up_is_refused(tmp_path):
    import json

    bad = json.loads(LAB_CODEC_CHECK.read_text(encoding="utf-8"))
    bad["formats"][2]["encode"]["torch"] += 1
    p = tmp_path / "codec-check.json"
    p.write_text(json.dumps(bad))
    with pytest.raises(ValueError):
        codec_check.load(p)
