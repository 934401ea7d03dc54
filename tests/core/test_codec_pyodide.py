"""The same codec modules run inside Pyodide (npm pyodide 314, Python 3.14, via Node) give the
same codes as CPython: encode on a sample of values in every format and mode, a block-scaled
tensor through every scheme, and the chapter's codec figures. Skipped only when node is missing."""

import json
import random
import shutil
import subprocess
import textwrap

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
