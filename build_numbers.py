#!/usr/bin/env python3
"""Collect every figure the lessons quote: the modules of c9/figures (FIGURE_MODULES) compute them from
anchor-model.json and the lab's data through c9's core and views; this command gathers them, refuses a
name defined twice, writes build/numbers.json and prints them.

Each figure carries its value, its display text, the formula and the inputs, so a page can show where
it comes from. MkDocs calls :func:`compute` on every build (hooks/course.py), so a page never sees a
stale figure; ``python build_numbers.py`` writes the same figures to build/numbers.json for review.

Units: GB = 10^9 bytes, GiB = 2^30 bytes, MB = 10^6 bytes.
"""

from __future__ import annotations

import html
import importlib
import json
import sys
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from c9.base import units  # noqa: E402
from c9.core.formats import FORMATS  # noqa: E402


@dataclass(frozen=True)
class Figure:
    """One quoted figure: ``value`` (exact number or string), ``text`` (what the page shows),
    ``formula`` and ``inputs`` (how it was computed)."""

    name: str
    value: int | float | str
    text: str
    formula: str
    inputs: dict = field(default_factory=dict)

    def __str__(self) -> str:
        return self.text

    def __html__(self) -> str:
        """The figure as inline HTML: the text, and its provenance shown on hover or keyboard focus (kept
        out of the search index, so a search finds the lessons' prose, not 400 tooltips)."""
        how = "依据：" + units.reader_powers(self.formula)  # 2^p as 2ᵖ, as the lessons write it
        if self.inputs:
            how += "；代入：" + "，".join(
                f"{INPUT_NAMES.get(k, k)} = {v if k == 'seed' else _show(v)}" for k, v in self.inputs.items()
            )

        # "|" as an entity: a figure in a Markdown table cell must not end the cell (|x − q| / |x|).
        def esc(s):
            return html.escape(s).replace("|", "&#124;")

        return (
            f'<span class="fig" tabindex="0" data-fig="{self.name}">{esc(self.text)}'
            f'<span class="fig-how" role="tooltip" data-search-exclude>{esc(how)}</span></span>'
        )


def _show(v) -> str:
    if isinstance(v, int) and not isinstance(v, bool):
        return units.number(v)
    if isinstance(v, list):
        return "[" + ", ".join(map(_show, v)) + "]"
    if isinstance(v, float) and "e" in repr(v):  # 1e-08 as the pages write it: 1×10⁻⁸
        mantissa, exp = repr(v).split("e")
        return units.superscript_powers(f"{mantissa}×10^{int(exp)}").replace("-", "−")
    if isinstance(v, float):  # a negative with the minus sign of reader text: −26.0
        return repr(v).replace("-", "−")
    return VALUE_NAMES.get(v, str(v)) if isinstance(v, str) else str(v)


# How a figure's inputs read in its tooltip: the paper's letters stay as they are (s, b, h, a, L, Ψ, k,
# x, S, X …); every other name, and the codes of formats, modes and schemes, in Chinese.
INPUT_NAMES = {
    "param_total": "Ψ",
    "psi": "Ψ",
    "vocab_size": "词表大小",
    "card": "单卡显存（字节）",
    "mixed": "混合精度的模型状态（字节）",
    "weights": "BF16 权重（字节）",
    "convention": "口径",
    "iteration": "第几次迭代",
    "mode": "激活的存法",
    "full": "全注意力层数",
    "s_sentence": "例句的 s",
    "min_subnormal_exponent": "最小次正规数的指数",
    "max_exponent": "最大的指数",
    "bias": "指数偏置",
    "mantissa_bits": "尾数位数",
    "max": "最大有限值",
    "format": "格式",
    "bits": "位数",
    "values": "各个码点",
    "tensor": "张量",
    "entry": "所看的数 v",
    "scale": "缩放因子",
    "code": "编码",
    "dequantized": "还原值",
    "block": "块",
    "element_bits": "元素位数",
    "scale_bits": "缩放因子位数",
    "w0": "w₀",
    "delta": "Δ",
    "steps": "步数",
    "seed": "随机种子",
    "n": "样本数",
    "mu": "μ",
    "sigma": "σ",
    "source": "数据",
    "wall_time_s": "总耗时（秒）",
    "batch_size": "batch",
    "context": "上下文长度",
    "tokens_per_step": "每步 token 数",
    "files": "文件数",
    "train_files": "训练用的文件数",
    "bytes": "字节数",
    "measured": "实测（字节）",
    "ledger": "账本（字节）",
    "fp32": "FP32",
    "bf16": "BF16",
    "this": "这一行",
    "fp16": "FP16 不缩放",
    "fp16_scaled": "FP16 + 动态缩放",
    "count": "个数",
    "elements": "全部元素",
    "diff_bytes": "差值（字节）",
    "step": "第几步",
    "scheme": "缩放方案",
    "entries": "元素总数",
    "formula_bytes": "公式（字节）",
}
VALUE_NAMES = {
    **{f.name: f.label for f in FORMATS},  # a format by its reader's name (E4M3, not float8_e4m3fn)
    "store_all": "全部留着",
    "full_recompute": "全量重计算",
    "selective": "选择性重计算",
    "hf": "再加一份 FP32 梯度",
    "playbook": "16 位与 FP32 梯度都记",
    "per_tensor_e4m3": "整张量一个缩放因子（E4M3）",
    "deepseek_1x128": "1×128 分块",
    "deepseek_128x128": "128×128 分块",
}


class Figures(dict):
    """name → Figure, refusing duplicates so one figure has one origin."""

    def add(self, name: str, value, text: str, formula: str, **inputs) -> Figure:
        if name in self:
            raise ValueError(f"figure {name!r} defined twice")
        if isinstance(value, Fraction):
            value = float(value)
        # Pages show powers typeset (2⁻²⁴); modules may write them ASCII-style (2^-24).
        self[name] = Figure(name, value, units.superscript_powers(text), formula, inputs)
        return self[name]


# Modules that contribute figures: each has ``figures() -> list[dict]`` (c9/figures/figure.py: name, value,
# text, formula, inputs), computed through c9's core and views. Their order is numbers.json's.
FIGURE_MODULES = [
    "c9.figures.anchor_facts",
    "c9.figures.model_states",
    "c9.figures.lesson5_activations",
    "c9.figures.lesson5_timeline",
    "c9.figures.zero_gpt2",
    "c9.figures.codecs",
    "c9.figures.lessons123",
    "c9.figures.lesson4_fp4",
    "c9.figures.codec_lab",
    "c9.figures.lab",
    "c9.figures.kv_cache",
    "c9.figures.reported",
    "c9.figures.codec_check",
    "c9.figures.activation_check",
]


def compute() -> Figures:
    """Every figure, freshly computed by FIGURE_MODULES. Raises if two of them define the same name."""
    f = Figures()
    for name in FIGURE_MODULES:
        for row in importlib.import_module(name).figures():
            f.add(row["name"], row["value"], row["text"], row["formula"], **row.get("inputs", {}))
    return f


def to_json(figs: Figures) -> str:
    return json.dumps({k: asdict(v) for k, v in figs.items()}, ensure_ascii=False, indent=1, default=str)


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else ROOT / "build" / "numbers.json"
    figs = compute()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(to_json(figs), encoding="utf-8")
    width = max(map(len, figs))
    for name, fig in figs.items():
        print(f"{name:<{width}}  {fig.text}")
    print(f"{len(figs)} figures → {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
