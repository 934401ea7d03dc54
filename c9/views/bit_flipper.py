"""The bit flipper (lessons 2 and 3): one renderer for every format, driven by the format record.

The reader flips a bit, types a code (hex or binary) in one format, or types a decimal value. A typed
value is stored by the seed's 数字口径: first as FP32 (exactly rounded once), then rounded to each
narrower format by that format's own tie rule (:func:`c9.core.formats.encode_via_float32`), as PyTorch
and ml_dtypes store a float64. Where one rounding of the exact value would give another code, the row
says so (:func:`double_rounding_note`). A code typed or flipped in one row is a value FP32 holds
exactly, so the other rows round it once. The same view serves FP32/FP16/BF16 (lessons 2–3), FP8
E4M3/E5M2 (lesson 4) and E2M1/E8M0 (the FP4 branch); ``overflow`` chooses what a value past the largest finite one becomes
("default": E4M3FN NaN, E5M2/FP16 ±∞; "saturate": ±max, OFP8 §5.3). Python computes everything (value, exact power-of-two form, class,
neighbours, spacing, the interval that rounds here); JavaScript only draws the bits and the text.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

from c9.base import units
from c9.base.errors import InputError
from c9.base.typed import parse as parse_number
from c9.core import formats as F
from c9.views.params import ascii_text, shown, with_defaults

WIDGET = "bit-flipper"

DEFAULTS = {
    "formats": "float16,float32",
    "source": "value",
    "code": None,
    "value": "1",
    "overflow": "default",
}
MAX_FORMATS = 4
OVERFLOW = ("default", "saturate")
# The formats whose reader gets the saturating / non-saturating choice (OFP8 §5.3 names it for FP8 only).
OVERFLOW_CHOICE = ("float8_e4m3fn", "float8_e5m2")

CLASS_ZH = {
    "zero": "零",
    "subnormal": "次正规数",
    "normal": "正规数",
    "infinity": "无穷大",
    "nan": "NaN（非数）",
}


def short_name(fmt) -> str:
    """The format's name as the widgets write it (c9.core.formats.Format.long_label): FP16, FP8 E4M3."""
    return F.get_format(fmt).long_label


def _formats(spec) -> list[F.Format]:
    names = spec.split(",") if isinstance(spec, str) else spec
    if not isinstance(names, list) or not names:
        raise InputError("要至少给出一种格式")
    if len(names) > MAX_FORMATS:
        raise InputError(f"最多同时显示 {MAX_FORMATS} 种格式")
    try:
        out = [F.get_format(n.strip() if isinstance(n, str) else n) for n in names]
    except F.CodecInputError as e:
        raise InputError(e.message_zh) from None
    if len({f.name for f in out}) != len(out):
        raise InputError("同一种格式出现了两次")
    return out


def parse_value(text) -> Fraction | float:
    """A number typed by the reader (:func:`c9.base.typed.parse`): ``"1e-8"``, ``"70,000"``, ``"-0"``,
    ``"-nan"``, ``"0x1p-24"``. An exact Fraction, or a float for ±0, ±inf and NaN (signs kept)."""
    return parse_number(text)


SHORT_EXACT = 20  # characters: a longer exact decimal is shown as a power of two


def _value_text(v: float) -> str:
    """±∞ and NaN spelt out (a NaN whose sign bit is set reads "−NaN", as its code keeps it); ±0."""
    if v != v:
        return "−NaN" if math.copysign(1.0, v) < 0 else "NaN"
    if math.isinf(v):
        return "+∞" if v > 0 else "−∞"
    return "−0" if math.copysign(1.0, v) < 0 else "0"


def grouped(decimal: str) -> str:
    """An exact decimal with thousands separators in its integer part, as every number the site shows:
    "57344" → "57,344", "65504.5" → "65,504.5"; the fraction digits stay as they are (exact)."""
    whole, dot, frac = decimal.partition(".")
    return f"{int(whole):,}{dot}{frac}"


