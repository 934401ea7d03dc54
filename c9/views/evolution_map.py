"""The chapter's evolution map: FP32 → FP16 mixed precision → BF16 → FP8 block scaling → FP4
branch → activations, each stage with what it solved, where it got stuck and the real number it
got stuck on. Static HTML at build time (c9/views/evolution-map.html holds the prose and
quotes every number as a build figure); this module names the stages and marks "you are here".
"""

from __future__ import annotations

WIDGET = "evolution-map"

#: (key, short title, page it is taught on, where it stands in the history, its sources).
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


def page_context(here: str = "index") -> dict:
    """``here``: the page the map sits on (one of PAGES)；its stage is marked "你在这里".
    Links are relative to that page (the site uses directory URLs: /lesson-4/ …)."""
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
    return dict(stages=stages, here=here, on_index=here == "index")
