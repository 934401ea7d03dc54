"""The chapter's evolution map: FP32 → FP16 mixed precision → BF16 → FP8 block scaling → FP4
branch → activations, each stage with what it solved, where it got stuck and the real number it
got stuck on. Static HTML at build time (c9/views/evolution-map.html holds the prose and
quotes every number as a build figure); this module names the stages and marks "you are here".
"""

from __future__ import annotations

WIDGET = "evolution-map"

#: (key, title, page it is taught on, where it stands in the history, its sources).
STAGES = (
    ("fp32", "FP32 全精度", "lesson-1", "起点", "深度学习早期的默认做法"),
    ("fp16", "FP16 混合精度", "lesson-2", "第一代", "Micikevicius et al. 2017"),
    ("bf16", "BF16 混合精度", "lesson-3", "第二代", "Google Brain 2019 · Kalamkar et al. 2019"),
    (
        "fp8",
        "FP8 细粒度块缩放",
        "lesson-4",
        "第三代",
        "Micikevicius et al. 2022（格式）· DeepSeek-V3 2024（超大规模训练）",
    ),
    (
        "fp4",
        "FP4（岔路）",
        "fp4",
        "岔路 · 2025–2026",
        "OCP MX 2023 · NVFP4 2025 · Kimi K3 与 DeepSeek-V4 2026",
    ),
    (
        "act",
        "激活：重计算与 FlashAttention",
        "lesson-5",
        "另一半账",
        "Chen et al. 2016 · Korthikanti et al. 2022 · Dao et al. 2022",
    ),
)
PAGES = ("index", "lesson-1", "lesson-2", "lesson-3", "lesson-4", "fp4", "lesson-5", "lab")
#: Each stage in a word or two, for a lesson's one-line map (it must fit one line of a 390 px phone).
SHORT = {"fp32": "FP32", "fp16": "FP16", "bf16": "BF16", "fp8": "FP8", "fp4": "FP4", "act": "激活"}
#: Past the last station: the next chapter.
AFTER_LAST = "C10"


def page_context(here: str = "index") -> dict:
    """``here``: the page the map sits on (one of PAGES)；its stage is marked "你在这里".
    Links are relative to that page (the site uses directory URLs: /lesson-4/ …). On a lesson the map is
    folded to one line, the previous, this and the next station (``line``); the guide shows it whole."""
    if here not in PAGES:
        raise ValueError(f"evolution-map: here must be one of {PAGES}, got {here!r}")
    prefix = "" if here == "index" else "../"
    stages = [
        {
            "key": k,
            "title": t,
            "page": p,
            "href": f"{prefix}{p}/",
            "here": p == here,
            "era": era,
            "sources": src,
        }
        for k, t, p, era, src in STAGES
    ]
    at = next((i for i, s in enumerate(stages) if s["here"]), None)
    line = None
    if at is not None:
        prev = SHORT[stages[at - 1]["key"]] if at > 0 else None
        nxt = SHORT[stages[at + 1]["key"]] if at + 1 < len(stages) else AFTER_LAST
        # the words a screen reader hears before each name: a space before a Latin name, none before Chinese
        gap = {name: " " if name and name[0].isascii() else "" for name in (prev, nxt)}
        line = {
            "prev": prev,
            "prev_says": "上一站" + gap[prev] if prev else None,
            "here": SHORT[stages[at]["key"]],
            "next": nxt,
            "next_says": "下一站" + gap[nxt],
        }
    return dict(stages=stages, here=here, on_index=here == "index", line=line)
