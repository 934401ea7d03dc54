"""The value-by-value check of our codecs against PyTorch and ml_dtypes, as the lab page quotes it.

Reads lab/results/codec-check.json (written by ``python -m lab.codec_check``; the build never runs torch)
through c9.core.lab_results and returns its counts as figures for build_numbers.py. Before anything is quoted the file is checked
against itself: every disagreement is counted under one kind, so agreeing + the kinds' counts = inputs.
Standard library only; only the build needs this module.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from c9.base import units
from c9.core import formats as F
from c9.core import lab_results
from c9.figures.figure import figure

SRC = "lab/results/codec-check.json"

#: format → the short key of its figures (its label in lower case) and the label the page uses
FORMATS = {
    name: (F.get_format(name).label.lower(), F.get_format(name).label)
    for name in (
        "float32",
        "float16",
        "bfloat16",
        "float8_e4m3fn",
        "float8_e5m2",
        "float8_e8m0fnu",
        "float4_e2m1fn",
    )
}
LIBS = {"reference": "对照库", "torch": "PyTorch"}
# E4M3: PyTorch is compared with our saturating mode; how it differs from the format's default is kept too
DIFF_LIBS = LIBS | {"torch_vs_default": "PyTorch（对本站的默认溢出规则）"}
#: what a kind of differing input is, in the reader's words
KINDS = {
    "nan": "NaN 输入",
    "inf": "无穷大输入",
    "zero": "零输入",
    "negative": "负数输入",
    "overflow": "超出范围的输入",
    "float32_subnormal": "FP32 次正规数输入",
    "other": "普通输入",
}

__all__ = ["figures", "load", "FORMATS"]


def load(path: Path | str | None = None) -> dict:
    """The check's data file (c9.core.lab_results.codec_check), verified to add up."""
    d = lab_results.codec_check(path)
    for r in d["formats"]:
        enc = r["encode"]
        if enc["edge_inputs"] + enc["random_inputs"] != enc["inputs"]:
            raise ValueError(f"{r['format']}: edge + random inputs != inputs")
        for lib in DIFF_LIBS:
            if (
                enc.get(lib) is not None
                and enc[lib] + sum(k["count"] for k in enc[f"{lib}_differences"].values()) != enc["inputs"]
            ):
                raise ValueError(f"{r['format']}: {lib} agreeing + differing != inputs")
    return d


def _code_value(fmt: str, code: str | None) -> str:
    """A code and its value as the page shows them: '0x3F81（1.0078125）', '0x00（2⁻¹²⁷）', '0x8（−0）'.
    The value is decoded here by our codec; the test checks the libraries' own values against it."""
    if code is None:
        return "拒绝编码"
    v = F.decode_exact(fmt, int(code, 16)) if F.classify(fmt, int(code, 16)) != "nan" else None
    if v is None:
        shown = "NaN"
    elif v == 0:
        shown = "−0" if int(code, 16) & F.get_format(fmt).sign_bit else "0"
    elif abs(v) < Fraction(1, 1024) and abs(v).numerator == 1:  # a tiny power of two: 2⁻¹²⁷
        shown = ("−" if v < 0 else "") + units.superscript_powers(
            f"2^{-(abs(v).denominator.bit_length() - 1)}"
        )
    else:
        shown = units.number(v, len(str(float(v)).split(".")[1]) if v.denominator > 1 else 0)
    return f"{code}（{shown}）"


def _power_text(text: str) -> str:
    """'1 + 2^-8 + 2^-40' → '1 + 2⁻⁸ + 2⁻⁴⁰'; '-432.0' → '−432' (reader minus signs, no trailing .0)."""
    text = text[:-2] if text.endswith(".0") else text
    return units.superscript_powers(text).replace("-", "−")


