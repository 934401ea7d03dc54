"""The record every figure module returns: one figure a page quotes as ``{{ fig.NAME }}``.

build_numbers.py collects these rows from the modules in its FIGURE_MODULES (``figures() -> list[dict]``)
and renders each with its provenance (the formula and its inputs) on hover and focus.
"""

from __future__ import annotations

__all__ = ["figure"]


def figure(name: str, value, text: str, formula: str, **inputs) -> dict:
    """A figure row: ``value`` (a number, exact Fractions kept: build_numbers stores their float),
    ``text`` as the page shows it, ``formula`` in Chinese with the paper's letters, and the ``inputs``
    substituted into it."""
    return {"name": name, "value": value, "text": text, "formula": formula, "inputs": inputs}