def _grouped_plain(text: str) -> str:
    """:func:`grouped` for a plain decimal the page writes ("−65488" → "−65,488"); a ×10ⁿ form is left alone."""
    sign, body = ("−", text[1:]) if text.startswith("−") else ("", text)
    return sign + grouped(body) if re.fullmatch(r"\d+(\.\d+)?", body) else text


def exact_short(fmt: F.Format, code: int) -> str:
    """The value of ``code``, exactly and briefly: its decimal when that has at most SHORT_EXACT
    characters ("128", "0.0001220703125"), else its power-of-two form ("2⁻²⁴", "1.5 × 2⁻¹³⁰").
    Never a rounded decimal: FP16's and FP32's 2⁻²⁴ read the same. Typed back, it reads as itself."""
    v = F.decode(fmt, code)
    if v != v or math.isinf(v) or v == 0:
        return _value_text(v)
    fr = F.decode_exact(fmt, code)
    s = ("-" if fr < 0 else "") + grouped(units.exact_decimal(abs(fr)))
    if len(s) <= SHORT_EXACT:
        return s.replace("-", "−")
    return pow2_odd(fr)


def pow2_odd(fr: Fraction) -> str:
    """A dyadic rational as odd integer × a power of two: "2⁻²⁴", "−3 × 2⁻¹³¹", "16,777,215 × 2¹⁰⁴"."""
    n, d = abs(fr.numerator), fr.denominator
    e = -(d.bit_length() - 1)
    tz = (n & -n).bit_length() - 1
    n, e = n >> tz, e + tz
    sign = "−" if fr < 0 else ""
    return sign + (f"{units.number(n)} × " if n != 1 else "") + units.superscript_powers(f"2^{e}")


def _exact_text(fmt: F.Format, code: int) -> str:
    v = F.decode(fmt, code)
    if v != v or math.isinf(v):
        return _value_text(v)
    fr = F.decode_exact(fmt, code)
    s = ("−" if fr < 0 or (fr == 0 and math.copysign(1.0, v) < 0) else "") + grouped(
        units.exact_decimal(abs(fr))
    )  # U+2212 as in value_text
    if len(s) > 48:
        digits = sum(ch.isdigit() for ch in s)
        s = s[:44] + f"…（共 {digits} 位数字）"
    return s


def _pow2_text(expr: str) -> str:
    """formats.power_of_two's '1.5 × 2^-3' typeset for the page: '1.5 × 2⁻³' (a proper minus)."""
    if expr in ("inf", "-inf"):  # signed as 存下的值 writes it: +∞, −∞
        return "+∞" if expr == "inf" else "−∞"
    return units.superscript_powers(expr).replace("-", "−")


def _bits(fmt: F.Format, code: int) -> list[dict]:
    """One entry per bit, most significant first: kind, label (for aria), on/off, mask."""
    out = []
    short = short_name(fmt)
    for pos in range(fmt.bits - 1, -1, -1):
        mask = 1 << pos
        if fmt.signed and pos == fmt.bits - 1:
            kind, label = "sign", "符号位"
        elif pos >= fmt.mantissa_bits:
            i = pos - fmt.mantissa_bits
            kind, label = "exponent", f"指数位 {i}"
        else:
            i = fmt.mantissa_bits - pos
            kind, label = "mantissa", f"尾数位 {i}"
        out.append(
            {"pos": pos, "kind": kind, "label": label, "aria": f"{short} {label}", "on": bool(code & mask)}
        )
    return out


