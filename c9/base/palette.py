"""The course's colours, by role: the one table that the charts, the SVG drawings and course.css share.

A view names a colour by its role, as a CSS variable (``var("fp32")`` → ``"var(--c9-fp32)"``); the build
writes every role's colour on Material's two schemes into course.css (``css()``, through hooks/course.py):
the light one (``default``) and the dark one (``slate``). SVG and HTML use the variable as it is; the page's
chart code (docs/assets/js/charts.js) gives Plotly the value the variable has on the page now, and again
when the reader switches the scheme.

Lines and marks drawn straight on the page need 3:1 against it (WCAG 1.4.11): two hues miss it on one
scheme and take another colour there, the navy of FP32 and of a chart's main series on the dark one
(1.8:1 → 5.8:1), the orange of FP16 with scaling and of the 16-bit copy on the light one (2.7:1 → 4.2:1).
The ledger's and the memory bar's parts are filled areas drawn on the page too: each takes 3:1 on both
grounds (its own shade on each where one colour cannot) and stays told apart from every other part. The lab's memory chart draws its parts as the charts' lines are drawn, hence its own
roles.
"""

from __future__ import annotations

LIGHT, DARK = "default", "slate"  # Material's scheme names


def _tint(colour: str, alpha: float) -> str:
    """A see-through ground of a colour (#rrggbb), as Plotly and CSS both read it: rgba(r,g,b,alpha)."""
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha:g})"


def _both(colour: str) -> tuple[str, str]:
    return colour, colour


