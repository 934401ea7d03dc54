"""The memory of one training iteration, step by step: a derivation from the ledger and
Korthikanti et al. 2022 eq. 1 (not a measurement).

Model (BF16 mixed precision + AdamW, PyTorch-style):
- always resident: BF16 weights (2Ψ) and FP32 master weights (4Ψ);
- forward, layer by layer: each layer adds its stored activations (eq. 1, or 2sbh with full
  recomputation);
- backward, last layer first: with full recomputation the layer's activations are first rebuilt
  (one layer's worth, briefly); then the layer's activations are freed and its gradients (2Ψ/L) appear;
- optimizer.step(): Adam's m and v (8Ψ) are allocated on the first step and stay, so iteration 2
  starts 8Ψ higher; then gradients are freed (zero_grad(set_to_none=True)).
Parameters outside the L layers (embeddings, norms) are spread evenly over the layers: a simplification.
"""
from __future__ import annotations

from . import units
from .activations import activation_memory
from .errors import InputError
from .memory_bar import B_MAX, B_MIN, S_MAX, S_MIN, _integer
from .models import card_bytes, model, model_keys

WIDGET = "timeline"
DEFAULTS = {"model": "qwen3.8-27b", "s": 4096, "b": 1, "iteration": 1, "mode": "store_all"}
TIMELINE_MODES = {"store_all": "激活全存", "full_recompute": "全量重计算"}


def normalise(params: dict | None) -> dict:
    p = {**DEFAULTS, **(params or {})}
    unknown = set(p) - set(DEFAULTS)
    if unknown:
        raise InputError(f"不认识的参数:{', '.join(sorted(unknown))}")
    if p["model"] not in model_keys():
        raise InputError(f"没有这个模型:{p['model']}")
    p["s"] = _integer(p["s"], "序列长度 s", S_MIN, S_MAX)
    p["b"] = _integer(p["b"], "batch b", B_MIN, B_MAX)
    p["iteration"] = _integer(p["iteration"], "迭代序号", 1, 2)
    if p["mode"] not in TIMELINE_MODES:
        raise InputError(f"时间线只比较「激活全存」和「全量重计算」,收到的是 {p['mode']}")
    return p


def events(p: dict) -> list[dict]:
    """The iteration as a list of moments: {phase, label, bytes (total resident after the event)}."""
    m = model(p["model"])
    psi, L = m.param_total, m.L
    per_layer_act = activation_memory(p["s"], p["b"], m.h, m.a, 1).bytes
    kept = per_layer_act if p["mode"] == "store_all" else activation_memory(p["s"], p["b"], m.h, m.a, 1, "full_recompute").bytes
    base = 2 * psi + 4 * psi + (8 * psi if p["iteration"] == 2 else 0)
    out = [{"phase": "start", "label": "迭代开始:BF16 权重 + FP32 主权重" + (" + Adam m、v" if p["iteration"] == 2 else ""),
            "bytes": base}]
    now = base
    for i in range(1, L + 1):
        now += kept
        out.append({"phase": "forward", "label": f"前向第 {i} 层", "bytes": now})
    grads = 0
    for done, i in enumerate(range(L, 0, -1), start=1):
        if p["mode"] == "full_recompute":
            out.append({"phase": "recompute", "label": f"重算第 {i} 层的前向", "bytes": now + per_layer_act})
        grown = 2 * psi * done // L - grads  # cumulative split, so the layers' gradients add up to exactly 2Ψ
        now += grown - kept
        grads += grown
        out.append({"phase": "backward", "label": f"反向第 {i} 层", "bytes": now})
    if p["iteration"] == 1:
        now += 8 * psi
        out.append({"phase": "step", "label": "optimizer.step():第一次分配 Adam m、v", "bytes": now})
    else:
        out.append({"phase": "step", "label": "optimizer.step():m、v 早已在显存里", "bytes": now})
    now -= grads
    out.append({"phase": "end", "label": "zero_grad():释放梯度", "bytes": now})
    return out