def format_view(
    fmt: F.Format,
    code: int,
    typed: Fraction | float | None = None,
    overflow: str = "default",
    double: str | None = None,
) -> dict:
    """Everything one format's row shows for ``code``; ``typed`` (the reader's real number) adds the
    rounding error; ``overflow`` decides which reals round to the largest code (the interval);
    ``double`` is the note on two roundings (:func:`double_rounding_note`), or None."""
    d = F.fields(fmt, code)
    cls = F.classify(fmt, code)
    v = F.decode(fmt, code)
    up, down = F.next_up(fmt, code), F.next_down(fmt, code)
    finite = not (v != v or math.isinf(v))
    spacing = F.ulp(fmt, v) if finite else None
    iv = F.interval(fmt, code, overflow)
    row = {
        "format": fmt.name,
        "short": short_name(fmt),
        "code": code,
        "hex": f"0x{code:0{(fmt.bits + 3) // 4}X}",
        "bits_text": d["bits"],
        "bits": _bits(fmt, code),
        "sign": d["sign"],
        "exponent_field": d["exponent"],
        "mantissa_field": d["mantissa"],
        "exponent_bits": fmt.exponent_bits,
        "mantissa_bits": fmt.mantissa_bits,
        "bias": fmt.bias,
        "cls": cls,
        "cls_zh": CLASS_ZH[cls],
        "value": None if not finite else v,
        "value_text": exact_short(fmt, code),
        "exact": _exact_text(fmt, code),
        "pow2": _pow2_text(F.power_of_two(fmt, code)),
        # a NaN has no neighbours on the number line (next_up of a NaN is a NaN): shown as "—"
        "up": None if up is None or not finite and v != v else exact_short(fmt, up),
        "down": None if down is None or not finite and v != v else exact_short(fmt, down),
        "ulp": spacing,
        "ulp_text": "—" if spacing is None else _pow2_exp(spacing),
        "interval": "—" if iv is None else _short_interval(iv, fmt),
        "missing": None,
        "double": double,
    }
    if typed is not None:
        row["error_text"] = _error_text(fmt, typed, v)
    return row


def missing_row(fmt: F.Format, why: str) -> dict:
    """A row whose format cannot hold the value the reader made in another row (a NaN code shown
    beside E2M1, which has no NaN): every fact "—", all bits off, and ``missing`` says why."""
    return {
        "format": fmt.name,
        "short": short_name(fmt),
        "code": None,
        "hex": "—",
        "bits_text": "—",
        "bits": [{**b, "on": False} for b in _bits(fmt, 0)],
        "sign": 0 if fmt.signed else None,
        "exponent_field": None,
        "mantissa_field": None,
        "exponent_bits": fmt.exponent_bits,
        "mantissa_bits": fmt.mantissa_bits,
        "bias": fmt.bias,
        "cls": "none",
        "cls_zh": "存不下",
        "value": None,
        "value_text": "—",
        "exact": "—",
        "pow2": "—",
        "up": None,
        "down": None,
        "ulp": None,
        "ulp_text": "—",
        "interval": "—",
        "missing": why,
        "double": None,
    }


def _no_nan(fmt: F.Format) -> str:
    """What happens to a NaN in a format without one (E2M1): said, not silently made a number."""
    return (
        f"{short_name(fmt)} 没有 NaN（也没有无穷大），NaN 存不进去：这里不把它悄悄换成某个有限数"
        f"（有的库会把它存成 0，那只是约定，不是舍入的结果）"
    )


def _pow2_exp(x: float) -> str:
    """A spacing (a power of two): "2⁻¹ = 0.5", "2⁻²⁴ ≈ 5.96×10⁻⁸" (= only when the decimal is exact and short)."""
    e = math.frexp(x)[1] - 1
    exact = units.exact_decimal(x)
    return f"{units.superscript_powers(f'2^{e}')} " + (
        f"= {grouped(exact)}" if len(exact) <= SHORT_EXACT else f"≈ {units.sci(x, 3)}"
    )


def _short_interval(iv: F.Interval, fmt: F.Format) -> str:
    digits = max(6, int(fmt.mantissa_bits * 0.30103) + 3)

    def s(v):
        if isinstance(v, float):
            return "+∞" if v > 0 else "−∞"
        return (
            _grouped_plain(units.sci(v, digits)) if v else "0"
        )  # "−480", "65,488", "7.62939×10⁻⁶": reader notation

    # "，" between the ends: a half-width comma there read as one more thousands separator ([65,520, +∞])
    return f"{'[' if iv.lo_closed else '('}{s(iv.lo)}，{s(iv.hi)}{']' if iv.hi_closed else ')'}"


