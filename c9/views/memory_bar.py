"""Lesson 5's stacked memory bar: model states plus activations for one training step, for the chapter's
models or any decoder-only model whose Hugging Face config.json the reader pastes (c9.core.models.resolve),
with how many cards of a chosen size the step needs and the tables below the bar (c9/views/memory_tables.py:
parameters term by term, activations by eq. 1 and by the model's own tensors).

``view(params)`` returns plain data (numbers, a Chinese summary, the bar as SVG markup, the tables as
markup), so the same call runs at build time (the default state, written into the page) and in the browser.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

from c9.base import units
from c9.base.errors import InputError
from c9.base.palette import var
from c9.core.activations import MODES, activation_memory
from c9.core.items import Item
from c9.core.ledger import RECIPES, fp8_activation_scale, fp8_activations, model_states, open_rows
from c9.core.models import (
    CONFIG_MAX,
    CONFIG_TOO_LONG,
    LAB,
    Model,
    card,
    card_name,
    cards,
    config_text,
    lab_label,
    load_facts,
    model,
    resolve,
)
from c9.views import memory_tables, stacked_bar
from c9.views.nearby import model_choices, one_step
from c9.views.params import integer, known_model, shown, with_defaults
from c9.views.part_colors import LABEL_COLORS, LABEL_PATTERNS, marker

WIDGET = "memory-bar"

S_MIN, S_MAX = 1, 1 << 20
B_MIN, B_MAX = 1, 1 << 10
#: What the widgets call b, in their labels and messages: lesson 5's own words for it.
B_NAME = "micro-batch 大小 b"


def log_stops(hi: int, extra: tuple = ()) -> list[int]:
    """A log-scaled slider's stops: 2^k and 3·2^k from 1 up to ``hi``, and any ``extra`` values."""
    return sorted({m << k for k in range(hi.bit_length()) for m in (1, 3) if (m << k) <= hi} | set(extra))


# s: also 5, the running sentence's token count (lesson 5 drags s from it).
S_STOPS = log_stops(S_MAX, (5,))
B_STOPS = log_stops(B_MAX)

DEFAULTS = {
    "model": "qwen3.8-27b",
    "config": "",
    "s": 4096,
    "b": 1,
    "mode": "store_all",
    "card": load_facts()["cards"]["default"],
    "s2_full_only": False,
    "recipe": "bf16_mixed_adamw",
}

#: The recipes of a training step the select offers (c9.core.ledger.RECIPES keys): all but weights only.
TRAINING_RECIPES = ["bf16_mixed_adamw", "fp32_adamw", "deepseek_v3_fp8", "te_fp8_delayed", "te_mxfp8"]

#: The activations' colours, by key; a model state takes the colour of its label (part_color).
COLORS = {
    "act_linear": var("activations"),
    "act_scores": var("scores"),
}


def part_color(key: str, label: str) -> str:
    """A segment's colour: a model state's by the label the reader sees, as lesson 1's ledger draws it
    (c9.views.part_colors: 「权重（FP32）」 is not 「权重（BF16）」's colour), an activation's by its key."""
    return LABEL_COLORS.get(label) or COLORS[key]


def normalise(params: dict | None) -> dict:
    """Defaults filled in and every value checked. Raises InputError with a Chinese message."""
    p = with_defaults(params, DEFAULTS)
    known_model(p["model"])
    p["config"] = config_text(p["config"])
    card(p["card"])
    if p["model"] == LAB and not p["config"].strip():
        p["recipe"] = model(LAB).measured.recipe  # the lab trained its reference run in FP32
    if not isinstance(p["recipe"], str) or p["recipe"] not in TRAINING_RECIPES:
        raise InputError(f"没有这种训练配方：{shown(p['recipe'])}")
    p["s"] = integer(p["s"], "序列长度 s", S_MIN, S_MAX)
    p["b"] = integer(p["b"], B_NAME, B_MIN, B_MAX)
    if p["mode"] not in MODES:
        raise InputError(f"没有这种存储方式：{shown(p['mode'])}")
    if not isinstance(p["s2_full_only"], bool):
        raise InputError("「只有全注意力层带 s²」只能是开或关")
    return p


