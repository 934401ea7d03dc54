"""The figures lessons 1–3 quote, each computed through widgets/ (ledger, formats, the widgets' own
views). :func:`figures` returns dicts ``{"name", "value", "text", "formula", "inputs"}`` for
build_numbers.py. Only the inputs the lessons chose (1 + 10⁻⁴ a thousand times, 7.5B ...) are typed.
"""

from __future__ import annotations

from fractions import Fraction

from c9.base import units
from c9.core import formats as F
from c9.core.ledger import model_states
from c9.core.models import anchor, card_bytes, model
from c9.figures.figure import figure
from c9.views.ledger import CONVENTIONS
from c9.views.loss_scale import SOURCES, STAND_IN, counts, thresholds
from c9.views.repeated_update import run

__all__ = ["figures"]


# How the formulas name rounding classes (the reader's names, not the codec's keys).
_CLASS = {"zero": "舍成 0 ", "subnormal": "落进次正规区", "inf": "溢出成 ∞ "}


def _gb(n: int) -> str:
    return units.size(n, "GB")


def _exp(x) -> int:
    """log2 of an exact power of two (raises if it is not one)."""
    fr = Fraction(x)
    e = fr.numerator.bit_length() - fr.denominator.bit_length()
    assert fr == Fraction(2) ** e, x
    return e


def _pow(e: int) -> str:
    return f"2^{e}"


def _t(x: float, digits: int = 6) -> str:
    """A whole number with separators ("70,144"), any other to ``digits`` significant digits."""
    return units.number(x) if x == int(x) else units.sci(x, digits)


def _lesson1() -> list[dict]:
    m, q8, card = anchor(), model("qwen3-8b"), card_bytes()
    n = m.param_total
    fp32 = model_states(n, "fp32_adamw").bytes
    mixed = model_states(n, "bf16_mixed_adamw").bytes
    w = model_states(n, "bf16_weights_only").bytes
    per = {k: sum(p[2] for p in c["parts"]) for k, c in CONVENTIONS.items()}
    zero_params = 7_500_000_000  # ZeRO §3.1's example model
    out = [
        figure(
            "l1_fp32_adamw_anchor",
            fp32,
            _gb(fp32),
            "FP32 + AdamW 的模型状态 = (4 + 4 + 4 + 4) B × Ψ",
            param_total=n,
        ),
        figure(
            "l1_undercount",
            Fraction(mixed, w),
            units.number(Fraction(mixed, w)),
            "少算了几倍 = 16 B ÷ 2 B",
            mixed=mixed,
            weights=w,
        ),
        figure("l1_mv_bytes", 8, "8", "每参数 Adam 的 m 4 B + v 4 B"),
        figure("l1_conv18", per["hf"], str(per["hf"]), "这一口径各项字节数之和", convention="hf"),
        figure(
            "l1_conv20",
            per["playbook"],
            str(per["playbook"]),
            "这一口径各项字节数之和",
            convention="playbook",
        ),
        figure(
            "l1_conv18_anchor",
            per["hf"] * n,
            _gb(per["hf"] * n),
            "18 B × Ψ（这一口径的模型状态）",
            param_total=n,
        ),
        figure(
            "l1_conv20_anchor",
            per["playbook"] * n,
            _gb(per["playbook"] * n),
            "20 B × Ψ（这一口径的模型状态）",
            param_total=n,
        ),
        figure("l1_zero_k", 12, "12", "K = 4（FP32 主权重）+ 4（m）+ 4（v）"),
        figure(
            "l1_zero_params",
            zero_params,
            f"{units.number(Fraction(zero_params, 10**9), 1)}B",
            "ZeRO 论文 §3.1 的例子",
        ),
        figure(
            "l1_zero_gb",
            model_states(zero_params).bytes,
            _gb(model_states(zero_params).bytes).replace(".0 GB", " GB"),
            "模型状态 = (2 + 2 + 12) B × Ψ",
            param_total=zero_params,
        ),
        figure(
            "l1_qwen3_8b_params",
            q8.param_total,
            f"{units.number(Fraction(q8.param_total, 10**9), 1)}B",
            "Qwen3-8B 以十亿计的参数个数 = Ψ ÷ 10⁹（anchor-model.json）",
            param_total=q8.param_total,
        ),
        figure(
            "l1_qwen3_8b_states",
            16 * q8.param_total,
            _gb(model_states(q8.param_total).bytes),
            "模型状态 = 16 B × Ψ",
            param_total=q8.param_total,
        ),
        figure(
            "l1_qwen3_8b_weights",
            2 * q8.param_total,
            _gb(model_states(q8.param_total, "bf16_weights_only").bytes),
            "BF16 权重 = 2 B × Ψ",
            param_total=q8.param_total,
        ),
        figure(
            "l1_qwen3_8b_cards",
            Fraction(16 * q8.param_total, card),
            units.number(Fraction(16 * q8.param_total, card), 1),
            "相当于几张卡 = 16 B × Ψ ÷ 80 GB",
            param_total=q8.param_total,
        ),
        figure(
            "l1_card_max_params_16",
            Fraction(card, 16),
            f"{units.number(Fraction(card, 16 * 10**9), 1)}B",
            "一张卡最多放得下的参数个数 = 80 GB ÷ 16 B",
        ),
        figure(
            "l1_card_max_params_2",
            Fraction(card, 2),
            f"{units.number(Fraction(card, 2 * 10**9), 1)}B",
            "只放 BF16 权重时最多的参数个数 = 80 GB ÷ 2 B",
        ),
        figure(
            "l1_bf16_weights_share",
            Fraction(w, mixed),
            units.percent(w, mixed),
            "BF16 权重占模型状态的比例 = 2 B ÷ 16 B",
            weights=w,
            mixed=mixed,
        ),
    ]
    return out


