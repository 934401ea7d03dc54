"""Exact accounting of live tensor bytes on the CPU.

There is no allocator to ask on the CPU, so each snapshot adds up the bytes of the tensors alive at that
point, by category: parameters, gradients, optimizer state (AdamW's step, exp_avg, exp_avg_sq), and the
tensors autograd saved for backward (caught with ``torch.autograd.graph.saved_tensors_hooks``; counted
once per storage, so a tensor saved by two nodes, or a parameter saved by a matmul, is not counted twice
and parameters are not counted again as activations).
"""

from __future__ import annotations

import torch


def _storage_key(t: torch.Tensor):
    return (t.untyped_storage().data_ptr(), t.device.type)


def _storage_bytes(t: torch.Tensor) -> int:
    return t.untyped_storage().nbytes()


class SavedTensors:
    """Context manager: records every storage saved for backward during the forward pass."""

    def __init__(self, exclude: list[torch.Tensor] = ()):
        self.exclude = {_storage_key(t) for t in exclude}
        self.storages: dict = {}
        self.records: list = []  # (bytes, dtype, shape) per distinct storage
        self.excluded_hits = 0
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)

    def _pack(self, t: torch.Tensor):
        key = _storage_key(t)
        if key in self.exclude:
            self.excluded_hits += 1
        else:
            if key not in self.storages:
                self.storages[key] = (_storage_bytes(t), str(t.dtype))
                self.records.append((_storage_bytes(t), str(t.dtype), tuple(t.shape)))
        return t

    @staticmethod
    def _unpack(t):
        return t

    def __enter__(self):
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc):
        self._hooks.__exit__(*exc)

    @property
    def nbytes(self) -> int:
        return sum(b for b, _ in self.storages.values())

    def by_dtype(self) -> dict:
        out: dict = {}
        for b, dt in self.storages.values():
            out[dt] = out.get(dt, 0) + b
        return out


def unique_bytes(tensors) -> int:
    seen, total = set(), 0
    for t in tensors:
        if t is None:
            continue
        k = _storage_key(t)
        if k not in seen:
            seen.add(k)
            total += _storage_bytes(t)
    return total


def snapshot(
    point: str,
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer | None,
    saved: int,
    logits: torch.Tensor | None = None,
) -> dict:
    params = list(model.parameters())
    parts = {
        "parameters": unique_bytes(params),
        "gradients": unique_bytes(p.grad for p in params),
        "optimizer_state": unique_bytes(
            v
            for st in (optimizer.state.values() if optimizer else [])
            for v in st.values()
            if isinstance(v, torch.Tensor)
        ),
        "saved_for_backward": saved,
        "logits_and_loss": unique_bytes([logits]) if logits is not None else 0,
    }
    return {
        "point": point,
        "parts": parts,
        "total": sum(parts.values()),
        "method": "exact accounting of live tensors on the CPU (untyped_storage().nbytes(), each "
        "storage once); saved-for-backward via torch.autograd.graph.saved_tensors_hooks",
    }
