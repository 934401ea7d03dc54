"""Lesson 5's memory-bar view and the worker's JSON API: numbers, validation, Plotly spec."""

from __future__ import annotations

import json
import re
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

import pytest
from conftest import ROOT
from svg_chart import NS, bar_rows, bar_values, parse, reference_line

from c9.base import units
from c9.core.activations import MODES
from c9.core.models import load_facts
from c9.views import api, memory_bar, memory_tables

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
        "128.8 GB（120.0 GiB）",
    ]
    # each segment its own value rounded (128.849… is 128.8, not moved to 128.9 to make 174.5): the model
    # states' rows add up to their 444.5 GB, and where the activations' rows do not, the summary says so
    assert "分项表里激活的各行各自四舍五入，加起来是 174.4 GB，与上面的 174.5 GB 差在末位。" in v["summary"]
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
        ({"b": 0}, "micro-batch 大小 b 要在 1 到 1,024 之间"),
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


def _exact(n_bytes: int, unit: str, digits: int) -> Decimal:
    """An oracle for one shown size: the exact bytes in ``unit``, rounded half-up with Decimal's own rule
    (not units.round_half_up); the context is wide enough for any byte count the bar shows."""
    with localcontext() as ctx:
        ctx.prec = 60
        return (Decimal(n_bytes) / Decimal(units.UNITS[unit])).quantize(
            Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP
        )


def _num(t: str) -> Decimal:
    return Decimal(t.split(" ")[0].replace(",", ""))


