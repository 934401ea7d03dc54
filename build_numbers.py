#!/usr/bin/env python3
"""Compute every figure the lessons quote, from anchor-model.json through widgets/.

Each figure carries its value, its display text, the formula and the inputs, so a page can show where
it comes from. MkDocs calls :func:`compute` on every build (hooks/course.py), so a page never sees a
stale figure; ``python build_numbers.py`` writes the same figures to build/numbers.json for review.

Units: GB = 10^9 bytes, GiB = 2^30 bytes, MB = 10^6 bytes.
"""
from __future__ import annotations

import html
import json
import sys
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from widgets import units  # noqa: E402
from widgets.activations import activation_memory, per_layer, score_term  # noqa: E402
from widgets.ledger import bytes_per_parameter, model_states  # noqa: E402
from widgets.models import anchor, card_bytes, load_facts, model  # noqa: E402


@dataclass(frozen=True)
class Figure:
    """One quoted figure: ``value`` (exact number or string), ``text`` (what the page shows),
    ``formula`` and ``inputs`` (how it was computed)."""

    name: str
    value: int | float | str
    text: str
    formula: str
    inputs: dict = field(default_factory=dict)

    def __str__(self) -> str:
        return self.text

    def __html__(self) -> str:
        """The figure as inline HTML: the text, and its provenance shown on hover or keyboard focus (kept
        out of the search index, so a search finds the lessons' prose, not 400 tooltips)."""
        how = "计算：" + self.formula
        if self.inputs:
            how += "；代入 " + ", ".join(f"{k} = {_show(v)}" for k, v in self.inputs.items())
        # "|" as an entity: a figure in a Markdown table cell must not end the cell (|x − q| / |x|).
        def esc(s):
            return html.escape(s).replace("|", "&#124;")
        return (f'<span class="fig" tabindex="0" data-fig="{self.name}">{esc(self.text)}'
                f'<span class="fig-how" role="tooltip" data-search-exclude>{esc(how)}</span></span>')


def _show(v) -> str:
    return units.number(v) if isinstance(v, int) and not isinstance(v, bool) else str(v)


class Figures(dict):
    """name → Figure, refusing duplicates so one figure has one origin."""

    def add(self, name: str, value, text: str, formula: str, **inputs) -> Figure:
        if name in self:
            raise ValueError(f"figure {name!r} defined twice")
        if isinstance(value, Fraction):
            value = float(value)
        # Pages show powers typeset (2⁻²⁴); modules may write them ASCII-style (2^-24).
        self[name] = Figure(name, value, units.superscript_powers(text), formula, inputs)
        return self[name]


def _facts(f: Figures) -> None:
    """Facts from anchor-model.json, quoted through the build so the page and the file never disagree."""
    facts = load_facts()
    m = anchor()
    src = "anchor-model.json"
    f.add("anchor_name", m.name, m.name, src)
    f.add("anchor_params", m.param_total, units.number(m.param_total), f"{src}: param_total")
    f.add("anchor_params_b", m.param_total / 1e9, f"{units.number(Fraction(m.param_total, 10**9), 1)}B",
          "param_total ÷ 10⁹", param_total=m.param_total)
    f.add("anchor_L", m.L, str(m.L), f"{src}: num_hidden_layers")
    f.add("anchor_full_layers", m.full_attention_layers, str(m.full_attention_layers), f"{src}: layer_types")
    f.add("anchor_linear_layers", m.L - m.full_attention_layers, str(m.L - m.full_attention_layers),
          "L − full-attention layers", L=m.L, full=m.full_attention_layers)
    f.add("anchor_h", m.h, units.number(m.h), f"{src}: hidden_size")
    f.add("anchor_a", m.a, str(m.a), f"{src}: num_attention_heads")
    f.add("anchor_head_dim", m.head_dim, str(m.head_dim), f"{src}: head_dim")
    seq = facts["training_sequence"]["tokens"]
    f.add("seq", seq, units.number(seq), f"{src}: training_sequence.tokens")
    batch = facts["training_sequence"]["batch"]
    f.add("batch", batch, str(batch), f"{src}: training_sequence.batch")
    sent = facts["example_sentence"]
    f.add("sentence", sent["text"], sent["text"], f"{src}: example_sentence")
    f.add("sentence_tokens", sent["tokens"], str(sent["tokens"]), f"{src}: example_sentence.tokens")
    card = card_bytes()
    f.add("card", card, units.size(card, "GB", 0), f"{src}: card.memory_bytes")
    q = model("qwen3-8b")
    f.add("qwen3_8b_L", q.L, str(q.L), f"{src}: Qwen3-8B num_hidden_layers")
    f.add("qwen3_8b_h", q.h, units.number(q.h), f"{src}: Qwen3-8B hidden_size")
    f.add("qwen3_8b_a", q.a, str(q.a), f"{src}: Qwen3-8B num_attention_heads")


