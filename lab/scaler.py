"""The project's own dynamic loss scaler (what torch.amp.GradScaler does, written out).

Per step: multiply the loss by ``scale`` before backward; then look at every gradient. If any is inf
or NaN, skip the optimizer step and halve the scale (``backoff_factor``). Otherwise divide the gradients
by the scale, step, and count a clean step; after ``growth_interval`` clean steps in a row, double the
scale (``growth_factor``). The log keeps ``loss_scale`` and ``skipped_steps``.

The scale is bounded at both ends, as training frameworks bound it:

- **Below, by ``min_scale`` (default 1.0).** Megatron-LM's ``DynamicGradScaler.update`` backs off with
  ``torch.max(scale * backoff_factor, min_scale)`` (megatron/core/optimizer/grad_scaler.py; the
  ``--min-loss-scale`` argument defaults to 1.0), and DeepSpeed's ``DynamicLossScaler.update_scale``
  with ``max(cur_scale / scale_factor, min_scale)`` (deepspeed/runtime/fp16/loss_scaler.py;
  ``min_loss_scale`` defaults to 1). Without it, a run of overflows halves the scale to 0 (torch's
  GradScaler has no floor: ``torch._amp_update_scale_`` takes 2⁻¹⁴⁹ to 0.0) and the next clean step
  divides by zero. At the floor the scaler keeps skipping overflowing steps (Megatron's behaviour).
- **Above, by ``max_scale`` (default FP32's largest finite value).** ``torch._amp_update_scale_``
  grows the scale only if the grown value is still finite in FP32 (the scale is an FP32 tensor);
  checked with torch 2.13 on the CPU: a scale of 2¹²⁷ stays 2¹²⁷ after a growth step. Our scale is a
  Python float (binary64), so the FP32 limit is written out here.

:meth:`update` holds the whole rule and needs no torch; :meth:`step` applies it to an optimizer.
"""

from __future__ import annotations

FP32_MAX = 3.4028234663852886e38  # (2 − 2⁻²³) × 2¹²⁷, torch.finfo(torch.float32).max


class DynamicLossScaler:
    def __init__(
        self,
        init_scale: float = 65536.0,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        min_scale: float = 1.0,
        max_scale: float = FP32_MAX,
    ):
        if not 0 < min_scale <= init_scale <= max_scale <= FP32_MAX:
            raise ValueError(
                f"need 0 < min_scale <= init_scale <= max_scale <= FP32 max, got "
                f"{min_scale}, {init_scale}, {max_scale}"
            )
        if not (growth_factor > 1 and 0 < backoff_factor < 1 and growth_interval >= 1):
            raise ValueError("need growth_factor > 1, 0 < backoff_factor < 1, growth_interval >= 1")
        self.scale = float(init_scale)
        self.growth_factor = float(growth_factor)
        self.backoff_factor = float(backoff_factor)
        self.growth_interval = int(growth_interval)
        self.min_scale = float(min_scale)
        self.max_scale = float(max_scale)
        self.clean_steps = 0
        self.skipped_steps = 0

    def scale_loss(self, loss):
        return loss * self.scale

    @staticmethod
    def found_inf(params) -> bool:
        import torch

        for p in params:
            if p.grad is not None and not torch.isfinite(p.grad).all():
                return True
        return False

    def update(self, found_inf: bool) -> None:
        """The scale after one step: backed off (not below ``min_scale``) after an overflow; grown
        after ``growth_interval`` clean steps in a row, unless that would pass ``max_scale``."""
        if found_inf:
            self.skipped_steps += 1
            self.scale = max(self.scale * self.backoff_factor, self.min_scale)
            self.clean_steps = 0
        else:
            self.clean_steps += 1
            if self.clean_steps == self.growth_interval:
                grown = self.scale * self.growth_factor
                if grown <= self.max_scale:  # torch: grow only while the FP32 scale stays finite
                    self.scale = grown
                self.clean_steps = 0

    def step(self, optimizer) -> bool:
        """Unscale and step, or skip; then update the scale. Returns True if the step was skipped."""
        params = [p for g in optimizer.param_groups for p in g["params"]]
        skipped = self.found_inf(params)
        if not skipped:
            inv = 1.0 / self.scale
            for p in params:
                if p.grad is not None:
                    p.grad.mul_(inv)
            optimizer.step()
        self.update(skipped)
        return skipped
