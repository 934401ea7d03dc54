"""The states one control step from a widget's default, for the build's answer cache (hooks/answers.py).

Each interactive widget module declares ``neighbours(context) -> list[dict]``: given its build-time
page context, the parameter sets its page script (c9/views/NAME.js) sends when the reader
moves one control one step (a slider's stops, each option of a select or radio, a switch flipped, a bit
flipped), written exactly as that script builds them (e.g. the memory bar sends s as the text of its
number box). The build runs each through c9.views.api.handle, like the page's worker, and the page answers
from that cache while Python boots. A set written differently from what the script sends is only a
cache miss: that state waits for Python, as every state did before.

While the reader works, the page's worker does the same around the state on screen: a module may also
declare ``nearby(view) -> list[dict]``, the parameter sets one control step from the state ``view``
shows, nearest first; the worker answers them in its idle time (c9.views.api.nearby, py-worker.js), so the
next step the reader takes is answered without waiting for Python.
"""

from __future__ import annotations

import json

from c9.core.models import load_facts


def one_step(base: dict, **choices) -> list[dict]:
    """``base`` first, then ``base`` with one parameter at a time set to each of its choices."""
    out = [dict(base)]
    for key, values in choices.items():
        out += [{**base, key: v} for v in values if v != base.get(key)]
    return out


def around(values: list, current, reach: int) -> list:
    """The values within ``reach`` positions of ``current`` in ``values`` (a slider's neighbouring stops)."""
    i = values.index(current)
    return values[max(0, i - reach) : i + reach + 1]


def model_menu(lab_label) -> list[tuple[str, str]]:
    """The options of lesson 5's model select (c9/views/_model-select.html), as (value, label): the
    chapter's models (not the ZeRO paper's GPT-2, which only the text quotes) and, once the lab has run,
    our small model, labelled ``lab_label``."""
    models = load_facts()["models"]
    menu = [(k, m["label"]) for k, m in models.items() if k != "gpt2-1.5b-zero"]
    return menu + ([("lab", lab_label)] if lab_label else [])


def model_choices(lab_label) -> list[str]:
    """The values of :func:`model_menu`: what the page script sends for each option."""
    return [key for key, _ in model_menu(lab_label)]


def js_value(x):
    """``x`` as JSON.parse(JSON.stringify(x)) would leave it in the page: a whole float is a JS integer
    (10.0 is sent as 10). A float JavaScript writes in exponent form differently from Python is refused."""
    if isinstance(x, float):
        if x.is_integer() and abs(x) < 1e21:
            return int(x)
        if "e" in repr(x):
            raise ValueError(f"{x!r}: JavaScript and Python write this number differently; no cache key")
        return x
    if isinstance(x, dict):
        return {k: js_value(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [js_value(v) for v in x]
    return x


def canonical(request: dict) -> str:
    """The cache key: the request as sorted-key JSON, as answers.js writes it from what the script sends."""
    return json.dumps(js_value(request), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
