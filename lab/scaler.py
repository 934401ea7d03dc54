"""The project's own dynamic loss scaler (what torch.amp.GradScaler does, written out).

Per step: multiply the loss by ``scale`` before backward; then look at every gradient. If any is inf
or NaN, skip the optimizer step and halve the scale (``backoff_factor``). Otherwise divide the gradients
by the scale, step, and count a clean step; after ``growth_interval`` clean steps in a row, double the
scale (``growth_factor``). The log keeps ``loss_scale`` and ``skipped_steps``.
"""
from __future__ import annotations

import torch


class DynamicLossScaler:
    def __init__(self, init_scale: float = 65536.0, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000):
        self.scale = float(init_scale)
        self.growth_factor = float(growth_factor)
        self.backoff_factor = float(backoff_factor)
        self.growth_interval = int(growth_interval)
        self.clean_steps = 0
        self.skipped_steps = 0

    def scale_loss(self, loss: torch.Tensor) -> torch.Tensor:
        return loss * self.scale

    @staticmethod
    def found_inf(params) -> bool:
        for p in params:
            if p.grad is not None and not torch.isfinite(p.grad).all():
                return True
        return False

    def step(self, optimizer: torch.optim.Optimizer) -> bool:
        """Unscale and step, or skip; then update the scale. Returns True if the step was skipped."""
        params = [p for g in optimizer.param_groups for p in g["params"]]
        skipped = self.found_inf(params)
        if skipped:
            self.skipped_steps += 1
            self.scale *= self.backoff_factor
            self.clean_steps = 0
        else:
            inv = 1.0 / self.scale
            for p in params:
                if p.grad is not None:
                    p.grad.mul_(inv)
            optimizer.step()
            self.clean_steps += 1
            if self.clean_steps == self.growth_interval:
                self.scale *= self.growth_factor
                self.clean_steps = 0
        return skipped
