"""The lab page's figures and charts, from the committed data file (standard library + plotly only)."""

from __future__ import annotations

import re
import statistics

import plotly.graph_objects as go
import pytest
from conftest import ROOT

from c9.core import lab_results
from c9.core.ledger import model_states
from c9.figures import lab as lab_figures
from c9.views import lab_charts, lab_text


@pytest.fixture(scope="module")
def data():
    return lab_results.precision()


def test_committed_file_is_a_full_run(data):
    prov = data["provenance"]
    assert prov["profile"] == "full" and prov["device"] == "cpu"
    assert data["model"]["param_count"] == 3_688_704
    assert prov["wall_time_s"] < 30 * 60


def test_figures_are_unique_and_consistent(data):
    rows = lab_figures.figures(data)
    figs = {r["name"]: r for r in rows}
    assert len(figs) == len(rows)
    assert figs["lab_ledger_mib"]["text"] == "56.2852 MiB"  # 59,019,264 B at the lab's four decimals
    assert figs["lab_ledger_bytes"]["value"] == model_states(3_688_704, "fp32_adamw").bytes
    for name in lab_results.RUN_ORDER:
        assert figs[f"lab_{name}_val_loss"]["value"] == data["runs"][name]["val_loss"]
    # the acceptance criterion the page states: FP16 without scaling loses more gradient elements to zero
    z = {n: data["runs"][n]["mean_zero_grad_fraction"] for n in ("fp16", "fp16_scaled")}
    assert figs["lab_zero_fp16_higher"]["value"] == ("是" if z["fp16"] > z["fp16_scaled"] else "否")


def test_the_memory_prose_and_table_say_the_same_thing(data):
    """The QA tester's lab page: the prose put the logits inside the 10.89 MiB saved for backward while the
    table listed them beside it, and quoted the ledger as 56.3 MiB beside 56.29 MiB. Every figure the memory
    prose quotes is the table's own cell; the parts it names add up as shown. The table once moved a last
    digit so its rows would add up (28.15 MiB for 28.1426…); now every MiB figure is at the lab's one precision,
    four decimals, where each value rounded on its own adds up."""
    figs = {r["name"]: r["text"] for r in lab_figures.figures(data)}
    table = lab_charts.page_context(chart="memory")
    col = {c: i for i, c in enumerate(table["columns"])}
    rows = {r[0]: r for r in table["rows"]}
    fwd, step = rows["前向之后"], rows["第一次优化器更新后"]
    assert figs["lab_fp32_saved_mib"] == fwd[col["保存给反向的张量"]] == "10.8858 MiB"
    assert figs["lab_fp32_logits_mib"] == fwd[col["logits（前向输出）"]] == "1.0000 MiB"
    assert figs["lab_fp32_forward_params_mib"] == fwd[col["参数（FP32）"]] == "14.0713 MiB"
    assert figs["lab_fp32_after_forward_mib"] == fwd[col["合计"]] == "25.9571 MiB"
    # 10.8858 is the model body and the loss head's log-probabilities; the logits are not inside it
    assert (figs["lab_fp32_body_saved_mib"], figs["lab_fp32_head_saved_mib"]) == ("9.8848 MiB", "1.0010 MiB")
    # the ledger and the measured state after the step, 108 B apart, and the last row adds up as shown
    assert figs["lab_fp32_after_step_mib"] == step[col["合计"]] == "56.2853 MiB"
    assert figs["lab_ledger_mib"] == "56.2852 MiB" and figs["lab_fp32_step_minus_ledger"] == "108 B"
    # the parameters and the gradients are the same 4 B × Ψ and read the same; AdamW's state is their
    # double plus 108 B of step counters
    assert step[1:] == [
        "14.0713 MiB",
        "14.0713 MiB",
        "28.1427 MiB",
        "0.0000 MiB",
        "0.0000 MiB",
        "56.2853 MiB",
    ]
    assert "末位" not in table["caption"]
    # the sign of a difference in words, not an ASCII minus
    assert figs["lab_bf16_vs_fp32_val"] == "低 0.0001"