@pytest.mark.parametrize(
    "params",
    [
        {"model": "qwen3-8b", "s": 21131, "b": 7, "mode": "full_recompute"},
        {"model": "qwen3-8b", "s": 4096, "b": 1, "mode": "store_all"},
        {"model": "qwen3.8-27b", "s": 131072, "b": 8, "mode": "selective"},
        {"model": "llama-3.1-70b", "s": 4096, "b": 1, "mode": "store_all"},
        {"model": "lab", "s": 64, "b": 2},
        {"model": "lab", "s": 4096, "b": 1},
        {"model": "gpt2-xl", "s": 1024, "b": 3, "mode": "flash"},
    ],
)
def test_every_sum_the_bar_prints_is_true_and_equal_segments_read_equal(params):
    """Qwen3-8B once printed 131.1 GB + 117.2 GB = 248.3 GB (the true total is 248.22 GB), our model at
    s = 4,096 0.1 GB + 1.5 GB = 1.6 GB beside a share of 1.93% (1.544 GB), and equal rows different values
    (Llama-3.1-70B's three 4Ψ rows 282.3, 282.2, 282.2 GB). Every value is its own exact value rounded, at
    one precision for the widget; the printed sum adds up as shown; a group's rows add up to the group's
    value, or the summary says by how much they miss (a reviewer once found 16.3815 × 2 + 32.7629 × 3 =
    131.0517 against 131.0518)."""
    v = memory_bar.view(params)
    a, b, c = re.search(r"合计 ([\d,.]+) ([GM]B) \+ ([\d,.]+) [GM]B = ([\d,.]+) [GM]B", v["summary"]).group(
        1, 3, 4
    )
    unit = re.search(r"合计 [\d,.]+ ([GM]B)", v["summary"]).group(1)
    digits = len(a.split(".")[1])
    assert (_num(a), _num(b), _num(c)) == tuple(
        _exact(n, unit, digits) for n in (v["states_bytes"], v["activation_bytes"], v["total_bytes"])
    )
    assert _num(a) + _num(b) == _num(c)
    # the share of the card is the true total's, and agrees with the total as shown: some value that
    # rounds to the shown total gives a share that rounds to the shown share
    share = re.search(r"只占 [^的]+的 ([\d.]+)%", v["summary"])
    if share:
        card, scale = 80 * 10**9, units.UNITS[unit]
        with localcontext() as ctx:
            ctx.prec = 60
            true = (Decimal(100 * v["total_bytes"]) / card).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
            assert Decimal(share.group(1)) == true
            from_shown = _num(c) * scale * 100 / card
            slack = Decimal("0.005") + Decimal(scale) * 100 / card * Decimal(1).scaleb(-digits) / 2
            assert abs(Decimal(share.group(1)) - from_shown) <= slack
    for seg in v["segments"]:
        assert _num(seg["text"]) == _exact(seg["bytes"], unit, digits), seg
    by_bytes = {}
    for seg in v["segments"]:
        by_bytes.setdefault(seg["bytes"], set()).add(seg["text"])
    assert all(len(t) == 1 for t in by_bytes.values()), by_bytes
    for group, total in (("模型状态", a), ("激活", b)):
        rows = sum(_num(s["text"]) for s in v["segments"] if s["group"] == group)
        note = (
            f"分项表里{group}的各行各自四舍五入，加起来是 {rows:,} {unit}，与上面的 {total} {unit} 差在末位。"
        )
        assert (rows == _num(total)) != (note in v["summary"]), (group, rows, total)
    if params["model"] == "llama-3.1-70b":  # three decimals: every row reads true and they add up
        assert [s["text"] for s in v["segments"]][:5] == ["141.107 GB"] * 2 + ["282.215 GB"] * 3
        assert "合计 1,128.859 GB + 520.765 GB = 1,649.624 GB" in v["summary"]
    if params["model"] == "qwen3-8b" and params["s"] == 4096:
        assert "合计 131.052 GB + 117.172 GB = 248.224 GB" in v["summary"]
    if params["model"] == "lab" and params["s"] == 4096:
        assert "合计 0.06 GB + 1.48 GB = 1.54 GB，只占 80 GB 单卡的 1.93%" in v["summary"]
        assert "还空着 78.46 GB" in v["cards"]  # 1.54 + 78.46 = 80


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
    and shared out between the groups moved Qwen3-8B's 131.05 GB between 131.0 and 131.1 GB). The widget's
    precision may change with s (a sum that needs a digit more), but every text is the same exact value
    rounded: never two values at one precision."""
    states = memory_bar.view({"model": model})["states_bytes"]
    for s, b in [(1, 1), (4096, 1), (8192, 1), (4096, 3), (131072, 8), (21131, 7)]:
        v = memory_bar.view({"model": model, "s": s, "b": b})
        text = v["summary"].split("模型状态 ", 1)[1].split("，", 1)[0]
        digits = len(text.split(" ")[0].split(".")[1])
        assert _num(text) == _exact(states, "GB", digits), (s, b, text)


def _table_cells(markup: str) -> list[list[str]]:
    """A table's rows as cell texts (the estimator's tables are plain markup: th/td without nesting)."""
    rows = re.findall(r"<tr>(.*?)</tr>", markup)
    return [[re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r)] for r in rows]


QWEN3_8B = json.dumps(json.loads((ROOT / "anchor-model.json").read_text())["models"]["qwen3-8b"]["config"])


@pytest.mark.parametrize(
    "params",
    [
        {"model": "qwen3-8b", "s": 4096, "b": 1},
        {"model": "llama-3.1-70b", "s": 8192, "b": 2, "mode": "selective"},
        {"model": "llama-3.1-8b", "s": 1000, "b": 3},
        {"model": "qwen3-30b-a3b", "s": 64, "b": 8, "mode": "flash"},
        {"model": "gpt2-xl", "s": 21131, "b": 7},
        {"model": "lab", "s": 64, "b": 2},
        {"config": QWEN3_8B, "s": 333, "b": 5},
    ],
)
def test_the_estimators_answers_total_the_true_values(params):
    """Through the worker's entry point (c9.views.api.handle), as the page asks: the bar's printed sum, the
    eq. 1 and own-tensor tables (each row its own bytes rounded, one precision for both tables, the total
    row the true total rounded and the rows adding up to it as shown), and the formula view's one-layer sum."""
    v = ask(**params)["view"]
    a, b, c = re.search(r"合计 ([\d,.]+) [GM]B \+ ([\d,.]+) [GM]B = ([\d,.]+) [GM]B", v["summary"]).groups()
    unit = re.search(r"合计 [\d,.]+ ([GM]B)", v["summary"]).group(1)
    d = len(a.split(".")[1])
    assert [_num(x) for x in (a, b, c)] == [
        _exact(n, unit, d) for n in (v["states_bytes"], v["activation_bytes"], v["total_bytes"])
    ]
    assert (_num(a) + _num(b) == _num(c)) != (
        f"（两项各自四舍五入，加起来是 {_num(a) + _num(b):,} {unit}）" in v["summary"]
    )
    m = memory_bar.normalise(params)
    model_ = memory_bar.resolve(m["model"], m["config"])
    acts = memory_tables.activation_tables(model_, m["s"], m["b"], m["mode"])
    precisions = set()
    for part in ("eq1", "own"):
        if not v["detail"][part]:
            continue
        body = _table_cells(v["detail"][part])[1:]
        rows, total = body[:-1], body[-1]
        bytes_ = [r["bytes"] for r in acts[part]["rows"]]
        shown = [r[3] for r in rows]
        digits = len(total[3].split(" ")[0].split(".")[1])
        precisions.add(digits)
        assert [_num(t) for t in shown] == [_exact(n, acts["unit"], digits) for n in bytes_]
        assert _num(total[3]) == _exact(sum(bytes_), acts["unit"], digits)
        # the rows add up to the total as shown, or the note under the tables says what they make
        made = sum((_num(t) for t in shown), Decimal(0))
        name = {"eq1": "按式 1 的表", "own": "按模型自己的张量的表"}[part]
        said = f"{name}各行各自四舍五入，加起来是 {made:,} {acts['unit']}，与合计 {total[3]} 差在末位。"
        assert (made == _num(total[3])) != (said in v["detail"]["act_note"]), (made, total[3])
    assert len(precisions) == 1  # a tensor in both tables reads the same in both
    if "config" not in params:
        f = json.loads(api.handle(json.dumps({"widget": "formula", "params": params | {"mode": None}})))
        if not f["ok"]:  # the formula view takes no mode: ask it as the page does
            q = {k: params[k] for k in ("model", "s", "b")}
            f = json.loads(api.handle(json.dumps({"widget": "formula", "params": q})))
        s = f["view"]["summary"]
        lin, sc, tot = re.search(r"= ([\d,.]+ \w+) \+ ([\d,.]+ \w+) = ([\d,.]+ \w+)[（，]", s).groups()
        u = lin.split(" ")[1]
        digits = len(lin.split(" ")[0].split(".")[1])
        h, heads = model_.h, model_.a
        s_, b_ = m["s"], m["b"]
        exact = [34 * s_ * b_ * h, 5 * heads * s_ * s_ * b_]
        assert [_num(lin), _num(sc)] == [_exact(n, u, digits) for n in exact]
        assert _num(tot) == _exact(sum(exact), u, digits)
        made = _num(lin) + _num(sc)
        assert (made == _num(tot)) != (f"（两项各自四舍五入，加起来是 {made:,} {u}）" in s)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("key,L,h,a", [("qwen3-8b", 36, 4096, 32), ("qwen3.8-27b", 64, 5120, 24)])
