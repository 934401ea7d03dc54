"""Every figure's provenance (the tooltip a reader sees on hover or focus) reads as
Chinese, with the formula in the paper's letters and its inputs; no English pseudo-code.

In the browser (tests/site/test_layout.py, on its laid-out pages): the tooltips of the figures near both
edges stay inside the viewport at 390 and 1280 px, and every tooltip is opaque and legible in both palettes
(TOOLTIP_COLOURS below).
"""

from __future__ import annotations

import html
import re

import pytest

import build_numbers

CJK = re.compile(r"[\u4e00-\u9fff]")
# A data file and the key in it, cited as the source of a fact: kept as written (like a URL).
SOURCE = re.compile(r"[\w./-]+\.(?:json|py)(?::\s*[\w.\[\]\-]+)?")
HEX = re.compile(r"\b0x[0-9A-Fa-f]+\b")
WORD = re.compile(r"[A-Za-z][A-Za-z_]*[A-Za-z]")
# Names a Chinese text uses as they are: formats, units, papers and tools, and terms the lessons use.
ALLOWED = {
    "FP",
    "BF",
    "FP16",
    "BF16",
    "FP32",
    "FP8",
    "FP4",
    "E4M3",
    "E5M2",
    "E2M1",
    "E8M0",
    "MXFP4",
    "NVFP4",
    "MX",
    "NV",
    "MXFP",
    "NVFP",
    "autocast",
    "OCP",
    "NaN",
    "Adam",
    "AdamW",
    "ZeRO",
    "Korthikanti",
    "GPT",
    "Qwen",
    "PyTorch",
    "CPU",
    "GB",
    "GiB",
    "MB",
    "MiB",
    "TB",
    "TiB",
    "amax",
    "log",
    "token",
    "micro",
    "batch",
    "loss",
    "logits",
    "RMSNorm",
    "MLP",
    "L_full",
    "d_h",
    # papers and what they name, cited in a reported result's source
    # the model code the lab measures with (lab/activation_check.py): its families and attention paths
    "transformers",
    "eager",
    "sdpa",
    "math",
    "dropout",
    "head_dim",
    "Llama",
    "Mistral",
    "Mixtral",
    "Phi",
    "Gemma",
    "arXiv",
    "Chen",
    "Dao",
    "DeepSeek",
    "FlashAttention",
    "NVIDIA",
    "ResNet",
    "MFU",
    "MoE",
    "GPU",
    "Micikevicius",
}
PAPER_LETTERS = set("sbhaL")  # products such as sbh, 5as²b are the paper's algebra, not words


def provenance(fig) -> str:
    """The tooltip's text, as the page shows it."""
    m = re.search(r'<span class="fig-how"[^>]*>(.*?)</span></span>$', fig.__html__())
    return html.unescape(m.group(1))


def english_words(text: str) -> list[str]:
    text = HEX.sub(" ", SOURCE.sub(" ", text))
    return [w for w in WORD.findall(text) if w not in ALLOWED and not set(w) <= PAPER_LETTERS]


FIGURES = build_numbers.compute()


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_provenance_reads_as_chinese(name):
    how = provenance(FIGURES[name])
    assert CJK.search(SOURCE.sub("", how)), f"{name}: no Chinese in 「{how}」"
    assert not english_words(how), f"{name}: English in 「{how}」: {english_words(how)}"


def test_the_reported_examples_now_read_as_chinese():
    how = provenance(FIGURES["fp16_of_1e_minus_8"])
    assert "decode" not in how and "round once" not in how
    assert (
        how
        == "依据：把 x 先存成 FP32，再存进 FP16 读出：就近舍入，平局取偶；超出范围 → ∞；代入：格式 = FP16，x = 1×10⁻⁸"
    )
    how = provenance(FIGURES["timeline_it1_store_all_peak"])
    assert (
        how
        == "依据：一次迭代里常驻显存的最大值（逐个事件累加的时间线）；代入：第几次迭代 = 1，激活的存法 = 全部留着"
    )
    # the paper's letters and the inputs they stand for
    how = provenance(FIGURES["act_anchor"])
    assert "L × sbh(34 + 5as/h)" in how and "s = 4,096，b = 1，h = 5,120，a = 24，L = 64" in how


def test_the_checker_catches_english():
    assert english_words("decode(encode(FP16, x)): round once to nearest") == [
        "decode",
        "encode",
        "round",
        "once",
        "to",
        "nearest",
    ]
    assert english_words("模型状态（anchor-model.json: param_total）= 16 B × Ψ，E4M3 的 0x7E") == []


# The figures nearest the left and right edges of the text column, and the last ones of a page, on every
# page: each one's tooltip, shown by keyboard focus, must lie inside the viewport (it ran off a phone).
EDGE_FIGURES = """(width) => {
  // figures a reader can reach now (not inside a closed <details> or a hidden tab)
  const figs = [...document.querySelectorAll('article .fig')].filter(f => f.checkVisibility() && !f.closest('details:not([open])'));
  const box = f => f.getClientRects()[0];
  const byLeft = [...figs].sort((a, b) => box(a).left - box(b).left);
  const byRight = [...figs].sort((a, b) => box(b).right - box(a).right);
  const pick = new Set([...byLeft.slice(0, 3), ...byRight.slice(0, 3), ...figs.slice(-2)]);
  const all = [...document.querySelectorAll('article .fig')];
  return [...pick].map(f => all.indexOf(f));
}"""


# Every figure's tooltip, shown by focus, in the palette the page is in: its background colour (alpha),
# the contrast of its text over it (the text colour blended over the background, as drawn), and whether
# the tooltip is what the reader sees at its own centre (nothing of the page drawn over it).
TOOLTIP_COLOURS = """() => {
  const rgba = (s) => { const v = s.match(/[\\d.]+/g).map(Number); return {r: v[0], g: v[1], b: v[2], a: v.length > 3 ? v[3] : 1}; };
  const lum = ({r, g, b}) => { const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const out = [];
  for (const fig of document.querySelectorAll('article .fig')) {
    if (!fig.getClientRects().length) continue;
    fig.scrollIntoView({block: 'center', behavior: 'instant'});
    fig.focus();
    const tip = fig.querySelector('.fig-how'), cs = getComputedStyle(tip);
    const bg = rgba(cs.backgroundColor), fg = rgba(cs.color);
    const drawn = {r: fg.r * fg.a + bg.r * (1 - fg.a), g: fg.g * fg.a + bg.g * (1 - fg.a), b: fg.b * fg.a + bg.b * (1 - fg.a)};
    const [hi, lo] = [lum(drawn), lum(bg)].sort((x, y) => y - x);
    const box = tip.getBoundingClientRect();
    const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    out.push({fig: fig.dataset.fig, bg: cs.backgroundColor, alpha: bg.a, contrast: (hi + 0.05) / (lo + 0.05),
              onTop: !!top && tip.contains(top), over: top && !tip.contains(top) ? `${top.tagName}.${top.className}: ${top.textContent.trim().slice(0, 12)}` : ''});
    fig.blur();
  }
  return out;
}"""