def test_sci_format():
    assert lab_text.sci(0.000123456) == "1.2 × 10⁻⁴"
    assert lab_text.sci(9.996e-3) == "1.0 × 10⁻²"


@pytest.mark.parametrize("chart", lab_charts.CHARTS)
def test_charts_are_valid_plotly_and_whole_without_js(chart):
    ctx = lab_charts.page_context(chart=chart)
    assert ctx["summary"] and ctx["columns"] and ctx["rows"] is not None
    if ctx["figure"] is not None:
        go.Figure(ctx["figure"])  # raises on a misspelt property
    if chart == "table":
        n = lab_results.precision()["throughput"]["repeats"]
        assert ctx["columns"][1:5] == [
            lab_charts.THROUGHPUT_COLUMN.format(n=n),
            "显存（四个截面的最大值）",
            "验证集 loss",
            "跳过步数",
        ]
        assert len(ctx["rows"]) == 4


def test_unknown_chart_is_refused():
    with pytest.raises(ValueError):
        lab_charts.page_context(chart="nope")


def test_logits_width_ratio_is_read_from_the_lab_config():
    """The page once typed 「宽 8 倍」; the figure comes from lab/config.json (vocab 2,048 over h = 256)."""
    import json

    cfg = json.loads((ROOT / "lab" / "config.json").read_text())["model"]
    fig = {r["name"]: r for r in lab_figures.figures()}["lab_logits_over_hidden"]
    assert cfg["vocab_size"] / cfg["d_model"] == 8 and fig["text"] == "8"


def test_a_signed_difference_reads_as_chinese():
    """The lab's prose read 「BF16 比 FP32 -0.0001」; the figure now gives 「低 0.0001」."""
    from c9.figures.lab import higher_or_lower

    assert higher_or_lower(-0.00012, 4) == "低 0.0001"
    assert higher_or_lower(0.03125, 4) == "高 0.0313"
    assert higher_or_lower(0.00001, 4) == "相差不到 0.0001"
    f = {r["name"]: r for r in lab_figures.figures()}
    text = f["lab_bf16_vs_fp32_val"]["text"]
    assert re.fullmatch(r"(高|低) \d\.\d{4}|相差不到 0\.0001", text), text
    assert f["lab_probe_trained_median_log2"]["text"].startswith("2 的 −")  # not 2^-9.8


def test_throughput_is_the_repeated_cpu_time_measure(data):
    """The comparison table's throughput: tokens per CPU-second over repeated blocks of steps (one thread),
    median with the lowest and highest; the figures and the table cell are those of the data file."""
    tp = data["throughput"]
    assert tp["threads"] == 1 and tp["repeats"] >= 5
    figs = {r["name"]: r for r in lab_figures.figures(data)}
    table = {r[0]: r for r in lab_charts.page_context(chart="table")["rows"]}
    for name in lab_results.RUN_ORDER:
        r = tp["runs"][name]
        per = [tp["tokens_per_repeat"] / c for c in r["cpu_seconds"]]
        assert len(per) == tp["repeats"] and per == pytest.approx(r["tokens_per_cpu_s"])
        assert statistics.median(per) == pytest.approx(r["tokens_per_cpu_s_median"])
        assert (min(per), max(per)) == (
            pytest.approx(r["tokens_per_cpu_s_min"]),
            pytest.approx(r["tokens_per_cpu_s_max"]),
        )
        assert figs[f"lab_{name}_tpc"]["value"] == r["tokens_per_cpu_s_median"]
        cell = figs[f"lab_{name}_tpc_cell"]["text"]
        assert table[data["runs"][name]["label"]][1] == cell
        assert re.fullmatch(r"[\d,]+（[\d,]+–[\d,]+）", cell)
    # the ranking the pages state is the one every repeat shows (or the pages say it is not)
    order = figs["lab_tp_order"]["value"]
    lo = {n: tp["runs"][n]["tokens_per_cpu_s_min"] for n in order}
    hi = {n: tp["runs"][n]["tokens_per_cpu_s_max"] for n in order}
    clean = all(lo[a] > hi[b] for a, b in zip(order, order[1:]))
    assert figs["lab_tp_order_clean"]["value"] == clean
    ratio = tp["runs"]["bf16"]["tokens_per_cpu_s_median"] / tp["runs"]["fp32"]["tokens_per_cpu_s_median"]
    assert figs["lab_bf16_speed_vs_fp32"]["value"] == pytest.approx(ratio)


