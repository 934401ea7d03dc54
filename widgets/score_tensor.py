"""The attention-score tensor of one full-attention layer, drawn as SVG:
O = softmax(Q·Kᵀ/√d_h)·V for a heads, sequence length s, head dimension d_h, batch 1.

Edges are on a log scale (length = 18 + 16·log2(n) units), so the same symbol always has the same
length and a 4,096-long edge stays on the page beside a 256-long one; the real sizes are written on
the edges. Pure string building: the SVG is made at build time and needs no script.
"""
from __future__ import annotations

import math
from html import escape

from . import units
from .models import anchor, load_facts

WIDGET = "score-tensor"
# The small example beside the real one: 2 heads, 4 tokens, head dimension 3.
SMALL = (2, 4, 3)

INPUT, INTERMEDIATE, OUTPUT = "#3a78c2", "url(#c9-score-grad)", "#2e8b57"


def edge(n: int) -> float:
    """Drawn length of an edge of n elements (log scale)."""
    return 18 + 16 * math.log2(n)


def _block(x, y, w, h, name, fill, dims_top, dims_left, depth=0, grid=(0, 0)):
    out = []
    rows, cols = grid
    for k in range(min(depth, 3), 0, -1):  # a few offset sheets stand for the a heads
        out.append(f'<rect x="{x + 6 * k:.1f}" y="{y - 6 * k:.1f}" width="{w:.1f}" height="{h:.1f}" '
                   f'fill="{fill}" opacity="0.35" stroke="currentColor" stroke-width="0.8"/>')
    out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="{fill}" stroke="currentColor" stroke-width="1.2"/>')
    if 0 < rows <= 16 and 0 < cols <= 16:  # a small example shows its individual numbers
        out += [f'<line x1="{x:.1f}" y1="{y + h * i / rows:.1f}" x2="{x + w:.1f}" y2="{y + h * i / rows:.1f}" '
                f'stroke="currentColor" stroke-width="0.6"/>' for i in range(1, rows)]
        out += [f'<line x1="{x + w * j / cols:.1f}" y1="{y:.1f}" x2="{x + w * j / cols:.1f}" y2="{y + h:.1f}" '
                f'stroke="currentColor" stroke-width="0.6"/>' for j in range(1, cols)]
    out.append(f'<text x="{x + w / 2:.1f}" y="{y + h + 26:.1f}" class="c9-svg-name">{escape(name)}</text>')
    out.append(f'<text x="{x + w / 2:.1f}" y="{y - 10 - 6 * min(depth, 3):.1f}" class="c9-svg-dim">{escape(dims_top)}</text>')
    cx, cy = x - 10, y + h / 2
    out.append(f'<text x="{cx:.1f}" y="{cy:.1f}" class="c9-svg-dim" transform="rotate(-90 {cx:.1f} {cy:.1f})">'
               f'{escape(dims_left)}</text>')
    return "".join(out)


def _op(x, y, text):
    return f'<text x="{x:.1f}" y="{y:.1f}" class="c9-svg-op" dominant-baseline="middle">{escape(text)}</text>'


