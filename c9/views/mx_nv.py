"""The FP4 lesson's comparison: one block of up to 16 values quantised to MXFP4 and to NVFP4.

The typed numbers are stored as FP32 first (the seed's rule, :mod:`c9.views.fp32_first`), then quantised;
where quantising the exact numbers would recover another value, the summary says so.
MXFP4 (OCP MX v1.0): E2M1 elements, one power-of-two E8M0 scale per 32 values. NVFP4: E2M1
elements, one E4M3 scale per 16 values and an FP32 scale for the whole tensor. The block here is the
whole tensor and at most 16 values long, so each scheme uses exactly one block scale. All numbers
come from :func:`c9.core.blockscale.quantize`; ``view`` validates the reader's text in Chinese.
"""

from __future__ import annotations

from c9.base import typed, units
from c9.base.errors import InputError
from c9.core import blockscale as B
from c9.core import formats as F
from c9.views import fp32_first
from c9.views.params import fp32_numbers, with_defaults, within_fp32

WIDGET = "mx-nv"
MAX_VALUES = 16
DEFAULT_TEXT = "0.3, -1.2, 2.7, 0.05"
SCHEMES = ("mxfp4", "nvfp4")
RULES = tuple(B.MX_RULES)  # MXFP4's scale rule: OCP's floor (the default) or one of torchao's


def parse_block(text) -> list:
    """The reader's block: numbers separated by commas, "、", ";" or spaces (brackets ignored), each read
    exactly by :mod:`c9.base.typed` (a float when the float is exact, else a Fraction)."""
    if not isinstance(text, str) or not typed.tokens(text):
        raise InputError("块是空的：至少输入一个数")
    vals = fp32_numbers(text, lambda i: f"第 {i + 1} 个数")
    for v in vals:
        if v != v:
            raise InputError("块里有 NaN：只能量化有限数")
    within_fp32(text, vals, lambda i: f"第 {i + 1} 个数")
    if len(vals) > MAX_VALUES:
        raise InputError(f"最多 {MAX_VALUES} 个数（一个 NVFP4 块的长度），收到了 {len(vals)} 个")
    if all(v == 0 for v in vals):
        raise InputError("全是 0：没有可以缩放的数，换几个非零的数试试")
    return [typed.value(v) for v in vals]


def _eq(x) -> str:
    """ "=" before a value shown exactly at 6 digits, "≈" before a rounded one."""
    return "=" if units.sci(x, 6) == units.sci(x, 25) else "≈"


def scheme_rows(vals: list, scheme: str, rule: str = "floor") -> dict:
    """One scheme on the typed block ``vals`` (exact numbers), stored as FP32 first (the seed's rule);
    ``rule``: MXFP4's scale rule (c9.core.blockscale.MX_RULES)."""
    bf = B.get_block_format(scheme)
    held = fp32_first.quantize(vals, scheme, bf.title_zh, lambda i, j: f"第 {j + 1} 个数", rule)
    q = held.q
    e2m1 = F.get_format("float4_e2m1fn")
    elems = []
    for v, c, d, r in zip(vals, q.codes, q.dequantized, held.rel):
        elems.append(
            {
                "code": c,
                "bits": F.fields(e2m1, c)["bits"],
                "element": F.decode(e2m1, c),
                "element_text": units.sci(F.decode(e2m1, c), 6),
                "dequantized": d,
                "dequantized_text": units.sci(d, 6),
                "rel_error": r,
                "rel_text": units.error_percent(r) if v != 0 else "—",
                "zeroed": v != 0 and d == 0,
                "clipped": False,
            }
        )
    scale, scode = q.scales[0][0], q.scale_codes[0][0]
    sf = bf.scale
    if scheme == "mxfp4":
        scale_text = f"X = {units.power_of_two(scode - sf.bias)} {_eq(scale)} {units.sci(scale, 6)}（E8M0 编码 0x{scode:02X}）"
        rule = "元素 = E2M1(v / X)，还原 = 元素 × X"
    else:
        scale_text = (
            f"块缩放 b = {units.sci(scale, 6)}（E4M3 编码 0x{scode:02X}，位 {F.fields(sf, scode)['bits']}），"
            f"张量缩放 t {_eq(q.tensor_scale)} {units.sci(q.tensor_scale, 6)}（FP32）"
        )
        rule = "元素 = E2M1(v / (b·t))，还原 = 元素 × b × t"
    clipped = bool(q.clipped[0][0])
    if clipped:  # the block's largest |v| (first one) is the number saturation cut
        amax = max(abs(v) for v in held_values(vals))
        next(e for v, e in zip(held_values(vals), elems) if abs(v) == amax)["clipped"] = True
    if q.mx_rule:
        rule += f"（缩放规则：{B.MX_RULES[q.mx_rule][0]}）"
    zeroed = sum(e["zeroed"] for e in elems)
    nonzero = [e["rel_error"] for v, e in zip(vals, elems) if v != 0]
    return {
        "scheme": scheme,
        "label": bf.title_zh,
        "elements": elems,
        "scale": scale,
        "scale_code": scode,
        "scale_text": scale_text,
        "tensor_scale": q.tensor_scale,
        "rule": rule,
        "bits_nominal": q.bits_per_element,
        "bits_actual": q.bits_actual,
        "max_rel": max(nonzero),
        "max_rel_text": units.error_percent(max(nonzero)),
        "zeroed": zeroed,
        "block_size": bf.block_size,
        "flushed": held.flushed,
        "double": held.note,
        "clipped": clipped,
        "mx_rule": q.mx_rule,
    }


