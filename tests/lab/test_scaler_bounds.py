"""The lab's dynamic loss scaler is bounded at both ends (lab/scaler.py says why and
from which frameworks). The rule (``update``) needs no torch; the comparison with torch's own update
kernel runs when torch is installed."""

from __future__ import annotations

import math

import pytest

from lab.scaler import FP32_MAX, DynamicLossScaler


def test_many_overflows_stop_at_the_minimum_and_the_next_clean_step_can_unscale():
    s = DynamicLossScaler(init_scale=65536.0, growth_interval=8)
    scales = []
    for _ in range(1000):  # 2¹⁶ × 0.5¹⁰⁰⁰ would be 0 without the floor
        s.update(found_inf=True)
        scales.append(s.scale)
    assert scales[15] == 1.0 and scales[-1] == 1.0 == s.min_scale  # 2¹⁶ halved 16 times, then held
    assert min(scales) == 1.0 and s.skipped_steps == 1000
    assert math.isfinite(1.0 / s.scale)  # what step() divides by
    s.update(found_inf=False)
    assert s.scale == 1.0 and s.clean_steps == 1


def test_many_clean_steps_stop_below_fp32_overflow():
    s = DynamicLossScaler(init_scale=65536.0, growth_interval=1)
    for _ in range(1000):  # 2¹⁶ × 2¹⁰⁰⁰ would pass FP32's range at step 112
        s.update(found_inf=False)
    assert s.scale == 2.0**127 <= FP32_MAX < 2.0**128
    s.update(found_inf=True)
    assert s.scale == 2.0**126


def test_custom_bounds_are_kept_and_bad_ones_refused():
    s = DynamicLossScaler(init_scale=4.0, min_scale=2.0, max_scale=16.0, growth_interval=1)
    for _ in range(5):
        s.update(found_inf=False)
    assert s.scale == 16.0
    for _ in range(5):
        s.update(found_inf=True)
    assert s.scale == 2.0
    for kw in (
        {"min_scale": 0.0},
        {"init_scale": 0.5},
        {"max_scale": math.inf},
        {"init_scale": 1e39},
        {"backoff_factor": 1.0},
        {"growth_factor": 1.0},
        {"growth_interval": 0},
    ):
        with pytest.raises(ValueError):
            DynamicLossScaler(**kw)


def test_growth_stops_where_torch_stops_it():
    torch = pytest.importorskip("torch")
    ours = DynamicLossScaler(init_scale=2.0**120, growth_interval=1)
    scale, tracker, clean = torch.tensor([2.0**120]), torch.zeros(1, dtype=torch.int32), torch.zeros(1)
    for _ in range(12):
        ours.update(found_inf=False)
        torch._amp_update_scale_(scale, tracker, clean, 2.0, 0.5, 1)
        assert ours.scale == scale.item()
    assert ours.scale == 2.0**127


def test_a_long_overflow_run_would_reach_zero_in_torch_but_not_here():
    torch = pytest.importorskip("torch")
    scale, tracker, inf = torch.tensor([65536.0]), torch.zeros(1, dtype=torch.int32), torch.ones(1)
    ours = DynamicLossScaler(init_scale=65536.0)
    for _ in range(200):
        torch._amp_update_scale_(scale, tracker, inf, 2.0, 0.5, 2000)
        ours.update(found_inf=True)
    assert scale.item() == 0.0 and ours.scale == 1.0  # the bound this scaler adds (Megatron, DeepSpeed)


def test_step_skips_and_unscales_at_the_floor():
    torch = pytest.importorskip("torch")
    p = torch.nn.Parameter(torch.zeros(2))
    opt = torch.optim.SGD([p], lr=1.0)
    s = DynamicLossScaler(init_scale=4.0, growth_interval=100)
    for _ in range(5):  # overflow after overflow: skipped, the scale held at 1
        opt.zero_grad()
        s.scale_loss((p * torch.tensor([math.inf, 1.0])).sum()).backward()
        assert s.step(opt) is True
    assert s.scale == 1.0 and torch.equal(p.detach(), torch.zeros(2))
    opt.zero_grad()
    s.scale_loss((p * torch.tensor([0.5, 1.0])).sum()).backward()
    assert s.step(opt) is False
    assert p.detach().tolist() == [-0.5, -1.0]  # a clean step at the floor unscales (÷ 1) and steps