def _model_states(f: Figures) -> None:
    m = anchor()
    states = model_states(m.param_total, "bf16_mixed_adamw")
    per = bytes_per_parameter("bf16_mixed_adamw")
    f.add("bytes_per_param", per, str(per), "2 + 2 + 4 + 4 + 4 (BF16 weights, BF16 gradients, FP32 master, Adam m, v)")
    f.add("model_states_anchor", states.bytes, units.size(states.bytes, "GB"), "16 B × Ψ", Ψ=m.param_total)
    f.add("weights_anchor_bf16", 2 * m.param_total, units.size(2 * m.param_total, "GB"), "2 B × Ψ", Ψ=m.param_total)
    mv = states.find("adam_m").bytes + states.find("adam_v").bytes
    f.add("adam_mv_anchor", mv, units.size(mv, "GB"), "(4 + 4) B × Ψ", Ψ=m.param_total)
    # The ledger tables (guide, lessons 1 and 5): every part with the total, at the precision where the
    # rounded rows add up to the rounded total (units.adding_up: two decimals here).
    rows = [("weights", "BF16 权重", 2), ("grads", "BF16 梯度", 2), ("master", "FP32 主权重", 4),
            ("mv", "Adam 的 m 与 v（FP32）", 8)]
    texts, total = units.adding_up([k * m.param_total for _, _, k in rows], "GB")
    for (key, what, k), text in zip(rows, texts):
        f.add(f"ledger_{key}", k * m.param_total, text, f"{what}：每参数 {k} 字节，{k} B × Ψ", Ψ=m.param_total)
    f.add("ledger_total", states.bytes, total, "模型状态合计：(2 + 2 + 4 + 8) B × Ψ", Ψ=m.param_total)
    ratio = Fraction(states.bytes, card_bytes())
    f.add("model_states_cards", float(ratio), units.number(ratio, 1), "16 B × Ψ ÷ 80 GB",
          Ψ=m.param_total, card=card_bytes())


