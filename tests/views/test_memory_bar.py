"""Lesson 5's memory-bar view and the worker's JSON API: numbers, validation, Plotly spec."""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pytest
from conftest import ROOT
from svg_chart import NS, bar_rows, bar_values, parse, reference_line

from c9.base import units
from c9.core.activations import MODES
from c9.core.models import load_facts
from c9.views import api, memory_bar

GiB, GB = 2**30, 10**9
FACTS_CARDS = load_facts()["cards"]["list"]
UNIT_BYTES = {"GB": GB, "MB": 10**6}


def ask(**params):
    return json.loads(api.handle(json.dumps({"widget": "memory-bar", "params": params})))


def test_default_view_is_the_lessons_reference_state():
    v = memory_bar.view()
    assert v["params"] == memory_bar.DEFAULTS
    assert v["activation_bytes"] == 174_483_046_400
    assert v["states_bytes"] == 16 * 27_781_427_952
    assert v["total_bytes"] == v["activation_bytes"] + v["states_bytes"]
    assert sum(s["bytes"] for s in v["segments"]) == v["total_bytes"]
    assert "162.5 GiB" in v["summary"] and "73.8%" in v["summary"]
    bars = bar_values(v["chart"])
    assert [k for k, _ in bars] == [seg["key"] for seg in v["segments"]]
    assert sum(x for _, x in bars) == pytest.approx(v["total_bytes"] / GB, rel=1e-4)
    card_gb, label = reference_line(v["chart"])
    assert card_gb == pytest.approx(80) and label == "80 GB 卡"


def test_model_states_in_gb_activations_in_gib_beside_and_a_sum_in_one_unit():
    """The memory bar introduced the 444.5 GB model states as 「414.0 GiB」."""
    v = memory_bar.view()
    assert "模型状态 444.5 GB，激活 174.5 GB（162.5 GiB）" in v["summary"]
    assert "合计 444.5 GB + 174.5 GB = 619.0 GB" in v["summary"]
    assert "414.0 GiB" not in v["summary"]
    texts = [s["text"] for s in v["segments"]]
    assert texts == [
        "55.6 GB",
        "55.6 GB",
        "111.1 GB",
        "111.1 GB",
        "111.1 GB",
        "45.6 GB（42.5 GiB）",
        "128.9 GB（120.0 GiB）",
    ]
    # the rows as shown add up to the total as shown, at the summary's one decimal: 619.0 GB
    assert sum(Decimal(t.split(" GB")[0]) for t in texts) == Decimal("619.0")
    small = memory_bar.view({"model": "lab", "s": 64, "b": 2})
    assert "模型状态 59.0 MB，激活 5.1 MB（4.9 MiB）" in small["summary"] and "GiB" not in small["summary"]


def test_s_8192_and_batch_2_as_the_browser_test_moves_them():
    v = ask(s=8192, b=2)["view"]
    s, b, h, a, L = 8192, 2, 5120, 24, 64
    assert v["activation_bytes"] == L * (34 * s * b * h + 5 * a * s * s * b)
    assert "1,130.0 GiB" in v["summary"]  # 64 × (34sbh + 5as²b) = 1,213,328,261,120 B


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("model", ["qwen3.8-27b", "qwen3-8b"])
def test_every_mode_and_model_gives_a_valid_figure(mode, model):
    for s in (memory_bar.S_MIN, 4096, memory_bar.S_MAX):
        v = ask(model=model, mode=mode, s=s, b=8, s2_full_only=True)
        assert v["ok"], v
        scale = GB if v["view"]["total_bytes"] >= GB else 10**6
        keys = {seg["key"] for seg in v["view"]["segments"]}
        bars = bar_values(v["view"]["chart"])
        assert sum(x * scale for k, x in bars if k in keys) == pytest.approx(
            v["view"]["total_bytes"], rel=1e-4
        )
        own = v["view"]["own_activation_bytes"]
        if own is not None:  # a model with a config: a second bar, the model's own tensors
            assert sum(x * scale for k, x in bars if k.startswith("o_")) == pytest.approx(
                v["view"]["states_bytes"] + own, rel=1e-4
            )


def test_s2_switch_only_changes_store_all():
    on, off = ask(s2_full_only=True)["view"], ask()["view"]
    assert "72.5 GiB" in on["summary"] and on["activation_bytes"] < off["activation_bytes"]
    assert (
        ask(mode="selective", s2_full_only=True)["view"]["activation_bytes"]
        == ask(mode="selective")["view"]["activation_bytes"]
    )


def test_number_typed_as_text_is_accepted():
    assert ask(s="8,192")["view"]["params"]["s"] == 8192
    assert ask(s="1e3")["view"]["params"]["s"] == 1000
    assert ask(s=" 4096 ")["view"]["params"]["s"] == 4096


