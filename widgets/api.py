"""The JSON entry point the page's Web Worker calls: ``handle('{"widget": …, "params": {…}}')``.

Every answer is JSON: ``{"ok": true, "view": …}`` or ``{"ok": false, "error": "<Chinese message>"}``.
Bad input never raises out of here; an unexpected failure is reported as an error too.
"""
from __future__ import annotations

import json

from . import formula, memory_bar, score_tensor, timeline
from . import bit_flipper, ledger_chart, loss_scale, repeated_update  # lessons 1–3
from . import block_lab, evolution_map, fp4_line, mx_nv, pattern_table  # lesson 4, FP4, guide

# Every widget module names itself (WIDGET), gives the page its build-time context (page_context) and,
# if it is interactive, answers the worker (view). A new widget is one module and one entry here.
WIDGET_MODULES = [memory_bar, timeline, formula, score_tensor]
WIDGET_MODULES += [ledger_chart, bit_flipper, repeated_update, loss_scale]  # lessons 1–3
WIDGET_MODULES += [pattern_table, block_lab, fp4_line, mx_nv, evolution_map]  # lesson 4, FP4, guide
from . import lab_charts  # noqa: E402  (the lab page; build-time charts only)
WIDGET_MODULES += [lab_charts]  # lab
VIEWS = {m.WIDGET: m.view for m in WIDGET_MODULES if hasattr(m, "view")}


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
