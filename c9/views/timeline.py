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

from c9.base import units
from c9.base.errors import InputError
from c9.base.palette import var
from c9.core.activations import activation_memory
from c9.core.models import card_bytes, lab_label, model
from c9.views.memory_bar import B_MAX, B_MIN, B_NAME, S_MAX, S_MIN
from c9.views.nearby import model_choices, one_step
from c9.views.params import integer, known_model, shown, with_defaults

WIDGET = "timeline"
DEFAULTS = {"model": "qwen3.8-27b", "s": 4096, "b": 1, "iteration": 1, "mode": "store_all"}
TIMELINE_MODES = {"store_all": "激活全存", "full_recompute": "全量重计算"}


def normalise(params: dict | None) -> dict:
    p = with_defaults(params, DEFAULTS)
    known_model(p["model"])
    p["s"] = integer(p["s"], "序列长度 s", S_MIN, S_MAX)
    p["b"] = integer(p["b"], B_NAME, B_MIN, B_MAX)
    p["iteration"] = integer(p["iteration"], "迭代序号", 1, 2)
    if p["mode"] not in TIMELINE_MODES:
        raise InputError(f"时间线只比较「激活全存」和「全量重计算」，收到的是{shown(p['mode'])}")
    return p


# "Our small model" (c9.core.models.model("lab").measured): its FP32 run, with the four memory snapshots it
# measured, each at the phase it was taken after.
SNAPSHOT_AT = {
    "after_build": "start",
    "after_forward": "forward",
    "after_backward": "backward",
    "after_step": "step",
}


def _amounts(p: dict) -> dict:
    """What the iteration needs: Ψ, L, per-layer activations, and the ledger's bytes per parameter
    for resident weights, gradients and Adam's m, v (BF16 mixed precision; FP32 for the lab's run)."""
    m = model(p["model"])
    psi, L, h, a = m.param_total, m.L, m.h, m.a
    if m.measured:  # the lab's model, at the s and b it was measured at
        s, b = m.measured.s, m.measured.b
        weights, grad, names = 4, 4, "FP32 权重"
    else:
        s, b = p["s"], p["b"]
        weights, grad, names = 2 + 4, 2, "BF16 权重 + FP32 主权重"
    act = activation_memory(s, b, h, a, 1).bytes
    kept = act if p["mode"] == "store_all" else activation_memory(s, b, h, a, 1, "full_recompute").bytes
    return {
        "psi": psi,
        "L": L,
        "act": act,
        "kept": kept,
        "weights": weights * psi,
        "grads": grad * psi,
        "mv": 8 * psi,
        "names": names,
    }


def events(p: dict) -> list[dict]:
    """The iteration as a list of moments: {phase, label, bytes (total resident after the event)}."""
    sh = _amounts(p)
    L, per_layer_act, kept = sh["L"], sh["act"], sh["kept"]
    base = sh["weights"] + (sh["mv"] if p["iteration"] == 2 else 0)
    out = [
        {
            "phase": "start",
            "label": f"迭代开始：{sh['names']}" + (" + Adam m、v" if p["iteration"] == 2 else ""),
            "bytes": base,
        }
    ]
    now = base
    for i in range(1, L + 1):
        now += kept
        out.append({"phase": "forward", "label": f"前向第 {i} 层", "bytes": now})
    grads = 0
    for done, i in enumerate(range(L, 0, -1), start=1):
        if p["mode"] == "full_recompute":
            out.append({"phase": "recompute", "label": f"重算第 {i} 层的前向", "bytes": now + per_layer_act})
        grown = sh["grads"] * done // L - grads  # cumulative split: the layers' gradients add up exactly
        now += grown - kept
        grads += grown
        out.append({"phase": "backward", "label": f"反向第 {i} 层", "bytes": now})
    if p["iteration"] == 1:
        now += sh["mv"]
        out.append({"phase": "step", "label": "优化器更新一步：第一次分配 Adam m、v", "bytes": now})
    else:
        out.append({"phase": "step", "label": "优化器更新一步：m、v 早已在显存里", "bytes": now})
    now -= grads
    out.append({"phase": "end", "label": "zero_grad()：释放梯度", "bytes": now})
    return out


