"""Golden values of the number formats, each row with its source (spec and section).

Rows: (format, code, value, source). ``value`` is a float (``nan``/``inf`` allowed). Used both ways:
``decode(format, code) == value`` and, for finite non-NaN values, ``encode(format, value) == code``.
"""

import math

NAN = math.nan
INF = math.inf

OFP8 = "OCP 8-bit Floating Point Specification (OFP8) rev 1.0, §5.1 Table 1"
MX_FP4 = "OCP Microscaling Formats (MX) v1.0, §5.3.3 (FP4 E2M1)"
MX_FP6 = "OCP Microscaling Formats (MX) v1.0, §5.3.2 (FP6 E2M3 / E3M2)"
MX_E8M0 = "OCP Microscaling Formats (MX) v1.0, §5.4.1 (E8M0 scale)"
IEEE = "IEEE 754-2019, §3.3-§3.6 (binary16: emax 15, p 11; binary32: emax 127, p 24)"
BF16 = "bfloat16 = upper 16 bits of IEEE 754 binary32 (8 exponent bits, 7 mantissa bits)"

GOLDEN = [
    # E4M3FN (finite OCP E4M3): bias 7, max S.1111.110, NaN S.1111.111, no infinity
    ("float8_e4m3fn", 0x7E, 448.0, OFP8 + ": max normal S.1111.110 = 1.75 × 2^8 = 448"),
    ("float8_e4m3fn", 0xFE, -448.0, OFP8 + ": −max"),
    ("float8_e4m3fn", 0x08, 2.0**-6, OFP8 + ": min normal S.0001.000 = 2^-6"),
    ("float8_e4m3fn", 0x07, 0.875 * 2.0**-6, OFP8 + ": max subnormal S.0000.111 = 0.875 × 2^-6"),
    ("float8_e4m3fn", 0x01, 2.0**-9, OFP8 + ": min subnormal S.0000.001 = 2^-9"),
    ("float8_e4m3fn", 0x7F, NAN, OFP8 + ": NaN S.1111.111"),
    ("float8_e4m3fn", 0xFF, NAN, OFP8 + ": NaN S.1111.111 (negative sign)"),
    ("float8_e4m3fn", 0x78, 256.0, OFP8 + ": exponent 1111 is a normal binade (no infinity)"),
    ("float8_e4m3fn", 0x00, 0.0, OFP8 + ": zero S.0000.000"),
    ("float8_e4m3fn", 0x80, -0.0, OFP8 + ": negative zero"),
    ("float8_e4m3fn", 0x38, 1.0, OFP8 + ": 1 = 0.0111.000 (bias 7)"),
    # E5M2: IEEE-like
    ("float8_e5m2", 0x7B, 57344.0, OFP8 + ": max normal S.11110.11 = 1.75 × 2^15 = 57344"),
    ("float8_e5m2", 0x7C, INF, OFP8 + ": infinity S.11111.00"),
    ("float8_e5m2", 0xFC, -INF, OFP8 + ": −infinity"),
    ("float8_e5m2", 0x7D, NAN, OFP8 + ": NaN S.11111.{01,10,11}"),
    ("float8_e5m2", 0x7F, NAN, OFP8 + ": NaN S.11111.{01,10,11}"),
    ("float8_e5m2", 0x04, 2.0**-14, OFP8 + ": min normal S.00001.00 = 2^-14"),
    ("float8_e5m2", 0x01, 2.0**-16, OFP8 + ": min subnormal S.00000.01 = 2^-16"),
    ("float8_e5m2", 0x03, 0.75 * 2.0**-14, OFP8 + ": max subnormal S.00000.11 = 0.75 × 2^-14"),
    # E2M1
    ("float4_e2m1fn", 0x7, 6.0, MX_FP4 + ": max normal S.11.1 = 1.5 × 2^2 = 6"),
    ("float4_e2m1fn", 0xF, -6.0, MX_FP4 + ": −max"),
    ("float4_e2m1fn", 0x2, 1.0, MX_FP4 + ": min normal S.01.0 = 2^0"),
    ("float4_e2m1fn", 0x1, 0.5, MX_FP4 + ": min subnormal S.00.1 = 0.5"),
    ("float4_e2m1fn", 0x5, 3.0, MX_FP4 + ": S.10.1 = 1.5 × 2^1"),
    ("float4_e2m1fn", 0x8, -0.0, MX_FP4 + ": negative zero"),
    # FP6
    ("float6_e2m3fn", 0x1F, 7.5, MX_FP6 + ": E2M3 max normal S.11.111 = 1.875 × 2^2"),
    ("float6_e2m3fn", 0x08, 1.0, MX_FP6 + ": E2M3 min normal S.01.000 = 2^0"),
    ("float6_e2m3fn", 0x01, 0.125, MX_FP6 + ": E2M3 min subnormal S.00.001 = 0.125"),
    ("float6_e3m2fn", 0x1F, 28.0, MX_FP6 + ": E3M2 max normal S.111.11 = 1.75 × 2^4"),
    ("float6_e3m2fn", 0x04, 0.25, MX_FP6 + ": E3M2 min normal S.001.00 = 2^-2"),
    ("float6_e3m2fn", 0x01, 0.0625, MX_FP6 + ": E3M2 min subnormal S.000.01 = 0.0625"),
    # E8M0
    ("float8_e8m0fnu", 0x00, 2.0**-127, MX_E8M0 + ": 0x00 = 2^-127 (no zero)"),
    ("float8_e8m0fnu", 0x7F, 1.0, MX_E8M0 + ": 0x7F = 2^0 (bias 127)"),
    ("float8_e8m0fnu", 0xFE, 2.0**127, MX_E8M0 + ": 0xFE = 2^127"),
    ("float8_e8m0fnu", 0xFF, NAN, MX_E8M0 + ": 0xFF = NaN"),
    # FP16
    ("float16", 0x7BFF, 65504.0, IEEE + ": binary16 max (2 − 2^-10) × 2^15"),
    ("float16", 0x0400, 2.0**-14, IEEE + ": binary16 min normal 2^-14"),
    ("float16", 0x0001, 2.0**-24, IEEE + ": binary16 min subnormal 2^-24"),
    ("float16", 0x7C00, INF, IEEE + ": binary16 +infinity"),
    ("float16", 0x7E00, NAN, IEEE + ": binary16 quiet NaN"),
    ("float16", 0x3C00, 1.0, IEEE + ": binary16 1.0"),
    ("float16", 0x3C01, 1.0 + 2.0**-10, IEEE + ": binary16 next after 1 (epsilon 2^-10)"),
    ("float16", 0x8000, -0.0, IEEE + ": binary16 −0"),
    # FP32
    ("float32", 0x7F7FFFFF, (2 - 2.0**-23) * 2.0**127, IEEE + ": binary32 max ≈ 3.4 × 10^38"),
    ("float32", 0x00800000, 2.0**-126, IEEE + ": binary32 min normal 2^-126"),
    ("float32", 0x00000001, 2.0**-149, IEEE + ": binary32 min subnormal 2^-149"),
    ("float32", 0x3F800000, 1.0, IEEE + ": binary32 1.0"),
    ("float32", 0x3F800001, 1.0 + 2.0**-23, IEEE + ": binary32 next after 1 (epsilon 2^-23)"),
    ("float32", 0x7F800000, INF, IEEE + ": binary32 +infinity"),
    ("float32", 0x7FC00000, NAN, IEEE + ": binary32 quiet NaN"),
    # BF16
    ("bfloat16", 0x3F80, 1.0, BF16 + ": 1.0"),
    ("bfloat16", 0x3F81, 1.0 + 2.0**-7, BF16 + ": next after 1 (spacing 1/128)"),
    ("bfloat16", 0x4380, 256.0, BF16 + ": 256"),
    ("bfloat16", 0x4381, 258.0, BF16 + ": 258 (so 257 is a tie between 256 and 258)"),
    ("bfloat16", 0x7F7F, (2 - 2.0**-7) * 2.0**127, BF16 + ": max"),
    ("bfloat16", 0x7F80, INF, BF16 + ": +infinity"),
]