def _activations(f: Figures) -> None:
    facts = load_facts()
    m = anchor()
    s, b = facts["training_sequence"]["tokens"], facts["training_sequence"]["batch"]
    dims = dict(s=s, b=b, h=m.h, a=m.a, L=m.L)

    def act(mode="store_all", s2_layers=None, **over):
        d = {**dims, **over}
        return activation_memory(d["s"], d["b"], d["h"], d["a"], d["L"], mode, s2_layers)

    full = act()
    f.add("act_anchor", full.bytes, units.size(full.bytes, "GiB"), "L × sbh(34 + 5as/h)", **dims)
    f.add("act_anchor_gb", full.bytes, units.size(full.bytes, "GB"), "L × sbh(34 + 5as/h)", **dims)
    scores = full.find("act_scores").bytes
    f.add("act_anchor_score_share", float(Fraction(scores, full.bytes)), units.percent(scores, full.bytes),
          "L × 5as²b ÷ L × sbh(34 + 5as/h)", **dims)
    linear = full.find("act_linear").bytes
    f.add("act_anchor_linear", linear, units.size(linear, "GiB"), "L × 34sbh", **dims)
    f.add("act_anchor_scores", scores, units.size(scores, "GiB"), "L × 5as²b", **dims)
    sel = act("selective")
    f.add("act_anchor_selective", sel.bytes, units.size(sel.bytes, "GiB"), "L × 34sbh", **dims)
    rec = act("full_recompute")
    f.add("act_anchor_full_recompute", rec.bytes, units.size(rec.bytes, "GiB"), "L × 2sbh", **dims)
    part = act(s2_layers=m.full_attention_layers)
    f.add("act_anchor_s2_full_only", part.bytes, units.size(part.bytes, "GiB"),
          "L × 34sbh + L_full × 5as²b", L_full=m.full_attention_layers, **dims)
    f.add("act_anchor_b8", act(b=8).bytes, units.size(act(b=8).bytes, "GiB"), "L × sbh(34 + 5as/h)", **{**dims, "b": 8})
    from widgets.memory_bar import S_MAX as s_max

    f.add("s_max", s_max, units.number(s_max), "widgets/memory_bar.py: S_MAX (the slider's right end, 2¹⁷)")
    big = act(s=s_max)
    f.add("act_anchor_s_max", big.bytes, units.auto_size(big.bytes), "L × sbh(34 + 5as/h)", **{**dims, "s": s_max})
    f.add("act_anchor_s_max_score_share", float(Fraction(big.find("act_scores").bytes, big.bytes)),
          units.percent(big.find("act_scores").bytes, big.bytes), "L × 5as²b ÷ L × sbh(34 + 5as/h)", **{**dims, "s": s_max})

    # Per-layer terms at the reference sequence, for the formula walk-through.
    # One unit for the one-layer table (lesson 5), at the precision where the rounded terms add up.
    lin1, sc1 = 34 * s * b * m.h, score_term(s, b, m.a)
    (lin_t, sc_t), tot_t = units.adding_up([lin1, sc1], "GiB", 2)
    f.add("layer_linear_anchor", lin1, lin_t, "一层的线性项：34sbh 字节", s=s, b=b, h=m.h)
    f.add("layer_scores_anchor", sc1, sc_t, "一层的注意力分数项：5as²b 字节", s=s, b=b, a=m.a)
    f.add("layer_total_anchor", per_layer(s, b, m.h, m.a), tot_t, "一层的激活：sbh(34 + 5as/h) 字节",
          s=s, b=b, h=m.h, a=m.a)
    f.add("five_as_over_h", float(Fraction(5 * m.a * s, m.h)), units.number(Fraction(5 * m.a * s, m.h), 0),
          "5as/h", a=m.a, s=s, h=m.h)

    # The running sentence: 5 tokens against one 4,096-token document.
    n = facts["example_sentence"]["tokens"]
    small = act(s=n)
    f.add("act_anchor_sentence", small.bytes, units.size(small.bytes, "MB"), "L × sbh(34 + 5as/h)", **{**dims, "s": n})
    f.add("growth_s", float(Fraction(s, n)), units.number(Fraction(s, n), 1), "s ÷ s_sentence", s=s, s_sentence=n)
    f.add("growth_act", float(Fraction(full.bytes, small.bytes)), units.number(Fraction(full.bytes, small.bytes), 0),
          "act(s = 4096) ÷ act(s = 5)", **dims, s_sentence=n)

    # The attention-score tensor of one full-attention layer, one sequence.
    count = m.a * s * s
    f.add("score_count", count, units.number(count), "a × s²", a=m.a, s=s)
    f.add("score_bf16", 2 * count, units.size(2 * count, "MB"), "2 B × a × s²", a=m.a, s=s)
    f.add("score_formula_bytes", 5 * count, units.size(5 * count, "GB"), "5 B × a × s²", a=m.a, s=s)
    out = m.a * s * m.head_dim
    f.add("output_count", out, units.number(out), "a × s × d_h", a=m.a, s=s, d_h=m.head_dim)
    f.add("score_over_output", float(Fraction(count, out)), units.number(Fraction(count, out), 0),
          "a × s² ÷ (a × s × d_h)", a=m.a, s=s, d_h=m.head_dim)

    # Qwen3-8B at the same sequence.
    q = model("qwen3-8b")
    qa = activation_memory(s, b, q.h, q.a, q.L)
    f.add("act_qwen3_8b", qa.bytes, units.size(qa.bytes, "GiB"), "L × sbh(34 + 5as/h)", s=s, b=b, h=q.h, a=q.a, L=q.L)
    f.add("act_qwen3_8b_score_share", float(Fraction(qa.find("act_scores").bytes, qa.bytes)),
          units.percent(qa.find("act_scores").bytes, qa.bytes), "L × 5as²b ÷ L × sbh(34 + 5as/h)",
          s=s, b=b, h=q.h, a=q.a, L=q.L)
    f.add("qwen3_8b_five_as_over_h", float(Fraction(5 * q.a * s, q.h)), units.number(Fraction(5 * q.a * s, q.h), 0),
          "5as/h", a=q.a, s=s, h=q.h)

    # Lesson 5's text: activations against the weights and the card.
    w = 2 * m.param_total
    f.add("act_over_weights", float(Fraction(full.bytes, w)), units.number(Fraction(full.bytes, w), 1),
          "L × sbh(34 + 5as/h) ÷ 2 B × Ψ", **dims, Ψ=m.param_total)
    f.add("act_anchor_cards", float(Fraction(full.bytes, card_bytes())), units.number(Fraction(full.bytes, card_bytes()), 1),
          "L × sbh(34 + 5as/h) ÷ 80 GB", **dims, card=card_bytes())
    # The query width a·d_h of the anchor, which eq. 1 assumes equal to h.
    f.add("anchor_q_width", m.a * m.head_dim, units.number(m.a * m.head_dim), "a × d_h", a=m.a, d_h=m.head_dim)
    # One layer's 16-bit input, all a layer keeps under full recomputation.
    f.add("layer_input_anchor", 2 * s * b * m.h, units.size(2 * s * b * m.h, "MB"), "2sbh", s=s, b=b, h=m.h)

    # Doubling the sequence: the linear part doubles, the scores quadruple.
    s2x = 2 * s
    dbl = act(s=s2x)
    f.add("seq_double", s2x, units.number(s2x), "2 × s", s=s)
    f.add("act_anchor_s_double", dbl.bytes, units.size(dbl.bytes, "GiB"), "L × sbh(34 + 5as/h)", **{**dims, "s": s2x})
    f.add("act_anchor_s_double_linear", dbl.find("act_linear").bytes, units.size(dbl.find("act_linear").bytes, "GiB"),
          "L × 34sbh", **{**dims, "s": s2x})
    f.add("act_anchor_s_double_scores", dbl.find("act_scores").bytes, units.size(dbl.find("act_scores").bytes, "GiB"),
          "L × 5as²b", **{**dims, "s": s2x})
    f.add("growth_act_s_double", float(Fraction(dbl.bytes, full.bytes)), units.number(Fraction(dbl.bytes, full.bytes), 2),
          "act(2s) ÷ act(s)", **dims)

    # ZeRO's GPT-2 1.5B example run through eq. 1, to set beside the paper's own 12·h·b·s·L estimate.
    g = facts["models"]["gpt2-1.5b-zero"]
    gd = dict(s=g["sequence_length"], b=g["batch_size"], h=g["hidden_size"], a=g["num_attention_heads"],
              L=g["num_hidden_layers"])
    ge = activation_memory(gd["s"], gd["b"], gd["h"], gd["a"], gd["L"])
    f.add("zero_gpt2_act_eq1", ge.bytes, units.size(ge.bytes, "GB", 0), "L × sbh(34 + 5as/h)", **gd)
    f.add("zero_gpt2_act_eq1_linear", ge.find("act_linear").bytes, units.size(ge.find("act_linear").bytes, "GB", 0),
          "L × 34sbh", **gd)
    f.add("zero_gpt2_act_eq1_scores", ge.find("act_scores").bytes, units.size(ge.find("act_scores").bytes, "GB", 0),
          "L × 5as²b", **gd)