def _fp16_bf16() -> list[dict]:
    fp16, bf16, fp32 = F.get_format("fp16"), F.get_format("bf16"), F.get_format("fp32")
    out = []
    for f, tag in ((fp16, "fp16"), (bf16, "bf16"), (fp32, "fp32")):
        t = thresholds(f) if f is not fp32 else None
        z = F.interval(f, 0).hi  # |x| ≤ z rounds to 0
        one = F.interval(f, F.encode(f, 1))  # reals that round to 1
        out += [
            figure(
                f"{tag}_zero_threshold",
                _exp(z),
                _pow(_exp(z)),
                "会被舍成 0 的上界：最小次正规数的一半，恰好等于它时舍向 0（尾数为偶）",
                format=f.name,
            ),
            figure(
                f"{tag}_swallow_threshold",
                _exp(one.hi - 1),
                _pow(_exp(one.hi - 1)),
                "加到 1 上会被吞掉的上界：1 以上间距的一半，1 加上它恰在正中，舍回 1（尾数为偶）",
                format=f.name,
            ),
            figure(
                f"{tag}_exp_bits",
                f.exponent_bits,
                str(f.exponent_bits),
                "格式定义里的指数位数",
                format=f.name,
            ),
            figure(
                f"{tag}_man_bits",
                f.mantissa_bits,
                str(f.mantissa_bits),
                "格式定义里存下的尾数位数（不含隐含的 1）",
                format=f.name,
            ),
            figure(
                f"{tag}_min_normal_exp",
                f.emin,
                _pow(f.emin),
                "最小正规数的指数 = 1 − 指数偏置",
                format=f.name,
                bias=f.bias,
            ),
            figure(
                f"{tag}_min_subnormal_exp_l",
                _exp(Fraction(f.min_subnormal)),
                _pow(_exp(Fraction(f.min_subnormal))),
                "最小次正规数的指数 = log₂ 最小次正规数",
                format=f.name,
            ),
            figure(
                f"{tag}_powers_window",
                f.emax - _exp(Fraction(f.min_subnormal)) + 1,
                str(f.emax - _exp(Fraction(f.min_subnormal)) + 1),
                "覆盖的 2 的幂个数 = 最大指数 − log₂ 最小次正规数 + 1",
                format=f.name,
            ),
            figure(
                f"{tag}_ulp_1",
                F.ulp(f, 1),
                f"1/{int(1 / F.ulp(f, 1)):,}" if f is not fp32 else _pow(_exp(F.ulp(f, 1))),
                "1 附近相邻两数的间距 = 1 / 2^p，p 为尾数位数",
                format=f.name,
            ),
        ]
        if t:
            big = t["inf_min"] >= 1e6
            out.append(
                figure(
                    f"{tag}_overflow_from",
                    t["inf_min"],
                    units.sci(t["inf_min"], 3) if big else _t(t["inf_min"]),
                    "溢出的下界：从这个数起都舍入成 ∞",
                    format=f.name,
                )
            )
    # fp16(1e-8 × 65,536): the lesson's underflowing gradient, scaled by 2^16 first
    # the gradient is an FP32 value (the seed's rule), scaled exactly (a power of two), then stored in FP16
    scaled = F.round_value(fp16, Fraction(F.as_float32(Fraction(1, 10**8))) * 65536)
    out.append(
        figure(
            "fp16_of_1e_minus_8_scaled",
            scaled,
            _t(scaled, 5),
            "先乘 S 再存成 FP16：FP16(FP32(10⁻⁸) × 2¹⁶)",
            x="10⁻⁸",
            S=65536,
        )
    )
    out.append(
        figure(
            "fp16_of_1e_minus_8_scaled_back",
            float(Fraction(scaled) / 65536),
            units.sci(Fraction(scaled) / 65536, 4),
            "在 FP32 里除回 S（除以 2 的幂，没有舍入）：FP16(10⁻⁸ × 2¹⁶) ÷ 2¹⁶",
            S=65536,
        )
    )
    b = F.round_via_float32(bf16, Fraction(1, 10**8))
    out.append(
        figure("bf16_of_1e_minus_8", b, units.sci(b, 4), "先存成 FP32，再存成 BF16：BF16(10⁻⁸)", x="10⁻⁸")
    )
    out.append(
        figure(
            "bf16_of_70000",
            F.round_via_float32(bf16, 70000),
            _t(F.round_via_float32(bf16, 70000)),
            "存成 BF16：BF16(70,000)",
            x=70000,
        )
    )
    out.append(
        figure(
            "bf16_over_fp16_spacing",
            int(F.ulp(bf16, 1) / F.ulp(fp16, 1)),
            str(int(F.ulp(bf16, 1) / F.ulp(fp16, 1))),
            "1 附近的间距之比 = BF16 的间距 ÷ FP16 的间距",
        )
    )
    for f, tag in ((bf16, "bf16"), (fp32, "fp32")):
        out.append(
            figure(
                f"{tag}_values_per_binade",
                1 << f.mantissa_bits,
                f"{1 << f.mantissa_bits:,}",
                "每个 [2ᵉ, 2ᵉ⁺¹) 区间里有 2^p 个数，p 为尾数位数",
                format=f.name,
            )
        )
    moved = fp16.mantissa_bits - bf16.mantissa_bits
    out.append(
        figure(
            "bf16_bits_moved",
            moved,
            str(moved),
            "BF16 从 FP16 的尾数挪给指数的位数 = FP16 尾数位数 − BF16 尾数位数",
            fp16=fp16.mantissa_bits,
            bf16=bf16.mantissa_bits,
        )
    )
    out.append(
        figure(
            "bf16_ulp_1000",
            F.ulp(bf16, 1000),
            _t(F.ulp(bf16, 1000)),
            "BF16 在 1,000 附近的间距：[512, 1024) 里相邻两数之差",
            x=1000,
        )
    )
    out.append(
        figure(
            "bf16_of_1001",
            F.round_via_float32(bf16, 1001),
            _t(F.round_via_float32(bf16, 1001)),
            "存成 BF16：BF16(1,001)",
            x=1001,
        )
    )
    out.append(
        figure(
            "bf16_max",
            bf16.max,
            units.sci(bf16.max, 3),
            "BF16 的最大有限值",
            format=bf16.name,
        )
    )
    return out