def held_values(vals: list) -> list:
    """The typed numbers as FP32 holds them (the values the schemes quantise)."""
    return fp32_first.stored(vals)


def view(params: dict | None = None) -> dict:
    """params: {"text": "0.3, -1.2, 2.7, 0.05", "rule": "floor"} (rule: MXFP4's scale rule, one of RULES).
    Raises InputError (Chinese) on bad input."""
    p = with_defaults(params, {"text": DEFAULT_TEXT, "rule": "floor"})
    if p["rule"] not in RULES:
        raise InputError(f"没有这种 MX 缩放规则：{typed.shown(p['rule'])}")
    vals = parse_block(p["text"])
    mx, nv = (scheme_rows(vals, s, p["rule"]) for s in SCHEMES)
    # the typed value's text from its exact value: 1e-330 reads "1×10⁻³³⁰", though as a float it is 0
    rows = [
        {"value": float(v), "value_text": units.sci(v, 6), "mx": a, "nv": b}
        for v, a, b in zip(vals, mx["elements"], nv["elements"])
    ]
    flushed = mx["flushed"]
    vals = [float(v) for v in vals]

    def part(s):
        z = f"，{s['zeroed']} 个非零数变成了 0" if s["zeroed"] else "，没有非零数变成 0"
        c = "，块里最大的数被截断到上限" if s["clipped"] else "，最大的数没有被截断"
        return f"{s['label']} 最大相对误差 {s['max_rel_text']}{z}{c}"

    summary = (
        f"{len(vals)} 个数：{part(mx)}；{part(nv)}。名义上每个数 {mx['bits_nominal']:g} 位对 "
        f"{nv['bits_nominal']:g} 位（缩放因子摊到整块 {mx['block_size']} / {nv['block_size']} 个数上）。"
    )
    if flushed:
        summary += f"其中 {flushed} 个数太小，先存成 FP32 时就已是 0。"
    summary += "".join(s["double"] for s in (mx, nv) if s["double"])
    return {
        "params": {"text": p["text"], "rule": p["rule"]},
        "values": vals,
        "rows": rows,
        "mx": {k: v for k, v in mx.items() if k != "elements"},
        "nv": {k: v for k, v in nv.items() if k != "elements"},
        "summary": summary,
    }


def page_context() -> dict:
    return dict(
        view=view(),
        max_values=MAX_VALUES,
        list_rule=typed.LIST_RULE,
        rules=[{"value": k, "label": v[0]} for k, v in B.MX_RULES.items()],
    )
