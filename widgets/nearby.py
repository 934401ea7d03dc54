"""The states one control step from a widget's default, for the build's answer cache (hooks/answers.py).

Each interactive widget module declares ``neighbours(context) -> list[dict]``: given its build-time
page context, the parameter sets its page script (docs/assets/js/widgets/NAME.js) sends when the reader
moves one control one step (a slider's stops, each option of a select or radio, a switch flipped, a bit
flipped), written exactly as that script builds them (e.g. the memory bar sends s as the text of its
number box). The build runs each through widgets.api.handle, like the page's worker, and the page answers
from that cache while Python boots. A set written differently from what the script sends is only a
cache miss: that state waits for Python, as every state did before.
"""
from __future__ import annotations

from .models import load_facts


def one_step(base: dict, **choices) -> list[dict]:
    """``base`` first, then ``base`` with one parameter at a time set to each of its choices."""
    out = [dict(base)]
    for key, values in choices.items():
        out += [{**base, key: v} for v in values if v != base.get(key)]
    return out


def around(values: list, current, reach: int) -> list:
    """The values within ``reach`` positions of ``current`` in ``values`` (a slider's neighbouring stops)."""
    i = values.index(current)
    return values[max(0, i - reach): i + reach + 1]


def model_choices(lab_label) -> list[str]:
    """The options of lesson 5's model select (hooks/templates/_model-select.html)."""
    keys = [k for k in load_facts()["models"] if k != "gpt2-1.5b-zero"]
    return keys + (["lab"] if lab_label else [])