def _missed(parts: list[int], unit: str, digits: int) -> str:
    """After a difference whose two sides, each rounded on its own, miss it in the last digit: what they make."""
    if units.adds_up(parts, unit, digits):
        return ""
    start = units.size(parts[0], unit, digits)
    return f"（两个数各自四舍五入，{start} 加上它是 {units.shown_sum(parts, unit, digits)}）"


PHASE_NAMES = {
    "start": "开始",
    "forward": "前向",
    "recompute": "重算",
    "backward": "反向",
    "step": "更新",
    "end": "结束",
}


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
    lab = m.measured is not None  # our small model, drawn at the s and b the lab measured it at
    # The small model lives in MiB (as on the lab page); the card line only makes sense next to GB.
    unit, scale = ("MiB", units.MiB) if lab else ("GB", units.GB)
    s, b = (m.measured.s, m.measured.b) if lab else (p["s"], p["b"])
    who = f"{m.label}，s = {units.number(s)}、b = {b}"
    # What the summary adds up: the start plus the rise is the peak; the peak plus what full recomputation
    # saved is the peak with every activation stored. One precision for those and every moment of the
    # curve (units.readable_decimals), so a moment reads in the chart as the summary quotes it.
    stored = max(e["bytes"] for e in events({**p, "mode": "store_all"}))
    sums = [[start, peak["bytes"] - start]]
    if p["mode"] == "full_recompute":
        sums.append([peak["bytes"], stored - peak["bytes"]])
    d = units.readable_decimals(sums, unit, 1)

    def size(n: int) -> str:
        return units.size(n, unit, d)

    summary = (
        f"{who}，第 {p['iteration']} 次迭代，{TIMELINE_MODES[p['mode']]}："
        f"起点 {size(start)}，峰值 {size(peak['bytes'])}，出现在「{peak['label']}」"
        f"（第 {peak_i} 步；第 0 步是起点，共 {len(ev) - 1} 步），比起点高 {size(peak['bytes'] - start)}"
        f"{_missed(sums[0], unit, d)}。"
    )
    if peak["phase"] == "step":
        summary += "这一刻激活已经全部释放，峰值全是模型状态，重计算只省激活，压不低它。"
    if p["mode"] == "full_recompute":
        # What the mode bought, said in the summary (the two peaks can round to the same text).
        summary += (
            f"同样设置下激活全存的峰值是 {size(stored)}，"
            f"全量重计算把它压低了 {size(stored - peak['bytes'])}{_missed(sums[-1], unit, d)}。"
            if stored != peak["bytes"]
            else "激活全存的峰值也正是这么多：峰值那一刻，两种做法留在显存里的东西一样多，重计算省下的激活不在这一刻。"
        )
    measured = []
    if lab and p["iteration"] == 1 and p["mode"] == "store_all":
        # The lab measured the first iteration with every activation stored: its snapshots sit on the
        # moments they were taken at (the last moment of each phase).
        last = {e["phase"]: i for i, e in enumerate(ev)}
        for snap in m.measured.snapshots:
            i = last[SNAPSHOT_AT[snap["point"]]]
            measured.append(
                {"i": i, "point": snap["point"], "bytes": snap["total"], "derived": ev[i]["bytes"]}
            )
        diffs = "、".join(
            f"{units.size(dot['bytes'], unit, 2)}（推演 {units.size(dot['derived'], unit, 2)}）"
            for dot in measured
        )
        summary += f"黑点是实验课实测的 4 个截面：{diffs}。"
    elif lab:  # the dots shown a moment ago are gone: say why
        summary += "实验课只实测了第 1 次迭代、激活全存的 4 个截面，这一设置没有实测的黑点可比。"
    xs = list(range(len(ev)))
    ys = [e["bytes"] / scale for e in ev]
    card = card_bytes() / units.GB
    figure = {
        "data": [
            {
                "type": "scatter",
                "mode": "lines",
                "name": "显存占用",
                "x": xs,
                "y": ys,
                "line": {"color": var("series"), "width": 2, "shape": "hv"},
                "text": [e["label"] for e in ev],
                "customdata": [size(e["bytes"]) for e in ev],  # as the summary writes them
                "hovertemplate": "%{text}<br>%{customdata}<extra></extra>",
            },
            {
                "type": "scatter",
                "mode": "markers+text",
                "name": "峰值",
                "x": [peak_i],
                "y": [peak["bytes"] / scale],
                "marker": {"color": var("peak"), "size": 11, "symbol": "diamond"},
                "text": ["峰值"],
                "textposition": "top center",
                "hovertemplate": f"峰值：{peak['label']}<br>{size(peak['bytes'])}<extra></extra>",
            },
        ]
        + (
            [
                {
                    "type": "scatter",
                    "mode": "markers",
                    "name": "实测",
                    "x": [dot["i"] for dot in measured],
                    "y": [dot["bytes"] / scale for dot in measured],
                    "marker": {
                        "color": var("measured"),
                        "size": 10,
                        "line": {"color": var("ink"), "width": 1.5},
                    },
                    "customdata": [units.size(dot["bytes"], unit, 2) for dot in measured],
                    "hovertemplate": "实测：%{customdata}<extra></extra>",
                }
            ]
            if measured
            else []
        ),
        "layout": {
            "height": 340,
            "margin": {"l": 60, "r": 10, "t": 20, "b": 50},
            "xaxis": {
                "title": {"text": "时刻（前向 → 反向 → 更新）"},
                "fixedrange": True,
                "range": [-0.5, len(ev) * 1.04],
            },
            "yaxis": {
                "title": {"text": "MiB（2²⁰ 字节）" if lab else "GB（10⁹ 字节）"},
                "rangemode": "tozero",
                "fixedrange": True,
                "range": [0, max(ys + [dot["bytes"] / scale for dot in measured]) * 1.12],
            },
            "showlegend": False,
            "font": {"family": "Noto Sans SC, sans-serif", "size": 13},
            "shapes": []
            if lab
            else [
                {
                    "type": "line",
                    "xref": "paper",
                    "x0": 0,
                    "x1": 1,
                    "y0": card,
                    "y1": card,
                    "line": {"color": var("ink"), "width": 1.5, "dash": "dash"},
                }
            ],
            "annotations": []
            if lab
            else [
                {
                    "xref": "paper",
                    "x": 0,
                    "y": card,
                    "text": f"{units.size(card_bytes(), 'GB', 0)} 卡",
                    "showarrow": False,
                    "xanchor": "left",
                    "yanchor": "bottom",
                }
            ],
        },
    }
    # Key moments: start, peak, the optimizer step, the end, and where each phase first gives way to the next
    # (full recomputation alternates recompute/backward once per layer: the first pair stands for the rest).
    marks, ended = [], set()
    for i, e in enumerate(ev):
        run_ends = i + 1 < len(ev) and ev[i + 1]["phase"] != e["phase"]
        if e["phase"] in ("start", "step", "end") or i == peak_i or (run_ends and e["phase"] not in ended):
            marks.append(
                {"i": i, "phase": e["phase"], "label": e["label"], "text": units.size(e["bytes"], unit)}
            )
        if run_ends:
            ended.add(e["phase"])
    # The caption names only what this chart draws: the small model's chart has no card line.
    caption_note = (
        "黑点是实验课的实测值。"
        if measured
        else ""
        if lab
        else f"虚线是 {units.size(card_bytes(), 'GB', 0)} 单卡。"
    )
    return {
        "params": p,
        "caption_note": caption_note,
        "start_bytes": start,
        "peak_bytes": peak["bytes"],
        "peak_index": peak_i,
        "peak_label": peak["label"],
        "n": len(ev),
        "marks": marks,
        "measured": measured,
        "summary": summary,
        "figure": figure,
    }


def page_context() -> dict:
    """What the page template (c9/views/timeline.html) needs at build time."""
    return _context(view())


def _context(v: dict) -> dict:
    from c9.views.nearby import model_menu

    return dict(view=v, modes=TIMELINE_MODES, lab_label=lab_label(), model_menu=model_menu(lab_label()))


def neighbours(context: dict) -> list[dict]:
    """For the build's answer cache (c9/views/nearby.py): what timeline.js sends one control from the default."""
    p = context["view"]["params"]
    base = {"model": p["model"], "iteration": p["iteration"], "mode": p["mode"]}
    return one_step(
        base, model=model_choices(context["lab_label"]), iteration=[1, 2], mode=list(context["modes"])
    )


def nearby(view: dict) -> list[dict]:
    """For the worker's answers ahead (c9.views.nearby): each option one step from the state ``view`` shows."""
    return neighbours(_context(view))
