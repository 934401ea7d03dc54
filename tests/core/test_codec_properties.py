"""Property tests (hypothesis) of c9.core.formats and c9.core.blockscale."""

import math
from fractions import Fraction

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from c9.core import blockscale as B
from c9.core import formats as F

NAMES = [f.name for f in F.FORMATS]
SIGNED = [f.name for f in F.FORMATS if f.signed]
finite = st.floats(allow_nan=False, allow_infinity=False)
CFG = settings(max_examples=examples(120), deadline=None)


def mode(f):
    # E4M3FN/E8M0 overflow to NaN by default, which is not ordered: check monotonicity saturating
    return "default" if f.has_inf or not f.has_nan else "saturate"


@pytest.mark.parametrize("name", NAMES)
@CFG
@given(data=st.data())
def test_decode_encode_is_identity_on_representable_values(name, data):
    f = F.get_format(name)
    code = data.draw(st.integers(0, f.n_codes - 1))
    v = F.decode(f, code)
    if v != v:
        assert F.classify(f, F.encode(f, v)) == "nan"
    else:
        assert F.encode(f, v) == code
        if math.isfinite(v) and v != 0:  # a Fraction has no −0
            assert F.encode(f, Fraction(v)) == code


@pytest.mark.parametrize("name", NAMES)
@CFG
@given(x=finite, y=finite)
def test_encode_is_monotonic(name, x, y):
    f = F.get_format(name)
    if not f.signed:
        x, y = abs(x) or 1.0, abs(y) or 1.0
    x, y = min(x, y), max(x, y)
    ov = mode(f)
    assert F.round_value(f, x, ov) <= F.round_value(f, y, ov)


@pytest.mark.parametrize("name", SIGNED)
@CFG
@given(x=st.floats(allow_nan=False))
def test_encode_is_odd(name, x):
    f = F.get_format(name)
    for ov in ("default", "saturate"):
        assert F.encode(f, -x, ov) == F.encode(f, x, ov) ^ f.sign_bit


@pytest.mark.parametrize("name", NAMES)
@CFG
@given(x=finite)
def test_value_lies_in_the_interval_of_its_code(name, x):
    f = F.get_format(name)
    if not f.signed:
        x = abs(x) or 1.0
    c = F.encode(f, x, "saturate")
    iv = F.interval(f, c, "saturate")
    fx = Fraction(x)
    lo_ok = fx > iv.lo or (fx == iv.lo and (iv.lo_closed or (x == 0)))
    hi_ok = fx < iv.hi or (fx == iv.hi and (iv.hi_closed or x == 0))
    assert lo_ok and hi_ok, (x, hex(c), iv.text())


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "float6_e3m2fn"])
@CFG
@given(xs=st.lists(st.floats(allow_nan=False), min_size=1, max_size=40))
def test_encode_many_equals_encode(name, xs):
    for ov in ("default", "saturate"):
        assert F.encode_many(name, xs, ov) == [F.encode(name, x, ov) for x in xs]


@CFG
@given(n=st.integers(-(2**80), 2**80), d=st.integers(1, 2**80))
def test_exact_rationals_round_like_their_nearest_neighbours(n, d):
    x = Fraction(n, d)
    c = F.encode("bf16", x, "saturate")
    v = Fraction(F.decode("bf16", c))
    up, down = F.next_up("bf16", c), F.next_down("bf16", c)
    for nb in (up, down):
        if nb is not None and F.classify("bf16", nb) not in ("infinity", "nan"):
            assert abs(x - v) <= abs(x - Fraction(F.decode("bf16", nb)))


@pytest.mark.parametrize("scheme", B.block_format_names())
@settings(max_examples=examples(25), deadline=None)
@given(rows=st.integers(1, 4), cols=st.integers(1, 70), data=st.data())
def test_block_quantize_is_sign_symmetric_and_bounded(scheme, rows, cols, data):
    vals = st.floats(min_value=-1e30, max_value=1e30, allow_nan=False)
    x = [[data.draw(vals) for _ in range(cols)] for _ in range(rows)]
    r = B.quantize(x, scheme)
    neg = B.quantize([[-v for v in row] for row in x], scheme)
    assert neg.dequantized == [[-v for v in row] for row in r.dequantized]
    amax = max(abs(v) for row in x for v in row)
    assert all(abs(v) <= amax * 1.5 + 1e-300 for row in r.dequantized for v in row)
    assert all(math.isfinite(s) for row in r.scales for s in row)