def test_fp8_recipes_cache_linear_inputs_in_one_byte(key, L, h, a):
    """Eq. 1 with the Linear inputs an FP8 recipe caches in FP8 (one byte saved each): Transformer Engine
    all four (QKV h, output projection h, MLP h and 4h: 7·sbh), DeepSeek-V3 all but the E5M6 one (6·sbh)."""
    s, b = 4096, 2
    bf16 = memory_bar.view({"model": key, "s": s, "b": b})
    assert bf16["activation_bytes"] == L * (34 * s * b * h + 5 * a * s * s * b)
    for recipe, saved, per in (("te_fp8_delayed", 7, 18), ("deepseek_v3_fp8", 6, 12)):
        v = memory_bar.view({"model": key, "s": s, "b": b, "recipe": recipe})
        assert v["activation_bytes"] == L * ((34 - saved) * s * b * h + 5 * a * s * s * b)
        assert v["states_bytes"] == per * bf16["states_bytes"] // 16
    flash = memory_bar.view({"model": key, "s": s, "b": b, "mode": "flash", "recipe": "te_fp8_delayed"})
    assert flash["activation_bytes"] == L * 27 * s * b * h
    # MXFP8: the same four inputs, each with one E8M0 byte per 32 numbers, so each saves 31/32 byte
    mx = memory_bar.view({"model": key, "s": s, "b": b, "mode": "flash", "recipe": "te_mxfp8"})
    exact = L * (34 - Fraction(7 * 31, 32)) * s * b * h
    assert mx["activation_bytes"] == -(-exact.numerator // exact.denominator)
    assert mx["activation_bytes"] - flash["activation_bytes"] == L * 7 * s * b * h // 32


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


@pytest.mark.parametrize("recipe", ["te_fp8_delayed", "deepseek_v3_fp8"])
def test_a_recipes_unsized_copies_are_named_once_and_spaced(recipe):
    """「…的来源还提到FP8 权重……条里没有计入（……不计入合计）」: Chinese ran into a Latin word, and the
    sentence said twice that the copy is left out."""
    from c9.core.ledger import open_rows

    s = memory_bar.view({"recipe": recipe})["summary"]
    start = s.index("的来源还提到")
    sentence = s[start : s.index("。", start) + 1]
    assert re.search(r"[\u4e00-\u9fff][A-Za-z0-9]", sentence) is None, sentence
    assert all(label in sentence and why in sentence for label, why in open_rows(recipe))
    assert sum(sentence.count(w) for w in ("没有计入", "不计入", "这里不计")) == 1, sentence


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"model": "gpt2-xl", "s": 16},
        {"model": "llama-3.1-8b", "s": 4096},
        {"model": "qwen3-30b-a3b", "b": 8},
    ],
)
def test_an_activations_gib_twin_is_as_fine_as_its_gb_value(params):
    """「激活 0.004 GB（0.0 GiB）」 and 「117.172 GB（109.1 GiB）」: the twin of one quantity read coarser."""
    v = memory_bar.view(params)
    pairs = re.findall(r"(\d[\d,]*(?:\.(\d+))?) GB（(\d[\d,]*(?:\.(\d+))?) GiB）", v["summary"])
    pairs += [
        m
        for s in v["segments"]
        for m in re.findall(r"(\d[\d,]*(?:\.(\d+))?) GB（(\d[\d,]*(?:\.(\d+))?) GiB）", s["text"])
    ]
    assert pairs and all(len(gib_d) >= len(gb_d) for _, gb_d, _, gib_d in pairs), pairs


