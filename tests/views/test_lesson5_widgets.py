"""Lesson 5's timeline, formula and score-tensor views, against closed forms worked out by hand."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import plotly.graph_objects as go
import pytest
from conftest import ROOT

from c9.core.activations import activation_memory
from c9.core.models import anchor
from c9.views import api, formula, score_tensor, timeline

PSI = 27_781_427_952


def ask(widget, **params):
    return json.loads(api.handle(json.dumps({"widget": widget, "params": params})))


def test_iteration_1_starts_with_weights_and_master_and_peaks_at_the_first_step():
    v = timeline.view({"iteration": 1})
    assert v["start_bytes"] == 2 * PSI + 4 * PSI
    act = activation_memory(4096, 1, 5120, 24, 64).bytes
    # Peak: end of forward (6Ψ + activations) or the first step (6Ψ + 2Ψ gradients + 8Ψ m, v), whichever is higher.
    assert v["peak_bytes"] == max(6 * PSI + act, 16 * PSI)
    assert v["peak_bytes"] == 16 * PSI and "Adam m、v" in v["peak_label"]


def test_iteration_2_starts_8_psi_higher_and_peaks_after_the_forward_pass():
    one, two = timeline.view({"iteration": 1}), timeline.view({"iteration": 2})
    assert two["start_bytes"] - one["start_bytes"] == 8 * PSI  # 222.3 GB
    act = activation_memory(4096, 1, 5120, 24, 64).bytes
    assert two["peak_bytes"] == 14 * PSI + act
    assert two["peak_label"] == "前向第 64 层"


def test_full_recomputation_lowers_the_peak_and_moves_it_to_the_end_of_backward():
    v = timeline.view({"iteration": 2, "mode": "full_recompute"})
    m = anchor()
    kept = 2 * 4096 * m.h  # each layer's input
    layer = activation_memory(4096, 1, m.h, m.a, 1).bytes
    # Just before layer 1's backward: 14Ψ, layer 1's kept input, the other 63 layers' gradients, layer 1 rebuilt.
    assert v["peak_bytes"] == 14 * PSI + kept + 2 * PSI * (m.L - 1) // m.L + layer
    assert v["peak_label"] == "重算第 1 层的前向"
    assert v["n"] == 1 + m.L + 2 * m.L + 2


def test_timeline_ends_where_it_started_plus_m_and_v():
    for it in (1, 2):
        ev = timeline.events(timeline.normalise({"iteration": it}))
        assert ev[-1]["bytes"] == 14 * PSI  # gradients freed; weights, master weights, m and v stay
        assert ev[-2]["bytes"] - ev[-1]["bytes"] == 2 * PSI


@pytest.mark.parametrize(
    "params", [dict(iteration=3), dict(mode="selective"), dict(s=0), dict(model="x"), dict(speed=2)]
)
def test_timeline_bad_input(params):
    out = ask("timeline", **params)
    assert out["ok"] is False and out["error"]


def test_timeline_figure_is_valid_plotly():
    for it in (1, 2):
        for mode in timeline.TIMELINE_MODES:
            go.Figure(timeline.view({"iteration": it, "mode": mode, "model": "qwen3-8b"})["figure"])


def test_formula_terms_on_the_anchor_and_on_qwen3_8b():
    v = formula.view()
    values = {t["key"]: t["value"] for t in v["terms"]}
    assert values["5as/h"].startswith("5as/h = 96.0")  # 5 · 24 · 4096 / 5120
    assert "73.8%" in values["5as2b"] and "26.2%" in values["34sbh"]
    q = formula.view({"model": "qwen3-8b"})
    assert {t["key"]: t["value"] for t in q["terms"]}["5as/h"].startswith(
        "5as/h = 160.0"
    )  # 5 · 32 · 4096 / 4096
    assert [t["key"] for t in v["terms"]] == ["s", "b", "h", "a", "34", "5as/h", "34sbh", "5as2b"]
    assert ask("formula", s="x")["ok"] is False


def test_score_tensor_svg_is_well_formed_and_uses_one_log_scale():
    real = score_tensor.svg(24, 4096, 256, "真实")
    small = score_tensor.svg(2, 4, 3, "小", frame=(4096, 256))
    for doc in (real, small):
        ET.fromstring(doc)
    # Same viewBox for both: the small example is drawn on the real one's scale.
    assert re.search(r'viewBox="([^"]+)"', real).group(1) == re.search(r'viewBox="([^"]+)"', small).group(1)
    assert score_tensor.edge(4096) == 18 + 16 * 12 and score_tensor.edge(4) == 18 + 16 * 2
    assert "402,653,184" in real and "25,165,824" in real
    assert "32" in small  # 2 · 4² scores
    with pytest.raises(ValueError):
        score_tensor.svg(0, 4, 3, "bad")


def test_our_small_model_puts_the_labs_four_snapshots_on_the_fp32_curve():
    """The lab's FP32 run: the curve follows the FP32 ledger (4Ψ weights, 4Ψ gradients, 8Ψ m and v);
    the measured snapshots after building, after backward and after the step equal it (the step
    adds AdamW's step counters, 4 bytes per parameter tensor)."""
    import json

    data = json.loads((ROOT / "lab/results/c09-precision.json").read_text())
    psi = data["model"]["param_count"]
    assert psi == 3_688_704
    v = timeline.view({"model": "lab"})
    measured = {m["point"]: m for m in v["measured"]}
    assert set(measured) == {"after_build", "after_forward", "after_backward", "after_step"}
    assert measured["after_build"]["derived"] == measured["after_build"]["bytes"] == 4 * psi
    assert measured["after_backward"]["derived"] == measured["after_backward"]["bytes"] == 8 * psi
    assert measured["after_step"]["derived"] == 16 * psi
    assert 0 <= measured["after_step"]["bytes"] - 16 * psi < 1000
    assert v["start_bytes"] == 4 * psi and v["peak_bytes"] == 16 * psi
    go.Figure(v["figure"])
    assert len(v["figure"]["data"]) == 3  # curve, peak, measured dots
    assert timeline.view({"model": "lab", "iteration": 2})["measured"] == []
    assert "MiB" in v["summary"]


def test_timeline_key_moments_stay_a_short_list_under_full_recomputation():
    """Full recomputation alternates recompute/backward once per layer; the table keeps the first pair."""
    tl = timeline
    v = tl.view({"mode": "full_recompute"})
    labels = [m["label"] for m in v["marks"]]
    assert len(v["marks"]) == 6 and v["n"] == 195
    assert labels[2] == "重算第 64 层的前向" and labels[3] == "反向第 64 层"
    assert v["peak_index"] in [m["i"] for m in v["marks"]]
    assert len(tl.view({"mode": "store_all"})["marks"]) == 5


@pytest.mark.parametrize(
    "model, iteration, s", [("qwen3.8-27b", 2, 4096), ("qwen3.8-27b", 1, 32768), ("lab", 2, None)]
)
def test_full_recomputation_says_what_it_saved_against_storing_all(model, iteration, s):
    """A reader switching to full recomputation saw the small model's peak unchanged with no word why."""
    from c9.base import units
    from c9.views import timeline

    p = {"model": model, "iteration": iteration, **({"s": s} if s else {})}
    full = timeline.view({**p, "mode": "full_recompute"})
    stored = timeline.view({**p, "mode": "store_all"})["peak_bytes"]
    unit = "MiB" if model == "lab" else "GB"
    if stored == full["peak_bytes"]:
        assert "激活全存的峰值也正是这么多" in full["summary"]
    else:
        assert stored > full["peak_bytes"]
        assert f"压低了 {units.size(stored - full['peak_bytes'], unit)}" in full["summary"]


def test_the_zero_faq_does_not_deny_zeros_own_activation_partitioning():
    """The FAQ answered 「激活也会一起被分掉吗？」 with 「不会」, but the ZeRO paper's Pa (§6.1) splits
    checkpointed activations across the tensor-parallel cards; the answer now says so and when it applies."""

    text = (ROOT / "docs" / "lesson-5.md").read_text(encoding="utf-8")
    faq = text.split('??? question "ZeRO 把模型状态分到了多张卡上，激活也会一起被分掉吗？"', 1)[1].split(
        "???", 1
    )[0]
    assert not faq.lstrip().startswith("不会") and "Pa（§6.1）" in faq and "张量并行" in faq
    assert "§6.1" in next(line for line in text.splitlines() if line.startswith("[^zero]:"))


def test_the_measuring_faq_doubles_s_as_the_page_teaches():
    """「对 s 和 micro-batch 做二分」 finds a limit, not whether growth is linear or quadratic; the FAQ just above
    teaches doubling s and reading 2× or 4×."""

    text = (ROOT / "docs" / "lesson-5.md").read_text(encoding="utf-8")
    faq = text.split('??? question "公式只是估算，那实际占多少该信什么？"', 1)[1].split("[^k22]:", 1)[0]
    assert "做二分" not in faq and "翻一倍" in faq and "两倍还是四倍" in faq
