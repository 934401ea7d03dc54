"""Check our hand-written codecs (c9/core/formats.py) value by value against torch and ml_dtypes.

    python -m lab.codec_check          # writes lab/results/codec-check.json (≈ 1 min on one core)

Per format: every code decoded by our codec, by torch (CPU) and by ml_dtypes (numpy's own float16
for FP16); then float32 inputs, fixed edge cases plus random ones from a fixed seed, encoded by all
three. Two codes agree when they are equal, or both NaN with the same sign (E8M0 has no sign). A
library is compared with our codec in the overflow mode the library implements (torch's
float8_e4m3fn saturates). Every disagreement is counted under the kind of input that causes it.
Last, float64 inputs near a rounding midpoint: the libraries round them to float32 first and then
to the format (two roundings), our codec rounds once; the exact answer is re-derived with Fraction.
:func:`run_torchao` (where torchao is installed; tests/lab/test_codec_check_torch.py) compares our MX
block scales and element codes with torchao's ``to_mx`` under each of its scale modes.

The site never imports this module; it reads the data file through c9/figures/codec_check.py.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import platform
import sys
from fractions import Fraction
from pathlib import Path

import ml_dtypes
import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from c9.core import formats as F  # noqa: E402

SCHEMA = "codec-check/1"
OUT_PATH = Path(__file__).resolve().parent / "results" / "codec-check.json"
SEED = 20261130
N_RANDOM = 1_000_000  # random float32 inputs per format (half random bit patterns, half in range)
N_F32_MANTISSAS = 2043  # float32 decode: every sign and exponent × this many mantissa patterns

#: format → (torch dtype name or None, reference numpy dtype, its name)
FORMATS = {
    "float32": ("float32", np.float32, "numpy float32"),
    "float16": ("float16", np.float16, "numpy float16"),
    "bfloat16": ("bfloat16", ml_dtypes.bfloat16, "ml_dtypes bfloat16"),
    "float8_e4m3fn": ("float8_e4m3fn", ml_dtypes.float8_e4m3fn, "ml_dtypes float8_e4m3fn"),
    "float8_e5m2": ("float8_e5m2", ml_dtypes.float8_e5m2, "ml_dtypes float8_e5m2"),
    "float8_e8m0fnu": ("float8_e8m0fnu", ml_dtypes.float8_e8m0fnu, "ml_dtypes float8_e8m0fnu"),
    "float4_e2m1fn": ("float4_e2m1fn_x2", ml_dtypes.float4_e2m1fn, "ml_dtypes float4_e2m1fn"),
}
#: torch 2.13's CPU .to(float8_e4m3fn) clamps overflow to ±448 (checked in torch_dtypes below)
TORCH_MODE = {"float8_e4m3fn": "saturate"}

#: float64 inputs just past a rounding midpoint that float32 cannot hold (the double-rounding cases)
DOUBLE_ROUNDING = [
    ("float16", "1 + 2^-11 + 2^-40", Fraction(1) + Fraction(1, 2**11) + Fraction(1, 2**40)),
    ("bfloat16", "1 + 2^-8 + 2^-40", Fraction(1) + Fraction(1, 2**8) + Fraction(1, 2**40)),
    ("float8_e4m3fn", "-(432 - 2^-44)", -(Fraction(432) - Fraction(1, 2**44))),  # = -431.99999999999994
    ("float8_e5m2", "1 + 2^-3 + 2^-40", Fraction(1) + Fraction(1, 2**3) + Fraction(1, 2**40)),
    ("float8_e8m0fnu", "1.5 - 2^-40", Fraction(3, 2) - Fraction(1, 2**40)),
    ("float4_e2m1fn", "2.5 + 2^-40", Fraction(5, 2) + Fraction(1, 2**40)),
]


def _uint(bits):
    return {32: np.uint32, 16: np.uint16, 8: np.uint8, 4: np.uint8}[bits]


def _torch_int(bits):
    return {32: torch.int32, 16: torch.int16, 8: torch.uint8}[bits]


def same_code(f, a, b) -> bool:
    """Equal codes, or both NaN with the same sign (where the format has one)."""
    if a is None or b is None:
        return a is b
    if a == b:
        return True
    nan = lambda c: F.classify(f, c) == "nan"  # noqa: E731
    return nan(a) and nan(b) and (not f.signed or (a & f.sign_bit) == (b & f.sign_bit))


def same_value(a: float, b: float) -> bool:
    if a != a or b != b:
        return a != a and b != b and math.copysign(1, a) == math.copysign(1, b)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


# --------------------------------------------------------------------------- torch's dtypes
def torch_dtypes() -> dict:
    """Which torch low-precision dtypes exist in this torch and convert to and from float32 on CPU."""
    out = {}
    for name in ("float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "float4_e2m1fn_x2"):
        dt_ = getattr(torch, name, None)
        row = {"exists": dt_ is not None, "cpu_convert": False, "error": None}
        if dt_ is not None:
            try:
                back = torch.tensor([1.0, 2.0]).to(dt_).float().tolist()
                row["cpu_convert"] = back == [1.0, 2.0]
            except (RuntimeError, TypeError) as e:
                row["error"] = str(e).splitlines()[0]
        out[name] = row
    return out


# --------------------------------------------------------------------------- decoding
def decode_codes(f, rng) -> list[int]:
    if f.bits <= 16:
        return list(range(f.n_codes))
    mans = {0, 1, 2, (1 << 23) - 2, (1 << 23) - 1} | set(rng.integers(0, 1 << 23, N_F32_MANTISSAS).tolist())
    return [(se << 23) | m for se in range(512) for m in sorted(mans)]


def lib_decode(f, codes, np_dt, tname):
    raw = np.array(codes, dtype=np.uint64).astype(_uint(f.bits))
    with np.errstate(invalid="ignore"):  # NaN codes widen to NaN, which is what is compared
        ref = (
            [float(v) for v in raw.view(np_dt).astype(np.float64)]
            if f.bits > 4
            else [float(raw[i : i + 1].view(np_dt)[0]) for i in range(len(codes))]
        )
    tv = None
    if tname is not None:
        t = torch.from_numpy(raw.view(np.int32 if f.bits == 32 else np.int16 if f.bits == 16 else np.uint8))
        tv = t.view(getattr(torch, tname)).double().tolist()
    return ref, tv


# --------------------------------------------------------------------------- encoding
def edge_inputs(f) -> np.ndarray:
    """±0, ±inf, ±NaN, float32 subnormals, the format's extremes, every rounding midpoint between
    neighbouring finite codes that float32 holds (ties) with the float32 numbers either side of it,
    and the overflow boundary (the midpoint past ±max) with its neighbours."""
    xs = [0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan, 1e-45, -1e-45, 6e-39, 1.1754942e-38]
    if f.bits <= 16:
        pos = sorted(
            {
                F.decode_exact(f, c)
                for c in range(f.n_codes)
                if F.classify(f, c) in ("zero", "subnormal", "normal")
            }
            - {None}
        )
        pos = [v for v in pos if v >= 0]
        mids = [(a + b) / 2 for a, b in zip(pos, pos[1:])]
        top = F.decode_exact(f, f.max_code)
        step = top - (pos[-2] if len(pos) > 1 else 0)
        mids.append(top + step / 2 if f.mantissa_bits else top * Fraction(3, 2))  # overflow boundary
        for v in pos + mids:
            x = np.float32(float(v))
            if Fraction(float(x)) == v:
                xs += [
                    float(x),
                    float(np.nextafter(x, np.float32(np.inf))),
                    float(np.nextafter(x, np.float32(0))),
                ]
    else:
        xs += [3.4028235e38, 1.1754944e-38, 1.4e-45]
    a = np.array(xs, dtype=np.float32)
    return np.unique(np.concatenate([a, -a]).view(np.uint32)).view(np.float32)


def random_inputs(f, rng) -> np.ndarray:
    half = N_RANDOM // 2
    bits = rng.integers(0, 1 << 32, half, dtype=np.uint64).astype(np.uint32).view(np.float32)
    lo = math.log2(f.min_subnormal) - 3
    hi = min(math.log2(f.max) + 2, 127.9)
    mag = np.exp2(rng.uniform(lo, hi, N_RANDOM - half)).astype(np.float32)
    sign = np.where(rng.integers(0, 2, N_RANDOM - half) == 1, -1, 1).astype(np.float32)
    return np.concatenate([bits, mag * sign])


def ours_encode(f, xs, mode="default"):
    out = []
    for x in xs.tolist():
        try:
            out.append(F.encode(f, x, mode))
        except F.CodecInputError:
            out.append(None)  # NaN into a format without NaN: refused
    return out


def lib_encode(f, xs, np_dt, tname):
    with np.errstate(all="ignore"):
        ref = xs.astype(np_dt)
    if f.bits == 4:
        ref_codes = ref.view(np.uint8).astype(np.int64).tolist()
    else:
        ref_codes = ref.view(_uint(f.bits)).astype(np.int64).tolist()
    tc = None
    if tname is not None:
        t = torch.from_numpy(xs).to(getattr(torch, tname)).view(_torch_int(f.bits))
        tc = [c & ((1 << f.bits) - 1) for c in t.tolist()]
    return ref_codes, tc


def kind_of(f, x: float) -> str:
    """Why an input might be treated differently: the kinds the page explains."""
    if x != x:
        return "nan"
    if math.isinf(x):
        return "inf"
    if x == 0:
        return "zero"
    if not f.signed and x < 0:
        return "negative"
    if abs(x) > f.max:
        return "overflow"
    if abs(x) < 1.1754943508222875e-38:
        return "float32_subnormal"
    return "other"


def code_text(f, c):
    return None if c is None else f"0x{c:0{max(1, f.bits // 4)}X}"


def value_text(f, c):
    if c is None:
        return None
    v = F.decode(f, c)
    return "NaN" if v != v else repr(v)


def compare(f, xs, ours, lib):
    """(agree, disagreements grouped by kind, each with a count and the first example)."""
    agree, kinds = 0, {}
    for x, a, b in zip(xs.tolist(), ours, lib):
        if same_code(f, a, b):
            agree += 1
            continue
        k = kinds.setdefault(kind_of(f, x), {"count": 0, "example": None})
        k["count"] += 1
        if x == x:  # the range of |x| the kind covers, to check the page's description of it
            k["abs_min"] = min(k.get("abs_min", math.inf), abs(x))
            k["abs_max"] = max(k.get("abs_max", 0.0), abs(x))
        if k["example"] is None:
            k["example"] = {
                "input": repr(x) if x == x else ("-NaN" if math.copysign(1, x) < 0 else "NaN"),
                "ours": code_text(f, a),
                "ours_value": value_text(f, a),
                "library": code_text(f, b),
                "library_value": value_text(f, b),
            }
    for k in kinds.values():
        for key in ("abs_min", "abs_max"):
            if key in k:
                k[key] = repr(k[key]) if math.isfinite(k[key]) else ("inf" if k[key] > 0 else None)
    return agree, kinds


# --------------------------------------------------------------------------- double rounding
def double_rounding(fmt, text, exact):
    f = F.get_format(fmt)
    x = float(exact)
    assert Fraction(x) == exact, text  # the input is one float64, exactly
    x32 = float(np.float32(x))
    tname, np_dt, _ = FORMATS[fmt]
    ref, tc = lib_encode(f, np.array([x], dtype=np.float64), np_dt, tname if fmt != "float4_e2m1fn" else None)
    ours = F.encode(f, exact)
    via32 = F.encode(f, Fraction(x32))
    # the exact answer, re-derived here: the nearest code by |value − x| (ties cannot happen: x is no midpoint)
    finite = [c for c in range(f.n_codes) if F.classify(f, c) not in ("nan", "infinity")]
    nearest = min(finite, key=lambda c: (abs(F.decode_exact(f, c) - exact), c))
    assert nearest == ours or F.decode_exact(f, nearest) == F.decode_exact(f, ours), (text, nearest, ours)
    row = {
        "format": fmt,
        "input": text,
        "input_float64": repr(x),
        "input_hex": x.hex(),
        "float32_of_input": repr(x32),
        "float32_is_midpoint": _is_midpoint(f, Fraction(x32)),
        "exact": code_text(f, ours),
        "exact_value": value_text(f, ours),
        "via_float32": code_text(f, via32),
        "via_float32_value": value_text(f, via32),
        "reference": FORMATS[fmt][2],
        "reference_code": code_text(f, ref[0]),
        "torch": code_text(f, tc[0]) if tc else None,
    }
    return row


def _is_midpoint(f, v: Fraction) -> bool:
    """Whether v lies exactly halfway between two neighbouring finite values of f (a tie)."""
    vals = sorted(
        F.decode_exact(f, c) for c in range(f.n_codes) if F.classify(f, c) in ("zero", "subnormal", "normal")
    )
    return any((a + b) / 2 == v for a, b in zip(vals, vals[1:]))


# --------------------------------------------------------------------------- MX scales against torchao
#: element format → torchao's element dtype name (torch attribute); block sizes compared
TORCHAO_ELEMENTS = {
    "float8_e4m3fn": "float8_e4m3fn",
    "float8_e5m2": "float8_e5m2",
    "float4_e2m1fn": "float4_e2m1fn_x2",
}
TORCHAO_BLOCKS = (8, 16, 32)
TORCHAO_ROWS = 96


def mx_blocks(fmt: str, block: int, rng) -> np.ndarray:
    """TORCHAO_ROWS × (4 · block) float32 inputs for one element format and block size: random magnitudes
    10^U(−3, 3); in every third row the block maxima sit just above the element maximum's binade (they clip
    under OCP's floor rule); a zero block, a NaN block and blocks whose amax is an exact power of two."""
    f = F.get_format(fmt)
    n = 4 * block
    x = rng.choice([-1.0, 1.0], (TORCHAO_ROWS, n)) * 10.0 ** rng.uniform(-3, 3, (TORCHAO_ROWS, n))
    top = float(f.max)
    for r in range(0, TORCHAO_ROWS, 3):
        for b in range(4):  # amax in (elem_max, 2^(emax + 1)) × 2^k: clipped by the floor rule
            k = int(rng.integers(-20, 20))
            x[r, b * block] = rng.uniform(top, 2.0 ** (f.emax + 1)) * 2.0**k
    x[1, :block] = 0.0
    x[2, block + 3] = np.nan
    x[4, 2 * block] = 2.0**5
    x[4, 2 * block + 1 : 3 * block] = 1.0
    return x.astype(np.float32)


