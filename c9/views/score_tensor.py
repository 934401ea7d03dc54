"""The attention-score tensor of one full-attention layer, drawn as SVG:
O = softmax(Q·Kᵀ/√d_h)·V for a heads, sequence length s, head dimension d_h, batch 1.

Edges are on a log scale (length = 18 + 16·log2(n) units), so the same symbol always has the same
length and a 4,096-long edge stays on the page beside a 256-long one; the real sizes are written on
the edges. Pure string building: the SVG is made at build time and needs no script.
"""

from __future__ import annotations

import math
from html import escape

from c9.base import units
from c9.base.palette import var
from c9.core.models import anchor, load_facts

WIDGET = "score-tensor"
# The small example beside the real one: 2 heads, 4 tokens, head dimension 3.
SMALL = (2, 4, 3)

INPUT, OUTPUT = var("input"), var("output")


def edge(n: int) -> float:
    """Drawn length of an edge of n elements (log scale)."""
    return 18 + 16 * math.log2(n)


def _block(x, y, w, h, name, fill, dims_top, dims_left, depth=0, grid=(0, 0)):
    out = []
    rows, cols = grid
    for k in range(min(depth, 3), 0, -1):  # a few offset sheets stand for the a heads
        out.append(
            f'<rect x="{x + 6 * k:.1f}" y="{y - 6 * k:.1f}" width="{w:.1f}" height="{h:.1f}" '
            f'fill="{fill}" opacity="0.35" stroke="currentColor" stroke-width="0.8"/>'
        )
    out.append(
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="{fill}" stroke="currentColor" stroke-width="1.2"/>'
    )
    if 0 < rows <= 16 and 0 < cols <= 16:  # a small example shows its individual numbers
        out += [
            f'<line x1="{x:.1f}" y1="{y + h * i / rows:.1f}" x2="{x + w:.1f}" y2="{y + h * i / rows:.1f}" '
            f'stroke="currentColor" stroke-width="0.6"/>'
            for i in range(1, rows)
        ]
        out += [
            f'<line x1="{x + w * j / cols:.1f}" y1="{y:.1f}" x2="{x + w * j / cols:.1f}" y2="{y + h:.1f}" '
            f'stroke="currentColor" stroke-width="0.6"/>'
            for j in range(1, cols)
        ]
    out.append(f'<text x="{x + w / 2:.1f}" y="{y + h + 26:.1f}" class="c9-svg-name">{escape(name)}</text>')
    out.append(
        f'<text x="{x + w / 2:.1f}" y="{y - 10 - 6 * min(depth, 3):.1f}" class="c9-svg-dim">{escape(dims_top)}</text>'
    )
    cx, cy = x - 10, y + h / 2
    out.append(
        f'<text x="{cx:.1f}" y="{cy:.1f}" class="c9-svg-dim" transform="rotate(-90 {cx:.1f} {cy:.1f})">'
        f"{escape(dims_left)}</text>"
    )
    return "".join(out)


def _op(x, y, text):
    return f'<text x="{x:.1f}" y="{y:.1f}" class="c9-svg-op" dominant-baseline="middle">{escape(text)}</text>'


# The blocks and operators in reading order; None breaks the row. A wide screen takes the equation in two
# rows; a phone in four, so that the drawing is scaled down less and its labels stay legible.
WIDE_ROWS = (("Q", "·", "Kᵀ", "=", "S"), ("P", "·", "V", "=", "O"))
NARROW_ROWS = (("Q", "·", "Kᵀ", "="), ("S",), ("P", "·", "V", "="), ("O",))


def caption_text(a: int, s: int, d_h: int) -> str:
    return (
        f"× a = {a} 个头：分数表 S、P 各 a·s² = {units.number(a * s * s)} 个数；"
        f"输出 O 只有 a·s·dₕ = {units.number(a * s * d_h)} 个数"
    )