def svg(a: int, s: int, d_h: int, title: str, frame: tuple[int, int] = (1, 1)) -> str:
    """An SVG of the score computation for one layer and one sequence (batch 1).

    Args: a heads, s sequence length, d_h head dimension (positive integers); title for screen readers;
        frame: (s, d_h) the drawing area is sized for (pass the real dimensions when drawing the small
        example, so both share one scale).
    Returns the SVG markup (str). Raises ValueError for a non-positive size.
    """
    for name, v in (("a", a), ("s", s), ("d_h", d_h)):
        if not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    S, D = edge(s), edge(d_h)
    # The frame is sized for the reference dimensions, so the small example is drawn small.
    FS, FD = edge(max(s, frame[0])), edge(max(d_h, frame[1]))
    S_txt, D_txt = f"s = {units.number(s)}", f"dₕ = {units.number(d_h)}"
    gap, left, top = 70, 90, 50
    parts = []
    # Row 1: Q · Kᵀ = S
    x = left
    parts.append(_block(x, top, D, S, "Q", INPUT, D_txt, S_txt, a, (s, d_h)))
    x += D + gap
    parts.append(_op(x - gap / 2 - 10, top + S / 2, "·"))
    parts.append(_block(x, top + (S - D) / 2, S, D, "Kᵀ", INPUT, S_txt, D_txt, a, (d_h, s)))
    x += S + gap
    parts.append(_op(x - gap / 2 - 10, top + S / 2, "="))
    parts.append(_block(x, top, S, S, "S = QKᵀ/√dₕ", INTERMEDIATE, S_txt, S_txt, a, (s, s)))
    width1 = left + FD + FS + FS + 2 * gap + 40
    # Row 2: P = softmax(S), P · V = O
    y2 = top + FS + 100
    x = left
    parts.append(_block(x, y2, S, S, "P = softmax(S)", INTERMEDIATE, S_txt, S_txt, a, (s, s)))
    x += S + gap
    parts.append(_op(x - gap / 2 - 10, y2 + S / 2, "·"))
    parts.append(_block(x, y2, D, S, "V", INPUT, D_txt, S_txt, a, (s, d_h)))
    x += D + gap
    parts.append(_op(x - gap / 2 - 10, y2 + S / 2, "="))
    parts.append(_block(x, y2, D, S, "O", OUTPUT, D_txt, S_txt, a, (s, d_h)))
    width = max(width1, left + FS + 2 * FD + 2 * gap + 40)
    height = y2 + FS + 90
    scores = a * s * s
    caption = (f"× a = {a} 个头：分数表 S、P 各 a·s² = {units.number(scores)} 个数；"
               f"输出 O 只有 a·s·dₕ = {units.number(a * s * d_h)} 个数")
    legend_y = height - 22
    legend = (f'<rect x="{left}" y="{legend_y - 14}" width="16" height="16" fill="{INPUT}"/>'
              f'<text x="{left + 22}" y="{legend_y}" class="c9-svg-legend">输入</text>'
              f'<rect x="{left + 80}" y="{legend_y - 14}" width="16" height="16" fill="{OUTPUT}"/>'
              f'<text x="{left + 102}" y="{legend_y}" class="c9-svg-legend">输出</text>'
              f'<rect x="{left + 160}" y="{legend_y - 14}" width="16" height="16" fill="{INTERMEDIATE}"/>'
              f'<text x="{left + 182}" y="{legend_y}" class="c9-svg-legend">中间结果（渐变 = 连续的分数值）</text>')
    return (
        f'<svg class="c9-svg" viewBox="0 0 {width:.0f} {height + 24:.0f}" role="img" '
        f'aria-label="{escape(title)}。{escape(caption)}" xmlns="http://www.w3.org/2000/svg">'
        f'<title>{escape(title)}</title>'
        '<defs><linearGradient id="c9-score-grad" x1="0" y1="0" x2="1" y2="1">'
        '<stop offset="0" stop-color="#fde0c5"/><stop offset="0.5" stop-color="#f08a4b"/>'
        '<stop offset="1" stop-color="#b3261e"/></linearGradient></defs>'
        + "".join(parts) + legend +
        f'<text x="{left}" y="{height + 12}" class="c9-svg-legend">{escape(caption)}</text></svg>'
    )


def page_context(scale: str = "real") -> dict:
    """Template context (hooks/templates/score-tensor.html): the SVG at the anchor's real dimensions
    (``scale="real"``) or the small example (``"small"``), both on the real one's scale."""
    m = anchor()
    real = (m.a, load_facts()["training_sequence"]["tokens"], m.head_dim)
    if scale not in ("real", "small"):
        raise ValueError(f"scale must be 'real' or 'small', got {scale!r}")
    dims = real if scale == "real" else SMALL
    title = f"{m.label}一个全注意力层的分数表（真实维度）" if scale == "real" else "同一计算的小规模版本"
    return dict(svg=svg(*dims, title, frame=(real[1], real[2])), a=dims[0], s=dims[1], d_h=dims[2], scale=scale)