def _timeline(f: Figures) -> None:
    """Lesson 5's one-iteration timeline (widgets/timeline.py): where the peak falls, how high."""
    from widgets import timeline

    for it in (1, 2):
        for mode in ("store_all", "full_recompute"):
            v = timeline.view({"iteration": it, "mode": mode})
            key = f"timeline_it{it}_{mode}"
            f.add(f"{key}_peak", v["peak_bytes"], units.size(v["peak_bytes"], "GB"),
                  "max over the iteration of resident bytes (timeline.events)", iteration=it, mode=mode)
            f.add(f"{key}_peak_at", v["peak_label"], v["peak_label"], "the moment of the peak", iteration=it, mode=mode)
            f.add(f"{key}_rise", v["peak_bytes"] - v["start_bytes"], units.size(v["peak_bytes"] - v["start_bytes"], "GB"),
                  "peak − start", iteration=it, mode=mode)
        start = timeline.view({"iteration": it})["start_bytes"]
        f.add(f"timeline_it{it}_start", start, units.size(start, "GB"),
              "2Ψ + 4Ψ" + (" + 8Ψ" if it == 2 else ""), iteration=it)
    a = timeline.view({"iteration": 2})["peak_bytes"]
    b = timeline.view({"iteration": 2, "mode": "full_recompute"})["peak_bytes"]
    f.add("timeline_it2_recompute_saves", a - b, units.size(a - b, "GB"), "peak(store all) − peak(full recomputation)",
          iteration=2)


