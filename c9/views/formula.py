"""Korthikanti et al. 2022 eq. 1, term by term: what each letter and part counts and what it is
worth on a given model. The clickable formula of lesson 5 reads this view."""

from __future__ import annotations

from fractions import Fraction

from c9.base import units
from c9.core import model_activations
from c9.core.activations import linear_term, per_layer, score_term
from c9.core.models import Model, config_text, resolve
from c9.views import memory_bar, memory_tables
from c9.views.memory_bar import B_MAX, B_MIN, B_NAME, S_MAX, S_MIN
from c9.views.params import integer, known_model, with_defaults

WIDGET = "formula"
DEFAULTS = {"model": "qwen3.8-27b", "config": "", "s": 4096, "b": 1}

# (key, TeX, title, what it counts). Sources: Korthikanti et al. 2022 §4.1 (the tensor list), §4 assumptions.
TERMS = [
    (
        "s",
        "s",
        "s：序列长度",
        "一条样本里的 token 数。每个 token 在每一层都留下一组中间结果，所以线性项正比于 s；注意力分数是 token 两两之间的，所以那一项正比于 s²。",
    ),
    ("b", "b", "b：micro-batch 大小", "同时穿过网络的样本条数。激活的每一项都正比于 b；模型状态和 b 无关。"),
    ("h", "h", "h：隐藏宽度", "每个 token 的向量长度（hidden_size）。矩阵乘的输入都是 s·b·h 个数的倍数。"),
    (
        "a",
        "a",
        "a：注意力头数",
        "每个头都有自己的一张 s × s 分数表，所以分数项正比于 a；它和 h 无关——这就是 5as/h 里 h 在分母上的原因。",
    ),
    (
        "34",
        "34",
        "34：每个 token、每个隐藏单元存多少字节",
        "注意力块 11 字节（QKV 的输入 2、Q 和 K 4、V 2、输出投影的输入 2、dropout 掩码 1），MLP 19 字节（第一层输入 2、GeLU 的输入 8、第二层输入 8、dropout 掩码 1；MLP 宽 4h），两个 LayerNorm 的输入 4 字节。16 位存储，掩码每个 1 字节。",
    ),
    (
        "5as/h",
        r"\frac{5as}{h}",
        "5as/h：分数项相对线性项有多大",
        "每个分数存 5 字节：softmax 的输出 2、dropout 掩码 1、dropout 的输出 2；一层有 a·s² 个分数，折算到每个 token、每个隐藏单元就是 5as/h。它随 s 增长：s 越长，它越压过 34。",
    ),
    (
        "34sbh",
        "34sbh",
        "34sbh：线性部分",
        "矩阵乘、GeLU、dropout、LayerNorm 要留给反向的输入，和 s 成正比。选择性重计算和 FlashAttention 之后只剩这一项。",
    ),
    (
        "5as2b",
        "5as^2b",
        "5as²b：注意力分数部分",
        "softmax 和 dropout 在 a 张 s × s 的表上留下的东西，和 s² 成正比。选择性重计算把它留到反向时重算，FlashAttention 根本不把它写进显存。",
    ),
]


