"""The colour of each part of the model states, by the label a reader sees: lesson 1's ledger and lesson 5's
memory bar draw a part named alike in one colour and one pattern, the pattern for readers who tell some of
these colours apart poorly. Colours are palette roles (c9/base/palette.py)."""

from __future__ import annotations

from c9.base.palette import var

#: One colour per legend entry (the ledger's legend lists each label once): every entry in a role of its own,
#: since all of them can stand in one legend (tests/views/test_lessons123_widgets.py checks every state).
LABEL_COLORS = {
    "权重（BF16）": var("weights"),
    "梯度（BF16）": var("grads"),
    "主权重（FP32）": var("master"),
    "权重（FP32）": var("weights-fp32"),
    "梯度（FP32）": var("grads-fp32"),
    "Adam m（FP32）": var("adam-m"),
    "Adam v（FP32）": var("adam-v"),
    "权重梯度（FP32）": var("weight-grads-fp32"),
    "Adam m（BF16）": var("adam-m-bf16"),
    "Adam v（BF16）": var("adam-v-bf16"),
    "FP8 权重": var("fp8-copy"),
    "FP8 权重转置": var("fp8-transpose"),
    "MXFP8 权重（按行）": var("mxfp8-copy"),
    "MXFP8 权重（按列）": var("mxfp8-transpose"),
    "E8M0 缩放因子": var("mx-scales"),
    "Kahan 补偿（BF16）": var("kahan-buffer"),
}

#: The second cue (Plotly's pattern shapes; "" is a plain fill). The ledger's 16 parts stand in one chart, and
#: some colours are close for a colour-blind reader (梯度（BF16） and Adam m（BF16） are 1.4 apart in CAM02-UCS
#: for deuteranopia): any two parts closer than 10 there, for normal vision or any of the three dichromacies,
#: on either scheme, differ in pattern (tests/views/test_lessons123_widgets.py). Where that allows, a shape
#: follows the kind of part: weights plain, the master copy ruled across, transposed copies ruled along, scale
#: factors and compensation crossed, gradients hatched, Adam's states dotted in FP32 and crossed in BF16;
#: 梯度（FP32） is crossed, as hatching either way would meet a gradient of a colour close to its own.
LABEL_PATTERNS = {
    "权重（BF16）": "",
    "权重（FP32）": "",
    "FP8 权重": "",
    "MXFP8 权重（按行）": "",
    "主权重（FP32）": "-",
    "FP8 权重转置": "|",
    "MXFP8 权重（按列）": "|",
    "E8M0 缩放因子": "+",
    "Kahan 补偿（BF16）": "+",
    "梯度（BF16）": "/",
    "权重梯度（FP32）": "\\",
    "梯度（FP32）": "x",
    "Adam m（FP32）": ".",
    "Adam v（FP32）": ".",
    "Adam m（BF16）": "x",
    "Adam v（BF16）": "x",
}


def marker(label: str) -> dict:
    """A Plotly bar marker for the part named ``label``: its colour, and its pattern drawn in the page's ground
    colour over it (so a pattern line contrasts with the part as the part does with the page)."""
    shape = LABEL_PATTERNS[label]
    out = {"color": LABEL_COLORS[label]}
    if shape:
        out["pattern"] = {
            "shape": shape,
            "fillmode": "overlay",
            "fgcolor": var("page"),
            "fgopacity": 1,
            "size": 8,
            "solidity": 0.3,
        }
    return out
