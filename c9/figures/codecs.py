"""The codec figures chapter C9 quotes, each computed by c9.core.formats / c9.core.blockscale.

:func:`codec_figures` returns a list of dicts ``{"name", "value", "text", "formula", "inputs"}``
(value: a number, or a string for ±inf); build_numbers.py imports it. Nothing here is typed by
hand except the inputs the chapter chose (257, 1e-8, the tensor [1000, 0.01, 0.02, 0.5] ...).
"""

from __future__ import annotations

import math
from fractions import Fraction

from c9.base import units
from c9.core import blockscale as B
from c9.core import formats as F
from c9.figures.figure import figure

__all__ = ["figures"]

OUTLIER_TENSOR = [1000, 0.01, 0.02, 0.5]
OUTLIER_BLOCK = [0.01, 0.02, 0.5]  # the same values without the outlier
MX_BLOCK = [0.3, -1.2, 2.7, 0.05]


def _num(x: float) -> float | int | str:
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return int(x) if x == int(x) and abs(x) < 2**53 else x


def _text(x: float) -> str:
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x):,}"
    return repr(x)


_OVERFLOW = {"inf": "∞", "nan": "NaN", "saturate": "最大有限值"}


def _rounding(name, fmt, x: str, label):
    """fmt(x) for the decimal ``x`` by the seed's rule: x stored as FP32 first, then rounded to fmt."""
    v = F.round_via_float32(fmt, Fraction(x))
    return figure(
        name,
        _num(v),
        _text(v),
        f"把 x 先存成 FP32，再存进 {label} 读出：就近舍入，{F.get_format(fmt).tie_rule_zh}；"
        f"超出范围 → {_OVERFLOW[F.get_format(fmt).default_overflow]}",
        format=F.get_format(fmt).name,
        x=_num(float(Fraction(x))),  # as the tooltip writes numbers: 1×10⁻⁸, 70,000
    )


def _tie_rules() -> list[dict]:
    """Each format's own tie rule, read off its definition (no mantissa bit: the tie goes up)."""
    return [
        figure(
            f"tie_rule_{f.label.lower()}",
            f.tie_rule_zh,
            f.tie_rule_zh,
            "恰在两个相邻值正中时：有尾数位，取尾数末位为 0 的一边；没有尾数位，两边的有效数字都是 1，"
            "取偶即进到较大的 2 的幂",
            format=f.name,
            mantissa_bits=f.mantissa_bits,
        )
        for f in F.FORMATS
    ]


#: The lesson's double-rounding example: one rounding of the exact value gives BF16 258, FP32 first 256.
TWICE = "257.0000001"


def _double_rounding() -> list[dict]:
    """bf16(257.0000001) by the seed's rule (FP32 first: 257, a tie, to even 256) and by one rounding."""
    two = F.two_roundings("bf16", Fraction(TWICE))
    assert two.differ
    out = []
    for name, value, how in (
        ("fp32", two.float32, "先存成 FP32：FP32(x)"),
        ("", F.decode("bf16", two.code), "先存成 FP32，再存成 BF16：BF16(FP32(x))"),
        ("direct", F.decode("bf16", two.direct), "把精确值直接舍入到 BF16 一次：BF16(x)"),
    ):
        out.append(
            figure(
                "bf16_of_257_0000001" + (f"_{name}" if name else ""), _num(value), _text(value), how, x=TWICE
            )
        )
    return out