PHASE_NAMES = {"start": "开始", "forward": "前向", "recompute": "重算", "backward": "反向", "step": "更新", "end": "结束"}
PHASE_COLORS = {"forward": "#e08a1e", "recompute": "#8e6cc1", "backward": "#3a78c2", "step": "#c8372d",
                "start": "#555555", "end": "#555555"}


def view(params: dict | None = None) -> dict:
    """The timeline for the given controls: points, the peak, a Chinese summary and a Plotly spec.

    params: model, s (5…131,072), b (1…8), iteration (1 or 2), mode (store_all | full_recompute).
    Sizes in bytes; the chart in GB (10^9 B). Raises InputError (Chinese message) on bad values.
    """
    p = normalise(params)
    ev = events(p)
    peak_i = max(range(len(ev)), key=lambda i: ev[i]["bytes"])
    peak = ev[peak_i]
    start = ev[0]["bytes"]
    m = model(p["model"])
    summary = (
        f"{m.label},s = {units.number(p['s'])}、b = {p['b']},第 {p['iteration']} 次迭代,{TIMELINE_MODES[p['mode']]}:"
        f"起点 {units.size(start, 'GB')},峰值 {units.size(peak['bytes'], 'GB')},出现在「{peak['label']}」"
        f"(第 {peak_i} 步,共 {len(ev) - 1} 步),比起点高 {units.size(peak['bytes'] - start, 'GB')}。"
    )
    xs = list(range(len(ev)))
    ys = [e["bytes"] / units.GB for e in ev]
    card = card_bytes() / units.GB
    figure = {
        "data": [
            {"type": "scatter", "mode": "lines", "name": "显存占用", "x": xs, "y": ys,
             "line": {"color": "#1f4e8c", "width": 2, "shape": "hv"},
             "text": [e["label"] for e in ev], "hovertemplate": "%{text}<br>%{y:.1f} GB<extra></extra>"},
            {"type": "scatter", "mode": "markers+text", "name": "峰值", "x": [peak_i], "y": [peak["bytes"] / units.GB],
             "marker": {"color": "#c8372d", "size": 11, "symbol": "diamond"}, "text": ["峰值"],
             "textposition": "top center", "hovertemplate": f"峰值:{peak['label']}<br>%{{y:.1f}} GB<extra></extra>"},
        ],
        "layout": {
            "height": 340, "margin": {"l": 60, "r": 10, "t": 20, "b": 50},
            "xaxis": {"title": {"text": "时刻(前向 → 反向 → 更新)"}, "fixedrange": True, "range": [-0.5, len(ev) * 1.04]},
            "yaxis": {"title": {"text": "GB(10⁹ 字节)"}, "rangemode": "tozero", "fixedrange": True,
                      "range": [0, max(ys) * 1.12]},
            "showlegend": False,
            "paper_bgcolor": "rgba(0,0,0,0)", "plot_bgcolor": "rgba(0,0,0,0)",
            "font": {"family": "Noto Sans SC, sans-serif", "size": 13},
            "shapes": [{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": card, "y1": card,
                        "line": {"color": "#222222", "width": 1.5, "dash": "dash"}}],
            "annotations": [{"xref": "paper", "x": 0, "y": card, "text": "80 GB 卡", "showarrow": False,
                             "xanchor": "left", "yanchor": "bottom"}],
        },
    }
    marks = [{"i": i, "phase": e["phase"], "label": e["label"], "text": units.size(e["bytes"], "GB")}
             for i, e in enumerate(ev) if e["phase"] in ("start", "step", "end") or i == peak_i
             or (i + 1 < len(ev) and ev[i + 1]["phase"] != e["phase"])]
    return {"params": p, "start_bytes": start, "peak_bytes": peak["bytes"], "peak_index": peak_i,
            "peak_label": peak["label"], "n": len(ev), "marks": marks, "summary": summary, "figure": figure}


def page_context() -> dict:
    """What the page template (hooks/templates/timeline.html) needs at build time."""
    return dict(view=view(), modes=TIMELINE_MODES)