# Rounding cases: (format, input, expected code, overflow mode, reason and source).
ROUNDING = [
    (
        "float16",
        1e-8,
        0x0000,
        "default",
        "below half the min subnormal 2^-25: underflows to +0 (IEEE 754 §4.3.1)",
    ),
    ("float16", -1e-8, 0x8000, "default", "negative underflow gives −0 (IEEE 754 §6.3)"),
    ("float16", 1 + 1e-4, 0x3C00, "default", "1e-4 < half the spacing 2^-11 near 1"),
    ("float16", 70000, 0x7C00, "default", "above 65520 = max + ulp/2: overflows to +inf (IEEE 754 §7.4)"),
    ("float16", 65519, 0x7BFF, "default", "just below the tie 65520: max"),
    ("float16", 65520, 0x7C00, "default", "the tie at max + ulp/2 goes to even (inf) (IEEE 754 §7.4)"),
    ("float16", 70000, 0x7BFF, "saturate", "saturation clamps to max"),
    ("bfloat16", 257, 0x4380, "default", "tie between 256 (even) and 258: 256"),
    ("bfloat16", 259, 0x4382, "default", "tie between 258 and 260 (even): 260"),
    ("bfloat16", 1 + 1e-3, 0x3F80, "default", "1e-3 < half the spacing 1/128 near 1"),
    ("float8_e4m3fn", 464, 0x7E, "default", "tie 464 between 448 (even) and 480: 448 (OFP8 §5.3)"),
    (
        "float8_e4m3fn",
        465,
        0x7F,
        "default",
        "above 464: overflow gives NaN, E4M3FN has no infinity (OFP8 §5.3)",
    ),
    ("float8_e4m3fn", 465, 0x7E, "saturate", "saturating conversion clamps to 448 (OFP8 §5.3)"),
    ("float8_e4m3fn", -1e9, 0xFE, "saturate", "saturating conversion clamps to −448"),
    (
        "float8_e4m3fn",
        float("inf"),
        0x7F,
        "default",
        "infinity becomes NaN: no infinity in E4M3FN (OFP8 §5.3)",
    ),
    ("float8_e4m3fn", float("inf"), 0x7E, "saturate", "saturating: infinity clamps to max (OFP8 §5.3)"),
    ("float8_e5m2", 61440, 0x7C, "default", "tie 61440 between 57344 (odd) and 2^16: overflow to inf"),
    ("float8_e5m2", 61439, 0x7B, "default", "just below the tie: max"),
    ("float8_e5m2", float("inf"), 0x7B, "saturate", "saturating: infinity clamps to max (OFP8 §5.3)"),
    ("float4_e2m1fn", 0.25, 0x0, "default", "tie between 0 (even) and 0.5: 0"),
    ("float4_e2m1fn", 0.75, 0x2, "default", "tie between 0.5 and 1 (even): 1"),
    ("float4_e2m1fn", 5.0, 0x6, "default", "tie between 4 (even) and 6: 4"),
    ("float4_e2m1fn", 1000, 0x7, "default", "no Inf/NaN: saturates to 6 (MX v1.0 §5.3.3)"),
    ("float4_e2m1fn", -0.1, 0x8, "default", "negative underflow gives −0"),
    ("float8_e8m0fnu", 3.0, 0x81, "default", "tie 1.5 × 2^1 goes to the even significand: 4 (as ml_dtypes)"),
    ("float8_e8m0fnu", 2.9, 0x80, "default", "nearer to 2"),
    ("float8_e8m0fnu", 0.0, 0xFF, "default", "no zero in E8M0: NaN (as ml_dtypes)"),
    ("float8_e8m0fnu", -1.0, 0xFF, "default", "no sign in E8M0: NaN (as ml_dtypes)"),
    ("float8_e8m0fnu", 1e-300, 0x00, "default", "below 2^-127 the nearest value is 2^-127 (no zero)"),
]
