"""Codec benchmark: encode/decode throughput (values per second) and the time to quantise a
256×256 tensor through every block-scaling scheme, in CPython and in Pyodide (npm pyodide 314,
run under Node via tests/pyodide_runner.mjs). Prints figures; asserts nothing.

usage: python bench/bench_codecs.py [--no-pyodide]
Target: each scheme on 256×256 under 150 ms in the browser.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

JOB = r"""
import json, random, sys, time
from c9.core import formats as F
from c9.core import blockscale as B

def best(fn, repeat=5):
    # the median, not the minimum: the machine's cores are shared, and a median of 5 is steadier
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter(); fn(); ts.append(time.perf_counter() - t0)
    return sorted(ts)[len(ts) // 2]

rng = random.Random(1)
N = 20000
xs = [rng.gauss(0, 1) * 2.0 ** rng.randint(-10, 10) for _ in range(N)]
out = {"python": sys.version.split()[0], "formats": {}, "schemes": {}}
for f in F.FORMATS:
    codes = [F.encode(f, x, "saturate") for x in xs]
    row = {
        "encode": N / best(lambda: [F.encode(f, x, "saturate") for x in xs]),
        "encode_many": N / best(lambda: F.encode_many(f, xs, "saturate")),
        "decode": N / best(lambda: [F.decode(f, c) for c in codes]),
    }
    out["formats"][f.name] = row
T = [[rng.gauss(0, 1) for _ in range(256)] for _ in range(256)]
T[3][7] = 1000.0
for s in B.block_format_names():
    B.quantize(T, s)                     # warm the caches (decode tables, fast tables)
    out["schemes"][s] = 1000 * best(lambda: B.quantize(T, s))
RESULT = json.dumps(out)
"""


def run_cpython() -> dict:
    g: dict = {}
    exec(JOB, g)
    return json.loads(g["RESULT"])


def run_pyodide() -> dict | None:
    if shutil.which("node") is None:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(JOB)
    proc = subprocess.run(
        ["node", str(ROOT / "tests" / "pyodide_runner.mjs"), fh.name],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    Path(fh.name).unlink()
    if proc.returncode:
        print(proc.stderr, file=sys.stderr)
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    cp = run_cpython()
    py = None if "--no-pyodide" in sys.argv else run_pyodide()
    envs = [("CPython " + cp["python"], cp)] + ([("Pyodide " + py["python"], py)] if py else [])
    print("encode / decode throughput, values per second (20,000 values, saturating)")
    head = f"{'format':16}" + "".join(
        f"{name + ' ' + k:>28}" for name, _ in envs for k in ("encode", "encode_many", "decode")
    )
    print(head)
    for fmt in cp["formats"]:
        print(
            f"{fmt:16}"
            + "".join(
                f"{r['formats'][fmt][k]:>28,.0f}"
                for _, r in envs
                for k in ("encode", "encode_many", "decode")
            )
        )
    print()
    print("quantise a 256×256 tensor (ms, median of 5); target < 150 ms in the browser")
    print(f"{'scheme':18}" + "".join(f"{name:>20}" for name, _ in envs))
    for s in cp["schemes"]:
        print(f"{s:18}" + "".join(f"{r['schemes'][s]:>20.1f}" for _, r in envs))
    if py is None and "--no-pyodide" not in sys.argv:
        print("\n(Pyodide not run: node missing or the runner failed)")


if __name__ == "__main__":
    main()