def svg(
    a: int,
    s: int,
    d_h: int,
    title: str,
    frame: tuple[int, int] = (1, 1),
    rows=WIDE_ROWS,
    cls: str = "c9-st-wide",
) -> str:
    """An SVG of the score computation for one layer and one sequence (batch 1).

    Args: a heads, s sequence length, d_h head dimension (positive integers); title for screen readers;
        frame: (s, d_h) the drawing area is sized for (pass the real dimensions when drawing the small
        example, so both share one scale); rows: the layout (WIDE_ROWS or NARROW_ROWS; the narrow one
        leaves the caption's numbers to the page, below the drawing).
    Returns the SVG markup (str). Raises ValueError for a non-positive size.
    """
    for name, v in (("a", a), ("s", s), ("d_h", d_h)):
        if not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    S, D = edge(s), edge(d_h)
    # The frame is sized for the reference dimensions, so the small example is drawn small.
    FS, FD = edge(max(s, frame[0])), edge(max(d_h, frame[1]))
    S_txt, D_txt = f"s = {units.number(s)}", f"dₕ = {units.number(d_h)}"
    # One gradient id per drawing: a page holds several, some hidden, and a url(#id) pointing into a
    # hidden drawing paints nothing.
    grad = f"c9-score-grad-{cls}-{a}-{s}-{d_h}"
    INTERMEDIATE = f"url(#{grad})"
    #          drawn w, h, framed width, name, fill, top label, left label, grid
    blocks = {
        "Q": (D, S, FD, "Q", INPUT, D_txt, S_txt, (s, d_h)),
        "Kᵀ": (S, D, FS, "Kᵀ", INPUT, S_txt, D_txt, (d_h, s)),
        "S": (S, S, FS, "S = QKᵀ/√dₕ", INTERMEDIATE, S_txt, S_txt, (s, s)),
        "P": (S, S, FS, "P = softmax(S)", INTERMEDIATE, S_txt, S_txt, (s, s)),
        "V": (D, S, FD, "V", INPUT, D_txt, S_txt, (s, d_h)),
        "O": (D, S, FD, "O", OUTPUT, D_txt, S_txt, (s, d_h)),
    }
    # The phone's drawing sets its labels larger (course.css), so its operators need wider gaps.
    gap, left, top = (90 if rows is NARROW_ROWS else 70), 90, 50
    parts, width, y = [], 0.0, top
    for row in rows:
        x = xf = left
        for item in row:
            if item in blocks:
                w, h, fw, name, fill, dt, dl, grid = blocks[item]
                parts.append(_block(x, y + (S - h) / 2, w, h, name, fill, dt, dl, a, grid))
                x, xf = x + w + gap, xf + fw + gap
            else:
                parts.append(_op(x - gap / 2 - 10, y + S / 2, item))
        width = max(width, xf - gap + 40 + (gap if row[-1] not in blocks else 0))
        y += FS + 100
    caption = caption_text(a, s, d_h)
    legend_y = y - 30
    legend = (
        f'<rect x="{left}" y="{legend_y - 14}" width="16" height="16" fill="{INPUT}"/>'
        f'<text x="{left + 22}" y="{legend_y}" class="c9-svg-legend">输入</text>'
        f'<rect x="{left + 80}" y="{legend_y - 14}" width="16" height="16" fill="{OUTPUT}"/>'
        f'<text x="{left + 102}" y="{legend_y}" class="c9-svg-legend">输出</text>'
        f'<rect x="{left + 160}" y="{legend_y - 14}" width="16" height="16" fill="{INTERMEDIATE}"/>'
        f'<text x="{left + 182}" y="{legend_y}" class="c9-svg-legend">中间结果（渐变 = 连续的分数值）</text>'
    )
    # The caption's two halves on two lines (on one, it ran past the drawing's right edge).
    lines = (
        ""
        if rows is NARROW_ROWS
        else "".join(
            f'<text x="{left}" y="{y + 4 + 22 * i}" class="c9-svg-legend">{escape(t)}</text>'
            for i, t in enumerate(caption.split("；"))
        )
    )
    height = y + (44 if lines else 0)
    return (
        f'<svg class="c9-svg {cls}" viewBox="0 0 {width:.0f} {height:.0f}" role="img" '
        f'aria-label="{escape(title)}。{escape(caption)}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>"
        f'<defs><linearGradient id="{grad}" x1="0" y1="0" x2="1" y2="1">'
        f'<stop offset="0" stop-color="{var("intermediate-low")}"/>'
        f'<stop offset="0.5" stop-color="{var("intermediate-mid")}"/>'
        f'<stop offset="1" stop-color="{var("intermediate-high")}"/></linearGradient></defs>'
        + "".join(parts)
        + legend
        + lines
        + "</svg>"
    )


def page_context(scale: str = "real") -> dict:
    """Template context (c9/views/score-tensor.html): the SVG at the anchor's real dimensions
    (``scale="real"``) or the small example (``"small"``), both on the real one's scale."""
    m = anchor()
    real = (m.a, load_facts()["training_sequence"]["tokens"], m.head_dim)
    if scale not in ("real", "small"):
        raise ValueError(f"scale must be 'real' or 'small', got {scale!r}")
    dims = real if scale == "real" else SMALL
    title = f"{m.label} 一个全注意力层的分数表（真实维度）" if scale == "real" else "同一计算的小规模版本"
    return dict(
        svg=svg(*dims, title, frame=(real[1], real[2])),
        a=dims[0],
        s=dims[1],
        d_h=dims[2],
        scale=scale,
        narrow=svg(*dims, title, frame=(real[1], real[2]), rows=NARROW_ROWS, cls="c9-st-narrow"),
        caption=caption_text(*dims),
    )
