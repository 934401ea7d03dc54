"""The lab page's figures, computed from the lab's data file (lab/results/c09-precision.json).

:func:`figures` returns ``{"name", "value", "text", "formula", "inputs"}`` dicts for build_numbers.py.
Standard library only; it reads the file written by ``python -m lab.run`` through c9.core.lab_results
(the build never runs torch) and writes its numbers as the lab page's tables do (c9/views/lab_text.py).
Only the build needs this module: it is never called in the browser.
"""

from __future__ import annotations

import re
from fractions import Fraction

from c9.base import units
from c9.core import lab_results
from c9.core.lab_results import POINTS, RUN_ORDER
from c9.core.ledger import model_states
from c9.core.models import lab_model
from c9.figures.figure import figure
from c9.views.lab_text import POINT_LABELS, frac_text, mib_digits, sci, snapshot_texts, throughput_rows

SRC = "lab/results/c09-precision.json"

# The runs and speed measures as the formulas name them.
_RUN = {"fp32": "FP32 ", "bf16": "BF16 ", "fp16": "FP16 不缩放时", "fp16_scaled": "FP16 + 动态缩放时"}
_SPEED = {"tokens_per_cpu_s_median": "每 CPU 秒 token 数", "tokens_per_s_median": "每秒 token 数"}

__all__ = ["figures", "throughput_figures", "higher_or_lower"]


def mib(n: int | float, digits: int = 1) -> str:
    return units.size(n, "MiB", digits)


def higher_or_lower(diff: float, digits: int) -> str:
    """A signed difference as a Chinese sentence reads it after "A 比 B": "低 0.0001", "高 0.0312";
    "相差不到 0.0001" when it rounds to 0 (never "-0.0001" or "+0.0000")."""
    shown = units.number(abs(diff), digits)
    if units.round_half_up(abs(diff), digits) == 0:
        return f"相差不到 {units.number(Fraction(1, 10**digits), digits)}"
    return f"{'高' if diff > 0 else '低'} {shown}"


def _fig(out, name, value, text, formula, **inputs):
    # The run names end in a space so that Latin meets Chinese spaced; no space is left before 「 or between Chinese.
    formula = re.sub(
        r"(?<=[\u4e00-\u9fffA-Za-z0-9]) (?=「)|(?<=[\u4e00-\u9fff]) (?=[\u4e00-\u9fff])", "", formula
    )
    out.append(figure(name, value, text, formula, **inputs))