def ledger(p: dict, m: Model | None = None) -> Item:
    """The step's memory tree: ``step`` → ``model_states`` (by recipe) and ``activations``, for model ``m``
    (by default the one ``p`` chooses)."""
    m = m or resolve(p["model"], p["config"])
    s2_layers = m.full_attention_layers if p["s2_full_only"] else None
    r = p["recipe"]
    note = RECIPES[r].get("act_note", "")
    fp8, scale = fp8_activations(r), fp8_activation_scale(r)
    act = activation_memory(p["s"], p["b"], m.h, m.a, m.L, p["mode"], s2_layers, fp8, note, scale)
    return Item.group("step", "训练一步", [model_states(m.param_total, p["recipe"]), act])


def measured(p: dict, m: Model) -> list[dict] | None:
    """The lab's measured counterpart of the bar, at the lab's own s, b with every activation stored:
    model states from the snapshot after the first step, activations from the one after forward."""
    r = m.measured
    if r is None or (p["s"], p["b"], p["mode"]) != (r.s, r.b, "store_all") or p["s2_full_only"]:
        return None
    step, fwd = r.at("after_step")["parts"], r.at("after_forward")["parts"]
    return [
        {"key": "m_params", "label": "实测·参数", "bytes": step["parameters"]},
        {"key": "m_grads", "label": "实测·梯度", "bytes": step["gradients"]},
        {"key": "m_optimizer", "label": "实测·优化器状态", "bytes": step["optimizer_state"]},
        {"key": "m_saved", "label": "实测·为反向保存的张量", "bytes": fwd["saved_for_backward"]},
        {"key": "m_logits", "label": "实测·logits 与 loss", "bytes": fwd["logits_and_loss"]},
    ]


