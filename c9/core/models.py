"""Facts from anchor-model.json: model configs, the card, the example sentence.

The file sits beside this package (repository root in a checkout; the archive root in the browser).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from c9.base import paths

FACTS_FILE = paths.FACTS_FILE
# The lab's measured run (in the repository, and in the page's Python archive).
LAB_DATA = paths.LAB_RESULTS / "c09-precision.json"
LAB = "lab"
LAB_LABEL = "我们的小模型（实验课，FP32）"


@dataclass(frozen=True)
class ModelConfig:
    """One model's shape. Letters follow Korthikanti et al. 2022: h hidden size, a heads, L layers."""

    key: str
    name: str
    label: str
    param_total: int
    L: int
    full_attention_layers: int
    h: int
    a: int
    head_dim: int
    source: str


@lru_cache(maxsize=1)
def load_facts(path: str | None = None) -> dict:
    """The parsed anchor-model.json (read with json: YAML loaders mangle numbers like 1e+20)."""
    return json.loads(Path(path or FACTS_FILE).read_text(encoding="utf-8"))


def model(key: str) -> ModelConfig:
    """The config of model ``key`` (e.g. ``"qwen3.8-27b"``). Raises KeyError naming the known keys."""
    models = load_facts()["models"]
    if key not in models:
        raise KeyError(f"unknown model {key!r}; known: {', '.join(models)}")
    m = models[key]
    return ModelConfig(
        key=key,
        name=m["name"],
        label=m["label"],
        param_total=_param_total(m),
        L=m["num_hidden_layers"],
        full_attention_layers=m["full_attention_layers"],
        h=m["hidden_size"],
        a=m["num_attention_heads"],
        head_dim=m["head_dim"],
        source=m["source"],
    )


def _param_total(m: dict) -> int:
    """The published total; where no source gives one, the count from the shipped config (widgets/param_count)."""
    if m["param_total"] is not None:
        return m["param_total"]
    from c9.core.architecture import parse_config
    from c9.core.param_count import param_total

    return param_total(parse_config(m["config"]))


def model_keys() -> list[str]:
    """Model keys in file order."""
    return list(load_facts()["models"])


def anchor() -> ModelConfig:
    """The chapter's anchor model."""
    return model(load_facts()["anchor"])


def card_bytes() -> int:
    """The reference accelerator's memory, in bytes (80 GB = 80 × 10^9 B)."""
    cards = load_facts()["cards"]
    return next(c["memory_bytes"] for c in cards["list"] if c["key"] == cards["default"])


def lab_label() -> str | None:
    """The lab model's label in a model list, or None when its results file is missing (no such option)."""
    return LAB_LABEL if lab_run() is not None else None


@lru_cache(maxsize=1)
def lab_run() -> dict | None:
    """The lab's shape and FP32 snapshots (lab/results/c09-precision.json), or None without the file."""
    if not LAB_DATA.exists():
        return None
    d = json.loads(LAB_DATA.read_text(encoding="utf-8"))
    f = d["accounting"]["formula_inputs"]
    return {
        "psi": d["model"]["param_count"],
        "L": f["L"],
        "h": f["h"],
        "a": f["a"],
        "s": f["s"],
        "b": f["b"],
        "snapshots": d["runs"]["fp32"]["memory"],
    }
