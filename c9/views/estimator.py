"""Lesson 5's memory bar as a training-memory estimator for any decoder-only model.

Which model the bar shows (one shipped in anchor-model.json, our lab model, or a pasted Hugging Face
config.json), its parameters term by term (c9/core/param_count.py), its activations two ways side by side
(the paper's eq. 1 and the model's own tensors, c9/core/model_activations.py) and how many cards of a
chosen size one step needs. Plain data for c9/views/memory_bar.py's view; standard library only.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from html import escape

from c9.base import units
from c9.base.errors import InputError
from c9.core import activations as eq1
from c9.core.architecture import Architecture, parse_config, shipped
from c9.core.models import LAB, LAB_LABEL, lab_run, load_facts, model

CONFIG_MAX = 100_000  # characters: a config.json is a few KB; anything far longer is not one
PRECISION = "bf16"  # the own-tensor count: activations in BF16 on a GPU, as the bar's BF16 recipe trains
PASTED_SOURCE = {"text": "你粘贴的 config.json（只在这个页面里，不上传）", "url": None}


@dataclass(frozen=True)
class Subject:
    """The model the bar shows: eq. 1's letters (L, h, a), Ψ, and its architecture where one can be read."""

    label: str
    psi: int
    L: int
    h: int
    a: int
    full: int  # layers with full attention (the s² switch of the anchor)
    arch: Architecture | None  # None: no config to count from (the anchor)
    why_not: str  # why there is no term-by-term count ("" when there is one)
    source: dict | None  # {"text", "url"}: where the config comes from
    published: int | None  # the published parameter total, if a source gives one
    published_source: dict | None
    published_what: str = "公开的总数"


def cards() -> list[dict]:
    return load_facts()["cards"]["list"]


def card(key) -> dict:
    """A card of anchor-model.json's list, by key. InputError for any other value."""
    for c in cards():
        if c["key"] == key:
            return c
    raise InputError(f"没有这种卡：「{str(key)[:20]}」")


def card_name(c: dict) -> str:
    """'80 GB 单卡': what the summary and the chart's line call a card."""
    return f"{units.size(c['memory_bytes'], 'GB', 0)} 单卡"


def config_text(v) -> str:
    """The pasted config.json as text ("" for none). InputError for anything else or a text far too long."""
    if not isinstance(v, str):
        raise InputError("粘贴的配置应当是 config.json 的文字内容")
    if len(v) > CONFIG_MAX:
        raise InputError(f"粘贴的文字太长（{units.number(len(v))} 个字符）：config.json 一般只有几千个字符")
    return v


def source_link(text: str | None) -> dict | None:
    """A source as the page shows it: {"text", "url"}. A URL in the text is the link; "owner/repo path
    (commit X)" becomes its GitHub address; a source with neither stays text."""
    if not text:
        return None
    url = re.search(r"https?://[^\s)]+", text)
    if url:
        return {"text": url.group(0), "url": url.group(0)}
    m = re.match(r"([\w.-]+/[\w.-]+) (\S+?)[:,]?(?= |$)(?:.*?\(commit ([0-9a-f]{40})\))?", text)
    if m:
        repo, path, commit = m.groups()
        return {
            "text": f"{repo} · {path}",
            "url": f"https://github.com/{repo}/blob/{commit or 'HEAD'}/{path}",
        }
    return {"text": text, "url": None}