@pytest.mark.parametrize(
    "params,message",
    [
        ({"s": 0}, "序列长度 s 要在 1 到 1,048,576 之间"),
        ({"s": 1048577}, "之间"),
        ({"s": "abc"}, "要是整数"),
        ({"s": "1/0"}, "要是整数"),
        ({"s": "4096.5"}, "要是整数"),
        ({"s": "1e400"}, "之间"),
        ({"s": ""}, "不能为空"),
        ({"s": "  "}, "不能为空"),
        ({"s": 1e400}, "要是整数"),
        ({"s": float("nan")}, "要是整数"),
        ({"s": 4096.5}, "要是整数"),
        ({"b": 0}, "batch b 要在 1 到 1,024 之间"),
        ({"b": 1025}, "之间"),
        ({"b": "2,048"}, "之间"),
        ({"b": True}, "要是整数"),
        ({"mode": "zip"}, "没有这种存储方式"),
        ({"model": "gpt-5"}, "没有这个模型"),
        ({"s2_full_only": "yes"}, "只能是开或关"),
        ({"colour": "red"}, "不认识的参数"),
    ],
)
def test_bad_input_gives_a_chinese_message(params, message):
    out = ask(**params)
    assert out["ok"] is False
    assert message in out["error"]


@pytest.mark.parametrize(
    "raw", ["", "not json", "[]", '{"widget": "nope"}', '{"widget": "memory-bar", "params": 3}', "null"]
)
def test_malformed_requests_never_raise(raw):
    out = json.loads(api.handle(raw))
    assert out["ok"] is False and out["error"]


def test_every_widget_module_names_itself_as_registered():
    for name in api.WIDGETS:
        module = api.widget_module(name)
        assert module.WIDGET == name
        assert callable(module.page_context)


def test_the_api_imports_widget_modules_only_when_asked():
    import subprocess
    import sys

    code = (
        "import sys, json; from c9.views import api; "
        "api.handle(json.dumps({'widget': 'memory-bar', 'params': {}})); "
        "print(sorted(m for m in sys.modules if m.startswith('c9.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=str(ROOT),
    ).stdout
    assert "c9.core.formats" not in out and "c9.core.blockscale" not in out, out
    assert "c9.views.memory_bar" in out