def throughput_figures(d: dict) -> list[dict]:
    out: list[dict] = []
    tp = d["throughput"]
    src = f"{SRC}: throughput"
    _fig(out, "lab_tp_repeats", tp["repeats"], str(tp["repeats"]), f"吞吐测量的重复次数（{src}.repeats）")
    _fig(
        out,
        "lab_tp_steps",
        tp["steps_per_repeat"],
        str(tp["steps_per_repeat"]),
        f"每次重复连跑的训练步数（{src}.steps_per_repeat）",
    )
    _fig(out, "lab_tp_threads", tp["threads"], str(tp["threads"]), f"吞吐测量用的线程数（{src}.threads）")
    _fig(out, "lab_tp_date", tp["date"], tp["date"][:10], f"吞吐测量的日期，协调世界时（{src}.date）")
    _fig(
        out,
        "lab_tp_minutes",
        tp["wall_time_s"] / 60,
        f"{units.number(Fraction(tp['wall_time_s']) / 60, 1)} 分钟",
        f"吞吐测量的总耗时（秒）÷ 60（{src}.wall_time_s）",
        wall_time_s=round(tp["wall_time_s"], 1),
    )
    flags = tp.get("cpu_flags_16bit") or []
    bf16_hw = any(f in flags for f in ("avx512_bf16", "amx_bf16"))
    fp16_hw = any(f in flags for f in ("avx512_fp16", "amx_fp16"))
    _fig(
        out,
        "lab_tp_bf16_hw",
        bf16_hw,
        "有" if bf16_hw else "没有",
        f"测吞吐的 CPU 的指令集标志里有没有 BF16 运算扩展（{src}.cpu_flags_16bit）",
    )
    _fig(
        out,
        "lab_tp_fp16_hw",
        fp16_hw,
        "有" if fp16_hw else "没有",
        f"测吞吐的 CPU 的指令集标志里有没有 FP16 运算扩展（{src}.cpu_flags_16bit）",
    )
    rows = throughput_rows(d)
    for name in RUN_ORDER:
        r = rows[name]
        _fig(
            out,
            f"lab_{name}_tpc",
            r["median"],
            units.number(r["median"]),
            f"{_RUN[name]}每 CPU 秒处理的 token 数：{tp['repeats']} 次重复的中位数（{src}.runs.{name}）",
            **{"每次重复的 token 数": tp["tokens_per_repeat"]},
        )
        _fig(
            out,
            f"lab_{name}_tpc_range",
            (r["min"], r["max"]),
            f"{units.number(r['min'])}–{units.number(r['max'])}",
            f"{_RUN[name]}{tp['repeats']} 次重复里每 CPU 秒 token 数的最低–最高（{src}.runs.{name}）",
        )
        _fig(out, f"lab_{name}_tpc_cell", r["median"], r["cell"], "中位数（最低–最高），每 CPU 秒 token 数")
        w = tp["runs"][name]
        _fig(
            out,
            f"lab_{name}_wall_range",
            (w["tokens_per_s_min"], w["tokens_per_s_max"]),
            f"{units.number(w['tokens_per_s_min'])}–{units.number(w['tokens_per_s_max'])}",
            f"{_RUN[name]}同样 {tp['repeats']} 次重复里每墙钟秒 token 数的最低–最高（{src}.runs.{name}）",
        )
    for name in RUN_ORDER[1:]:
        ratio = rows[name]["median"] / rows["fp32"]["median"]
        _fig(
            out,
            f"lab_{name}_speed_vs_fp32",
            ratio,
            f"{units.number(ratio, 2 if ratio < 0.1 else 1)} 倍",
            f"{_RUN[name]}的速度是 FP32 的几倍 = 这一行的每 CPU 秒 token 数 ÷ FP32 的（中位数）",
            fp32=round(rows["fp32"]["median"], 1),
            this=round(rows[name]["median"], 1),
        )
    # the ranking holds across every repeat when the slower run's best is below the faster run's worst
    order = sorted(RUN_ORDER[:3], key=lambda n: -rows[n]["median"])
    clean = all(rows[a]["min"] > rows[b]["max"] for a, b in zip(order, order[1:]))
    _fig(
        out,
        "lab_tp_order",
        order,
        " > ".join(d["runs"][n]["label"].split("（")[0] for n in order),
        "FP32、BF16、FP16 按每 CPU 秒 token 数的中位数从快到慢",
    )
    _fig(
        out,
        "lab_tp_order_clean",
        clean,
        "每一次重复都是这个顺序" if clean else "并非每一次重复都是这个顺序",
        "快慢顺序在每一次重复里都成立：慢者的最高值低于快者的最低值",
        **{n: [round(rows[n]["min"], 1), round(rows[n]["max"], 1)] for n in order},
    )
    for key, what, lo, hi in (
        ("wall", "墙钟", "tokens_per_s_min", "tokens_per_s_max"),
        ("cpu", "CPU 时间", "tokens_per_cpu_s_min", "tokens_per_cpu_s_max"),
    ):
        r = tp["runs"]["fp32"]
        ratio = r[hi] / r[lo]
        _fig(
            out,
            f"lab_fp32_{key}_spread",
            ratio,
            f"{units.number(ratio, 2)} 倍",
            f"FP32 按 {what} 算，{tp['repeats']} 次重复里最快一次 ÷ 最慢一次",
            **{"最快一次": round(r[hi], 1), "最慢一次": round(r[lo], 1)},
        )
    return out


