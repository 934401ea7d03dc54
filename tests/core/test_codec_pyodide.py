"""The same codec modules run inside Pyodide (npm pyodide 314, Python 3.14, via Node) give the
same codes as CPython: encode on a sample of values in every format and mode, a block-scaled
tensor through every scheme, and the chapter's codec figures; and a value stored FP32 first (the seed's
rule) the same in both. Skipped only when node is missing."""

import json
import random
import shutil
import subprocess
import textwrap
from fractions import Fraction

import pytest
from conftest import ROOT

from c9.core import blockscale as B
from c9.core import formats as F
from c9.figures.codecs import figures as codec_figures

RUNNER = ROOT / "tests" / "pyodide_runner.mjs"  # beside the other helpers of the tests

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def sample_values(n=1500, seed=5):
    rng = random.Random(seed)
    xs = [
        0.0,
        -0.0,
        1.0,
        257.0,
        464.0,
        465.0,
        65520.0,
        1e-8,
        1 + 1e-4,
        1 + 2.0**-8 + 2.0**-40,
        float("inf"),
        float("-inf"),
        float("nan"),
        2.0**-149,
        3.4028235677973366e38,
    ]
    xs += [rng.choice([-1, 1]) * 2.0 ** rng.uniform(-150, 128) for _ in range(n)]
    # rounding midpoints of the 8-bit formats and their float64 neighbours
    for name in ("E4M3", "E5M2", "E2M1"):
        vals = sorted({v for v in F.code_points(name) if v == v and abs(v) != float("inf")})
        mids = [(a + b) / 2 for a, b in zip(vals, vals[1:])]
        xs += mids[::3] + [m * (1 + 2.0**-52) for m in mids[::7]]
    return xs


def tensor(seed=9):
    rng = random.Random(seed)
    return [[rng.gauss(0, 1) * 2.0 ** rng.randint(-6, 6) for _ in range(70)] for _ in range(5)]


JOB = textwrap.dedent("""
    import json, math, sys
    from c9.core import formats as F
    from c9.core import blockscale as B
    from c9.figures.codecs import figures as codec_figures
    xs = [float.fromhex(h) for h in json.loads(SAMPLE)]
    T = json.loads(TENSOR_JSON)
    out = {"python": sys.version.split()[0], "codes": {}, "blocks": {}}
    for f in F.FORMATS:
        for ov in ("default", "saturate"):
            out["codes"][f.name + "/" + ov] = [
                F.encode(f, x, ov) if (x == x or f.has_nan) else None for x in xs]
    for s in B.block_format_names():
        r = B.quantize(T, s)
        out["blocks"][s] = {"codes": r.codes, "scale_codes": r.scale_codes,
                            "deq": [[v.hex() for v in row] for row in r.dequantized]}
    out["figures"] = codec_figures()
    RESULT = json.dumps(out)
""")


def cpython_result(xs, T):
    out = {"codes": {}, "blocks": {}}
    for f in F.FORMATS:
        for ov in ("default", "saturate"):
            out["codes"][f.name + "/" + ov] = [
                F.encode(f, x, ov) if (x == x or f.has_nan) else None for x in xs
            ]
    for s in B.block_format_names():
        r = B.quantize(T, s)
        out["blocks"][s] = {
            "codes": r.codes,
            "scale_codes": r.scale_codes,
            "deq": [[v.hex() for v in row] for row in r.dequantized],
        }
    out["figures"] = json.loads(json.dumps(codec_figures()))
    return out


def run_in_pyodide(script: str, tmp_path) -> dict:
    path = tmp_path / "job.py"
    path.write_text(script, encoding="utf-8")
    proc = subprocess.run(
        ["node", str(RUNNER), str(path)], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_pyodide_gives_the_same_codes_as_cpython(tmp_path):
    xs = sample_values()
    T = tensor()
    script = (
        f"SAMPLE = {json.dumps(json.dumps([x.hex() for x in xs]))}\n"
        f"TENSOR_JSON = {json.dumps(json.dumps(T))}\n" + JOB
    )
    got = run_in_pyodide(script, tmp_path)
    assert got["python"].startswith("3.1")
    want = cpython_result(xs, T)
    for key, codes in want["codes"].items():
        theirs = got["codes"][key]
        bad = [i for i, (a, b) in enumerate(zip(codes, theirs)) if a != b]
        assert not bad, f"{key}: encode({xs[bad[0]]!r}) CPython {codes[bad[0]]}, Pyodide {theirs[bad[0]]}"
        assert len(theirs) == len(codes)
    assert got["blocks"] == want["blocks"]
    assert got["figures"] == want["figures"]


FP32_FIRST = textwrap.dedent("""
    import json
    from fractions import Fraction
    from c9.core import formats as F
    xs = [Fraction(t) for t in json.loads(SAMPLE)]
    out = {"f32": [F.as_float32(x).hex() for x in xs]}
    for name in ("bfloat16", "float16", "float8_e4m3fn", "float4_e2m1fn", "float8_e8m0fnu"):
        out[name] = [[t.code, t.direct] for t in (F.two_roundings(name, x) for x in xs)]
    RESULT = json.dumps(out)
""")


def test_pyodide_stores_fp32_first_like_cpython(tmp_path):
    # as_float32's fast path is C's float64 → float32 cast (struct): the same in WebAssembly, and the exact
    # codec where the float lands on a float32 tie (1 + 2⁻²⁴ + 10⁻³⁰) or past FP32's range
    rng = random.Random(8)
    xs = ["257.0000001", "1.000000059604644775390625000001", "1e-50", "1e39", "-2.5000000001", "1.4999999999"]
    for _ in range(400):
        m, e = rng.randrange(1 << 23, 1 << 24), rng.randint(-150, 100)
        tie = Fraction(2 * m + 1, 2) * Fraction(2) ** e
        xs.append(str(tie + rng.choice((-1, 0, 1)) * tie / 10 ** rng.randint(8, 30)))
    got = run_in_pyodide(f"SAMPLE = {json.dumps(json.dumps(xs))}\n" + FP32_FIRST, tmp_path)
    fr = [Fraction(t) for t in xs]
    assert got["f32"] == [F.as_float32(x).hex() for x in fr]
    assert got["f32"] == [F.round_value("float32", x).hex() for x in fr]  # and the exact codec
    for name in ("bfloat16", "float16", "float8_e4m3fn", "float4_e2m1fn", "float8_e8m0fnu"):
        assert got[name] == [[t.code, t.direct] for t in (F.two_roundings(name, x) for x in fr)], name