def test_the_ledgers_card_column_shows_the_share_the_summary_states():
    """At 10⁸ parameters every row of 「80 GB 卡的几倍」 read 0.0 while the summary said 占卡的 2.0%."""
    from c9.views import ledger

    v = ledger.view({"model": "custom", "log10_params": 8})
    card = 80 * 10**9
    for b in v["bars"]:
        shown = Decimal(b["cards_column"])
        assert shown != 0 and abs(shown - Decimal(b["bytes"]) / card) <= Decimal(b["bytes"]) / card / 20, b
    assert next(b for b in v["bars"] if b["key"] == "bf16_mixed_adamw")["cards_column"] == "0.020"
    big = ledger.view({"model": "custom", "log10_params": 12})
    assert all(b["cards_column"] == b["cards"] for b in big["bars"])


PASTED = {k: v["config"] for k, v in load_facts()["pasted_configs"].items() if k != "about"}


def _pasted(key: str, **params) -> dict:
    out = ask(config=json.dumps(PASTED[key]), **params)
    assert out["ok"], out
    return out["view"]


def _row_labels(markup: str) -> list[str]:
    return re.findall(r'<th scope="row">(.*?)</th>', markup)


@pytest.mark.parametrize("key", ["gemma-3-4b-it", "gemma-2-9b"])
def test_a_tied_output_layer_says_it_shares_the_embedding_table(key):
    cfg = PASTED[key]
    tied = cfg.get("tie_word_embeddings", True)  # both Gemmas tie by default (transformers' config classes)
    assert tied
    labels = _row_labels(_pasted(key)["detail"]["params"])
    assert [x for x in labels if x.startswith("输出层")] == ["输出层（与词嵌入表共用同一矩阵，不另计）"]


def test_an_untied_output_layer_keeps_its_plain_name():
    assert PASTED["phi-3-mini-4k-instruct"]["tie_word_embeddings"] is False
    labels = _row_labels(_pasted("phi-3-mini-4k-instruct")["detail"]["params"])
    assert [x for x in labels if x.startswith("输出层")] == ["输出层"]


def test_the_s2_switch_counts_the_layers_of_the_model_shown():
    facts = load_facts()
    anchor = facts["models"][facts["anchor"]]
    L, full = anchor["num_hidden_layers"], anchor["full_attention_layers"]
    assert 0 < full < L
    assert (
        memory_bar.view()["s2_label"] == f"只有全注意力层带 s²（这个模型的 {L} 层里只有 {full} 层是全注意力）"
    )
    dense = facts["models"]["llama-3.1-8b"]
    assert dense["full_attention_layers"] == dense["num_hidden_layers"]
    assert ask(model="llama-3.1-8b")["view"]["s2_label"] == (
        f"只有全注意力层带 s²（对这个模型不起作用：式 1 把它的 {dense['num_hidden_layers']} 层都按全注意力算）"
    )
    g3 = PASTED["gemma-3-4b-it"]["text_config"]["num_hidden_layers"]
    assert (
        _pasted("gemma-3-4b-it")["s2_label"]
        == f"只有全注意力层带 s²（对这个模型不起作用：式 1 把它的 {g3} 层都按全注意力算）"
    )
    # a switch that does nothing for a model changes nothing when ticked
    on, off = ask(model="llama-3.1-8b", s2_full_only=True)["view"], ask(model="llama-3.1-8b")["view"]
    assert on["activation_bytes"] == off["activation_bytes"]