def torchao_mx(fmt: str, block: int, x: np.ndarray, rule: str):
    """torchao's to_mx (CPU, eager) on x: (E8M0 codes per block, element codes), as numpy uint8 arrays."""
    from torchao.prototype.mx_formats.config import ScaleCalculationMode
    from torchao.prototype.mx_formats.mx_tensor import to_mx

    dtype = getattr(torch, TORCHAO_ELEMENTS[fmt])
    scale, data = to_mx(torch.from_numpy(x), dtype, block, ScaleCalculationMode(rule))
    codes = data.view(torch.uint8).numpy()
    if fmt == "float4_e2m1fn":  # two codes a byte, the even index in the low nibble (torchao pack_uint4)
        codes = np.stack([codes & 0xF, codes >> 4], axis=-1).reshape(x.shape)
    return scale.view(torch.uint8).numpy(), codes


def compare_torchao(fmt: str, block: int, rule: str, rng) -> dict:
    """Our MX quantisation (c9.core.blockscale, exact) against torchao's to_mx for one element format, block
    size and scale rule: scale codes of every block, element codes of every block with a finite scale (in a
    NaN block both read every element as NaN, whatever the codes), and how many blocks each rule clipped."""
    from c9.core import blockscale as B

    x = mx_blocks(fmt, block, rng)
    bf = B.BlockFormat(f"mx_{fmt}_{block}", fmt, (1, block), "float8_e8m0fnu", "mx_pow2")
    ours = B.quantize(x.astype(np.float64).tolist(), bf, rule)
    t_scale, t_codes = torchao_mx(fmt, block, x, rule)
    o_scale = np.array(ours.scale_codes, dtype=np.uint8)
    nan = np.array(ours.nan_blocks)
    finite = np.repeat(~nan, block, axis=1)
    o_codes = np.array(ours.codes, dtype=np.uint8)
    scale_diff = np.argwhere(o_scale != t_scale).tolist()
    code_diff = np.argwhere((o_codes != t_codes) & finite).tolist()
    return {
        "format": fmt,
        "block": block,
        "rule": rule,
        "blocks": int(o_scale.size),
        "nan_blocks": int(nan.sum()),
        "clipped_blocks": int(np.array(ours.clipped).sum()),
        "scales_equal": int((o_scale == t_scale).sum()),
        "codes_compared": int(finite.sum()),
        "codes_equal": int(finite.sum()) - len(code_diff),
        "scale_differences": scale_diff[:5],
        "code_differences": code_diff[:5],
    }