def view(params: dict | None = None) -> dict:
    """Numbers, a Chinese summary and the bar (SVG markup) for the given controls.

    params keys: model (a key of anchor-model.json, or "lab"), config (a pasted Hugging Face config.json as
    text; when not blank it is the model shown), s (1…1,048,576 tokens), b (1…1,024), mode (store_all |
    selective | flash | full_recompute), card (a key of anchor-model.json's cards), s2_full_only (bool),
    recipe (one of TRAINING_RECIPES). Raises InputError (Chinese message) on any bad value.
    """
    p = normalise(params)
    m = resolve(p["model"], p["config"])
    tree = ledger(p, m)
    states, act = tree.children
    the_card = card(p["card"])
    card_bytes = the_card["memory_bytes"]
    card_label = card_name(the_card)
    # One decimal unit for the whole step (GB, MB for a small model): the segments, the summary's sums and
    # the chart's axis; activations also quoted in GiB beside (_gib_beside).
    unit = units.states_unit(tree.bytes)
    meas = measured(p, m)
    # One precision for the widget, each value rounded on its own (one too small for it reads as a bound,
    # 「< 0.1 GB」, never 0.0 GB beside the scores' share: units.bounded_size), so equal segments read equal and every
    # total is the true total rounded (units.readable_decimals: at most three decimals). First the sums the
    # text prints (the groups to the step; the derived step plus the difference to the lab's measured
    # bar), then each group's segments to the group and the measured bar's parts to its total. Where one
    # does not add up at that precision, the summary says so: model states, multiples of one Ψ, can add
    # up only at the byte count (Qwen3-8B: 8 decimals of GB).
    printed = [[states.bytes, act.bytes]]
    if meas:
        meas_total = sum(x["bytes"] for x in meas)
        printed.append([tree.bytes, meas_total - tree.bytes])
    groups = [[it.bytes for it in g.leaves()] for g in tree.children]
    d = units.readable_decimals(
        printed, unit, 1, also=groups + ([[x["bytes"] for x in meas]] if meas else [])
    )
    binary = "GiB" if unit in ("GB", "TB") else "MiB"
    # a GiB twin at least as fine as its GB value: 「0.004 GB（0.0 GiB）」 and 「117.172 GB（109.1 GiB）」 read unlike
    d_bin = max(d, units.readable_decimals([[it.bytes for it in act.leaves()]], binary, 1))
    segments = [
        {
            "key": it.key,
            "label": it.label,
            "bytes": it.bytes,
            "gib": it.bytes / units.GiB,
            "text": units.bounded_size(it.bytes, unit, d)
            + (_gib_beside(it.bytes, binary, d_bin) if group is act else ""),
            "formula": it.formula,
            "note": it.note,
            "group": group.label,
            "color": part_color(it.key, it.label),
            "pattern": LABEL_PATTERNS.get(it.label, ""),  # the ledger's second cue (c9.views.part_colors)
        }
        for group in tree.children
        for it in group.leaves()
    ]
    scores = act.find("act_scores").bytes
    share = units.percent(scores, act.bytes) if act.bytes else "0%"
    over = tree.bytes / card_bytes
    states_t, act_t, total_t = (units.bounded_size(n, unit, d) for n in (states.bytes, act.bytes, tree.bytes))
    summary = (
        f"{m.label}，s = {units.number(p['s'])}、b = {units.number(p['b'])}、{MODES[p['mode']]}"
        f"{'（只有 ' + str(m.full_attention_layers) + ' 个全注意力层带 s²）' if p['s2_full_only'] and p['mode'] == 'store_all' else ''}："
        f"模型状态 {states_t}，激活 {act_t}{_gib_beside(act.bytes, binary, d_bin)}，其中注意力分数占 {share}。"
        f"合计 {states_t} + {act_t} = {total_t}"
        + ("" if units.adds_up(printed[0], unit, d) else _missed(printed[0], unit, d))
        + "，"
        + (
            f"是 {card_label}的 {units.number(over, 1)} 倍。"
            if over >= 0.1
            else f"只占 {card_label}的 {units.percent(tree.bytes, card_bytes, 2)}。"
        )
    )
    # where a group's segments, each rounded on its own, do not make the group's value, the summary says so
    for g, parts in zip(tree.children, groups):
        if not units.adds_up(parts, unit, d):
            summary += (
                f"分项表里{g.label}的各行各自四舍五入，加起来是 {units.shown_sum(parts, unit, d)}，"
                f"与上面的 {units.bounded_size(g.bytes, unit, d)} 差在末位。"
            )
    acts = memory_tables.activation_tables(m, p["s"], p["b"], p["mode"])
    own = acts["own"]
    own_step = states.bytes + own["total_bytes"] if own else None
    bars = [tree.bytes, sum(x["bytes"] for x in meas) if meas else 0, own_step or 0]
    summary += far_note(max(bars), tree.bytes, card_bytes, card_label)
    if meas:
        meas_t, diff_t = (
            units.bounded_size(meas_total, unit, d),
            units.bounded_size(meas_total - tree.bytes, unit, d),
        )
        summary += (
            f"下面一条是实验课实测的同一笔账：{meas_t}（{units.size(meas_total, 'MiB', 2)}），比上面的推演多 "
            f"{diff_t}{'' if units.adds_up(printed[1], unit, d) else _missed(printed[1], unit, d)}"
            "（FP32 激活每个数 4 字节、输出层和 loss 不在式 1 里）。"
        )
    unsized = open_rows(p["recipe"])
    if unsized:  # a copy the recipe's source names without its bytes: said, not guessed
        summary += (
            # a colon after 提到: the label may start with a Latin word; each reason says it is left out
            f"「{RECIPES[p['recipe']]['label']}」的来源还提到："
            + "、".join(label for label, _ in unsized)
            + "，但没给出字节数（"
            + "；".join(why for _, why in unsized)
            + "）。"
        )
    params = memory_tables.param_table(m)
    cards_needed = cards_text(
        the_card, [(s["label"], s["bytes"], s["text"]) for s in segments], tree.bytes, own_step, unit, d
    )
    return {
        "params": p,
        "model_label": m.label,
        # what the model menu shows: a pasted config in use is named there, not the list's last choice
        "menu_label": f"正在用{m.label}" if p["config"].strip() else m.label,
        "model_note": model_note(m, p),
        "s2_label": s2_label(m),
        "total_bytes": tree.bytes,
        "states_bytes": states.bytes,
        "activation_bytes": act.bytes,
        "own_activation_bytes": own["total_bytes"] if own else None,
        "score_share": share,
        "segments": segments,
        "summary": summary,
        "cards": cards_needed,
        "cards_needed": math.ceil(tree.bytes / card_bytes),
        "parameter_total": params["total_count"] if params else None,
        "chart": _chart(segments, card_bytes, meas, own, card_label, d),
        # the tables as markup only (their numbers are in c9/views/memory_tables.py): each answer stays small
        "detail": memory_tables.detail_html(m, params, acts, MODES[p["mode"]]),
    }


def s2_label(m: Model) -> str:
    """The label of the 「只有全注意力层带 s²」 switch, with the layer count of the model shown."""
    full, L = m.full_attention_layers, m.L
    if full >= L:
        # a pasted config is counted so too, sliding-window layers and all (their window: the notes below)
        return f"只有全注意力层带 s²（对这个模型不起作用：式 1 把它的 {L} 层都按全注意力算）"
    if full == 0:
        return f"只有全注意力层带 s²（这个模型的 {L} 层都不是全注意力，勾上后没有 s² 项）"
    return f"只有全注意力层带 s²（这个模型的 {L} 层里只有 {full} 层是全注意力）"


