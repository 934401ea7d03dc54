"""The bit flipper (lessons 2 and 3): one renderer for every format, driven by the format record.

The reader flips a bit, types a code (hex or binary) in one format, or types a decimal value; every
format shown then holds the same real number, rounded once to nearest (ties to even) by
:mod:`widgets.formats`. Python computes everything (value, exact power-of-two form, class,
neighbours, spacing, the interval that rounds here); JavaScript only draws the bits and the text.
"""
from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from . import formats as F
from .errors import InputError
from .params import ascii_text, with_defaults

WIDGET = "bit-flipper"

DEFAULTS = {"formats": "float16,float32", "source": "value", "code": None, "value": "1"}
MAX_FORMATS = 4
MAX_TEXT = 60          # characters of a typed decimal
MAX_EXPONENT = 400     # |decimal exponent| of a typed value; beyond it every format gives 0 or inf anyway

SHORT = {"float32": "FP32", "float16": "FP16", "bfloat16": "BF16", "float8_e4m3fn": "FP8 E4M3",
         "float8_e5m2": "FP8 E5M2", "float4_e2m1fn": "FP4 E2M1", "float8_e8m0fnu": "E8M0"}
CLASS_ZH = {"zero": "零", "subnormal": "次正规数", "normal": "正规数", "infinity": "无穷大", "nan": "NaN（非数）"}


def short_name(fmt) -> str:
    f = F.get_format(fmt)
    return SHORT.get(f.name, f.name)


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


def parse_value(text) -> "Fraction | float":
    """A decimal typed by the reader: ``"1e-8"``, ``"70,000"``, ``"-0"``, ``"inf"``, ``"nan"``.
    Returns an exact Fraction (or a float for ±0, ±inf, NaN). Raises InputError in Chinese."""
    if isinstance(text, bool):
        raise InputError("数值要是十进制数字")
    if isinstance(text, (int, float)):
        text = repr(text)
    if not isinstance(text, str):
        raise InputError("数值要是十进制数字")
    t = ascii_text(text).strip().replace(",", "").replace("−", "-").replace("×10^", "e").replace(" ", "")
    if not t:
        raise InputError("数值是空的：请输入一个十进制数，例如 1e-8 或 70000")
    if len(t) > MAX_TEXT:
        raise InputError(f"数值太长了（最多 {MAX_TEXT} 个字符）")
    low = t.lower()
    if low in ("inf", "+inf", "infinity", "∞", "+∞"):
        return math.inf
    if low in ("-inf", "-infinity", "-∞"):
        return -math.inf
    if low in ("nan", "+nan", "-nan"):
        return math.nan
    try:
        d = Decimal(t)
    except InvalidOperation:
        raise InputError(f"看不懂「{text.strip()}」：请输入十进制数，例如 0.1、-3.5、1e-8、70000") from None
    if not d.is_finite():
        raise InputError(f"看不懂「{text.strip()}」：请输入十进制数")
    if d.is_zero():
        return -0.0 if d.is_signed() else 0.0
    if abs(d.adjusted()) > MAX_EXPONENT:
        raise InputError(f"数值的量级超出了 10^±{MAX_EXPONENT}：这些格式里它只会是 0 或无穷大")
    return Fraction(d)


def _value_text(v: float, fmt: "F.Format | None" = None) -> str:
    """The shortest decimal that still reads back (rounded to ``fmt``) as the same value, as Float
    Toy shows it; ±∞ and NaN spelt out."""
    if v != v:
        return "NaN"
    if math.isinf(v):
        return "+∞" if v > 0 else "−∞"
    if v == 0:
        return "−0" if math.copysign(1.0, v) < 0 else "0"
    if fmt is not None:
        for digits in range(1, 18):
            s = f"{v:.{digits}g}"
            if F.round_value(fmt, float(s)) == v:
                return s
    return repr(v)


def _exact_text(fmt: F.Format, code: int) -> str:
    v = F.decode(fmt, code)
    if v != v or math.isinf(v):
        return _value_text(v)
    fr = F.decode_exact(fmt, code)
    s = ("-" if fr < 0 or (fr == 0 and math.copysign(1.0, v) < 0) else "") + F._decimal(abs(fr))
    if len(s) > 48:
        digits = sum(ch.isdigit() for ch in s)
        s = s[:44] + f"…（共 {digits} 位数字）"
    return s


def _pow2_text(expr: str) -> str:
    """formats.power_of_two's '1.5 × 2^-3' with a proper minus for the page."""
    return expr.replace("-", "−").replace("inf", "∞")


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
        out.append({"pos": pos, "kind": kind, "label": label, "aria": f"{short} {label}", "on": bool(code & mask)})
    return out