def test_our_small_model_shows_the_labs_measured_bar_at_its_own_s_and_b():
    """At the lab's s = 64, b = 2 the bar gains a measured row: model states from the snapshot after
    the first step (= the FP32 ledger + AdamW's step counters), activations from the one after forward."""
    v = memory_bar.view({"model": "lab", "s": 64, "b": 2})
    psi = 3_688_704
    assert v["params"]["recipe"] == "fp32_adamw" and v["states_bytes"] == 16 * psi
    assert v["activation_bytes"] == 4 * 64 * 2 * 256 * (34 + 5 * 4 * 64 // 256)  # L·s·b·h·(34 + 5as/h)
    assert bar_rows(v["chart"]) == ["推演", "实测"]
    measured = sum(x for k, x in bar_values(v["chart"]) if k.startswith("m_")) * 10**6  # the axis is in MB
    assert measured == pytest.approx(59_019_372 + 11_414_548 + 1_048_576, rel=1e-4)
    assert "实测" in v["summary"]
    # Another s: no measurement to compare with.
    assert bar_rows(memory_bar.view({"model": "lab", "s": 128, "b": 2})["chart"]) == []


@pytest.mark.parametrize(
    "params",
    [
        {"model": "qwen3-8b", "s": 21131, "b": 7, "mode": "full_recompute"},
        {"model": "qwen3-8b", "s": 4096, "b": 1, "mode": "store_all"},
        {"model": "qwen3.8-27b", "s": 131072, "b": 8, "mode": "selective"},
        {"model": "lab", "s": 64, "b": 2},
    ],
)
def test_segments_groups_and_summary_add_up_at_one_decimal(params):
    """Reviewer: Qwen3-8B, s 21,131, b 7 printed states 16.3815 ×2 + 32.7629 ×3 = 131.0517 against 131.0518,
    segments summing to 174.6742 against 174.6743, and 「0.0000 GB」 beside a summary at one decimal."""
    v = memory_bar.view(params)
    num = lambda t: Decimal(t.split(" ")[0].replace(",", ""))
    texts = [s["text"] for s in v["segments"]]
    assert all(len(t.split(" ")[0].split(".")[-1]) == 1 for t in texts), texts
    a, b, c = re.search(r"合计 ([\d,.]+) [GM]B \+ ([\d,.]+) [GM]B = ([\d,.]+) [GM]B", v["summary"]).groups()
    states = [num(s["text"]) for s in v["segments"] if s["group"] == "模型状态"]
    acts = [num(s["text"]) for s in v["segments"] if s["group"] == "激活"]
    assert sum(states) == num(a) and sum(acts) == num(b) and num(a) + num(b) == num(c)
    if params["model"] == "qwen3-8b" and params["s"] == 21131:
        assert "0.0 GB（0.0 GiB）" in texts[-1] and "174.7 GB" in v["summary"]
        assert units.ADJUSTED_NOTE in v["summary"]  # 32.7629 shown as 32.7: the page says why


@pytest.mark.parametrize("mode", list(MODES))
def test_every_activation_row_pairs_gb_with_gib(mode):
    """In full-recompute mode a row read 「0.0 GB（0.0 MiB）」 while the others paired GB
    with GiB. One pairing on every activation row and in the summary: GB with GiB beside."""
    v = memory_bar.view({"mode": mode})
    acts = [s["text"] for s in v["segments"] if s["group"] == "激活"]
    assert acts and all(re.fullmatch(r"[\d,.]+ GB（[\d,.]+ GiB）", t) for t in acts), acts
    assert re.search(r"激活 [\d,.]+ GB（[\d,.]+ GiB）", v["summary"])


@pytest.mark.parametrize("model", ["qwen3-8b", "qwen3.8-27b", "llama-3.1-8b"])
def test_the_model_states_shown_do_not_move_with_s_or_b(model):
    """Model states do not depend on s or b, so their shown value must not either (a total rounded first
    and shared out between the groups moved Qwen3-8B's 131.05 GB between 131.0 and 131.1 GB)."""
    shown = set()
    for s, b in [(1, 1), (4096, 1), (8192, 1), (4096, 3), (131072, 8)]:
        v = memory_bar.view({"model": model, "s": s, "b": b})
        shown.add(v["summary"].split("模型状态 ", 1)[1].split("，", 1)[0])
    assert len(shown) == 1, shown


def _bar_share(svg: str) -> float:
    """The longest bar's length as a share of the chart's width, read off the drawn rectangles."""
    widths: dict[float, float] = {}
    for r in parse(svg).iter(NS + "rect"):
        if r.get("data-key"):
            widths[float(r.get("y"))] = widths.get(float(r.get("y")), 0) + float(r.get("width")[:-1])
    return max(widths.values()) / 100


SMALL_STEPS = [  # our 64 MB model against the 80 GB card: every mode, and the s² box, at the lab's s and b
    {"model": "lab", "s": 64, "b": 2, "mode": mode} for mode in MODES
] + [
    {"model": "lab", "s": 64, "b": 2, "s2_full_only": True},
    {"model": "lab", "s": 4096, "b": 1},
    {"model": "gpt2-xl", "s": 1, "b": 1, "card": "mi355x-288gb"},
]


@pytest.mark.parametrize("params", SMALL_STEPS)
def test_a_bar_far_below_its_card_stays_visible_and_the_card_is_marked_off_scale(params):
    """Reviewer: at s = 64, b = 2 in any mode but 全存 the axis ran to the 80 GB card and our 64 MB bar
    took 0.08 % of the chart. The axis fits the bars when the card is beyond stacked_bar.FAR times the
    longest; the card is then named at the right end of the chart and in the summary, with how far off it is."""
    v = memory_bar.view(params)
    card = next(c for c in FACTS_CARDS if c["key"] == v["params"]["card"])
    assert card["memory_bytes"] > 4 * v["total_bytes"]  # the premise: far off
    assert _bar_share(v["chart"]) >= 0.2
    assert reference_line(v["chart"]) is None
    far = [t.text for t in parse(v["chart"]).iter(NS + "text") if t.get("class") == "c9-bar-far"]
    gb = round(card["memory_bytes"] / GB)
    assert far == [f"{gb} GB 卡容量在右侧很远处 →"]
    ratio = f"{round(card['memory_bytes'] / v['total_bytes']):,}"
    assert f"{gb} GB 单卡的容量是这一步的 {ratio} 倍，远在图的右侧" in v["summary"]
    assert "没有按比例画出" in parse(v["chart"]).get("aria-label")


@pytest.mark.parametrize(
    "params", [{}, {"model": "qwen3-8b"}, {"model": "lab", "s": 65536, "b": 16}, {"card": "rtx-4090-24gb"}]
)
def test_a_card_within_reach_is_still_drawn_where_it_falls(params):
    v = memory_bar.view(params)
    card = next(c for c in FACTS_CARDS if c["key"] == v["params"]["card"])
    assert card["memory_bytes"] <= 4 * v["total_bytes"]
    at, label = reference_line(v["chart"])
    assert at * UNIT_BYTES[label.split()[1]] == pytest.approx(card["memory_bytes"], rel=1e-4)
    assert "远在图的右侧" not in v["summary"] and "c9-bar-far" not in v["chart"]
