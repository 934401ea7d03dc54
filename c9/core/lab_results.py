"""The lab's result files (lab/results/), read in one place. The build never runs torch: it reads what the
lab's commands wrote. The precision run (c09-precision.json, ``python -m lab.run``) is also in the page's
Python archive (lesson 2's real gradients, lesson 5's small model); the codec check (codec-check.json,
``python -m lab.codec_check``) and the activation check (activation-check.json, ``python -m
lab.activation_check``) only the build reads.

Each reader returns the parsed file, a fresh copy on every call, or raises FileNotFoundError naming the
command that writes it. Plain data: the file's vocabulary (runs, snapshot points, parts), no reader text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from c9.base import paths

# The precision file's four runs, in the order the lab page shows them.
RUN_ORDER = ["fp32", "bf16", "fp16", "fp16_scaled"]
# Each run's memory snapshots, in the order one step takes them, and the parts of each snapshot.
POINTS = ["after_build", "after_forward", "after_backward", "after_step"]
PARTS = ["parameters", "gradients", "optimizer_state", "saved_for_backward", "logits_and_loss"]
# The run the lab's model is described by elsewhere on the site (lesson 5's bar and timeline).
REFERENCE_RUN = "fp32"
ACTIVATION_CHECK_SCHEMA = "activation-check/1"


def _read(path: Path | str, command: str) -> dict:
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run `{command}` (pip install .[lab])")
    return json.loads(path.read_text(encoding="utf-8"))


def has_precision() -> bool:
    """Whether the precision run's file is there (a checkout without the lab's results has none)."""
    return paths.LAB_PRECISION.exists()


def precision(path: Path | str | None = None) -> dict:
    """The precision run: four trainings of the lab's model, its probe, snapshots and throughput."""
    return _read(path or paths.LAB_PRECISION, "python -m lab.run")


def codec_check(path: Path | str | None = None) -> dict:
    """Our codecs against PyTorch and ml_dtypes, value by value (c9/figures/codec_check.py checks its sums)."""
    return _read(path or paths.LAB_CODEC_CHECK, "python -m lab.codec_check")


def activation_check(path: Path | str | None = None) -> dict:
    """Bytes saved for backward by tiny Hugging Face models, measured. ValueError for another schema."""
    path = path or paths.LAB_ACTIVATION_CHECK
    d = _read(path, "python -m lab.activation_check")
    if d.get("schema") != ACTIVATION_CHECK_SCHEMA:
        raise ValueError(f"{path}: unknown schema {d.get('schema')!r}")
    return d


def snapshots(d: dict, run: str) -> dict[str, dict]:
    """One run's memory snapshots by point: {"after_build": {"point", "parts", "total", …}, …}."""
    return {s["point"]: s for s in d["runs"][run]["memory"]}


def throughput(d: dict) -> dict[str, dict]:
    """Per run: tokens per CPU-second of the throughput measurement (one thread, repeated blocks of steps
    with the precisions taking turns) as {"median", "min", "max"}."""
    runs = d["throughput"]["runs"]
    return {
        name: {k: runs[name][f"tokens_per_cpu_s_{k}"] for k in ("median", "min", "max")} for name in RUN_ORDER
    }


@dataclass(frozen=True)
class MeasuredRun:
    """What the lab measured of its own model in one run: the recipe it trained with (c9.core.ledger), the
    sequence length s and micro-batch b of its steps, and its memory snapshots in the order of POINTS."""

    run: str
    recipe: str
    s: int
    b: int
    snapshots: tuple[dict, ...]

    def at(self, point: str) -> dict:
        """The snapshot taken at ``point`` (one of POINTS)."""
        return next(s for s in self.snapshots if s["point"] == point)


def reference_run(d: dict) -> MeasuredRun:
    """The run the site sets beside its derivations: FP32 at the s and b the lab's accounting used."""
    acc = d["accounting"]
    f = acc["formula_inputs"]
    return MeasuredRun(
        REFERENCE_RUN, acc["ledger_recipe"], f["s"], f["b"], tuple(d["runs"][REFERENCE_RUN]["memory"])
    )
