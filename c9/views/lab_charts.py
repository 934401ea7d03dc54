"""The lab page's charts: build-time Plotly specs drawn from the lab's data file, no Python in the page.

``page_context(chart=...)`` returns the figure spec (Plotly's JSON schema, as a dict), a Chinese text
summary and a table, so the page is whole without scripts; c9/views/lab-charts.js only
draws the spec. Charts: ``table`` (the four-run comparison), ``loss`` (training loss per step),
``zero`` (fraction of gradient elements exactly zero per step), ``scale`` (the loss scale per step),
``probe`` (the underflow histogram), ``memory`` (the four snapshots against the ledger and the formula).
The data file is read at build time (c9.core.lab_results); the module imports nothing outside the standard
library.
"""

from __future__ import annotations

from c9.base import units
from c9.base.palette import var
from c9.core import lab_results
from c9.core.lab_results import POINTS, RUN_ORDER
from c9.views.lab_text import POINT_LABELS, frac_text, mib_digits, sci, snapshot_texts, throughput_rows

WIDGET = "lab-charts"

COLORS = {"fp32": var("fp32"), "bf16": var("bf16"), "fp16": var("fp16"), "fp16_scaled": var("fp16-scaled")}
PART_COLORS = {
    "parameters": var("lab-weights"),
    "gradients": var("grads"),
    "optimizer_state": var("adam"),
    "saved_for_backward": var("lab-activations"),
    "logits_and_loss": var("lab-logits"),
}
PART_LABELS = {
    "parameters": "参数（FP32）",
    "gradients": "梯度（FP32）",
    "optimizer_state": "AdamW 状态（m、v、step）",
    "saved_for_backward": "保存给反向的张量",
    "logits_and_loss": "logits（前向输出）",
}
CHARTS = ("table", "loss", "zero", "scale", "probe", "memory")


def _layout(title: str, xtitle: str, ytitle: str, **extra) -> dict:
    lay = {
        "title": {"text": title},
        "xaxis": {"title": {"text": xtitle}},
        "yaxis": {"title": {"text": ytitle}},
        "margin": {"l": 60, "r": 20, "t": 50, "b": 50},
        "height": 360,
        # Below 45em a legend wraps and charts.js grew the chart as Plotly drew it (the memory chart's seven
        # entries to 470 px, a two-entry legend to 373 px at 320 px): the box holds this height there.
        "meta": {"narrow_height": 400},
        # at the foot of the figure, below the x-axis title at any width (not a fraction of the plot)
        "legend": {
            "orientation": "h",
            "xref": "container",
            "yref": "container",
            "x": 0,
            "y": 0,
            "yanchor": "bottom",
        },
        "font": {"family": "Noto Sans SC, sans-serif"},
    }
    lay.update(extra)
    for axis in ("xaxis", "yaxis"):  # tick labels push the axis titles out instead of running into them
        lay[axis] = {"automargin": True, **lay[axis]}
    return lay


COLUMN_NAME = "精度"
# tokens per CPU-second on one thread, repeated: the measure that ranks the precisions reproducibly here
THROUGHPUT_COLUMN = "tokens / CPU 秒（单线程，{n} 次重复的中位数；括号里是最低–最高）"


def comparison_rows(d: dict) -> list[dict]:
    rows = []
    tp = throughput_rows(d)
    digits = mib_digits(d)  # the snapshots' precision: a peak is one of them and reads as it does there
    for name in RUN_ORDER:
        r = d["runs"][name]
        rows.append(
            {
                "key": name,
                "label": r["label"],
                "tokens_per_cpu_s": tp[name]["cell"],
                "peak": units.size(r["peak_bytes"], "MiB", digits),
                "saved": units.size(
                    lab_results.snapshots(d, name)["after_forward"]["parts"]["saved_for_backward"],
                    "MiB",
                    digits,
                ),
                "val_loss": units.number(r["val_loss"], 4),
                "skipped": str(r["skipped_steps"]),
                "zero": _sci(r["mean_zero_grad_fraction"]),
            }
        )
    return rows


def _sci(x: float) -> str:
    return sci(x) if x else "0"