def _updates() -> list[dict]:
    out = []
    for fmt, tag, w0, d, steps in (
        ("float16", "l2_ru", 1, Fraction(1, 10**4), 1000),
        ("bfloat16", "l3_ru", 1, Fraction(1, 10**3), 1000),
        ("bfloat16", "l3_sum", 0, 1, 1000),
        ("float16", "l2_sum", 0, 1, 5000),
    ):
        r = run(fmt, w0, d, steps)
        ins = dict(format=fmt, w0=w0, delta=str(d), steps=steps)
        exact = w0 + steps * d
        out += [
            figure(
                f"{tag}_low",
                r["low"][-1],
                _t(r["low"][-1]),
                f"全用 {F.get_format(fmt).label}：w ← {F.get_format(fmt).label}(w + {F.get_format(fmt).label}(Δ))，重复 {steps:,} 次",
                **ins,
            ),
            figure(
                f"{tag}_master",
                r["master"][-1],
                _t(r["master"][-1], 7),
                f"FP32 主权重：w ← FP32(w + FP32(Δ))，重复 {steps:,} 次",
                **ins,
            ),
            figure(
                f"{tag}_copy",
                r["copy"][-1],
                _t(r["copy"][-1], 7),
                f"{steps:,} 步后把 FP32 主权重转成 {F.get_format(fmt).label}",
                **ins,
            ),
            figure(f"{tag}_exact", exact, _t(float(exact)), "精确值 = w₀ + 步数 × Δ", **ins),
            figure(f"{tag}_steps", steps, f"{steps:,}", "更新的步数", **ins),
        ]
        stop = next((i for i, (a, c) in enumerate(zip(r["low"], r["low"][1:])) if a == c), None)
        if stop is not None and w0 == 0:
            out.append(
                figure(
                    f"{tag}_stops_at",
                    r["low"][stop],
                    _t(r["low"][stop]),
                    f"第一个满足 {F.get_format(fmt).label}(w + 1) = w 的 w",
                    **ins,
                )
            )
    return out


