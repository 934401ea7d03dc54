"""The checks every widget view makes on its parameters, each failing with a Chinese message
(:class:`widgets.errors.InputError`) that the widget shows."""
from __future__ import annotations

import unicodedata
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from . import units
from .errors import InputError
from .models import LAB, lab_run, model_keys


def ascii_text(text: str) -> str:
    """Typed text as ASCII where a Chinese input method types full width (NFKC): "１２．５" → "12.5",
    "－３" → "-3", "，" → ",", "；" → ";". The ideographic comma "、" and the minus sign "−" stay."""
    return unicodedata.normalize("NFKC", text)


def with_defaults(params: dict | None, defaults: dict) -> dict:
    """``defaults`` updated by ``params``; a parameter the widget does not have is refused."""
    p = {**defaults, **(params or {})}
    unknown = set(p) - set(defaults)
    if unknown:
        raise InputError(f"不认识的参数：{', '.join(sorted(unknown))}")
    return p


def integer(v, name: str, lo: int, hi: int) -> int:
    """``v`` (an int, an integral float, or text such as "8,192" or "1e3") as an int in lo…hi.
    ``name`` is the Chinese name the message uses."""
    if isinstance(v, bool):
        raise InputError(f"{name} 要是整数")
    if isinstance(v, str):
        text = ascii_text(v).strip()
        if not text:
            raise InputError(f"{name} 不能为空，请填一个整数")
        try:  # exact: "1e3" is 1000, "4096.5" is not an integer
            d = Decimal(text.replace(",", ""))
        except InvalidOperation:
            d = None
        if d is None or not d.is_finite():
            raise InputError(f"{name} 要是整数，收到的是「{text[:20]}」")
        # The exponent first: "1e309" or "1e-400" must not become a 310-digit number (or a slow one).
        if d and d.adjusted() > MAX_DIGITS:
            raise InputError(f"{name} 要在 {units.number(lo)} 到 {units.number(hi)} 之间，收到的是「{text[:20]}」")
        v = Fraction(d) if not d or d.adjusted() >= 0 else None   # 0 < |d| < 1 ("1e-400"): not an integer
        if v is None or v.denominator != 1:
            raise InputError(f"{name} 要是整数，收到的是「{text[:20]}」")
        v = v.numerator
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")) or v != int(v):
            raise InputError(f"{name} 要是整数，收到的是 {v}")
        v = int(v)
    if not isinstance(v, int):
        raise InputError(f"{name} 要是整数")
    if not lo <= v <= hi:
        raise InputError(f"{name} 要在 {units.number(lo)} 到 {units.number(hi)} 之间，收到的是 {brief(v)}")
    return v


MAX_DIGITS = 30   # a typed integer with more digits than this is out of every range here


def brief(v: int) -> str:
    """An integer for a message: "131,073", or "约 1e+20" when it has more than 15 digits."""
    return units.number(v) if abs(v) < 10**15 else f"约 {float(v):.3g}"


def known_model(key: str) -> str:
    """A model of anchor-model.json, or "lab" (our small model) when the lab's data file is present."""
    if not key:
        raise InputError("没有选模型：请从列表里选一个")
    if key not in model_keys() and not (key == LAB and lab_run() is not None):
        raise InputError(f"没有这个模型：{key}")
    return key


def sixteen_bit_format(name, allowed: list[str]) -> str:
    """The canonical name of format ``name``, which must be one of ``allowed`` (FP16 and BF16)."""
    from . import formats as F  # here, so the memory-bar views never load the codecs

    try:
        fmt = F.get_format(name).name
    except F.CodecInputError as e:
        raise InputError(e.message_zh) from None
    if fmt not in allowed:
        raise InputError("这里只比较 FP16 和 BF16")
    return fmt