def subject(key: str, config: str) -> Subject:
    """The model a pasted ``config`` (if not blank) or the shipped model ``key`` describes."""
    if config.strip():
        arch = parse_config(config)
        from c9.core.param_count import param_total

        label = f"粘贴的配置「{arch.name}」" if arch.name else f"粘贴的配置（{arch.family}）"
        return Subject(
            label, param_total(arch), arch.L, arch.h, arch.a, arch.L, arch, "", PASTED_SOURCE, None, None
        )
    if key == LAB:
        r = lab_run()
        try:
            arch = shipped(LAB)
        except InputError:
            arch = None
        return Subject(
            LAB_LABEL,
            r["psi"],
            r["L"],
            r["h"],
            r["a"],
            r["L"],
            arch,
            "我们的小模型不是 Hugging Face 的模型代码，激活只按式 1 估算（实测见实验课）",
            {"text": "实验课的数据文件 lab/results/c09-precision.json", "url": None},
            r["psi"],
            None,
            "实验课数据文件记录的参数量",
        )
    m = model(key)
    raw = load_facts()["models"][key]
    try:
        arch, why = shipped(key), ""
    except InputError as e:
        arch, why = None, e.message_zh + "；参数量用公开的总数，激活只按式 1 估算"
    return Subject(
        m.label,
        m.param_total,
        m.L,
        m.h,
        m.a,
        m.full_attention_layers,
        arch,
        why,
        source_link(raw.get("config_source")) if arch else None,
        raw.get("param_total"),
        source_link(raw.get("param_total_source")) if raw.get("param_total") else None,
    )


def _shape(shape: list[int]) -> str:
    return " × ".join(units.number(n) for n in shape)


def param_table(sub: Subject) -> dict | None:
    """The parameter count term by term: rows (term, one copy's shape, copies, count) and their sum,
    compared with the published total where a source gives one."""
    if sub.arch is None:
        return None
    from c9.core.param_count import SOURCE, breakdown

    bd = breakdown(sub.arch)
    rows = [
        {
            "key": t["key"],
            "label": t["label"],
            "shape": _shape(t["shape"]) + (f" + 偏置 {units.number(t['bias'])}" if t["bias"] else ""),
            "copies": units.number(t["copies"]),
            "count": units.number(t["count"]),
            "note": t["note"],
        }
        for t in bd["terms"]
    ]
    total = bd["total"]
    if sub.published is None:
        check = ""
    elif sub.published == total:
        check = f"与{sub.published_what} {units.number(sub.published)} 一致。"
    else:
        check = f"{sub.published_what}是 {units.number(sub.published)}，差 {units.number(total - sub.published)}。"
    active = ""
    if bd["active"] != total:
        active = f"每个词元只经过其中 {units.number(bd['active'])} 个（路由器和选中的 {sub.arch.experts_per_token} 个专家）。"
    return {
        "rows": rows,
        "total": units.number(total),
        "total_count": total,
        "check": check,
        "active": active,
        "source": SOURCE,
    }


# Eq. 1's per-layer tensors (Korthikanti et al. 2022 §4.1) with a shape and bytes per element each:
# elements × bytes = the paper's term (c9.core.model_activations.EQ1_TERMS; tests check the product).
EQ1_SHAPES = {
    "qkv_in": ("s×b×h", 2),
    "qk": ("2×s×b×h", 2),
    "softmax": ("a×s×s×b", 2),
    "attn_mask": ("a×s×s×b", 1),
    "attn_drop": ("a×s×s×b", 2),
    "v": ("s×b×h", 2),
    "proj_in": ("s×b×h", 2),
    "resid_mask1": ("s×b×h", 1),
    "mlp_in": ("s×b×h", 2),
    "act_in": ("s×b×4h", 2),
    "act_out": ("s×b×4h", 2),
    "resid_mask2": ("s×b×h", 1),
    "norms": ("2×s×b×h", 2),
}


def eq1_rows(sub: Subject, s: int, b: int, mode: str) -> list[dict]:
    """Eq. 1 for this model's h, a, L, tensor by tensor: (key, label, shape, bytes per element, bytes)."""
    from c9.core.model_activations import EQ1_TERMS

    L, h, a = sub.L, sub.h, sub.a
    if mode == "full_recompute":
        return [
            {
                "key": "layer_in",
                "label": "每层的输入",
                "shape": f"s×b×h × {L} 层",
                "bpe": 2,
                "bytes": 2 * s * b * h * L,
                "source": eq1.SOURCE + "；表 2（全量重计算）",
            }
        ]
    rows = []
    for k, (label, f_sbh, f_s2) in EQ1_TERMS.items():
        n = L * (f_sbh * s * b * h + (f_s2 * a * s * s * b if mode == "store_all" else 0))
        if n:
            shape, bpe = EQ1_SHAPES[k]
            rows.append(
                {
                    "key": k,
                    "label": label,
                    "shape": f"{shape} × {L} 层",
                    "bpe": bpe,
                    "bytes": n,
                    "source": eq1.SOURCE,
                }
            )
    return rows