@pytest.mark.parametrize("key,prefix", [("gemma-3-4b-it", "Gemma3"), ("gemma-2-9b", "Gemma2")])
def test_gemma_rows_name_the_classes_of_their_own_modeling_file(key, prefix):
    # transformers 5.24's modeling_gemma3.py defines Gemma3MLP, Gemma3RMSNorm, Gemma3TextScaledWordEmbedding
    own = _pasted(key)["detail"]["own"]
    names = set(re.findall(r"\b(?:Llama|Gemma\d?)[A-Za-z]*(?:MLP|RMSNorm|Embedding|Model)\b", own))
    assert names == {f"{prefix}MLP", f"{prefix}RMSNorm", f"{prefix}TextScaledWordEmbedding"}, names


SIZE_TEXT = re.compile(r"(< )?(\d[\d,]*(?:\.(\d+))?) (B|KB|KiB|MB|MiB|GB|GiB|TB|TiB)")


def _reads_true(text: str, n_bytes: int) -> bool:
    """Whether one shown size is ``n_bytes`` as the widget's rule shows it: the exact value rounded
    half-up, except a count above 0 that rounds to 0 reads as a bound ('< 0.1 GB'), which it is below."""
    bound, number, decimals, unit = SIZE_TEXT.fullmatch(text).groups()
    digits = len(decimals or "")
    exact = Fraction(n_bytes, units.UNITS[unit])
    if bound:
        return 0 < exact < Fraction(Decimal(number.replace(",", ""))) and _exact(n_bytes, unit, digits) == 0
    return _num(text) == _exact(n_bytes, unit, digits) and (n_bytes == 0 or _num(text) != 0)


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "params",
    [
        {"s": 1, "b": 1},  # the anchor, s at its lowest: the scores are 7,680 B
        {"s": 5, "b": 1},  # the running sentence's s, where lesson 5 starts the slider
        {"s": 1, "b": 1024},
        {"s": 1 << 20, "b": 1},  # s at its highest: the linear part is the small one (0.1%)
        {"model": "qwen3-8b", "s": 2, "b": 3, "mode": "selective"},
        {"model": "lab", "s": 1, "b": 1},  # the lab's model, in MB
    ],
)
def test_a_part_with_a_share_above_zero_never_reads_zero(params):
    """At s = 1 the summary said 「激活 0.0 GB（0.0 GiB），其中注意力分数占 0.1%」 and the scores' row read
    0.0 GB: a part of 0.0 GB that is 0.1% of the whole. Every part and group shown is its exact value
    rounded, or, too small for the widget's decimals, a bound it is below; never 0 unless it is 0; and the
    scores' share is the exact one, by the rule of units.share."""
    v = memory_bar.view(params)
    for seg in v["segments"]:
        for text, n in zip(
            re.findall(r"(?:< )?\d[\d,.]* (?:GB|GiB|MB|MiB)", seg["text"]), [seg["bytes"]] * 2
        ):
            assert _reads_true(text, n), (seg["key"], seg["text"])
    act = [s for s in v["segments"] if s["group"] == "激活"]
    scores = next(s["bytes"] for s in act if s["key"] == "act_scores")
    total = sum(s["bytes"] for s in act)
    ratio = Fraction(scores * 100, total)
    share = v["score_share"]
    number = Decimal(share.strip("<> %"))
    step = Decimal(1).scaleb(number.as_tuple().exponent)
    if share.startswith("<"):
        assert 0 < ratio < number
    elif share.startswith(">"):
        assert number < ratio < 100
    else:
        assert abs(Fraction(number) - ratio) <= Fraction(step) / 2
    said = re.search(r"激活 ((?:< )?[\d,.]+ \w+)（((?:< )?[\d,.]+ \w+)）", v["summary"])
    assert said and _reads_true(said.group(1), total) and _reads_true(said.group(2), total), v["summary"]