def _runs_chart(d: dict, field: str, title: str, ytitle: str, log: bool, only=None) -> dict:
    data = []
    for name in RUN_ORDER:
        if only and name not in only:
            continue
        r = d["runs"][name]
        xs = [s["step"] for s in r["steps"]]
        ys = [s[field] for s in r["steps"]]
        if log:
            ys = [y if y and y > 0 else None for y in ys]
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": r["label"],
                "x": xs,
                "y": ys,
                "line": {"color": COLORS[name], "width": 2, "dash": "dot" if name == "fp16" else "solid"},
                "marker": {"size": 4},
            }
        )
    yaxis = {"title": {"text": ytitle}}
    if log:
        yaxis["type"] = "log"
        yaxis["exponentformat"] = "power"
    return {"data": data, "layout": _layout(title, "训练步", ytitle, yaxis=yaxis)}


def page_context(chart: str = "table") -> dict:
    if chart not in CHARTS:
        raise ValueError(f"chart must be one of {CHARTS}, got {chart!r}")
    d = lab_results.precision()
    runs = d["runs"]
    prov = d["provenance"]
    ctx: dict = {"chart": chart, "figure": None, "rows": [], "columns": [], "caption": "", "summary": ""}
    machine = f"{prov['cpu']}，{prov['threads']} 线程，torch {prov['torch']}（CPU）"

    if chart == "table":
        ctx["columns"] = [
            COLUMN_NAME,
            THROUGHPUT_COLUMN.format(n=d["throughput"]["repeats"]),
            "显存（四个截面的最大值）",
            "验证集 loss",
            "跳过步数",
            "其中：前向后保存给反向",
            "平均 0 梯度比例",
        ]
        ctx["rows"] = [
            [r["label"], r["tokens_per_cpu_s"], r["peak"], r["val_loss"], r["skipped"], r["saved"], r["zero"]]
            for r in comparison_rows(d)
        ]
        tp = d["throughput"]
        ctx["caption"] = (
            f"四种精度的对照（同一种子、同一批数据；训练：{machine}；"
            f"吞吐在 {tp['date'][:10]} 另测，{tp['threads']} 线程）"
        )
        vals = [runs[n]["val_loss"] for n in RUN_ORDER]
        ctx["summary"] = (
            f"四次的验证集 loss 在 {units.number(min(vals), 4)} 到 {units.number(max(vals), 4)} 之间；"
            f"FP16 + 动态缩放跳过了 {runs['fp16_scaled']['skipped_steps']} 步；"
            f"平均「恰为 0 的梯度」比例，FP16 不缩放是 {_sci(runs['fp16']['mean_zero_grad_fraction'])}，"
            f"加动态缩放是 {_sci(runs['fp16_scaled']['mean_zero_grad_fraction'])}。"
        )
    elif chart == "loss":
        ctx["figure"] = _runs_chart(d, "loss", "训练 loss（每步，同一批数据）", "交叉熵 loss", False)
        ctx["columns"] = ["精度", "第\u00a01\u00a0步", "最后一步", "验证集 loss"]  # no break: 「第 1 / 步」
        ctx["rows"] = [
            [
                runs[n]["label"],
                units.number(runs[n]["steps"][0]["loss"], 3),
                units.number(runs[n]["steps"][-1]["loss"], 3),
                units.number(runs[n]["val_loss"], 4),
            ]
            for n in RUN_ORDER
        ]
        ctx["caption"] = "每条曲线的起点、终点和留出集上的 loss"
        ctx["summary"] = (
            "四条训练 loss 曲线："
            + "；".join(
                f"{runs[n]['label']}{'' if runs[n]['label'].endswith('）') else ' '}从 {units.number(runs[n]['steps'][0]['loss'], 3)} 降到 "
                f"{units.number(runs[n]['steps'][-1]['loss'], 3)}"
                for n in RUN_ORDER
            )
            + "。"
        )
    elif chart == "zero":
        ctx["figure"] = _runs_chart(
            d, "zero_grad_fraction", "每步恰为 0 的梯度元素比例（对数轴；0 不画）", "比例", True
        )
        ctx["columns"] = ["精度", "平均比例", "最后一步", "出现 0 的步数"]
        ctx["rows"] = [
            [
                runs[n]["label"],
                _sci(runs[n]["mean_zero_grad_fraction"]),
                _sci(runs[n]["steps"][-1]["zero_grad_fraction"]),
                str(sum(1 for s in runs[n]["steps"] if s["zero_grad_fraction"] > 0)),
            ]
            for n in RUN_ORDER
        ]
        ctx["caption"] = "梯度元素里恰好等于 0 的比例（对全部 Ψ 个参数）"
        ctx["summary"] = (
            "平均「恰为 0 的梯度」比例："
            + "；".join(
                units.joined(runs[n]["label"], _sci(runs[n]["mean_zero_grad_fraction"])) for n in RUN_ORDER
            )
            + "。"
        )
    elif chart == "scale":
        r = runs["fp16_scaled"]
        xs = [s["step"] for s in r["steps"]]
        skipped = [s for s in r["steps"] if s["skipped"]]
        ticks = sorted(
            {s["loss_scale"] for s in r["steps"]} | {d["provenance"]["config"]["scaler"]["init_scale"]}
        )
        data = [
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": "每步结束时的 loss scale",
                "x": xs,
                "y": [s["loss_scale"] for s in r["steps"]],
                "line": {"color": COLORS["fp16_scaled"], "shape": "hv"},
            }
        ]
        if skipped:
            data.append(
                {
                    "type": "scatter",
                    "mode": "markers",
                    "name": "跳过的步",
                    "x": [s["step"] for s in skipped],
                    "y": [s["loss_scale"] for s in skipped],
                    "marker": {"symbol": "x", "size": 11, "color": var("skipped")},
                }
            )
        ctx["figure"] = {
            "data": data,
            "layout": _layout(
                "FP16 + 动态缩放：每步结束时的 loss scale",
                "训练步",
                "loss scale",
                yaxis={
                    "type": "log",
                    "title": {"text": "loss scale"},
                    "tickvals": ticks,
                    "ticktext": [units.number(t) for t in ticks],
                },
            ),
        }
        ctx["columns"] = ["步", "事件", "之后的 loss scale"]
        prev = d["provenance"]["config"]["scaler"]["init_scale"]
        for s in r["steps"]:
            if s["skipped"]:
                ctx["rows"].append(
                    [str(s["step"]), "梯度里有 inf/NaN：跳过，减半", units.number(s["loss_scale"])]
                )
            elif s["loss_scale"] > prev:
                ctx["rows"].append([str(s["step"]), "连续无溢出：翻倍", units.number(s["loss_scale"])])
            prev = s["loss_scale"]
        ctx["caption"] = "loss scale 的每一次变化"
        ctx["summary"] = (
            f"loss scale 从 {units.number(d['provenance']['config']['scaler']['init_scale'])} 起，"
            f"结束时是 {units.number(r['final_loss_scale'])}；共跳过 {r['skipped_steps']} 步。"
        )
    elif chart == "probe":
        data = []
        names = {
            "initialization": "初始化时",
            "after_training_fp32": f"FP32 训练 {len(runs['fp32']['steps'])} 步后",
        }
        colors = {"initialization": var("initial"), "after_training_fp32": var("fp32")}
        for p in d["probe"]:
            n = p["elements"]
            data.append(
                {
                    "type": "bar",
                    "name": names.get(p["when"], p["when"]),
                    "x": p["bins_log2"],
                    "y": [c / n for c in p["counts"]],
                    "marker": {"color": colors[p["when"]]},
                    "opacity": 0.75,
                }
            )
        # The lines carry the colours the text names (red, orange: 3:1 or more on either palette); their
        # labels are in the text colour, which no single red or orange can match on both backgrounds.
        shapes = [
            {
                "type": "line",
                "x0": x,
                "x1": x,
                "y0": 0,
                "y1": 1,
                "yref": "paper",
                "line": {"color": c, "dash": "dash", "width": 2},
            }
            for x, c in ((-24, var("fp16")), (-40, var("scaled-limit")))
        ]
        # The line labels sit above the plot area, one line each, so they never cover a bar (the top
        # margin makes room for them under the title).
        ann = [
            {
                "x": -24,
                "y": 1,
                "yref": "paper",
                "yanchor": "bottom",
                "text": "2⁻²⁴：FP16 最小的正数",
                "showarrow": False,
                "xanchor": "left",
            },
            {
                "x": -40,
                "y": 1,
                "yref": "paper",
                "yanchor": "bottom",
                "yshift": 20,
                "text": "2⁻⁴⁰：乘 65,536 后才到 2⁻²⁴",
                "showarrow": False,
                "xanchor": "left",
            },
        ]
        ctx["figure"] = {
            "data": data,
            "layout": _layout(
                "真实梯度的大小分布（FP32 算出，按 2 的幂分箱）",
                "log₂|g|（箱 k：2ᵏ ≤ |g| < 2ᵏ⁺¹）",
                "占全部梯度元素的比例",
                barmode="overlay",
                shapes=shapes,
                annotations=ann,
                margin={"l": 60, "r": 20, "t": 100, "b": 50},
                yaxis={"type": "log", "title": {"text": "占全部梯度元素的比例"}, "exponentformat": "power"},
            ),
        }
        ctx["columns"] = ["时刻", "|g| < 2⁻²⁴", "乘 65,536 后仍 < 2⁻²⁴", "中位数", "最小的非零 |g|"]
        for p in d["probe"]:
            ctx["rows"].append(
                [
                    names.get(p["when"], p["when"]),
                    f"{units.number(p['below_2^-24'])}（{frac_text(p['frac_below_2^-24'])}）",
                    f"{units.number(p['below_2^-24_after_x65536'])}（{frac_text(p['frac_below_2^-24_after_x65536'])}）",
                    units.power_of_two(p["median_log2"]),
                    units.power_of_two(p["min_log2"]),
                ]
            )
        ctx["caption"] = f"下溢探针：{units.number(d['probe'][0]['elements'])} 个参数梯度元素，各取一批数据"
        ctx["summary"] = (
            "下溢探针："
            + "；".join(
                f"{names.get(p['when'], p['when'])}有 {frac_text(p['frac_below_2^-24'])} 的梯度元素小于 2⁻²⁴，"
                f"乘 65,536 之后还有 {frac_text(p['frac_below_2^-24_after_x65536'])}"
                for p in d["probe"]
            )
            + "。"
        )
    elif chart == "memory":
        snaps = lab_results.snapshots(d, "fp32")
        acc = d["accounting"]
        xs = [POINT_LABELS[p] for p in POINTS]
        digits = mib_digits(d)  # one precision for the table, the hovers and the summary
        shown = {p: snapshot_texts(snaps[p], digits) for p in POINTS}
        data = []
        for part, color in PART_COLORS.items():
            data.append(
                {
                    "type": "bar",
                    "name": PART_LABELS[part],
                    "x": xs,
                    "y": [snaps[p]["parts"][part] / 2**20 for p in POINTS],
                    "marker": {"color": color},
                    "text": [shown[p][0][part] for p in POINTS],
                    "textposition": "none",
                    "hovertemplate": f"%{{x}} · {PART_LABELS[part]}：%{{text}}<extra></extra>",
                }
            )
        ledger = acc["ledger_model_states_bytes"]
        formula_total = snaps["after_build"]["parts"]["parameters"] + acc["formula_activation_bytes"]
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": "账本：16 B × Ψ（模型状态）",
                "x": [xs[-1]],
                "y": [ledger / 2**20],
                "marker": {"symbol": "line-ew-open", "size": 40, "color": var("ink"), "line": {"width": 3}},
                "hovertemplate": f"账本：16 B × Ψ = {units.size(ledger, 'MiB', digits)}<extra></extra>",
            }
        )
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": "参数 + 第 5 课公式的激活",
                "x": [xs[1]],
                "y": [formula_total / 2**20],
                "hovertemplate": f"参数 + 第 5 课公式的激活：{units.size(formula_total, 'MiB', digits)}<extra></extra>",
                "marker": {
                    "symbol": "line-ew-open",
                    "size": 40,
                    "color": var("formula"),
                    "line": {"width": 3},
                },
            }
        )
        ctx["figure"] = {
            "data": data,
            "layout": _layout(
                "FP32 这一次的四个显存截面（逐个张量计数）",
                "时刻",
                "MiB",
                barmode="stack",
                meta={"narrow_height": 500},
            ),
        }
        ctx["columns"] = ["时刻"] + [PART_LABELS[p] for p in PART_COLORS] + ["合计"]
        # each row's parts add up to its total as shown, at the lab's one precision (lab_text.mib_digits)
        for p in POINTS:
            parts, total = shown[p]
            ctx["rows"].append([POINT_LABELS[p]] + [parts[k] for k in PART_COLORS] + [total])
        ctx["caption"] = (
            "四个截面的分项（FP32 这一次；方法：逐个数活着的张量的存储字节，保存给反向的张量用 PyTorch 的保存钩子截获，"
            "其中含交叉熵存下的对数概率；logits 本身不在其中，单列一列）"
        )
        ctx["summary"] = (
            f"第一次更新后实测 {shown['after_step'][1]}，账本 16 B × Ψ = {units.size(ledger, 'MiB', digits)}；"
            f"前向之后保存给反向的张量 {shown['after_forward'][0]['saved_for_backward']}，"
            f"第 5 课的公式估 {units.size(acc['formula_activation_bytes'], 'MiB', digits)}。"
        )
    if ctx["figure"] is not None:
        ctx["view"] = {"figure": ctx["figure"]}  # the hook serialises it as view_json for data-default
    return ctx