def run_torchao(rules=("floor", "rceil", "ceil", "even")) -> list[dict]:
    """:func:`compare_torchao` over every element format, block size and rule (seeded)."""
    rng = np.random.default_rng(SEED)
    return [
        compare_torchao(fmt, block, rule, rng)
        for fmt in TORCHAO_ELEMENTS
        for block in TORCHAO_BLOCKS
        for rule in rules
    ]


# --------------------------------------------------------------------------- the run
def run() -> dict:
    rng = np.random.default_rng(SEED)
    tds = torch_dtypes()
    rows = []
    for fmt, (tname, np_dt, ref_name) in FORMATS.items():
        f = F.get_format(fmt)
        use_torch = tds.get(tname, {"cpu_convert": True})["cpu_convert"]  # FP32/16, BF16: always
        codes = decode_codes(f, rng)
        ref_v, tor_v = lib_decode(f, codes, np_dt, tname if use_torch else None)
        ours_v = [F.decode(f, c) for c in codes]
        dec = {
            "codes_checked": len(codes),
            "codes_total": f.n_codes,
            "reference": sum(map(same_value, ours_v, ref_v)),
            "torch": sum(map(same_value, ours_v, tor_v)) if tor_v is not None else None,
        }
        edges, rand = edge_inputs(f), random_inputs(f, rng)
        xs = np.concatenate([edges, rand])
        ref_c, tor_c = lib_encode(f, xs, np_dt, tname if use_torch else None)
        ours_ref = ours_encode(f, xs)
        enc = {"inputs": len(xs), "edge_inputs": len(edges), "random_inputs": len(rand)}
        enc["reference"], enc["reference_differences"] = compare(f, xs, ours_ref, ref_c)
        enc["torch_mode"] = TORCH_MODE.get(fmt, "default")
        if tor_c is not None:
            ours_t = ours_encode(f, xs, enc["torch_mode"]) if fmt in TORCH_MODE else ours_ref
            enc["torch"], enc["torch_differences"] = compare(f, xs, ours_t, tor_c)
            if fmt in TORCH_MODE:  # and how far that is from the format's own default
                enc["torch_vs_default"], enc["torch_vs_default_differences"] = compare(f, xs, ours_ref, tor_c)
        else:
            enc["torch"], enc["torch_differences"] = None, {}
        rows.append(
            {
                "format": fmt,
                "label": f.label,
                "bits": f.bits,
                "reference": ref_name,
                "torch_dtype": f"torch.{tname}" if tname else None,
                "torch_used": use_torch,
                "decode": dec,
                "encode": enc,
            }
        )
        print(
            f"{fmt}: decode {dec}, encode ref {enc['reference']}/{len(xs)} torch {enc['torch']}", flush=True
        )
    return {
        "schema": SCHEMA,
        "provenance": {
            "torch": torch.__version__,
            "ml_dtypes": ml_dtypes.__version__,
            "numpy": np.__version__,
            "python": platform.python_version(),
            "device": "cpu",
            "machine": platform.machine(),
            "command": "python -m lab.codec_check",
            "seed": SEED,
            "random_inputs_per_format": N_RANDOM,
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        },
        "torch_dtypes": tds,
        "formats": rows,
        "double_rounding": [double_rounding(*c) for c in DOUBLE_ROUNDING],
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=OUT_PATH)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    out = run()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(out, ensure_ascii=False, indent=1, allow_nan=False) + "\n", encoding="utf-8"
    )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