def _code_place(source: str) -> str:
    """A tensor's source as its table shows it: the place in the code, without the library's name, which the
    table's caption gives once (and a call written as code said in words)."""
    from c9.core.model_activations import HF

    return source.removeprefix(HF + " ").replace("logits.float() 后", "logits 转成 FP32 后")


def own_rows(sub: Subject, s: int, b: int, mode: str) -> list[dict] | None:
    """The model's own tensors (c9/core/model_activations.py), or None where it has none to count."""
    if sub.arch is None or sub.arch.family == "lab":
        return None
    from c9.core.model_activations import tensors

    return [
        {
            "key": t.key,
            "label": t.label + ("" if t.saved else "（不为反向保存）"),
            "shape": t.shape + (f" × {t.count} 层" if t.count > 1 else ""),
            "bpe": t.bytes_per_element,
            # a call written as code reads as code: the site writes what it does
            "bytes": t.bytes,
            "source": _code_place(t.source),
            "note": t.note,
            "eq1": t.eq1,
            "saved": t.saved,
        }
        for t in tensors(sub.arch, s, b, mode, PRECISION)
    ]


def _shown(rows: list[dict], unit: str) -> dict:
    """Rows with their bytes in ``unit`` at two decimals, adding up to the total as shown."""
    texts, total = units.adding_up([r["bytes"] for r in rows], unit, 2)
    adjusted = units.apportion([r["bytes"] for r in rows], unit, 2)[2]
    return {
        "rows": [{**r, "text": t, "bpe": f"{r['bpe']} 字节"} for r, t in zip(rows, texts)],
        "total": total,
        "total_bytes": sum(r["bytes"] for r in rows),
        "note": units.ADJUSTED_NOTE if adjusted else "",
    }


def activation_tables(sub: Subject, s: int, b: int, mode: str) -> dict:
    """Eq. 1 and (where the model has a config) its own tensors, in one binary unit for both."""
    e = eq1_rows(sub, s, b, mode)
    own = own_rows(sub, s, b, mode)
    biggest = max(sum(r["bytes"] for r in e), sum(r["bytes"] for r in own) if own else 0)
    unit = units.unit_for(biggest, binary=True)
    out = {
        "unit": unit,
        "eq1": _shown(e, unit),
        "own": _shown(own, unit) if own else None,
        "own_missing": "" if own else (sub.why_not or "这个模型没有可以逐个张量计数的配置"),
        "beyond": [],
    }
    if own:
        extra = [r for r in own if r["eq1"] is None]
        out["beyond"] = [r["label"] for r in extra]
        out["beyond_bytes"] = sum(r["bytes"] for r in extra)
        out["beyond_text"] = units.size(out["beyond_bytes"], unit, 2)
    return out


def cards_text(
    c: dict, parts: list[tuple[str, int, str]], total: int, own_total: int | None, unit: str
) -> str:
    """How many cards of ``c`` the step needs (if memory could be split evenly) and what is too big for one.
    ``parts``: (label, bytes, as shown) of the bar's segments; totals in bytes."""
    cap = c["memory_bytes"]
    n = math.ceil(total / cap)
    if n <= 1:
        text = f"按式 1 一张 {units.size(cap, 'GB', 0)} 卡就放得下，还空着 {units.size(cap - total, unit)}"
    else:
        text = f"按式 1 需要 {units.number(n)} 张 {units.size(cap, 'GB', 0)} 卡（假设显存能在卡之间均分）"
    if own_total is not None:
        m = math.ceil(own_total / cap)
        text += f"；按这个模型自己的张量需要 {units.number(m)} 张"
    big = [f"{label} {shown}" for label, n_bytes, shown in parts if n_bytes > cap]
    if big:
        text += (
            f"。单卡放不下：{'、'.join(big)}，每一项本身就比一张卡大，只能切开分到几张卡上（C10 讲怎么切）。"
        )
    else:
        text += "。每一项单独都放得进一张卡。"
    return text