def figures() -> list[dict]:
    """Every codec figure chapter C9 quotes."""
    fp16, fp32, bf16 = F.get_format("fp16"), F.get_format("fp32"), F.get_format("bf16")
    e4m3, e2m1 = F.get_format("E4M3"), F.get_format("E2M1")
    out = [
        _rounding("fp16_of_1e_minus_8", fp16, "1e-8", "FP16"),
        _rounding("fp16_of_1_plus_1e_minus_4", fp16, "1.0001", "FP16"),
        _rounding("fp16_of_70000", fp16, "70000", "FP16"),
        _rounding("bf16_of_257", bf16, "257", "BF16"),
        _rounding("bf16_of_1_plus_1e_minus_3", bf16, "1.001", "BF16"),
    ]
    lo = int(math.log2(fp16.min_subnormal))
    hi = fp16.emax
    out += [
        figure(
            "fp16_window_powers_of_two",
            hi - lo + 1,
            str(hi - lo + 1),
            "覆盖的 2 的幂个数 = ⌊log₂ 最大值⌋ − log₂ 最小次正规数 + 1",
            format=fp16.name,
            min_subnormal_exponent=lo,
            max_exponent=hi,
        ),
        figure(
            "fp16_min_subnormal_exponent",
            lo,
            f"2^{lo}",
            "最小次正规数的指数 = 1 − 指数偏置 − 尾数位数",
            format=fp16.name,
            bias=fp16.bias,
            mantissa_bits=fp16.mantissa_bits,
        ),
        figure(
            "fp16_max_exponent",
            hi,
            f"2^{hi}",
            "最大的指数 = ⌊log₂ 最大有限值⌋",
            format=fp16.name,
            max=fp16.max,
        ),
        figure(
            "fp16_max", _num(fp16.max), _text(fp16.max), "最大有限值 = (2 − 2⁻¹⁰) × 2¹⁵", format=fp16.name
        ),
        figure(
            "fp32_max",
            fp32.max,
            "±" + units.sci(fp32.max, 2),
            "最大有限值 = (2 − 2⁻²³) × 2¹²⁷",
            format=fp32.name,
        ),
        figure(
            "fp32_spacing_near_1",
            fp32.epsilon,
            f"2^-{fp32.mantissa_bits} ≈ {units.sci(fp32.epsilon, 2)}",
            "1 附近相邻两数的间距 = 1 / 2^p，p 为尾数位数",
            format=fp32.name,
            mantissa_bits=fp32.mantissa_bits,
        ),
        figure(
            "bf16_spacing_near_1",
            F.ulp(bf16, 1),
            f"1/{int(1 / F.ulp(bf16, 1))}",
            "1 附近相邻两数的间距 = 1 / 2^p，p 为尾数位数",
            format=bf16.name,
            mantissa_bits=bf16.mantissa_bits,
        ),
        figure(
            "e4m3_patterns",
            e4m3.n_codes,
            str(e4m3.n_codes),
            "位型个数 = 2^位数",
            format=e4m3.name,
            bits=e4m3.bits,
        ),
        figure(
            "e4m3_max",
            _num(e4m3.max),
            _text(e4m3.max),
            "最大有限值：编码 0x7E（S.1111.110）= 1.75 × 2⁸",
            format=e4m3.name,
        ),
        figure(
            "e2m1_code_points",
            e2m1.n_codes,
            str(e2m1.n_codes),
            "编码个数 = 2^位数（值为 ±0、±0.5 … ±6）",
            format=e2m1.name,
            bits=e2m1.bits,
            values=sorted(set(F.code_points(e2m1))),
        ),
    ]
    # the tensor with an outlier: 0.01 with one E4M3 scale for all, and in a block without 1000
    whole = B.quantize(OUTLIER_TENSOR, "per_tensor_e4m3")
    block = B.quantize(OUTLIER_BLOCK, "per_tensor_e4m3")
    i, j = OUTLIER_TENSOR.index(0.01), OUTLIER_BLOCK.index(0.01)
    out += [
        figure(
            "outlier_rel_error_per_tensor",
            whole.rel_error[i],
            units.share(whole.rel_error[i], 1),
            "相对误差 = |还原值 − v| / |v|，还原值 = E4M3(v · s) / s，整张量一个缩放因子 s = FP32(448 / amax)，amax = 1000",
            tensor=OUTLIER_TENSOR,
            entry=0.01,
            scale=whole.scales[0][0],
            code=whole.codes[i],
            dequantized=whole.dequantized[i],
        ),
        figure(
            "outlier_rel_error_in_block",
            block.rel_error[j],
            units.share(block.rel_error[j], 2),
            "相对误差 = |还原值 − v| / |v|，还原值 = E4M3(v · s) / s，s = FP32(448 / amax)；块里没有 1000，amax = 0.5",
            block=OUTLIER_BLOCK,
            entry=0.01,
            scale=block.scales[0][0],
            code=block.codes[j],
            dequantized=block.dequantized[j],
        ),
    ]
    mx = B.quantize(MX_BLOCK, "mxfp4")
    k = MX_BLOCK.index(0.05)
    out += [
        figure(
            "mxfp4_block_0_05_becomes",
            _num(mx.dequantized[k]),
            _text(mx.dequantized[k]),
            "MXFP4 还原值 = E2M1(v / X) · X，块的缩放 X = 2^(⌊log₂ amax⌋ − 2)（OCP MX 规范 v1.0 §6.3）",
            block=MX_BLOCK,
            entry=0.05,
            scale=mx.scales[0][0],
            dequantized=mx.dequantized,
        ),
        figure(
            "mxfp4_bits_per_element",
            B.bits_per_element("mxfp4"),
            f"{B.bits_per_element('mxfp4'):g}",
            "每个数摊到的位数 = 4 + 8 / 32（E2M1 元素，每 32 个数一个 E8M0 缩放因子）",
            element_bits=4,
            scale_bits=8,
            block=32,
        ),
        figure(
            "nvfp4_bits_per_element",
            B.bits_per_element("nvfp4"),
            f"{B.bits_per_element('nvfp4'):g}",
            "每个数摊到的位数 = 4 + 8 / 16（E2M1 元素，每 16 个数一个 E4M3 缩放因子；整张量一个的 FP32 缩放摊下来可忽略）",
            element_bits=4,
            scale_bits=8,
            block=16,
        ),
    ]
    return out + _tie_rules() + _double_rounding()