def view(params: dict | None = None) -> dict:
    """Each term with its value on ``model`` (or a pasted ``config``, as the memory bar takes it) at sequence
    length ``s`` and micro-batch ``b`` (one layer), and what the model's own code keeps beyond eq. 1.

    Returns {"params", "terms": [{key, tex, title, explain, value}], "summary", "beyond"}.
    Raises InputError (Chinese message) on bad values.
    """
    p = with_defaults(params, DEFAULTS)
    known_model(p["model"])  # the memory bar's models, our small model ("lab") included
    p["config"] = config_text(p["config"])
    s = p["s"] = integer(p["s"], "序列长度 s", S_MIN, S_MAX)
    b = p["b"] = integer(p["b"], B_NAME, B_MIN, B_MAX)
    m = resolve(p["model"], p["config"])
    h, a = m.h, m.a
    ratio = Fraction(5 * a * s, h)
    lin, sc, tot = linear_term(s, b, h), score_term(s, b, a), per_layer(s, b, h, a)
    # One unit for every figure of the view (activations are quoted in GiB; MiB/TiB at the ends), with the
    # terms at the precision where, each rounded on its own, they add up to the layer's total (two to four
    # decimals: units.readable_decimals; past that the summary says what they make).
    unit = units.unit_for(tot * m.L, binary=True)
    d = units.readable_decimals([[lin, sc]], unit, 2)
    lin_t, sc_t, tot_t = (units.size(n, unit, d) for n in (lin, sc, tot))
    missed = (
        ""
        if units.adds_up([lin, sc], unit, d)
        else f"（两项各自四舍五入，加起来是 {units.shown_sum([lin, sc], unit, d)}）"
    )
    (lin_share, sc_share), _ = units.shares_adding_up(
        [lin, sc]
    )  # the two shares of the layer make 100% as shown
    values = {
        "s": f"s = {units.number(s)}",
        "b": f"b = {units.number(b)}",
        "h": f"h = {units.number(h)}",
        "a": f"a = {a}",
        "34": f"每个 token、每个隐藏单元 34 字节：34 × s × b × h = {lin_t}（每层）",
        "5as/h": f"5as/h = {units.number(ratio, 1)}，是 34 的 {units.number(ratio / 34, 2)} 倍",
        "34sbh": f"34sbh = {lin_t}，占这一层的 {lin_share}",
        "5as2b": f"5as²b = {sc_t}，占这一层的 {sc_share}",
    }
    terms = [
        {"key": k, "tex": tex, "title": title, "explain": text, "value": values[k]}
        for k, tex, title, text in TERMS
    ]
    summary = (
        f"{m.label}、s = {units.number(s)}、b = {units.number(b)}：每层 sbh(34 + 5as/h) = {lin_t} + {sc_t} = {tot_t}{missed}，"
        f"{m.L} 层共 {units.size(tot * m.L, unit)}。"
    )
    return {"params": p, "terms": terms, "summary": summary, "beyond": beyond(m, s, b)}


def beyond(m: Model, s: int, b: int) -> str:
    """One sentence: the tensors model ``m``'s own code keeps (everything stored) that eq. 1 has no term
    for, and the eq. 1 terms it sizes differently (c9/core/model_activations.py)."""
    acts = memory_tables.activation_tables(m, s, b, "store_all")
    if acts["own"] is None:
        return acts["own_missing"] + "。"
    differ = [
        r["label"]
        for r in model_activations.eq1_rows(m.arch, s, b, "store_all", memory_tables.PRECISION)
        if r["paper"] is not None and r["model"] != r["paper"]
    ]
    names = list(dict.fromkeys(acts["beyond"]))
    gap = " " if m.label[-1:].isascii() and m.label[-1:].isalnum() else ""
    return (
        f"{m.label}{gap}自己的代码（全存时）比式 1 多存 {len(names)} 种张量：{'、'.join(names)}，"
        f"共 {acts['beyond_text']}。"
        + acts["text_only"]
        + acts["beyond_groups"]
        + (
            f"式 1 里有、这个模型却大小不同（或没有）的项：{'、'.join(differ)}。"
            if differ
            else "式 1 里的各项，这个模型大小都一样。"
        )
        + "逐个张量的清单在上方显存条下面。"
    )


def page_context() -> dict:
    """What the page template (c9/views/formula.html) needs at build time."""
    return dict(view=view())


def neighbours(context: dict) -> list[dict]:
    """For the build's answer cache (c9/views/nearby.py): formula.js follows the memory bar, sending the
    model, s and b of each bar answer, so its states are those of the bar's neighbours."""
    out = []
    for q in memory_bar.neighbours(memory_bar.page_context()):
        p = {"model": q["model"], "config": q["config"], "s": int(q["s"]), "b": int(q["b"])}
        if p not in out:
            out.append(p)
    return out
