"""Lesson 4's task "does FP8 training halve a step's memory?": its figures against independent arithmetic."""

from __future__ import annotations

from fractions import Fraction

import pytest

from c9.core.models import anchor
from c9.figures import model_states


@pytest.mark.timeout(60)
def test_fp8_task_figures():
    m = anchor()
    psi, L, h, a = m.param_total, m.L, m.h, m.a
    figs = {f["name"]: f for f in model_states.figures()}
    assert figs["fp8_ds3_anchor"]["value"] == 12 * psi and figs["fp8_ds3_share"]["text"] == "75.0%"
    assert figs["fp8_te_anchor"]["value"] == 18 * psi and figs["fp8_te_share"]["text"] == "112.5%"
    assert figs["fp8_mx_per"]["text"] == "18.0625"
    s, b = 4096, 1
    bf16 = L * (34 * s * b * h + 5 * a * s * s * b)
    te = L * (27 * s * b * h + 5 * a * s * s * b)
    ds3 = L * (28 * s * b * h + 5 * a * s * s * b)
    assert figs["fp8_act_bf16"]["value"] == bf16 and figs["fp8_act_te"]["value"] == te
    assert figs["fp8_act_ds3"]["value"] == ds3
    assert figs["fp8_act_te_flash_share"]["value"] == Fraction(27, 34)
    assert figs["fp8_step_te_share"]["value"] == Fraction(18 * psi + te, 16 * psi + bf16)
    assert figs["fp8_step_ds3_share"]["value"] == Fraction(12 * psi + ds3, 16 * psi + bf16)
    assert figs["fp8_step_ds3_share"]["value"] > Fraction(1, 2)  # not halved