def _error_text(fmt: F.Format, typed, stored: float) -> str:
    if isinstance(typed, float) and not math.isfinite(typed):
        return "—"
    if stored != stored:
        if not fmt.signed and typed <= 0:
            return f"变成了 NaN：{short_name(fmt)} 没有 0，也没有负数"
        if not fmt.has_zero and F.as_float32(typed) == 0:
            return f"变成了 NaN：先存成 FP32 时已下溢成 0，而 {short_name(fmt)} 没有 0"
        return "舍入后超出最大值，变成了 NaN（非饱和）"
    if math.isinf(stored):
        return "溢出成了无穷大"
    t = Fraction(typed)
    err = Fraction(stored) - t
    if err == 0:
        return "0（恰好可表示）"
    if stored == 0:
        return "下溢成 0：全部丢失（相对误差 100%）"
    rel = abs(err) / abs(t)
    rel_text = units.error_percent(rel)  # 6.1×10⁻⁷%, never 6.08e−07%
    clamped = abs(stored) == fmt.max and F.rounds_past_max(fmt, abs(t))
    # the exact difference, not float(err): a saturated 1e400 is off by more than a float can hold
    return f"{'+' if err > 0 else '−'}{units.sci(abs(err), 3)}（相对 {rel_text}{'；饱和到最大值' if clamped else ''}）"


def view(params: dict | None = None) -> dict:
    """params: formats ("float16,float32" or a list), source ("value" or a format name), value (a
    decimal text, when source is "value"), code (an int or a hex/binary text in the source format),
    overflow ("default" or "saturate").
    Raises InputError (Chinese) on bad input."""
    p = with_defaults(params, DEFAULTS, lists=("formats",))
    fmts = _formats(p["formats"])
    overflow = p["overflow"]
    if overflow not in OVERFLOW:
        raise InputError(f"超出最大值时只能选「非饱和」或「饱和」，收到的是{shown(overflow)}")
    if not any(f.name in OVERFLOW_CHOICE for f in fmts):
        # No control for it here (lessons 2–3, the FP4 branch): an address carrying bf.overflow=saturate
        # must not silently turn FP16's ∞ or E8M0's NaN into the largest finite value.
        overflow = "default"
    typed = None
    if p["source"] == "value":
        typed = parse_value(p["value"])
        x = typed
    else:
        try:
            src = F.get_format(p["source"])
        except F.CodecInputError as e:
            raise InputError(e.message_zh) from None
        if src.name not in [f.name for f in fmts]:
            raise InputError(f"{short_name(src)} 不在这个组件里")
        code = p["code"]
        try:
            if isinstance(code, str):
                if not code.strip():
                    raise InputError(
                        f"编码是空的：请输入 {short_name(src)} 的十六进制编码，例如 1 的编码 "
                        f"0x{F.encode(src, 1):0{-(-src.bits // 4)}X}"
                    )
                code = F.parse_code(src, ascii_text(code))
            elif isinstance(code, bool) or not isinstance(code, int):
                raise InputError("编码要是整数或十六进制文本")
            v = F.decode(src, code)  # a code out of range gets the codec's message
        except F.CodecInputError as e:
            raise InputError(e.message_zh) from None
        x = v if (v != v or math.isinf(v) or v == 0) else F.decode_exact(src, code)
    rows = []
    asides = {}  # the summary's word on a row that two roundings moved
    for f in fmts:
        if (
            typed is None and f.name == src.name
        ):  # the row the reader edited keeps its exact bits (NaN payloads too)
            rows.append(format_view(f, code, typed, overflow))
            continue
        if x != x and not f.has_nan:
            if typed is not None:  # the reader typed NaN: say what happens, refuse
                raise InputError(_no_nan(f))
            rows.append(
                missing_row(f, _no_nan(f))
            )  # a NaN code made in another row: that row stays reachable
            continue
        if typed is None:  # a code's value: every format here holds it exactly in FP32
            rows.append(format_view(f, F.encode(f, x, overflow), typed, overflow))
            continue
        two = F.two_roundings(f, x, overflow)
        note = None
        if two.differ:
            note = double_rounding_note(f, p["value"], two)
            asides[f.name] = f"，直接舍入一次会是 {exact_short(f, two.direct)}"
        rows.append(format_view(f, two.code, typed, overflow, note))
    head = rows[0]
    mode = ""
    if any(f.name in OVERFLOW_CHOICE for f in fmts):
        mode = "（饱和模式）" if overflow == "saturate" else "（非饱和模式）"
    if typed is not None:
        lead = f"输入{shown(p['value'])}{_hex_note(p['value'], typed)}{mode}："
    else:
        lead = f"{short_name(p['source'])} 编码 {rows[[r['format'] for r in rows].index(F.get_format(p['source']).name)]['hex']}{mode}："
    summary = (
        lead
        + "；".join(
            f"{r['short']} 存不下"
            if r["missing"]
            else f"{r['short']} 存成 {r['value_text']}"
            f"（{_approx(r)}{'非数' if r['cls'] == 'nan' else r['cls_zh']}，{r['hex']}"  # not "NaN(NaN(非数)…"
            f"{asides.get(r['format'], '')}）"
            for r in rows
        )
        + "。"
    )
    return {
        "params": {
            "formats": ",".join(f.name for f in fmts),
            "source": p["source"],
            "value": p["value"] if typed is not None else None,
            # the code as the site writes it (0xFFFF, not the full-width ＦＦＦＦ typed): the address holds this
            "code": rows[[r["format"] for r in rows].index(src.name)]["hex"] if typed is None else None,
            "overflow": overflow,
        },
        "rows": rows,
        "summary": summary,
        "lead_format": head["format"],
    }


