"""The codec check with torch installed (the test venv has it): its data file re-derived.

Every code of every 8- and 16-bit format decoded again by PyTorch and ml_dtypes, the edge inputs, every
example the page quotes and every double-rounding row recomputed and compared with
lab/results/codec-check.json. Skipped as a whole without torch (tests/figures/test_codec_check.py still checks
the file's own claims and the page).
"""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch", reason="re-deriving the file needs torch (pip install .[lab])")
np = pytest.importorskip("numpy")
ml_dtypes = pytest.importorskip("ml_dtypes")

from c9.core import formats as F  # noqa: E402
from c9.figures import codec_check  # noqa: E402
from lab import codec_check as lab_check  # noqa: E402

DATA = codec_check.load()
ROWS = {r["format"]: r for r in DATA["formats"]}


def test_the_file_was_made_with_the_installed_libraries():
    assert (DATA["provenance"]["torch"], DATA["provenance"]["ml_dtypes"]) == (
        torch.__version__,
        ml_dtypes.__version__,
    )
    assert lab_check.torch_dtypes() == DATA["torch_dtypes"]


@pytest.mark.parametrize("name", [n for n in codec_check.FORMATS if F.get_format(n).bits <= 16])
def test_every_code_decodes_as_the_file_says(name):
    f = F.get_format(name)
    tname, np_dt, _ = lab_check.FORMATS[name]
    codes = list(range(f.n_codes))
    ref, tor = lab_check.lib_decode(f, codes, np_dt, None if name == "float4_e2m1fn" else tname)
    ours = [F.decode(f, c) for c in codes]
    dec = ROWS[name]["decode"]
    assert sum(map(lab_check.same_value, ours, ref)) == dec["reference"]
    assert (sum(map(lab_check.same_value, ours, tor)) if tor is not None else None) == dec["torch"]


@pytest.mark.parametrize("name", list(codec_check.FORMATS))
def test_edge_inputs_and_examples_encode_as_the_file_says(name):
    f = F.get_format(name)
    enc = ROWS[name]["encode"]
    tname, np_dt, _ = lab_check.FORMATS[name]
    tname = None if name == "float4_e2m1fn" else tname
    edges = lab_check.edge_inputs(f)
    assert len(edges) == enc["edge_inputs"]
    ref, tor = lab_check.lib_encode(f, edges, np_dt, tname)
    ours = lab_check.ours_encode(f, edges)
    _, kinds = lab_check.compare(f, edges, ours, ref)
    assert set(kinds) <= set(enc["reference_differences"])
    if tor is not None:
        _, kinds = lab_check.compare(f, edges, lab_check.ours_encode(f, edges, enc["torch_mode"]), tor)
        assert set(kinds) <= set(enc["torch_differences"])
    for lib in ("reference", "torch", "torch_vs_default"):
        for kind, k in enc.get(f"{lib}_differences", {}).items():
            ex = k["example"]
            x = {"NaN": math.nan, "-NaN": -math.nan}.get(ex["input"]) or float(ex["input"])
            xs = np.array([x], dtype=np.float32)
            r, t = lab_check.lib_encode(f, xs, np_dt, tname)
            got = (r if lib == "reference" else t)[0]
            assert lab_check.code_text(f, got) == ex["library"], (lib, kind)
            mode = enc["torch_mode"] if lib == "torch" else "default"
            assert lab_check.code_text(f, lab_check.ours_encode(f, xs, mode)[0]) == ex["ours"], (lib, kind)


@pytest.mark.parametrize("row", DATA["double_rounding"], ids=lambda r: r["format"])
def test_double_rounding_rows_recomputed_by_the_libraries(row):
    case = next(c for c in lab_check.DOUBLE_ROUNDING if c[0] == row["format"])
    assert lab_check.double_rounding(*case) == row


# ---------------------------------------------------------------- MX scales and codes against torchao


def _torchao():
    return pytest.importorskip(
        "torchao.prototype.mx_formats.mx_tensor", reason="torchao is not installed (pip install .[lab])"
    )


@pytest.mark.parametrize("rule", ["floor", "rceil", "ceil", "even"])
@pytest.mark.parametrize("block", lab_check.TORCHAO_BLOCKS)
@pytest.mark.parametrize("fmt", list(lab_check.TORCHAO_ELEMENTS))
def test_mx_scales_and_codes_equal_torchaos(fmt, block, rule):
    """Every block's E8M0 scale code and every element code of c9.core.blockscale equal torchao's to_mx
    (CPU, eager), FLOOR and RCEIL and torchao's other two modes, at block sizes 8, 16 and 32; the inputs
    include blocks the floor rule clips, a zero block and a NaN block (scale 0xFF in both)."""
    _torchao()
    r = lab_check.compare_torchao(fmt, block, rule, np.random.default_rng([lab_check.SEED, block]))
    assert r["scales_equal"] == r["blocks"] == lab_check.TORCHAO_ROWS * 4, r
    assert r["codes_equal"] == r["codes_compared"] == (r["blocks"] - 1) * block, r
    assert r["nan_blocks"] == 1
    if rule == "floor":  # every third row's four blocks have amax in (elem_max, 2^(emax+1)): many clip
        assert r["clipped_blocks"] >= lab_check.TORCHAO_ROWS // 3, r
    if rule in ("rceil", "ceil"):  # a rounded-up scale never clips
        assert r["clipped_blocks"] == 0, r


@pytest.mark.parametrize("fmt", list(lab_check.TORCHAO_ELEMENTS))
def test_an_infinite_block_where_torchao_differs(fmt):
    """NAN_BLOCK_SOURCES["torchao"]: an ∞ amax is not NaN in torchao: FLOOR reads its FP32 exponent field
    (128) as the block's, RCEIL gives 0xFE; ours (OCP MX, microxcaling) is 0xFF for both."""
    _torchao()
    from c9.core import blockscale as B

    f = F.get_format(fmt)
    x = np.array([[np.inf] + [1.0] * 31, [np.nan] + [1.0] * 31], dtype=np.float32)
    floor, _ = lab_check.torchao_mx(fmt, 32, x, "floor")
    rceil, _ = lab_check.torchao_mx(fmt, 32, x, "rceil")
    assert floor.ravel().tolist() == [128 - f.emax + 127, 0xFF]
    assert rceil.ravel().tolist() == [0xFE, 0xFF]
    bf = B.BlockFormat("mx", fmt, (1, 32), "float8_e8m0fnu", "mx_pow2")
    assert B.quantize(x.astype(np.float64).tolist(), bf).scale_codes == [[0xFF], [0xFF]]