def _zero_gpt2(f: Figures) -> None:
    """ZeRO §3.1–3.2's GPT-2 1.5B example: the paper's own estimate, 12·h·b·s·L values in 16 bits."""
    g = load_facts()["models"]["gpt2-1.5b-zero"]
    h, L, s, b, psi = g["hidden_size"], g["num_hidden_layers"], g["sequence_length"], g["batch_size"], g["param_total"]
    zero_act = 2 * 12 * h * b * s * L
    f.add("zero_gpt2_act", zero_act, units.size(zero_act, "GB", 0), "2 B × 12 × h × b × s × L (ZeRO §3.2)",
          h=h, b=b, s=s, L=L)
    states = model_states(psi).bytes
    f.add("zero_gpt2_states", states, units.size(states, "GB", 0), "16 B × Ψ (ZeRO §3.1)", Ψ=psi)
    f.add("zero_gpt2_seq", s, units.number(s), "anchor-model.json: gpt2-1.5b-zero.sequence_length")
    f.add("zero_gpt2_batch", b, str(b), "anchor-model.json: gpt2-1.5b-zero.batch_size")


# Modules that contribute figures: each has ``figures() -> list[dict]`` (name, value, text, formula,
# inputs), computed through widgets/. A lesson's figures live beside the widgets they come from.
FIGURE_MODULES = [
    "widgets.codec_figures",
    "widgets.lessons123_figures",
    "widgets.lesson4_fp4_figures",
    "widgets.lab_figures",
]


def _modules(f: Figures) -> None:
    import importlib

    for name in FIGURE_MODULES:
        module = importlib.import_module(name)
        for row in module.figures():
            f.add(row["name"], row["value"], row["text"], row["formula"], **row.get("inputs", {}))


def compute() -> Figures:
    """Every figure, freshly computed. Raises if two sections define the same name."""
    f = Figures()
    for section in (_facts, _model_states, _activations, _timeline, _zero_gpt2, _modules):
        section(f)
    return f


def to_json(figs: Figures) -> str:
    return json.dumps({k: asdict(v) for k, v in figs.items()}, ensure_ascii=False, indent=1, default=str)


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else ROOT / "build" / "numbers.json"
    figs = compute()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(to_json(figs), encoding="utf-8")
    width = max(map(len, figs))
    for name, fig in figs.items():
        print(f"{name:<{width}}  {fig.text}")
    print(f"{len(figs)} figures → {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
