"""The build's answer cache: Python's answers for the states one control step from each widget's default,
so that a widget answers a reader's first touch before the page's Python worker has booted.

- Each interactive widget module declares ``neighbours(context)`` (see c9/views/nearby.py): the parameter
  sets its page script sends for those states, exactly as the script builds them.
- The key of an answer is the request the page's script makes, ``{"widget": NAME, "params": {…}}``, as
  JSON with sorted keys and no spaces (answers.js: canonical writes the same text). The build answers each
  key through c9.views.api.handle, the worker's entry point, with that very JSON text.
- One file per widget instance, named by its content: site/assets/answers/<hash>.json =
  {"answers": {key: answer}}, where an answer is what the worker would post back ({"ok": true, "view": …}
  or a refusal in Chinese). The widget's root names it in data-answers; answers.js fetches it when the widget
  nears the screen (or at its first touch) and answers from it whenever it holds the request.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from c9.views import api
from c9.views.nearby import canonical

FOLDER = "assets/answers"  # the answer caches
DATA_FOLDER = "assets/data"  # other build-time data a widget's script fetches (data_file)
_files: dict[str, bytes] = {}  # path under the site → content
_answers: dict[str, dict] = {}  # key → answer (the same request, the same answer, on any page)


def reset() -> None:
    """A new build: widgets may have changed."""
    _files.clear()
    _answers.clear()


def answer(key: str) -> dict:
    """Python's answer to the request ``key``, computed once per build through the worker's entry point."""
    if key not in _answers:
        out = json.loads(api.handle(key))
        if not out["ok"] and out["error"] == api.INTERNAL_ERROR:
            raise SystemExit(f"answer cache: the widget's Python failed on a neighbour state: {key}")
        _answers[key] = out
    return _answers[key]


def for_widget(name: str, module, context: dict) -> str | None:
    """The file (path under the site) holding the answers one step from this widget instance's default,
    or None for a widget that declares no neighbours."""
    if not hasattr(module, "neighbours"):
        return None
    keys = sorted({canonical({"widget": name, "params": p}) for p in module.neighbours(context)})
    return data_file({"answers": {k: answer(k) for k in keys}}, FOLDER)


def data_file(value, folder: str = DATA_FOLDER) -> str:
    """`value` as a JSON file of the site under `folder`, named by its content (a new build's data, a new
    name), for a widget's script to fetch: an answer cache (FOLDER), or build-time data too large to ride
    in the page (DATA_FOLDER: the block lab's default heat maps). Returns its path under the site."""
    data = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    path = f"{folder}/{hashlib.sha256(data).hexdigest()[:12]}.json"
    _files[path] = data
    return path


def write(site: Path) -> None:
    for path, data in _files.items():
        out = site / path
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