def figures(data: dict | None = None) -> list[dict]:
    d = load() if data is None else data
    prov = d["provenance"]
    out: list[dict] = []

    def fig(name, value, text, formula, **inputs):
        out.append(figure(f"cc_{name}", value, text, formula, **inputs))

    torch_version = prov["torch"].split("+")[0]  # "2.13.0+cpu": the CPU build, said in words on the page
    fig(
        "torch", torch_version, torch_version, f"逐值对照用的 PyTorch 版本，CPU 版（{SRC}: provenance.torch）"
    )
    fig("ml_dtypes", prov["ml_dtypes"], prov["ml_dtypes"], f"对照库的版本（{SRC}: provenance.ml_dtypes）")
    fig("seed", prov["seed"], str(prov["seed"]), f"随机输入的种子（{SRC}: provenance.seed）")
    n = prov["random_inputs_per_format"]
    fig(
        "random_per_format",
        n,
        units.number(n),
        f"每种格式的随机 FP32 输入个数（{SRC}: provenance.random_inputs_per_format）",
    )

    for r in d["formats"]:
        key, label = FORMATS[r["format"]]
        dec, enc, at = r["decode"], r["encode"], f"{SRC}: formats[{r['format']}]"
        fig(
            f"{key}_codes",
            dec["codes_checked"],
            units.number(dec["codes_checked"]),
            f"{label} 逐个解码核对的编码个数（{at}.decode.codes_checked）",
            编码总数=dec["codes_total"],
        )
        fig(
            f"{key}_inputs",
            enc["inputs"],
            units.number(enc["inputs"]),
            f"{label} 编码核对的 FP32 输入个数 = 边界输入 + 随机输入（{at}.encode.inputs）",
            边界输入=enc["edge_inputs"],
            随机输入=enc["random_inputs"],
        )
        for part, total in (("decode", dec["codes_checked"]), ("encode", enc["inputs"])):
            for lib, lib_label in LIBS.items():
                agree = (dec if part == "decode" else enc)[lib]
                what = "解码结果" if part == "decode" else "编码结果"
                if agree is None:
                    for suffix in ("", "_diff"):
                        fig(
                            f"{key}_{part}_{lib}{suffix}",
                            "—",
                            "—",
                            f"PyTorch {torch_version} 的 4 位类型在 CPU 上不能与 FP32 互转，没有可比的结果"
                            f"（{SRC}: torch_dtypes.float4_e2m1fn_x2）",
                        )
                    continue
                fig(
                    f"{key}_{part}_{lib}",
                    agree,
                    units.number(agree),
                    units.joined(
                        f"{label} 的{what}与",
                        lib_label,
                        f"相同的个数（同一编码，或同号的 NaN）（{at}.{part}.{lib}）",
                    ),
                    核对总数=total,
                )
                fig(
                    f"{key}_{part}_{lib}_diff",
                    total - agree,
                    units.number(total - agree),
                    units.joined(
                        f"{label} 的{what}与",
                        lib_label,
                        f"不同的个数 = 核对总数 − 相同的个数（{at}.{part}.{lib}）",
                    ),
                    核对总数=total,
                    相同=agree,
                )
        for lib, lib_label in DIFF_LIBS.items():
            for kind, k in enc.get(f"{lib}_differences", {}).items():
                fig(
                    f"{key}_{lib}_{kind}",
                    k["count"],
                    units.number(k["count"]),
                    units.joined(
                        f"{label} 编码时与",
                        lib_label,
                        "结果不同的",
                        KINDS[kind],
                        f"个数（{at}.encode.{lib}_differences.{kind}）",
                    ),
                )
                ex = k["example"]
                fig(
                    f"{key}_{lib}_{kind}_input",
                    ex["input"],
                    _input_text(ex["input"]),
                    f"例子：一个这样的输入（{at}.encode.{lib}_differences.{kind}.example.input）",
                )
                fig(
                    f"{key}_{lib}_{kind}_ours",
                    ex["ours"] or "—",
                    _code_value(r["format"], ex["ours"]),
                    f"例子：本站编解码的结果（{at}.encode.{lib}_differences.{kind}.example）",
                    输入=_input_text(ex["input"]),
                )
                fig(
                    f"{key}_{lib}_{kind}_lib",
                    ex["library"],
                    _code_value(r["format"], ex["library"]),
                    units.joined(
                        "例子：", lib_label, f"的结果（{at}.encode.{lib}_differences.{kind}.example）"
                    ),
                    输入=_input_text(ex["input"]),
                )

    for c in d["double_rounding"]:
        key, label = FORMATS[c["format"]]
        at = f"{SRC}: double_rounding[{c['format']}]"
        fig(
            f"dr_{key}_input",
            c["input_float64"],
            _power_text(c["input"]),
            f"一个 FP64 数，恰好等于所写的值（{at}.input）",
            精确的分数=_fraction_text(c["input_float64"]),
        )
        fig(
            f"dr_{key}_f32",
            c["float32_of_input"],
            _power_text(c["float32_of_input"]),
            f"这个输入先舍入成 FP32 得到的数，恰是 {label} 两个相邻值的正中（{at}.float32_of_input）",
        )
        for part, what in (
            ("exact", "一次舍入：把精确值直接就近舍入到 {label}，测试里用分数与所有编码逐个比较复核"),
            (
                "via_float32",
                "两次舍入：先到 FP32，落在正中再按 {label} 的规则（{tie}），即 PyTorch 与课程组件的做法",
            ),
        ):
            name = "exact" if part == "exact" else "via32"
            code = c[part]
            how = what.format(label=label, tie=F.get_format(c["format"]).tie_rule_zh)
            fig(f"dr_{key}_{name}", code, code, f"{how}的编码（{at}.{part}）")
            fig(
                f"dr_{key}_{name}_value",
                code,
                _code_value(c["format"], code).split("（", 1)[1][:-1],
                f"{how}的值（{at}.{part}）",
            )
        fig(
            f"dr_{key}_decimal",
            c["input_float64"],
            _power_text(c["input_float64"]),
            f"这个输入的 FP64 值按最短的十进制写出（{at}.input_float64）",
        )
    return out


def _fraction_text(x: str) -> str:
    """A float's exact value as n / 2^k: '1.0039062500009095' → '1,103,806,595,073 / 2⁴⁰'."""
    fr = Fraction(float(x))
    k = fr.denominator.bit_length() - 1
    return units.number(fr.numerator) + (units.superscript_powers(f" / 2^{k}") if k else "")


def _input_text(x: str) -> str:
    """An example input as the reader writes it: 'inf' → '∞', '-1e-45' → '−1e−45'."""
    return {"inf": "∞", "-inf": "−∞", "-NaN": "−NaN"}.get(x, x.replace("-", "−"))