FP32 = F.get_format("float32")


def rounding_rule(fmts: list[F.Format]) -> str:
    """The caption's sentence on how a typed value is stored, each format's tie rule read off its
    definition (:attr:`c9.core.formats.Format.tie_rule_zh`): "FP16、BF16 平局取偶", "E8M0 平局进到较大的 2 的幂"."""
    narrow = [f for f in fmts if f.name != FP32.name]
    by_rule: dict[str, list[str]] = {}
    for f in narrow:
        by_rule.setdefault(f.tie_rule_zh, []).append(short_name(f))
    rules = "，".join(f"{'、'.join(names)} {rule}" for rule, names in by_rule.items())
    first = (
        "输入的十进制数先精确地舍入成 FP32（FP32 那一行就是它）"
        if len(narrow) < len(fmts)
        else "输入的十进制数先存成 FP32"
    )
    return f"{first}，再就近舍入到{'其他' if len(narrow) < len(fmts) else '每种'}格式：{rules}。"


def double_rounding_note(fmt: F.Format, text, two: F.TwoRoundings, what: str = "输入的 ") -> str:
    """Why ``fmt`` holds another code than one rounding of the exact value would give, with the numbers:
    the value typed (``text``, named by ``what``), its FP32 value, the code stored, the code one rounding
    gives. Chinese, for the row (and for the repeated update's w₀ and Δ)."""
    name = short_name(fmt)
    typed_text = ascii_text(str(text)).strip()  # the exact value as typed (at most 60 characters)
    f32 = exact_short(FP32, F.encode(FP32, two.float32))
    stored = f"{exact_short(fmt, two.code)}（{_hex(fmt, two.code)}）"
    direct = f"{exact_short(fmt, two.direct)}（{_hex(fmt, two.direct)}）"
    tie = F.tie_neighbours(fmt, two.float32)
    if tie is not None:
        lo, hi = (exact_short(fmt, c) for c in tie)
        how = (
            f"先存成 FP32 是 {f32}（FP32 的 {FP32.mantissa_bits + 1} 位有效数字存不下两者的差）；"
            f"{f32} 恰在 {name} 相邻的 {lo} 与 {hi} 正中，"
            f"{fmt.tie_rule_zh}，存成 {stored}"
        )
    elif two.float32 == 0 and not fmt.has_zero:
        how = f"先存成 FP32 就下溢成了 0；{name} 没有 0，存成 {stored}"
    else:
        how = f"先存成 FP32 是 {f32}，再存进 {name} 得 {stored}"
    return f"两次舍入：{what}{typed_text} {how}。若把精确值直接舍入到 {name} 一次，会得到 {direct}。"


