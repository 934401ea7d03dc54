"""Predicted vs measured activation bytes: c9/core/model_activations.py against the real model code.

Reads lab/results/activation-check.json (written by ``python -m lab.activation_check``; the build never runs
torch) through c9.core.lab_results: for each tiny model (its config is in the file), attention implementation, dtype and (s, b), the
bytes the forward pass saved for backward and the logits it returned, measured with saved-tensor hooks.
Each is predicted here from the same config by ``model_activations.tensors`` with the mode the
implementation stands for (``IMPLEMENTATION_MODE``: eager → store_all, sdpa → flash; sdpa on the CPU
with attention dropout runs torch's math backend, which the file records, → store_all). Standard library.
"""

from __future__ import annotations

from c9.base import units
from c9.core import formats as F
from c9.core import lab_results
from c9.core import model_activations as M
from c9.core.architecture import parse_config
from c9.figures.figure import figure

SRC = "lab/results/activation-check.json"
TOLERANCE = 0.05  # the bound; the model aims at (and today reaches) equality

#: case → what the page calls it
FAMILY_LABELS = {
    "gpt2": "GPT-2",
    "gpt2_no_dropout": "GPT-2（dropout 设为 0）",
    "llama": "Llama（分组查询注意力）",
    "mistral": "Mistral（分组查询注意力，窗口 4,096 长于 s）",
    "mistral_window": "Mistral（滑动窗口 32 个词元，s 达到窗口时生效）",
    "qwen2": "Qwen2（q、k、v 带偏置）",
    "qwen3": "Qwen3（q/k 归一化，head_dim ≠ h/a）",
    "qwen3_tied": "Qwen3（输出层共享嵌入）",
    "mixtral": "Mixtral（混合专家）",
    "qwen3_moe": "Qwen3-MoE（混合专家）",
    "deepseek_v3": "DeepSeek-V3（潜在注意力，分组挑选专家的混合专家，两个共享专家）",
    "deepseek_v3_wide": "DeepSeek-V3（更宽，查询不经潜向量，每层都是混合专家，没有共享专家）",
    "phi3": "Phi-3（q、k、v 融合成一个矩阵，门控和上投影也是）",
    "phi3_wide": "Phi-3（更宽、三层、多头注意力、共享嵌入）",
    "llama_mqa": "Llama（K、V 只有一个头）",
    "gemma2": "Gemma 2（四个归一化、分数与 logits 软上限）",
    "gemma2_wide": "Gemma 2（更宽、三层、K、V 各一个头）",
    "gemma3_text": "Gemma 3（q/k 归一化）",
    "gemma3_window": "Gemma 3（滑动窗口 32，与全注意力层交替）",
}
IMPL_LABELS = {
    "eager": "eager（写出分数表）",
    "sdpa": "sdpa（融合内核，不写分数表）",
    "sdpa_math": "sdpa（CPU 上因 dropout 退回 math 后端，写出分数表）",
    # DeepSeek-V3: V's head size differs from Q's, which the CPU flash kernel does not take
    "sdpa_math_mla": "sdpa（V 的头宽和 Q 不同，CPU 上退回 math 后端，写出分数表）",
}


def setting(case: dict) -> tuple[str, str, str, str]:
    """(mode, scores_by, precision, kernel) that predict ``case``: the attention code it ran, the dtype it
    ran in."""
    impl = (
        "sdpa_math"
        if case["attn_implementation"] == "sdpa" and case["sdpa_backend"] == "math"
        else case["attn_implementation"]
    )
    mode, scores_by, kernel = M.IMPLEMENTATION_MODE[impl]
    return mode, scores_by, M.LAB_PRECISION[case["dtype"]], kernel


