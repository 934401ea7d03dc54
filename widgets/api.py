"""The JSON entry point the page's Web Worker calls: ``handle('{"widget": …, "params": {…}}')``.

Every answer is JSON: ``{"ok": true, "view": …}`` or ``{"ok": false, "error": "<Chinese message>"}``.
Bad input never raises out of here; an unexpected failure is reported as an error too.
"""
from __future__ import annotations

import json

from . import formula, memory_bar, timeline

VIEWS = {
    "memory-bar": memory_bar.view,
    "timeline": timeline.view,
    "formula": formula.view,
}


def register(name: str, view) -> None:
    """Add a widget view (a function ``params -> dict``)."""
    VIEWS[name] = view


def handle(request: str) -> str:
    """Answer one request (a JSON string) with a JSON string. Never raises."""
    try:
        req = json.loads(request)
        if not isinstance(req, dict) or req.get("widget") not in VIEWS:
            return _error("没有这个组件")
        params = req.get("params") or {}
        if not isinstance(params, dict):
            return _error("参数格式不对")
        return json.dumps({"ok": True, "view": VIEWS[req["widget"]](params)}, ensure_ascii=False, allow_nan=False)
    except Exception as e:  # the reader sees a message; the page keeps working
        msg = getattr(e, "message_zh", None)
        return _error(msg or f"计算出错:{type(e).__name__}: {e}")


def _error(message: str) -> str:
    return json.dumps({"ok": False, "error": message}, ensure_ascii=False)