def _loss_scale() -> list[dict]:
    out = [
        figure("ls_n", STAND_IN["n"], f"{STAND_IN['n']:,}", "替身梯度的样本数", **STAND_IN),
        figure("ls_mu", STAND_IN["mu"], units.number(STAND_IN["mu"]), "替身梯度 log₂|g| 的均值", **STAND_IN),
        figure(
            "ls_sigma", STAND_IN["sigma"], f"{STAND_IN['sigma']:g}", "替身梯度 log₂|g| 的标准差", **STAND_IN
        ),
    ]
    for fmt, k in (("float16", 0), ("float16", 16), ("bfloat16", 0)):
        c = counts("stand-in", k, fmt)
        for key in ("zero", "subnormal", "inf"):
            out.append(
                figure(
                    f"ls_{'fp16' if fmt == 'float16' else 'bf16'}_k{k}_{key}",
                    Fraction(c[key], c["n"]),
                    units.percent(c[key], c["n"]),
                    f"替身梯度乘 2^k 后存成 {F.get_format(fmt).label}，{_CLASS[key]}的比例",
                    format=fmt,
                    k=k,
                    seed=STAND_IN["seed"],
                )
            )
    first = next(k for k in range(0, 41) if counts("stand-in", k, "float16")["inf"] > 0)
    out.append(
        figure(
            "ls_fp16_first_inf_k",
            first,
            _pow(first),
            "最小的 k：有替身梯度乘 2^k 后 ≥ 65,520（溢出成 ∞）",
            seed=STAND_IN["seed"],
        )
    )
    # The lab's real gradients (binned by powers of two), when the lab's data file is present.
    if "lab" in SOURCES:
        for k in (0, 16, 24):
            c = counts("lab", k, "float16")
            for key in ("zero", "subnormal", "inf"):
                out.append(
                    figure(
                        f"ls_lab_k{k}_{key}",
                        Fraction(c[key], c["n"]),
                        _share(c[key], c["n"]),
                        f"实验课的真梯度乘 2^k 后存成 FP16，{_CLASS[key]}的比例（按 2 的幂分箱统计）",
                        k=k,
                        source="lab/results/c09-precision.json",
                    )
                )
        first = next(k for k in range(0, 41) if counts("lab", k, "float16")["inf"] > 0)
        out.append(
            figure(
                "ls_lab_first_inf_k",
                first,
                _pow(first),
                "最小的 k：有实验课梯度的分箱乘 2^k 后超过 65,520（溢出成 ∞）",
                source="lab/results/c09-precision.json",
            )
        )
    return out


def _share(part: int, whole: int) -> str:
    """A percentage that never shows a non-zero share as 0.0%."""
    if 0 < part and part * 1000 < whole:
        return (
            f"{units.number(Fraction(part, whole) * 100, 4)}%"
            if part * 10**6 >= whole
            else f"{part:,} / {whole:,}"
        )
    return units.percent(part, whole)


def figures() -> list[dict]:
    return _lesson1() + _fp16_bf16() + _updates() + _loss_scale()