def _hex(fmt: F.Format, code: int) -> str:
    return f"0x{code:0{(fmt.bits + 3) // 4}X}"


def _hex_note(text, x) -> str:
    """The value box reads 0x… as a hexadecimal number, not as a code: say so, with the number it read
    ("0x3c00" is 15,360; to see what code 0x3C00 means, the code box is the place)."""
    if not isinstance(text, str) or not ascii_text(text).strip().lstrip("+-−").lower().startswith("0x"):
        return ""
    if isinstance(x, Fraction) and x.denominator == 1:
        return (
            f"（十六进制，读作数值 {x.numerator}；它不是编码：要看编码 0x{abs(x.numerator):X} 代表的数，"
            f"请填到那一行的「编码（十六进制）」框）"
        )
    return f"（十六进制，读作数值 {units.sci(float(x), 9) if isinstance(x, Fraction) else _value_text(x)}）"


def _approx(row: dict) -> str:
    """ "≈ 5.96046448×10⁻⁸，" beside a value shown as a power of two (9 digits in every format)."""
    if row["value"] is None or "2" not in row["value_text"] or row["value_text"].isdigit():
        return ""
    if not ("×" in row["value_text"] or any(ch in row["value_text"] for ch in "⁰¹²³⁴⁵⁶⁷⁸⁹")):
        return ""
    return f"≈ {units.sci(row['value'], 9, zeros=True)}，"


def page_context(**options) -> dict:
    v = view(options or None)
    import zlib

    return dict(
        view=v,
        uid=f"bf-{zlib.crc32(repr(sorted(options.items())).encode()):08x}",
        overflow_choice=_offers_overflow_choice(v),
        rounding_rule=rounding_rule([F.get_format(r["format"]) for r in v["rows"]]),
    )


def _offers_overflow_choice(v: dict) -> bool:
    """Whether the view shows a format whose reader gets the saturating / non-saturating choice."""
    return any(r["format"] in OVERFLOW_CHOICE for r in v["rows"])


def neighbours(context: dict) -> list[dict]:
    """For the build's answer cache (c9/views/nearby.py): what bit-flipper.js sends one control from the
    default: each bit of each row flipped (the code as the row's hex text, as codeOf writes it), each row's
    own code (a bit flipped back), and the other overflow rule where the widget offers the choice."""
    v = context["view"]
    p = v["params"]
    base = {"formats": p["formats"], "overflow": p["overflow"]}
    out = [{**base, "source": "value", "value": p["value"]}]
    if context["overflow_choice"]:
        other = "saturate" if p["overflow"] == "default" else "default"
        out.append({**base, "source": "value", "value": p["value"], "overflow": other})
    for r in v["rows"]:
        bits = r.get("bits") or []
        code = sum(2 ** b["pos"] for b in bits if b["on"])
        for flip in [0] + [2 ** b["pos"] for b in bits]:
            out.append({**base, "source": r["format"], "code": f"0x{code ^ flip:0{-(-len(bits) // 4)}X}"})
    return out


def nearby(view: dict) -> list[dict]:
    """For the worker's answers ahead (c9.views.nearby): every bit of every row flipped from the state
    ``view`` shows, as neighbours() lists them around the default."""
    # After a code was set, the view has no typed value: there is no "back to the typed value" state.
    around = neighbours({"view": view, "overflow_choice": _offers_overflow_choice(view)})
    return [p for p in around if p.get("value", "") is not None]