def model_note(m: Model, p: dict) -> str:
    """What the numbers cannot say by themselves about the model at this s and b: that our lab model was
    trained at other sizes (its run's s and b, from the lab's data file), and that a model with a learned
    position table has no position beyond its last row. "" when neither applies."""
    notes = []
    r = m.measured
    if r is not None and (p["s"], p["b"]) != (r.s, r.b):
        notes.append(
            f"实验课训练和实测这个小模型时用的是 s = {units.number(r.s)}、b = {units.number(r.b)}；"
            f"这里的 s = {units.number(p['s'])}、b = {units.number(p['b'])} 是把同一套公式推到它没跑过的大小"
            f"（实测的那一条只在 s = {units.number(r.s)}、b = {units.number(r.b)}、全存时画出）"
        )
    arch = m.arch
    if arch is not None and arch.positions == "learned" and p["s"] > arch.n_positions:
        notes.append(
            f"它的位置表只有 {units.number(arch.n_positions)} 行（学出来的位置嵌入），"
            f"s 超过 {units.number(arch.n_positions)} 的序列它实际上放不进去，这里只是按公式估算显存"
        )
    return "；".join(notes) + "。" if notes else ""


def cards_text(
    c: dict, parts: list[tuple[str, int, str]], total: int, own_total: int | None, unit: str, digits: int
) -> str:
    """How many cards of ``c`` the step needs (if memory could be split evenly) and what is too big for one.
    ``parts``: (label, bytes, as shown) of the bar's segments; totals in bytes; the free room at ``digits``
    decimals, the step's."""
    cap = c["memory_bytes"]
    n = math.ceil(total / cap)
    if n <= 1:
        # the card less the total as shown, so the two add up to the card (the true room, rounded the other
        # way only when the total sits exactly on a half)
        free = Fraction(cap, units.UNITS[unit]) - Fraction(
            units.round_half_up(Fraction(total, units.UNITS[unit]), digits)
        )
        text = (
            f"按式 1 一张 {units.size(cap, 'GB', 0)} 卡就放得下，还空着 {units.number(free, digits)} {unit}"
        )
    else:
        text = f"按式 1 需要 {units.number(n)} 张 {units.size(cap, 'GB', 0)} 卡（假设显存能在卡之间均分）"
    if own_total is not None:
        m = math.ceil(own_total / cap)
        text += f"；按这个模型自己的张量需要 {units.number(m)} 张"
    big = [units.joined(label, shown) for label, n_bytes, shown in parts if n_bytes > cap]
    if big:
        text += (
            f"。单卡放不下：{'、'.join(big)}，每一项本身就比一张卡大，只能切开分到几张卡上（C10 讲怎么切）。"
        )
    else:
        text += "。每一项单独都放得进一张卡。"
    return text


def _missed(parts: list[int], unit: str, digits: int) -> str:
    """The note after a printed sum whose parts, each rounded on its own, miss its total in the last digit."""
    return f"（两项各自四舍五入，加起来是 {units.shown_sum(parts, unit, digits)}）"


def _gib_beside(n: int, binary: str, digits: int) -> str:
    """An activation's binary size beside its decimal one, one pairing on every row: GB with GiB, MB with
    MiB (so a row of 0 bytes reads "0.0 GB（0.0 GiB）", not "（0.0 MiB）"; one of 7,680 bytes "< 0.1 GB（< 0.1
    GiB）"), at the precision at which the activation segments add up to the activations in that unit too."""
    return f"（{units.bounded_size(n, binary, digits)}）"


#: A measured part drawn in the colour of the derived part it is measured against (the bar above it).
MEASURED_AS = {
    "m_params": "weights",
    "m_grads": "gradients",
    "m_optimizer": "adam_m",
    "m_saved": "act_linear",
}
#: The other activation segments: the logits measured, and the model's own saved tensors and logits.
ACTIVATION_COLORS = {
    "m_logits": var("logits"),
    "o_act_saved": var("activations"),
    "o_act_logits": var("logits"),
}


