"""The tables under lesson 5's memory bar, for the model it shows (c9.core.models.resolve): the parameters
term by term (c9/core/param_count.py) and the activations two ways side by side, the paper's eq. 1 and the
model's own tensors (c9/core/model_activations.py). Row data first, then the same tables as markup
(:func:`detail_html`), which c9/views/memory_bar.py sends with each answer. Standard library only.
"""

from __future__ import annotations

from functools import cache
from html import escape

from c9.base import units
from c9.core import activations as eq1
from c9.core.architecture import parse_config
from c9.core.model_activations import EQ1_TERMS, HF, saved_bytes, tensors, text_only, unmodelled
from c9.core.models import Model, load_facts
from c9.core.param_count import SOURCE, breakdown, param_total

PRECISION = "bf16"  # the own-tensor count: activations in BF16 on a GPU, as the bar's BF16 recipe trains


def _shape_text(shape: list[int]) -> str:
    return " × ".join(units.number(n) for n in shape)


@cache
def _makers_totals() -> dict[int, dict]:
    """A count → what the model's maker publishes beside it, for each stored config whose maker gives more
    than the count covers (anchor-model.json: pasted_configs.*.published_params: DeepSeek-V3's MTP module).
    A pasted config of exactly that size is told the maker's figures."""
    return {
        param_total(parse_config(c["config"])): c["published_params"]
        for k, c in load_facts()["pasted_configs"].items()
        if k != "about" and c.get("published_params")
    }


def _makers_note(total: int) -> str:
    p = _makers_totals().get(total)
    if p is None:
        return ""
    b = {k: f"{units.number(p[k] / 10**9)}B" for k in ("total", "mtp", "main")}
    return f"{p['by']} 公布的总数 {b['total']} 含 MTP 的 {b['mtp']}，主模型是 {b['main']}。"


def param_table(m: Model) -> dict | None:
    """The parameter count term by term: rows (term, one copy's shape, copies, count) and their sum,
    compared with the published total where a source gives one."""
    if m.arch is None:
        return None
    bd = breakdown(m.arch)
    rows = [
        {
            "key": t["key"],
            # a term counted 0 times (the output layer tied to the embedding table) says why in its row
            "label": t["label"] + (f"（{t['note']}）" if not t["copies"] and t["note"] else ""),
            "shape": _shape_text(t["shape"]) + (f" + 偏置 {units.number(t['bias'])}" if t["bias"] else ""),
            "copies": units.number(t["copies"]),
            "count": units.number(t["count"]),
            "note": t["note"],
        }
        for t in bd["terms"]
    ]
    total = bd["total"]
    if m.published is None:
        check = ""
    elif m.published == total:
        check = f"与{m.published_what} {units.number(m.published)} 一致。"
    else:
        check = f"{m.published_what}是 {units.number(m.published)}，差 {units.number(total - m.published)}。"
    active = ""
    if bd["active"] != total:
        shared = "、共享专家" if m.arch.shared_experts else ""
        active = f"每个词元只经过其中 {units.number(bd['active'])} 个（路由器{shared}和选中的 {m.arch.experts_per_token} 个专家）。"
    return {
        "rows": rows,
        "total": units.number(total),
        "total_count": total,
        "check": check,
        "active": active,
        "left_out": "".join(t + "。" for t in m.arch.left_out) + _makers_note(total),
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


def eq1_rows(m: Model, s: int, b: int, mode: str) -> list[dict]:
    """Eq. 1 for this model's h, a, L, tensor by tensor: (key, label, shape, bytes per element, bytes)."""
    L, h, a = m.L, m.h, m.a
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
    return source.removeprefix(HF + " ").replace("logits.float() 后", "logits 转成 FP32 后")


def own_rows(m: Model, s: int, b: int, mode: str) -> list[dict] | None:
    """The model's own tensors (c9/core/model_activations.py), or None where it has none to count."""
    if m.arch is None or m.arch.family == "lab" or unmodelled(m.arch):
        return None
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
        for t in tensors(m.arch, s, b, mode, PRECISION)
    ]


def _shown(rows: list[dict], unit: str, digits: int) -> dict:
    """Rows with their bytes in ``unit`` at ``digits`` decimals, and their total; ``missed``: what the rows
    as shown make where that is not the total as shown (else "")."""
    total = sum(r["bytes"] for r in rows)
    parts = [r["bytes"] for r in rows]
    return {
        "rows": [
            {**r, "text": units.size(r["bytes"], unit, digits), "bpe": f"{r['bpe']} 字节"} for r in rows
        ],
        "total": units.size(total, unit, digits),
        "total_bytes": total,
        "missed": "" if units.adds_up(parts, unit, digits) else units.shown_sum(parts, unit, digits),
    }


