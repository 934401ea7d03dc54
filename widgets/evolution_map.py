"""The chapter's evolution map: FP32 → FP16 mixed precision → BF16 → FP8 block scaling → FP4
branch → activations, each stage with what it solved, where it got stuck and the real number it
got stuck on. Static HTML at build time (hooks/templates/evolution-map.html holds the prose and
quotes every number as a build figure); this module names the stages and marks "you are here".
"""
from __future__ import annotations

WIDGET = "evolution-map"

#: (key, short title, page it is taught on).
STAGES = (
    ("fp32", "FP32 全精度", "lesson-1"),
    ("fp16", "FP16 混合精度", "lesson-2"),
    ("bf16", "BF16 混合精度", "lesson-3"),
    ("fp8", "FP8 细粒度块缩放", "lesson-4"),
    ("fp4", "FP4（岔路）", "fp4"),
    ("act", "激活：重计算与 FlashAttention", "lesson-5"),
)
PAGES = ("index", "lesson-1", "lesson-2", "lesson-3", "lesson-4", "fp4", "lesson-5", "lab")


def page_context(here: str = "index") -> dict:
    """``here``: the page the map sits on (one of PAGES)；its stage is marked "你在这里".
    Links are relative to that page (the site uses directory URLs: /lesson-4/ …)."""
    if here not in PAGES:
        raise ValueError(f"evolution-map: here must be one of {PAGES}, got {here!r}")
    prefix = "" if here == "index" else "../"
    stages = [{"key": k, "title": t, "page": p, "href": f"{prefix}{p}/", "here": p == here} for k, t, p in STAGES]
    return dict(stages=stages, here=here, on_index=here == "index")
