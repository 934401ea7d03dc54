"""The JSON entry point the page's Web Worker calls: ``handle('{"widget": …, "params": {…}}')``.

Every answer is JSON: ``{"ok": true, "view": …}`` or ``{"ok": false, "error": "<Chinese message>"}``.
Bad input never raises out of here; an unexpected failure is reported as an error too.
"""

from __future__ import annotations

import importlib
import json
import math
import traceback

from c9.base.json_text import MAX_DEPTH, depth, read_integer
from c9.views.nearby import canonical

# Every widget is one module under c9/views/ that names itself (WIDGET), gives the page its build-time
# context (page_context) and, if it is interactive, answers the worker (view). A new widget is one
# module and one row here. Modules are imported on first use, so the page's Python boots without
# loading every lesson's code.
WIDGETS = {
    "memory-bar": "memory_bar",
    "timeline": "timeline",
    "formula": "formula",
    "score-tensor": "score_tensor",
    "ledger": "ledger",
    "bit-flipper": "bit_flipper",
    "repeated-update": "repeated_update",
    "loss-scale": "loss_scale",  # lessons 1–3
    "pattern-table": "pattern_table",
    "block-lab": "block_lab",
    "fp4-line": "fp4_line",
    "mx-nv": "mx_nv",
    "evolution-map": "evolution_map",  # lesson 4, FP4, guide
    "step-stages": "step_stages",  # lesson 5's opening
    "lab-charts": "lab_charts",  # the lab (build-time charts only)
    "exercise": "exercise",  # 动手写 on lessons 1–5 and FP4: the reader's code, checked
    "scratchpad": "scratchpad",  # the Python scratchpad near each lesson's end: the reader's code, run
}
# The widgets the build draws once and the reader cannot change (no ``view``): the worker answers them
# without importing their modules, which the page's Python zip leaves out (hooks/modules.py).
BUILD_ONLY = frozenset(
    {"score-tensor", "pattern-table", "fp4-line", "evolution-map", "lab-charts", "step-stages"}
)


def widget_module(name: str):
    """The module of widget ``name``. Raises KeyError for an unknown widget."""
    return importlib.import_module(f"{__package__}.{WIDGETS[name]}")


def widget_modules() -> list:
    """Every widget module (imports them all: for the build)."""
    return [widget_module(name) for name in WIDGETS]


_last: list = []  # [request, view] of the last answer: nearby() around it needs the same view again


def handle(request: str) -> str:
    """Answer one request (a JSON string) with a JSON string. Never raises."""
    try:
        if depth(request) > MAX_DEPTH:  # before json.loads, whose recursion would overflow Pyodide's stack
            return _error(f"请求的参数嵌套超过了 {MAX_DEPTH} 层：页面和地址只会发两三层")
        try:
            req = json.loads(request, parse_int=read_integer)
        except ValueError:
            return _error("请求不是合法的 JSON")
        if not isinstance(req, dict) or req.get("widget") not in WIDGETS:
            return _error("没有这个组件")
        if req["widget"] in BUILD_ONLY:
            return _error("这个组件不需要 Python 计算")
        view = widget_module(req["widget"]).view
        params = req.get("params") or {}
        if not isinstance(params, dict):
            return _error("参数格式不对")
        shown = view(params)
        _last[:] = [request, shown]
        return json.dumps({"ok": True, "view": json_safe(shown)}, ensure_ascii=False, allow_nan=False)
    except Exception as e:  # the reader sees a message; the page keeps working
        msg = getattr(e, "message_zh", None)
        if msg is None:  # a bug, not the reader's input: no exception text reaches the page
            traceback.print_exc()
            msg = INTERNAL_ERROR
        return _error(msg)


def nearby(request: str, limit: int = 64) -> list[str]:
    """The requests one control step from the state ``request`` asks for, nearest first, as cache keys
    (c9.views.nearby.canonical), at most ``limit``: the worker answers them in its idle time so that the
    reader's next step is answered at once. [] for a widget without ``nearby``, a refused request or a
    failure: answering ahead is an optimisation, never an error."""
    try:
        if depth(request) > MAX_DEPTH:
            return []
        req = json.loads(request, parse_int=read_integer)
        if req["widget"] in BUILD_ONLY:
            return []
        module = widget_module(req["widget"])
        if not hasattr(module, "nearby"):
            return []
        view = _last[1] if _last and _last[0] == request else module.view(req.get("params") or {})
        keys = [canonical({"widget": req["widget"], "params": p}) for p in module.nearby(view)]
        here = canonical(req)
        return [k for k in dict.fromkeys(keys) if k != here][:limit]
    except Exception:  # noqa: BLE001 — a state Python refuses has no neighbours worth computing
        return []


INTERNAL_ERROR = "这组参数没能算出来（程序内部出错，不是你输入的问题）；请换一组参数，或刷新页面再试"


def json_safe(x):
    """``x`` with every ±∞ and NaN float replaced by None (JSON has neither). A last guard only: a view
    says ∞ in its text and draws it itself (e.g. c9.views.repeated_update), it never relies on this."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_safe(v) for v in x]
    return x


def _error(message: str) -> str:
    return json.dumps({"ok": False, "error": message}, ensure_ascii=False)