def _link(src: dict | None) -> str:
    if not src:
        return ""
    if src.get("url"):
        return f'<a href="{escape(src["url"])}" rel="noopener">{escape(src["text"])}</a>'
    return escape(src["text"])


def _span(text: str) -> str:
    return f"<span>{escape(text)}</span>"


def _table(cls: str, caption: str, head: list[str], rows: list[list[str]], total: list[str] | None) -> str:
    """A table as markup: the first cell of each row is its header; the total row last."""
    out = [
        f'<table class="{cls}"><caption>{escape(caption)}</caption><thead><tr>'
        + "".join(f'<th scope="col">{escape(h)}</th>' for h in head)
        + "</tr></thead><tbody>"
    ]
    for r in rows + ([total] if total else []):
        out.append(
            f'<tr><th scope="row">{escape(r[0])}</th>'
            + "".join(f"<td>{escape(c)}</td>" for c in r[1:])
            + "</tr>"
        )
    return "".join(out) + "</tbody></table>"


def detail_html(sub: Subject, pt: dict | None, acts: dict, mode: str, label: str) -> dict:
    """The estimator's part of the bar as markup, piece by piece (the build writes each into its place in
    the page for the default state; memory-bar.js puts each answer's pieces in the same places, so the
    boxes that scroll keep course.js's cue): the config's source, the parameters term by term
    (:func:`param_table`) and a note, the activations two ways side by side (:func:`activation_tables`,
    ``mode`` the storage mode's name) and a note. A piece the model does not have is ""."""
    out = {"source": f"配置来源：{_link(sub.source)}" if sub.source else "", "params": "", "own": ""}
    if pt:
        rows = [[r["label"], r["shape"], r["copies"], r["count"]] for r in pt["rows"]]
        out["params"] = _table(
            "c9-params",
            f"参数量逐项：{label}",
            ["项", "每份的形状", "份数", "参数个数"],
            rows,
            ["合计", "", "", pt["total"]],
        )
        out["params_note"] = _span(f"{pt['check']}{pt['active']}参数{pt['source']}。")
    else:
        out["params_note"] = _span(sub.why_not + "。")
    head = ["张量", "形状", "每个元素", f"大小（{acts['unit']}）", "出处"]

    def rows_of(t):
        return [[r["label"], r["shape"], r["bpe"], r["text"], r["source"]] for r in t["rows"]]

    out["eq1"] = _table(
        "c9-act-eq1",
        f"激活·按式 1（{mode}）",
        head,
        rows_of(acts["eq1"]),
        ["合计", "", "", acts["eq1"]["total"], ""],
    )
    if acts["own"]:
        from c9.core.model_activations import HF

        out["own"] = _table(
            "c9-act-own",
            f"激活·按这个模型自己的张量（{mode}，BF16；出处是 {HF} 里的代码位置）",
            head,
            rows_of(acts["own"]),
            ["合计", "", "", acts["own"]["total"], ""],
        )
        e, o = acts["eq1"]["total_bytes"], acts["own"]["total_bytes"]
        more = f"多 {units.percent(o - e, e)}" if o >= e else f"少 {units.percent(e - o, e)}"
        note = (
            f"两种算法：按式 1 共 {acts['eq1']['total']}，按这个模型自己的张量共 {acts['own']['total']}，"
            f"比式 1 {more}。式 1 只数了 16 位的 Transformer 层；模型自己的代码还有 FP32 的副本、词表上的 logits 和损失等。"
        )
        out["act_note"] = _span(note + (acts["eq1"]["note"] or acts["own"]["note"]))
    else:
        out["act_note"] = _span(acts["own_missing"] + "。")
    return out
