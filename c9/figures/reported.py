"""Results the papers report (anchor-model.json: ``reported``), as build figures.

The pages quote a paper's own results (DeepSeek-V3's loss gap, Chen et al.'s 48G → 7G, Korthikanti et
al.'s MFU …) through these figures rather than typing them, so every number on a page comes from the
build and carries its source on hover/focus. Nothing is recomputed: a reported figure is the paper's
number as it states it, in the paper's unit. Figure names are ``rep_`` + the fact's key.
"""

from __future__ import annotations

from c9.base import units
from c9.core.models import load_facts
from c9.figures.figure import figure

__all__ = ["text", "figures"]

#: How a value in each unit reads on the page (the unit word follows the number as the papers write it).
_UNITS = {"%": "{}%", "x": "{} 倍", "B": "{}B", "T": "{}T", "G": "{}G", "": "{}"}


def text(value: float, unit: str) -> str:
    """The reported value in the reader's notation: 0.25 → "0.25%", 2240 → "2,240", 1000 → "1,000"."""
    if unit not in _UNITS:
        raise ValueError(f"reported: unknown unit {unit!r}")
    number = units.number(value) if float(value).is_integer() else f"{value:g}"
    return _UNITS[unit].format(number)


def figures() -> list[dict]:
    out = []
    for key, fact in load_facts()["reported"].items():
        if key == "about":
            continue
        out.append(
            figure(
                f"rep_{key}",
                fact["value"],
                text(fact["value"], fact["unit"]),
                f"{fact['what']}，为论文自报，出处：{fact['source']}",
            )
        )
    return out