def figures(data: dict | None = None) -> list[dict]:
    d = lab_results.precision() if data is None else data
    out: list[dict] = []
    prov, m, acc = d["provenance"], d["model"], d["accounting"]
    cfg = prov["config"]
    prof = cfg["smoke" if prov["profile"] == "smoke" else "full"]
    psi = lab_model(d).param_total  # Ψ as the lab counted its built model

    # provenance and set-up
    _fig(
        out,
        "lab_params",
        psi,
        units.number(psi),
        f"小模型的参数个数 Ψ，从建好的模型数出（{SRC}: model.param_count）",
    )
    for k, label in (
        ("d_model", "隐藏宽度 h"),
        ("n_layers", "层数 L"),
        ("n_heads", "注意力头数 a"),
        ("vocab_size", "词表大小"),
        ("context", "上下文长度 s"),
    ):
        v = m["config"][k]
        _fig(out, f"lab_{k}", v, units.number(v), f"小模型的{label}（lab/config.json: model.{k}）")
    vocab, h = m["config"]["vocab_size"], m["config"]["d_model"]
    _fig(
        out,
        "lab_logits_over_hidden",
        Fraction(vocab, h),
        units.number(Fraction(vocab, h), 0 if vocab % h == 0 else 1),
        "每个 token 的 logits 宽度与隐藏宽度之比：词表大小 ÷ h（lab/config.json）",
        vocab_size=vocab,
        h=h,
    )
    _fig(
        out, "lab_torch", prov["torch"], prov["torch"], f"跑实验用的 PyTorch 版本（{SRC}: provenance.torch）"
    )
    _fig(out, "lab_cpu", prov["cpu"], prov["cpu"], f"跑实验的处理器（{SRC}: provenance.cpu）")
    _fig(
        out, "lab_threads", prov["threads"], str(prov["threads"]), f"用的线程数（{SRC}: provenance.threads）"
    )
    _fig(
        out,
        "lab_date",
        prov["date"],
        prov["date"][:10],
        f"跑实验的日期，协调世界时（{SRC}: provenance.date）",
    )
    wall = prov["wall_time_s"]
    _fig(
        out,
        "lab_wall_min",
        wall / 60,
        f"{units.number(Fraction(wall) / 60, 1)} 分钟",
        f"总耗时（秒）÷ 60（{SRC}: provenance.wall_time_s）",
        wall_time_s=round(wall, 1),
    )
    _fig(out, "lab_steps", prof["steps"], str(prof["steps"]), "每次训练的步数（lab/config.json: full.steps）")
    _fig(
        out,
        "lab_batch",
        prof["batch_size"],
        str(prof["batch_size"]),
        "batch 大小 b（lab/config.json: full.batch_size）",
    )
    tps = d["data"]["tokens_per_step"]
    _fig(
        out,
        "lab_tokens_per_step",
        tps,
        units.number(tps),
        "每步的 token 数 = batch × 上下文长度",
        batch_size=prof["batch_size"],
        context=m["config"]["context"],
    )
    _fig(
        out,
        "lab_tokens_per_run",
        tps * prof["steps"],
        units.number(tps * prof["steps"]),
        "每次训练的 token 数 = 每步 token 数 × 步数",
        tokens_per_step=tps,
        steps=prof["steps"],
    )
    for k, what in (
        ("train_tokens", "训练集的 token 数"),
        ("val_tokens", "验证集的 token 数"),
        ("files", "数据的文件数"),
    ):
        _fig(out, f"lab_data_{k}", d["data"][k], units.number(d["data"][k]), f"{what}（{SRC}: data.{k}）")
    _fig(out, "lab_seed", prov["seed"], str(prov["seed"]), "随机种子（lab/config.json: seed）")
    nval = d["data"]["files"] - d["data"]["train_files"]
    _fig(
        out,
        "lab_val_files",
        nval,
        str(nval),
        "验证集的文件数 = 文件数 − 训练用的文件数（按文件名排在最后的几个）",
        files=d["data"]["files"],
        train_files=d["data"]["train_files"],
    )
    _fig(
        out,
        "lab_val_first_file",
        d["data"]["val_first_file"],
        d["data"]["val_first_file"],
        f"验证集的第一个文件（{SRC}: data.val_first_file）",
    )
    _fig(
        out,
        "lab_ffn_mult",
        m["config"]["ffn_mult"],
        str(m["config"]["ffn_mult"]),
        "MLP 宽度是 h 的几倍（lab/config.json: model.ffn_mult）",
    )
    sc = cfg["scaler"]
    _fig(
        out,
        "lab_scaler_init",
        sc["init_scale"],
        units.number(sc["init_scale"]),
        "动态缩放的初始 S（lab/config.json: scaler.init_scale）",
    )
    _fig(
        out,
        "lab_scaler_interval",
        sc["growth_interval"],
        str(sc["growth_interval"]),
        "连续多少步不溢出就把 S 翻倍（lab/config.json: scaler.growth_interval）",
    )

    # the ledger against the measured snapshots
    ledger = model_states(psi, "fp32_adamw").bytes
    _fig(out, "lab_ledger_bytes", ledger, units.number(ledger), "FP32 + AdamW 的模型状态 = 16 B × Ψ", psi=psi)
    # every MiB figure at the lab's one precision (lab_text.mib_digits: the fewest decimals, at least two,
    # at which every sum the pages show adds up as shown), so the ledger reads beside the snapshots as they do
    dg = mib_digits(d)
    _fig(
        out, "lab_ledger_mib", ledger / 2**20, mib(ledger, dg), "模型状态按 MiB 计 = 16 B × Ψ ÷ 2²⁰", psi=psi
    )
    runs = d["runs"]
    for name in RUN_ORDER:
        r = runs[name]
        snaps = lab_results.snapshots(d, name)
        for p in POINTS:
            t = snaps[p]["total"]
            _fig(
                out,
                f"lab_{name}_{p}_mib",
                t / 2**20,
                snapshot_texts(snaps[p], dg)[1],
                f"{_RUN[name]}「{POINT_LABELS[p]}」实测的显存 ÷ 2²⁰（{SRC}: runs.{name}.memory[{p}].total）",
                bytes=t,
            )
        # the parts of the forward snapshot as the table shows them (they add up to its total as shown)
        fwd, _ = snapshot_texts(snaps["after_forward"], dg)
        saved = snaps["after_forward"]["parts"]["saved_for_backward"]
        _fig(
            out,
            f"lab_{name}_saved_mib",
            saved / 2**20,
            fwd["saved_for_backward"],
            f"{_RUN[name]}前向之后保存给反向的字节 ÷ 2²⁰（{SRC}: runs.{name}.memory[after_forward].parts.saved_for_backward）",
            bytes=saved,
        )
        params = snaps["after_forward"]["parts"]["parameters"]
        _fig(
            out,
            f"lab_{name}_forward_params_mib",
            params / 2**20,
            fwd["parameters"],
            f"{_RUN[name]}前向之后参数的字节 ÷ 2²⁰（{SRC}: runs.{name}.memory[after_forward].parts.parameters）",
            bytes=params,
        )
        logits = snaps["after_forward"]["parts"]["logits_and_loss"]
        _fig(
            out,
            f"lab_{name}_logits_mib",
            logits / 2**20,
            fwd["logits_and_loss"],
            f"{_RUN[name]}前向输出的 logits 本身 ÷ 2²⁰，不在保存给反向的张量里（{SRC}: runs.{name}.memory[after_forward].parts.logits_and_loss）",
            bytes=logits,
        )
        det = snaps["after_forward"]["saved_detail"]
        _fig(
            out,
            f"lab_{name}_weight_copies_mib",
            det["weight_copies_16bit"] / 2**20,
            mib(det["weight_copies_16bit"], dg),
            "保存给反向的 16 位张量中形状与权重矩阵相同者（autocast 的权重副本）",
            bytes=det["weight_copies_16bit"],
        )
        # the saved bytes split into the model body and the loss head, the two adding up to the saved figure
        body_t, head_t = mib(det["model_body"], dg), mib(det["loss_head"], dg)
        _fig(
            out,
            f"lab_{name}_body_saved_mib",
            det["model_body"] / 2**20,
            body_t,
            "模型主体（嵌入到最后的 RMSNorm 与输出矩阵乘）保存给反向的字节 ÷ 2²⁰",
            bytes=det["model_body"],
        )
        _fig(
            out,
            f"lab_{name}_head_saved_mib",
            det["loss_head"] / 2**20,
            head_t,
            "交叉熵保存给反向的字节 ÷ 2²⁰：FP32 的对数概率与目标 token，logits 本身另计",
            bytes=det["loss_head"],
        )
        step = snaps["after_step"]["total"]
        diff = step - ledger
        _fig(
            out,
            f"lab_{name}_step_minus_ledger",
            diff,
            f"{units.number(diff)} B",
            "实测「第一次更新后」− 16 B × Ψ",
            measured=step,
            ledger=ledger,
        )
        peak = r["peak_bytes"]
        _fig(
            out,
            f"lab_{name}_peak_mib",
            peak / 2**20,
            mib(peak),
            f"{_RUN[name]}实测四个显存截面里最大的那个 ÷ 2²⁰（{SRC}: runs.{name}.peak_bytes）",
            bytes=peak,
        )
        # two decimals, as the lab's comparison table shows it (the guide page repeats that table)
        _fig(
            out,
            f"lab_{name}_peak_mib_table",
            peak / 2**20,
            mib(peak, dg),
            f"{_RUN[name]}实测四个显存截面里最大的那个 ÷ 2²⁰，按表里的小数位（{SRC}: runs.{name}.peak_bytes）",
            bytes=peak,
        )
        _fig(
            out,
            f"lab_{name}_val_loss",
            r["val_loss"],
            units.number(r["val_loss"], 4),
            f"{_RUN[name]}训练完在验证集上的 loss（{SRC}: runs.{name}.val_loss）",
        )
        _fig(
            out,
            f"lab_{name}_final_loss",
            r["final_train_loss"],
            units.number(r["final_train_loss"], 3),
            f"{_RUN[name]}最后一步的训练 loss（{SRC}: runs.{name}.steps[-1].loss）",
        )
        _fig(
            out,
            f"lab_{name}_skipped",
            r["skipped_steps"],
            str(r["skipped_steps"]),
            f"{_RUN[name]}因溢出跳过的步数（{SRC}: runs.{name}.skipped_steps）",
        )
        z = r["mean_zero_grad_fraction"]
        _fig(
            out,
            f"lab_{name}_zero_frac",
            z,
            sci(z) if z else "0",
            f"{_RUN[name]}每步「恰为 0 的梯度元素」比例的平均（{SRC}: runs.{name}）",
        )
        z1 = r["steps"][0]["zero_grad_fraction"]
        _fig(
            out,
            f"lab_{name}_zero_frac_first",
            z1,
            sci(z1) if z1 else "0",
            f"{_RUN[name]}第 1 步恰为 0 的梯度元素比例（{SRC}: runs.{name}.steps[0].zero_grad_fraction）",
        )
        zmax = max(r["steps"], key=lambda s: s["zero_grad_fraction"])
        _fig(
            out,
            f"lab_{name}_zero_frac_max",
            zmax["zero_grad_fraction"],
            sci(zmax["zero_grad_fraction"]) if zmax["zero_grad_fraction"] else "0",
            f"{_RUN[name]}各步恰为 0 的梯度元素比例的最大值（{SRC}: runs.{name}.steps[].zero_grad_fraction）",
            step=zmax["step"],
        )
        _fig(out, f"lab_{name}_zero_frac_max_step", zmax["step"], str(zmax["step"]), "比例最高的那一步")
        zl = r["steps"][-1]["zero_grad_fraction"]
        _fig(
            out,
            f"lab_{name}_zero_frac_last",
            zl,
            sci(zl) if zl else "0",
            f"{_RUN[name]}最后一步恰为 0 的梯度元素比例（{SRC}: runs.{name}.steps[-1].zero_grad_fraction）",
        )
    out += throughput_figures(d)
    fs = runs["fp16_scaled"]
    _fig(
        out,
        "lab_fp16_scaled_final_scale",
        fs["final_loss_scale"],
        units.number(fs["final_loss_scale"]),
        f"FP16 + 动态缩放训练结束时的 S（{SRC}: runs.fp16_scaled.final_loss_scale）",
    )
    scales = [s["loss_scale"] for s in fs["steps"]]
    _fig(out, "lab_fp16_scaled_max_scale", max(scales), units.number(max(scales)), "各步缩放因子 S 的最大值")
    skipped_at = [s["step"] for s in fs["steps"] if s["skipped"]]
    _fig(
        out,
        "lab_fp16_scaled_skipped_at",
        ",".join(map(str, skipped_at)) or "—",
        "、".join(f"第 {k} 步" for k in skipped_at) or "没有",
        f"FP16 + 动态缩放因溢出跳过的步（{SRC}: runs.fp16_scaled.steps[].skipped）",
    )
    z16, z16s = runs["fp16"]["mean_zero_grad_fraction"], fs["mean_zero_grad_fraction"]
    _fig(
        out,
        "lab_zero_fp16_higher",
        "是" if z16 > z16s else "否",
        "是" if z16 > z16s else "否",
        "FP16 不缩放的平均 0 梯度比例是否高于 FP16 + 动态缩放的",
        fp16=z16,
        fp16_scaled=z16s,
    )
    vals = [runs[n]["val_loss"] for n in RUN_ORDER]
    spread = max(vals) - min(vals)
    _fig(out, "lab_val_spread", spread, units.number(spread, 4), "四次验证集 loss 的最大值 − 最小值")
    best = min(RUN_ORDER, key=lambda n: runs[n]["val_loss"])
    _fig(out, "lab_best_val_run", best, runs[best]["label"], "验证集 loss 最低的一次")
    gap = runs["bf16"]["val_loss"] - runs["fp32"]["val_loss"]
    _fig(
        out,
        "lab_bf16_vs_fp32_val",
        gap,
        higher_or_lower(gap, 4),
        "验证集 loss：BF16 − FP32（「BF16 比 FP32 …」）",
        bf16=round(runs["bf16"]["val_loss"], 6),
        fp32=round(runs["fp32"]["val_loss"], 6),
    )
    gap = runs["fp16"]["val_loss"] - runs["fp16_scaled"]["val_loss"]
    _fig(
        out,
        "lab_fp16_minus_scaled_val",
        gap,
        higher_or_lower(gap, 4),
        "验证集 loss：FP16 不缩放 − FP16 + 动态缩放（「前者比后者 …」）",
    )

    # the activation formula against the measured saved tensors
    fa = acc["formula_activation_bytes"]
    fi = acc["formula_inputs"]
    _fig(
        out,
        "lab_formula_mib",
        fa / 2**20,
        mib(fa, dg),
        "激活 = L × sbh(34 + 5as/h) 字节（Korthikanti 式 1）",
        **fi,
    )
    _fig(
        out,
        "lab_formula_linear_mib",
        acc["formula_parts"]["act_linear"] / 2**20,
        mib(acc["formula_parts"]["act_linear"], dg),
        "线性项 = L × 34sbh 字节",
        **fi,
    )
    _fig(
        out,
        "lab_formula_scores_mib",
        acc["formula_parts"]["act_scores"] / 2**20,
        mib(acc["formula_parts"]["act_scores"], dg),
        "注意力分数项 = L × 5as²b 字节",
        **fi,
    )
    for name in ("fp32", "bf16"):
        saved = lab_results.snapshots(d, name)["after_forward"]["parts"]["saved_for_backward"]
        # The true gap and ratio, rounded: the gap at the lab's precision, so that the estimate plus the gap
        # reads as the saved figure (lab_text.mib_sums has the sum).
        diff = saved - fa
        _fig(
            out,
            f"lab_{name}_saved_minus_formula_mib",
            diff / 2**20,
            mib(diff, dg),
            "实测保存给反向的字节 − 公式的字节，÷ 2²⁰",
            measured=saved,
            formula_bytes=fa,
        )
        _fig(
            out,
            f"lab_{name}_saved_over_formula",
            saved / fa,
            f"{units.number(Fraction(saved, fa), 2)} 倍",
            "实测保存给反向的字节 ÷ 公式的字节",
            measured=saved,
            formula_bytes=fa,
        )
    # the fp32 run's model-state ledger reconciled: after the step = 16 B × Ψ + AdamW's step counters
    diff = lab_results.snapshots(d, "fp32")["after_step"]["total"] - ledger
    _fig(
        out,
        "lab_step_counters",
        diff // 4,
        str(diff // 4),
        "（实测「第一次更新后」− 16 B × Ψ）÷ 4 B：AdamW 给每个参数张量记一个 FP32 的步数计数",
        diff_bytes=diff,
    )

    # the underflow probe
    for p in d["probe"]:
        tag = "init" if p["when"] == "initialization" else "trained"
        f = p["frac_below_2^-24"]
        _fig(
            out,
            f"lab_probe_{tag}_below",
            f,
            frac_text(f),
            "|g| < 2⁻²⁴ 的元素 ÷ 全部梯度元素",
            count=p["below_2^-24"],
            elements=p["elements"],
        )
        _fig(
            out,
            f"lab_probe_{tag}_below_count",
            p["below_2^-24"],
            units.number(p["below_2^-24"]),
            "|g| < 2⁻²⁴ 的元素个数",
        )
        f2 = p["frac_below_2^-24_after_x65536"]
        _fig(
            out,
            f"lab_probe_{tag}_below_scaled",
            f2,
            frac_text(f2),
            "|g| × 65,536 < 2⁻²⁴（即 |g| < 2⁻⁴⁰）的元素 ÷ 全部",
            count=p["below_2^-24_after_x65536"],
            elements=p["elements"],
        )
        _fig(
            out,
            f"lab_probe_{tag}_below_scaled_count",
            p["below_2^-24_after_x65536"],
            units.number(p["below_2^-24_after_x65536"]),
            "|g| < 2⁻⁴⁰ 的元素个数",
        )
        _fig(
            out,
            f"lab_probe_{tag}_median_log2",
            p["median_log2"],
            units.power_of_two(p["median_log2"]),
            "log₂（|g| 的中位数）",
        )
        _fig(
            out,
            f"lab_probe_{tag}_min_log2",
            p["min_log2"],
            units.power_of_two(p["min_log2"]),
            "log₂（最小的非零 |g|）",
        )
        _fig(
            out,
            f"lab_probe_{tag}_max_log2",
            p["max_log2"],
            units.power_of_two(p["max_log2"]),
            "log₂（最大的 |g|）",
        )
        _fig(
            out,
            f"lab_probe_{tag}_zero",
            p["exact_zero"],
            units.number(p["exact_zero"]),
            "FP32 里就恰为 0 的元素",
        )
    _fig(
        out,
        "lab_probe_elements",
        d["probe"][0]["elements"],
        units.number(d["probe"][0]["elements"]),
        "探针看的梯度元素个数（= Ψ）",
    )
    return out