def rows(data: dict | None = None) -> list[dict]:
    """One row per case and (s, b): measured and predicted bytes saved for backward and of the logits."""
    data = data or lab_results.activation_check()
    out = []
    for c in data["cases"]:
        arch = parse_config(data["configs"][c["family"]])
        mode, scores_by, precision, kernel = setting(c)
        impl = "sdpa_math" if scores_by == "sdpa_math" else c["attn_implementation"]
        why = impl + ("_mla" if impl == "sdpa_math" and arch.mla else "")
        for p in c["points"]:
            ts = M.tensors(arch, p["s"], p["b"], mode, precision, scores_by, kernel)
            pred, meas = M.saved_bytes(ts), p["saved_activation_bytes"]
            out.append(
                {
                    "family": c["family"],
                    "label": FAMILY_LABELS.get(c["family"], c["family"]),
                    "implementation": impl,
                    "impl_label": IMPL_LABELS[why],
                    "mode": mode,
                    "mode_label": M.MODES[mode],
                    "dtype": c["dtype"],
                    "dtype_label": F.get_format(c["dtype"]).label,
                    "precision": precision,
                    "s": p["s"],
                    "b": p["b"],
                    "measured": meas,
                    "predicted": pred,
                    "difference": pred - meas,
                    "relative": (pred - meas) / meas,
                    "logits_measured": p["logits_bytes"],
                    "logits_predicted": M.logits_bytes(ts),
                }
            )
    return out


def summary(data: dict | None = None) -> dict:
    """How many rows, how many within TOLERANCE, how many exact, and the largest relative difference."""
    rs = rows(data)
    worst = max(rs, key=lambda r: abs(r["relative"]))
    return {
        "rows": len(rs),
        "within": sum(abs(r["relative"]) <= TOLERANCE for r in rs),
        "exact": sum(r["difference"] == 0 and r["logits_measured"] == r["logits_predicted"] for r in rs),
        "worst_relative": abs(worst["relative"]),
        "tolerance": TOLERANCE,
    }


#: the lab page's table: BF16 (the training precision), the largest recorded point, per family and code path
PAGE_DTYPE = "bfloat16"


def figures(data: dict | None = None) -> list[dict]:
    """Figures for build_numbers.py (the lab page's appendix #activation-check): the summary (points,
    exact, within 5%), the versions measured with, and for each family in BF16 at its largest (s, b) the
    measured and predicted bytes saved for backward for eager and sdpa. Names: ac_<family>_<eager|sdpa>_
    <measured|predicted>."""
    data = data or lab_results.activation_check()
    sm = summary(data)
    v = data["versions"]
    out = [
        figure(
            "ac_points",
            sm["rows"],
            units.number(sm["rows"]),
            "核对的组数（模型、注意力实现、精度、s、b 各不相同的组合）",
        ),
        figure(
            "ac_exact",
            sm["exact"],
            units.number(sm["exact"]),
            "预测与实测逐字节相同的组数（存给反向的字节和 logits 都相同）",
        ),
        figure("ac_within", sm["within"], units.number(sm["within"]), "相差不超过 5% 的组数"),
        figure(
            "ac_configs",
            len(data["configs"]),
            units.number(len(data["configs"])),
            f"搭了小模型的配置个数（{SRC}: configs）",
        ),
        figure(
            "ac_torch",
            v["torch"].split("+")[0],
            v["torch"].split("+")[0],
            f"量测用的 PyTorch 版本，CPU 版（{SRC}: versions.torch）",
        ),
        figure(
            "ac_transformers",
            v["transformers"],
            v["transformers"],
            f"量测用的 transformers 版本（{SRC}: versions.transformers）",
        ),
    ]
    last = {}
    for r in rows(data):
        if r["dtype"] == PAGE_DTYPE:
            last[(r["family"], "sdpa" if r["implementation"].startswith("sdpa") else "eager")] = (
                r  # points grow in s·b
            )
    for (family, impl), r in last.items():
        for what in ("measured", "predicted"):
            out.append(
                figure(
                    f"ac_{family}_{impl}_{what}",
                    r[what],
                    units.number(r[what]),
                    f"{'实测' if what == 'measured' else '预测'}：存给反向的字节（{r['label']}，{r['impl_label']}，BF16）",
                    s=r["s"],
                    b=r["b"],
                )
            )
        out.append(
            figure(
                f"ac_{family}_{impl}_sb", r["s"] * r["b"], f"{r['s']}×{r['b']}", "s × b", s=r["s"], b=r["b"]
            )
        )
    return out