def _chart(
    segments: list[dict],
    card: int,
    meas: list[dict] | None = None,
    own: dict | None = None,
    card_label: str = "",
    digits: int = 1,
) -> str:
    """The bar as SVG markup (c9.views.stacked_bar): GB with the card's line; for the lab's model, MB, the
    derived bar above the measured one (hatched) and no card in sight; for a model with a config, eq. 1's
    bar above the one of the model's own tensors (states the same, activations hatched). Every segment's
    text at ``digits`` decimals, the summary's (a model state reads the same in both bars)."""

    def seg(key, label, n, text, color, hatch=False):
        # a model state's pattern as the ledger draws it; a measured (hatched) segment has the hatch alone
        pattern = None if hatch else marker(label).get("pattern") if label in LABEL_PATTERNS else None
        return {
            "key": key,
            "label": label,
            "value": n / scale,
            "text": text,
            "color": color,
            "hatch": hatch,
            "pattern": pattern,
        }

    name = "堆叠条形图：训练一步的显存分项"
    unit = units.states_unit(sum(s["bytes"] for s in segments))
    scale = units.UNITS[unit]
    axis = f"{unit}（10{'⁹' if unit == 'GB' else '⁶'} 字节）"
    line = card_line(card, unit)
    if meas:
        texts = [units.bounded_size(x["bytes"], unit, digits) for x in meas]
        derived = {s["key"]: s["color"] for s in segments}
        rows = [
            {
                "label": "推演",
                "segments": [seg(s["key"], s["label"], s["bytes"], s["text"], s["color"]) for s in segments],
            },
            {
                "label": "实测",
                "segments": [
                    seg(
                        x["key"],
                        x["label"],
                        x["bytes"],
                        t,
                        derived.get(MEASURED_AS.get(x["key"])) or ACTIVATION_COLORS[x["key"]],
                        hatch=True,
                    )
                    for x, t in zip(meas, texts)
                ],
            },
        ]
        return stacked_bar.svg(
            rows, axis, line, label=name + "（上：推演；下：实测）" + _far_label(rows, line)
        )
    first = [seg(s["key"], s["label"], s["bytes"], s["text"], s["color"]) for s in segments]
    if own:
        saved = sum(r["bytes"] for r in own["rows"] if r["saved"])
        logits = own["total_bytes"] - saved
        states = [s for s in segments if s["group"] != segments[-1]["group"]]
        second = [seg("o_" + s["key"], s["label"], s["bytes"], s["text"], s["color"]) for s in states]
        second += [
            seg(
                "o_act_saved",
                "激活·为反向保存的张量",
                saved,
                units.bounded_size(saved, unit, digits),
                ACTIVATION_COLORS["o_act_saved"],
                True,
            ),
            seg(
                "o_act_logits",
                "激活·logits",
                logits,
                units.bounded_size(logits, unit, digits),
                ACTIVATION_COLORS["o_act_logits"],
                True,
            ),
        ]
        rows = [{"label": "按式 1", "segments": first}, {"label": "按这个模型自己的张量", "segments": second}]
        return stacked_bar.svg(
            rows,
            axis,
            line,
            label=name + "（上：按式 1；下：按模型自己的张量）" + _far_label(rows, line, card_label),
        )
    rows = [{"label": None, "segments": first}]
    return stacked_bar.svg(rows, axis, line, label=name + _far_label(rows, line, card_label))


def card_line(card: int, unit: str) -> dict:
    """The card as the bar's reference line (stacked_bar.svg), in the bar's unit; ``far`` is what the chart
    says at its right end when the card is far beyond the bars (a small model on any card)."""
    return {
        "value": card / units.UNITS[unit],
        "label": f"{units.size(card, unit, 0)} 卡",
        "far": f"{units.size(card, 'GB', 0)} 卡容量在右侧很远处 →",
    }


def _far_label(rows: list[dict], line: dict, card_label: str = "") -> str:
    """The end of the chart's accessible name: where the card's line is, or that it is off the chart."""
    if stacked_bar.to_scale(rows, line):
        return f"；虚线是 {card_label}" if card_label else ""
    return f"；{line['far'].rstrip(' →')}，没有按比例画出"


def far_note(longest: int, total: int, card: int, card_label: str) -> str:
    """The summary's sentence when the chart leaves the card out (stacked_bar.to_scale: the card beyond
    FAR times the ``longest`` bar, in bytes): how far off it is, against the step's ``total``."""
    if card <= stacked_bar.FAR * longest:
        return ""
    return (
        f"{card_label}的容量是这一步的 {units.number(Fraction(card, total), 0)} 倍，远在图的右侧："
        "图的横轴只画到条形本身，没有按比例画出那张卡。"
    )