def test_guide_page_carries_the_comparison_table(built_site, data):
    """The chapter guide repeats the lab's comparison: per run the throughput cell, the peak memory,
    the val loss and the skipped steps, as the lab's data file gives them."""
    import html as html_lib

    text = html_lib.unescape(re.sub(r"<[^>]+>", "|", (built_site / "index.html").read_text(encoding="utf-8")))
    figs = {r["name"]: r["text"] for r in lab_figures.figures(data)}
    for name in lab_results.RUN_ORDER:
        row = [figs[f"lab_{name}_{k}"] for k in ("tpc_cell", "peak_mib_table", "val_loss", "skipped")]
        assert all(cell in text for cell in row), (name, row)
    assert figs["lab_fp32_peak_mib_table"] == "56.2853 MiB"
    assert figs["lab_fp16_scaled_skipped"] == str(data["runs"]["fp16_scaled"]["skipped_steps"])


def test_guide_table_is_the_lab_tables_first_columns(built_site, data):
    """The guide headed its memory column 「显存峰值」 while the lab page (whose data it repeats)
    says the column is the largest of four snapshots and the true peak lies higher. The guide's table is the
    lab's, header and cells, column for column."""
    from page_text import article, tables

    def comparison(page):
        return next(t for t in tables(article(built_site / page)) if t[0][1].startswith("tokens / CPU 秒"))

    guide, lab = comparison("index.html"), comparison("lab/index.html")
    assert [r[: len(guide[0])] for r in lab] == guide
    figs = {r["name"]: r["text"] for r in lab_figures.figures(data)}
    assert guide[0][2] == "显存（四个截面的最大值）"
    assert guide[1][:3] == ["FP32", figs["lab_fp32_tpc_cell"], figs["lab_fp32_peak_mib_table"]]


def test_the_machine_paragraph_claims_only_what_was_run_or_documented():
    """The page told how a rerun on another CPU would differ (「BF16 … 小的出入，FP32 的出入更小」),
    which nobody had run; it now rests on PyTorch's reproducibility note and says what was not checked."""

    text = (ROOT / "docs" / "lab.md").read_text(encoding="utf-8")
    machine = next(p for p in text.split("\n\n") if p.startswith("**机器**"))
    assert "FP32 的出入更小" not in machine
    assert "](https://docs.pytorch.org/docs/2.13/notes/randomness.html)" in machine
    assert "没有在别的 CPU 上核对过" in machine


def test_the_memory_task_asks_what_the_table_shows_and_its_answer_holds():
    """The task asked for the 「显存峰值」 and answered 「四次一样高」, while part four says the real high
    point (model states plus the saved tensors) differs by precision; it now asks about the table's column, the
    maximum of the four snapshots, which is the same in all four runs while the saved part is not."""

    import build_numbers

    figs = build_numbers.compute()
    peaks = {figs[f"lab_{r}_peak_mib_table"].text for r in ("fp32", "bf16", "fp16", "fp16_scaled")}
    assert len(peaks) == 1
    assert figs["lab_fp32_saved_mib"].text != figs["lab_bf16_saved_mib"].text
    text = (ROOT / "docs" / "lab.md").read_text(encoding="utf-8")
    task = text.split('!!! task "先猜再看表', 1)[1].split("{{ widget(", 1)[0]
    assert "四个截面里最大的那个" in task and "{{ fig.lab_bf16_saved_mib }}" in task
    assert "显存峰值" not in text
