"""Lesson 5's one-iteration timeline (c9/views/timeline.py): where the peak falls and how high."""

from __future__ import annotations

from c9.base import units
from c9.figures.figure import figure

__all__ = ["figures"]


def figures() -> list[dict]:
    """Lesson 5's one-iteration timeline (c9/views/timeline.py): where the peak falls, how high."""
    figs: list[dict] = []
    from c9.views import timeline

    for it in (1, 2):
        for mode in ("store_all", "full_recompute"):
            v = timeline.view({"iteration": it, "mode": mode})
            key = f"timeline_it{it}_{mode}"
            figs.append(
                figure(
                    f"{key}_peak",
                    v["peak_bytes"],
                    units.size(v["peak_bytes"], "GB"),
                    "一次迭代里常驻显存的最大值（逐个事件累加的时间线）",
                    iteration=it,
                    mode=mode,
                )
            )
            figs.append(
                figure(
                    f"{key}_peak_at",
                    v["peak_label"],
                    v["peak_label"],
                    "峰值出现的时刻",
                    iteration=it,
                    mode=mode,
                )
            )
            figs.append(
                figure(
                    f"{key}_rise",
                    v["peak_bytes"] - v["start_bytes"],
                    units.size(v["peak_bytes"] - v["start_bytes"], "GB"),
                    "峰值 − 迭代开始时的显存",
                    iteration=it,
                    mode=mode,
                )
            )
        start = timeline.view({"iteration": it})["start_bytes"]
        figs.append(
            figure(
                f"timeline_it{it}_start",
                start,
                units.size(start, "GB"),
                "迭代开始时的显存 = 2Ψ + 4Ψ"
                + (" + 8Ψ" if it == 2 else "")
                + " 字节（BF16 权重、FP32 主权重"
                + ("、Adam 的 m 与 v）" if it == 2 else "）"),
                iteration=it,
            )
        )
    a = timeline.view({"iteration": 2})["peak_bytes"]
    b = timeline.view({"iteration": 2, "mode": "full_recompute"})["peak_bytes"]
    figs.append(
        figure(
            "timeline_it2_recompute_saves",
            a - b,
            units.size(a - b, "GB"),
            "全量重计算省下的峰值 = 峰值（全部留着）− 峰值（全量重计算）",
            iteration=2,
        )
    )
    return figs