def activation_tables(m: Model, s: int, b: int, mode: str) -> dict:
    """Eq. 1 and (where the model has a config) its own tensors, in one binary unit for both and at one
    precision, two to four decimals (units.readable_decimals): where each table's rows, each rounded on
    its own, add up to its total as shown, and the rows beyond eq. 1 to the total the formula view quotes.
    So a tensor in both tables reads the same in both. A table whose rows, multiples of one s·b·h, add up
    only further down (GPT-2 XL at s = 21,131: 32 decimals of TiB) says what they make (its "missed")."""
    e = eq1_rows(m, s, b, mode)
    own = own_rows(m, s, b, mode)
    biggest = max(sum(r["bytes"] for r in e), sum(r["bytes"] for r in own) if own else 0)
    unit = units.unit_for(biggest, binary=True)
    extra = [r for r in own if r["eq1"] is None] if own else []
    tables = [[r["bytes"] for r in t] for t in (e, own) if t]
    d = units.readable_decimals(tables, unit, 2, also=[[r["bytes"] for r in extra]] if extra else [])
    out = {
        "unit": unit,
        "digits": d,
        "eq1": _shown(e, unit, d),
        "own": _shown(own, unit, d) if own else None,
        "own_missing": "" if own else (m.why_eq1_only or "这个模型没有可以逐个张量计数的配置"),
        "beyond": [],
    }
    if own:
        out["beyond"] = [r["label"] for r in extra]
        out["beyond_bytes"] = sum(r["bytes"] for r in extra)
        out["beyond_text"] = units.size(out["beyond_bytes"], unit, d)
        out["beyond_groups"] = beyond_groups(own)
        out["text_only"] = text_only(m.arch) + "。" if m.arch.wrapper else ""
        out["window_note"] = window_note(m, s, b, mode, unit)
    return out


#: own-tensor keys beyond eq. 1 that DeepSeek-V3's latent attention adds, and that a router and its experts add
MLA_KEYS = ("q_a_norm", "kv_a_norm", "q_b_in", "kv_b_in")
MOE_KEYS = ("router_", "expert_")


def beyond_groups(own: list[dict]) -> str:
    """Of the own tensors eq. 1 has no term for, how many the latent attention and the router and experts add
    (a sentence), or "" for a model with neither."""
    extra = [r for r in own if r["eq1"] is None]
    mla = {r["label"] for r in extra if r["key"].startswith(MLA_KEYS)}
    moe = {r["label"] for r in extra if r["key"].startswith(MOE_KEYS)}
    parts = (
        [f"{len(mla)} 种来自多头潜在注意力：两个潜向量的归一化和 q_b_proj、kv_b_proj 的输入"] if mla else []
    )
    parts += [f"{len(moe)} 种来自路由器和各个专家"] if moe else []
    return "比式 1 多出的张量里，" + "，".join(parts) + "。" if parts else ""


def window_note(m: Model, s: int, b: int, mode: str, unit: str) -> str:
    """With FlashAttention chosen and a sliding window that s reaches, what transformers' own sdpa path
    would keep beyond it (c9.core.model_activations, kernel "sdpa"); "" otherwise."""
    A = m.arch
    if mode != "flash" or not A.sliding_window or s < A.sliding_window:
        return ""
    extra = saved_bytes(tensors(A, s, b, mode, PRECISION, kernel="sdpa")) - saved_bytes(
        tensors(A, s, b, mode, PRECISION)
    )
    if extra <= 0:
        return ""
    return (
        f"这里按 FlashAttention 算：它直接按 {units.number(A.sliding_window)} 个词元的滑动窗口计算，不要掩码。"
        f"若用 transformers 的 sdpa 实现，s 达到窗口后它给 {A.sliding_layers} 个滑动窗口层各留一张 b×s×s 的掩码，"
        f"还把 K、V 复制到 a 个头，要多留 {units.size(extra, unit, 2)}。"
    )


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


def detail_html(m: Model, pt: dict | None, acts: dict, mode: str) -> dict:
    """The estimator's part of the bar as markup, piece by piece (the build writes each into its place in
    the page for the default state; memory-bar.js puts each answer's pieces in the same places, so the
    boxes that scroll keep course.js's cue): the config's source, the parameters term by term
    (:func:`param_table`) and a note, the activations two ways side by side (:func:`activation_tables`,
    ``mode`` the storage mode's name) and a note. A piece the model does not have is ""."""
    out = {
        "source": f"配置来源：{_link(m.config_source)}" if m.config_source else "",
        "params": "",
        "own": "",
    }
    if pt:
        rows = [[r["label"], r["shape"], r["copies"], r["count"]] for r in pt["rows"]]
        out["params"] = _table(
            "c9-params",
            f"参数量逐项：{m.label}",
            ["项", "每份的形状", "份数", "参数个数"],
            rows,
            ["合计", "", "", pt["total"]],
        )
        out["params_note"] = _span(f"{pt['check']}{pt['active']}{pt['left_out']}参数{pt['source']}。")
    else:
        out["params_note"] = _span(m.why_eq1_only + "。")
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
        out["act_note"] = _span(
            note
            + acts.get("text_only", "")
            + acts.get("beyond_groups", "")
            + acts.get("window_note", "")
            + _missed_note(acts)
        )
    else:
        out["act_note"] = _span(acts["own_missing"] + "。" + _missed_note(acts))
    return out


def _missed_note(acts: dict) -> str:
    """A sentence for each table whose rows, each rounded on its own, miss its total in the last digits."""
    names = {"eq1": "按式 1 的表", "own": "按模型自己的张量的表"}
    return "".join(
        f"{names[k]}各行各自四舍五入，加起来是 {acts[k]['missed']}，与合计 {acts[k]['total']} 差在末位。"
        for k in ("eq1", "own")
        if acts[k] and acts[k]["missed"]
    )
