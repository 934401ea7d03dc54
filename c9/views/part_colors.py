"""The colour of each part of the model states, by the label a reader sees: lesson 1's ledger and lesson 5's
memory bar draw a part named alike in one colour. Colours are palette roles (c9/base/palette.py)."""

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