#: role → (light, dark). Hex as #rrggbb.
ROLES: dict[str, tuple[str, str]] = {
    # Precisions and the lines drawn for them (the lab's loss curves, the repeated update, the probe).
    "fp32": ("#1f4e8c", "#6d9eeb"),
    "bf16": _both("#2a9d5b"),
    "fp16": _both("#c8372d"),
    "fp16-scaled": ("#b06d00", "#e08a1e"),
    "low-precision": _both("#c8372d"),  # a weight stored and updated in 16 bits
    "copy": ("#b06d00", "#e08a1e"),  # the 16-bit copy made from an FP32 master
    "exact": _both("#888888"),
    "stochastic": _both("#2a9d5b"),  # the mean of the stochastic-rounding runs (its band: "stochastic-band")
    "kahan": _both("#8e6cc1"),  # the 16-bit weight kept by compensated (Kahan) summation
    # Model states and activations: the ledger's bars, the memory bar's segments (3:1 on both grounds).
    "weights": ("#1f4e8c", "#6d9eeb"),
    "weights-fp32": ("#16365f", "#94a9cc"),
    "grads": _both("#3a78c2"),
    "grads-fp32": _both("#2a9d8f"),
    # an FP8 recipe's FP32 weight gradients: in the ledger's chart beside 「梯度（FP32）」 of the FP32 bars
    "weight-grads-fp32": _both("#0b7fa8"),
    "master": ("#5a86e8", "#b3cff5"),
    "adam-m": ("#6f4fa8", "#8e6cc1"),
    "adam-v": ("#a583dc", "#b79be0"),
    "adam": ("#6f4fa8", "#8e6cc1"),  # m and v as one part
    # m and v stored in BF16: in the ledger's chart beside the FP32 ones, so a hue of their own (plum)
    "adam-m-bf16": _both("#b52bca"),
    "adam-v-bf16": _both("#d369d3"),
    "fp8-copy": _both("#2a9d5b"),  # an FP8 recipe's FP8 weight copy
    "fp8-transpose": _both("#1d7a6f"),  # ... and its transposed (column-wise) copy
    # MXFP8's row-wise and column-wise copies: in the ledger's chart beside the two above, so hues of their own
    "mxfp8-copy": _both("#6b8e23"),
    "mxfp8-transpose": ("#3f5f10", "#a0b94a"),
    "mx-scales": ("#7a5c2e", "#b08850"),  # MXFP8's E8M0 block scales
    "kahan-buffer": _both("#b5478a"),  # pure BF16's Kahan compensation buffer
    "activations": ("#b06d00", "#e08a1e"),
    "scores": _both("#c8372d"),
    "logits": ("#5e4a2a", "#d4b483"),
    "hatch": _both("#ffffff"),  # the stripes over a measured segment
    # The lab's memory chart (its gradients and optimizer state are "grads" and "adam").
    "lab-weights": ("#1f4e8c", "#6d9eeb"),
    "lab-activations": ("#b06d00", "#e08a1e"),
    "lab-logits": _both("#c8372d"),
    # Marks and lines of one chart.
    "series": ("#1f4e8c", "#6d9eeb"),  # a chart's one data series (the timeline, the loss-scale histogram)
    "ink": _both("var(--md-default-fg-color)"),  # the page's text colour: reference lines, outlines
    "page": _both(
        "var(--md-default-bg-color)"
    ),  # the page's ground: the ledger's pattern lines, cut into a part
    "card-line": _both("#c8372d"),
    "peak": _both("#c8372d"),
    "measured": _both("#111111"),  # filled, inside a ring of ink
    "formula": _both("#c8372d"),
    "skipped": _both("#c8372d"),
    "initial": _both("#8e6cc1"),  # the probe's gradients at initialisation
    "scaled-limit": _both("#b8650c"),  # 2⁻⁴⁰: what loss scaling by 65,536 lifts to FP16's smallest
    # Kinds of value: the 256-pattern tables' cells, the loss-scale histogram's bands.
    "normal": _both("#3a78c2"),
    "subnormal": _both("#e08a1e"),
    "zero": _both("#2e8b57"),
    "nan": _both("#c8372d"),
    "infinity": _both("#8e6cc1"),
    "lost": _both("#c8372d"),  # flushed to zero or overflowed
    # The bit flipper's fields (white digits on each at 4.5:1 or more).
    "sign": _both("#7a56b0"),
    "exponent": _both("#1f4e8c"),
    "mantissa": _both("#1d7a6f"),
    "bit-digit": _both("#ffffff"),
    # Drawings: the score tensor, the E2M1 line.
    "input": _both("#3a78c2"),
    "output": _both("#2e8b57"),
    "intermediate-low": _both("#fde0c5"),
    "intermediate-mid": _both("#f08a4b"),
    "intermediate-high": _both("#b3261e"),
    "rounding-band-a": _both("#3a78c2"),
    "rounding-band-b": _both("#e08a1e"),
    # The block lab's colour scales: a number's error class (green up to 6.25%), and |x|.
    "error-fine": _both("#1a9850"),
    "error-large": _both("#f46d43"),
    "error-ruined": _both("#a50026"),
    "error-zeroed": _both("#542788"),  # became 0: a hue of its own, not one more step of red
    "abs-small": _both("#eff3ff"),
    "abs-mid": _both("#6baed6"),
    "abs-large": _both("#08306b"),
    # Feedback: a task's right answer, a refused input, a value lost in the FP4 comparison, a note.
    "ok": _both("#2e8b57"),
    "error": _both("#c8372d"),
    "zeroed": ("#c8372d", "#ff8a80"),
    "note": _both("#e08a1e"),
}
# See-through grounds of a role: the pattern tables' cells, the loss-scale bands, the tasks' titles and the
# evolution map's keys. (name, role, opacity)
GROUNDS = (
    ("normal-ground", "normal", 0.16),
    ("subnormal-ground", "subnormal", 0.35),
    ("zero-ground", "zero", 0.35),
    ("nan-ground", "nan", 0.45),
    ("infinity-ground", "infinity", 0.5),
    ("lost-band", "lost", 0.15),
    ("subnormal-band", "subnormal", 0.15),
    ("stochastic-band", "stochastic", 0.2),
    ("ok-ground", "ok", 0.1),
    ("ok-key", "ok", 0.2),
    ("error-key", "error", 0.2),
)
ROLES.update({name: tuple(_tint(c, alpha) for c in ROLES[role]) for name, role, alpha in GROUNDS})


def var(role: str) -> str:
    """The colour of ``role`` as CSS reads it: ``var(--c9-ROLE)``. An unknown role raises KeyError."""
    if role not in ROLES:
        raise KeyError(f"no colour role {role!r} in c9/base/palette.py")
    return f"var(--c9-{role})"


def colour(value: str, scheme: str = LIGHT) -> str:
    """What a colour a view sent is on ``scheme``: a role's colour for ``var(--c9-ROLE)``, else ``value``."""
    if value.startswith("var(--c9-") and value.endswith(")"):
        light, dark = ROLES[value[len("var(--c9-") : -1]]
        return dark if scheme == DARK else light
    return value


def css() -> str:
    """Every role as a custom property, once per scheme (course.css starts with it). Both blocks list every
    role: a role that refers to Material's colours must be computed on the element carrying the scheme."""
    blocks = []
    for selector, i in (
        (f':root, [data-md-color-scheme="{LIGHT}"]', 0),
        (f'[data-md-color-scheme="{DARK}"]', 1),
    ):
        lines = "".join(f"  --c9-{role}: {pair[i]};\n" for role, pair in ROLES.items())
        blocks.append(f"{selector} {{\n{lines}}}\n")
    return (
        "/* c9:palette: the colour roles of c9/base/palette.py, written by the build (hooks/course.py). */\n"
        + "".join(blocks)
    )