def format_view(fmt: F.Format, code: int, typed: "Fraction | float | None" = None) -> dict:
    """Everything one format's row shows for ``code``; ``typed`` (the reader's real number) adds the
    rounding error."""
    d = F.fields(fmt, code)
    cls = F.classify(fmt, code)
    v = F.decode(fmt, code)
    up, down = F.next_up(fmt, code), F.next_down(fmt, code)
    finite = not (v != v or math.isinf(v))
    spacing = F.ulp(fmt, v) if finite else None
    iv = F.interval(fmt, code)
    row = {
        "format": fmt.name, "short": short_name(fmt), "code": code,
        "hex": f"0x{code:0{(fmt.bits + 3) // 4}X}", "bits_text": d["bits"],
        "bits": _bits(fmt, code), "sign": d["sign"], "exponent_field": d["exponent"], "mantissa_field": d["mantissa"],
        "exponent_bits": fmt.exponent_bits, "mantissa_bits": fmt.mantissa_bits, "bias": fmt.bias,
        "cls": cls, "cls_zh": CLASS_ZH[cls], "value": None if not finite else v,
        "value_text": _value_text(v, fmt), "exact": _exact_text(fmt, code), "pow2": _pow2_text(F.power_of_two(fmt, code)),
        "up": None if up is None else _value_text(F.decode(fmt, up), fmt),
        "down": None if down is None else _value_text(F.decode(fmt, down), fmt),
        "ulp": spacing, "ulp_text": "—" if spacing is None else _pow2_exp(spacing),
        "interval": "—" if iv is None else _short_interval(iv, fmt),
    }
    if typed is not None:
        row["error_text"] = _error_text(typed, v)
    return row


def _pow2_exp(x: float) -> str:
    e = math.frexp(x)[1] - 1
    return f"2^{e}".replace("-", "−") + f" ≈ {x:.3g}"


def _short_interval(iv: F.Interval, fmt: F.Format) -> str:
    digits = max(6, int(fmt.mantissa_bits * 0.30103) + 3)

    def s(v):
        if isinstance(v, float):
            return "+∞" if v > 0 else "−∞"
        return f"{float(v):.{digits}g}" if v else "0"
    return f"{'[' if iv.lo_closed else '('}{s(iv.lo)}, {s(iv.hi)}{']' if iv.hi_closed else ')'}"


def _error_text(typed, stored: float) -> str:
    if isinstance(typed, float) and not math.isfinite(typed):
        return "—"
    if stored != stored:
        return "变成了 NaN"
    if math.isinf(stored):
        return "溢出成了无穷大"
    t = Fraction(typed)
    err = Fraction(stored) - t
    if err == 0:
        return "0（恰好可表示）"
    if stored == 0:
        return "下溢成 0：全部丢失（相对误差 100%）"
    rel = abs(err) / abs(t)
    return f"{float(err):+.3g}（相对 {float(rel) * 100:.3g}%）"


def view(params: dict | None = None) -> dict:
    """params: formats ("float16,float32" or a list), source ("value" or a format name), value (a
    decimal text, when source is "value"), code (an int or a hex/binary text in the source format).
    Raises InputError (Chinese) on bad input."""
    p = with_defaults(params, DEFAULTS)
    fmts = _formats(p["formats"])
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
                    raise InputError(f"编码是空的：请输入 {short_name(src)} 的十六进制编码，例如 0x3C00")
                code = F.parse_code(src, ascii_text(code))
            elif isinstance(code, bool) or not isinstance(code, int):
                raise InputError("编码要是整数或十六进制文本")
            if not 0 <= code < src.n_codes:
                raise InputError(f"{short_name(src)} 的编码要在 0 到 0x{src.n_codes - 1:X} 之间")
        except F.CodecInputError as e:
            raise InputError(e.message_zh) from None
        v = F.decode(src, code)
        x = v if (v != v or math.isinf(v) or v == 0) else F.decode_exact(src, code)
    rows = []
    for f in fmts:
        if typed is None and f.name == src.name:   # the row the reader edited keeps its exact bits (NaN payloads too)
            rows.append(format_view(f, code, typed))
            continue
        try:
            c = F.encode(f, x)
        except F.CodecInputError as e:     # e.g. NaN into a format without NaN
            raise InputError(f"{short_name(f)}：{e.message_zh}") from None
        rows.append(format_view(f, c, typed))
    head = rows[0]
    if typed is not None:
        lead = f"输入 {p['value'].strip() if isinstance(p['value'], str) else p['value']}："
    else:
        lead = f"{short_name(p['source'])} 编码 {rows[[r['format'] for r in rows].index(F.get_format(p['source']).name)]['hex']}："
    summary = lead + "；".join(
        f"{r['short']} 存成 {r['exact'] if len(r['exact']) <= 24 else '≈ ' + r['value_text']}"
        f"（{'非数' if r['cls'] == 'nan' else r['cls_zh']}，{r['hex']}）"  # not "NaN(NaN(非数)…"
        for r in rows) + "。"
    return {"params": {"formats": ",".join(f.name for f in fmts), "source": p["source"],
                       "value": p["value"] if typed is not None else None,
                       "code": p["code"] if typed is None else None},
            "rows": rows, "summary": summary, "lead_format": head["format"]}


def page_context(**options) -> dict:
    v = view(options or None)
    import zlib
    return dict(view=v, uid=f"bf-{zlib.crc32(repr(sorted(options.items())).encode()):08x}")