# The config box's example: a model of anchor-model.json whose config.json is recorded there, as text.
EXAMPLE_MODEL = "qwen3-8b"


def example_config() -> dict:
    """{"label", "text"}: the example the config box offers, the recorded config.json written out as a
    Hugging Face file is (indented JSON)."""
    m = load_facts()["models"][EXAMPLE_MODEL]
    return {"label": m["label"], "text": json.dumps(m["config"], indent=2, ensure_ascii=False)}


def page_context() -> dict:
    """What the page template (c9/views/memory-bar.html) needs at build time."""
    from c9.views.nearby import model_menu

    shown_cards = [{k: c[k] for k in ("key", "label", "url")} for c in cards()]  # what the page shows of each
    card_sources = {}  # each source named once, with the cards it gives
    for c in cards():
        source = card_sources.setdefault(c["url"], {"url": c["url"], "title": c["url_title"], "cards": []})
        source["cards"].append(c["label"].replace(" GB", "\u00a0GB"))  # 「48 / GB」 split across lines
    v = view()
    shown = {s["key"] for s in v["segments"]}
    other_rows = []  # every other recipe's parts, as hidden rows memory-bar.js shows when the recipe changes
    for r in TRAINING_RECIPES:
        for key, label, _, _ in RECIPES[r]["parts"]:
            if key not in shown:
                shown.add(key)
                other_rows.append((key, label, part_color(key, label)))
    return dict(
        view=v,
        recipes={k: RECIPES[k].get("menu", RECIPES[k]["label"]) for k in TRAINING_RECIPES},
        other_rows=other_rows,
        stops=S_STOPS,
        b_stops=B_STOPS,
        modes=MODES,
        cards=shown_cards,
        card_sources=list(card_sources.values()),
        lab_label=lab_label(),
        model_menu=model_menu(lab_label()),
        config_max=CONFIG_MAX,
        b_name=B_NAME,
        config_too_long=CONFIG_TOO_LONG,
        example=example_config(),
    )


def _base(p: dict) -> dict:
    """A state as memory-bar.js sends it: s and b as the text of their number boxes."""
    return {
        "model": p["model"],
        "config": p["config"],
        "s": str(p["s"]),
        "b": str(p["b"]),
        "mode": p["mode"],
        "card": p["card"],
        "s2_full_only": p["s2_full_only"],
        "recipe": p["recipe"],
    }


CACHED_B_MAX = 64  # the build caches b's stops up to here: the lesson moves b within 1…8


def neighbours(context: dict) -> list[dict]:
    """For the build's answer cache (c9/views/nearby.py): what memory-bar.js sends one control from the
    default: each model, every stop of s, b's stops up to CACHED_B_MAX, each mode, each card, the s² switch."""
    p = context["view"]["params"]
    return one_step(
        _base(p),
        model=model_choices(context["lab_label"]),
        s=[str(s) for s in context["stops"]],
        b=[str(b) for b in context["b_stops"] if b <= CACHED_B_MAX],
        mode=list(context["modes"]),
        card=[c["key"] for c in context["cards"]],
        s2_full_only=[not p["s2_full_only"]],
        recipe=list(context["recipes"]),
        config=[context["example"]["text"]],  # the box's example button
    )


def _next_stops(stops: list[int], v: int) -> list[int]:
    """The stops either side of ``v`` (the slider sits on the stop nearest a typed value), nearest first."""
    i = min(range(len(stops)), key=lambda k: abs(math.log(stops[k] / v)))
    return [stops[k] for k in (i + 1, i - 1, i) if 0 <= k < len(stops)]


def nearby(view: dict) -> list[dict]:
    """For the worker's answers ahead (c9.views.nearby): what memory-bar.js sends one control from the
    state ``view`` shows, nearest first: s one slider stop either side, b one stop either side, then each
    mode, the s² switch, each card and each model (a pasted config is left for the select's models)."""
    p = view["params"]
    base = _base(p)
    out = one_step(
        base,
        s=[str(s) for s in _next_stops(S_STOPS, p["s"])],
        b=[str(b) for b in _next_stops(B_STOPS, p["b"])],
        mode=list(MODES),
        s2_full_only=[not p["s2_full_only"]],
        card=[c["key"] for c in cards()],
        recipe=TRAINING_RECIPES,
    )
    # choosing a model in the select drops a pasted config (memory-bar.js)
    return out + [
        {**base, "model": k, "config": ""}
        for k in model_choices(lab_label())
        if k != p["model"] or base["config"]
    ]
