"""The checks every widget view makes on its parameters, each failing with a Chinese message
(:class:`c9.base.errors.InputError`) that the widget shows."""

from __future__ import annotations

import math

from c9.base import typed
from c9.base.errors import InputError
from c9.base.typed import ascii_text, brief, integer, quote, shown, tokens  # noqa: F401  (the typed-number rules live in c9/base/typed.py)
from c9.core.models import model_keys


def with_defaults(params: dict | None, defaults: dict, lists: tuple = ()) -> dict:
    """``defaults`` updated by ``params``; a parameter the widget does not have is refused.
    Where the default is text, the value must be text or a number (a list only for the names in
    ``lists``): no widget meets null, a list, an object or a switch where it looks a name up (the address
    and the page send text, numbers and switches only). Numbers and switches are checked, with their
    own messages, by the widget (:func:`integer`)."""
    p = {**defaults, **(params or {})}
    unknown = set(p) - set(defaults)
    if unknown:
        raise InputError(f"不认识的参数：{'、'.join(f'「{k[:20]}」' for k in sorted(unknown))}")
    for k, v in p.items():
        if (
            isinstance(defaults[k], str)
            and k not in lists
            and (isinstance(v, bool) or not isinstance(v, (str, int, float)))
        ):
            raise InputError(f"参数「{k}」的值格式不对：这里要一段文字")
    return p


def integer_if_read(v, name: str, lo: int, hi: int, read: bool, default: int) -> int:
    """:func:`integer`, where the view reads the value; where it does not (a seed beside a method or a
    source that uses none), an unusable one stands as ``default`` and blocks nothing."""
    if read:
        return integer(v, name, lo, hi)
    try:
        return integer(v, name, lo, hi)
    except InputError:
        return default


def known_model(key: str) -> str:
    """A model of anchor-model.json, or "lab" (our small model) when the lab's data file is present."""
    if not key or not isinstance(key, str):
        raise InputError("没有选模型：请从列表里选一个")
    if key not in model_keys(lab=True):
        raise InputError(f"没有这个模型：「{str(key)[:20]}」")
    return key


def sixteen_bit_format(name, allowed: list[str]) -> str:
    """The canonical name of format ``name``, which must be one of ``allowed`` (FP16 and BF16)."""
    from c9.core import formats as F  # here, so the memory-bar views never load the codecs

    try:
        fmt = F.get_format(name).name
    except F.CodecInputError as e:
        raise InputError(e.message_zh) from None
    if fmt not in allowed:
        raise InputError("这里只比较 FP16 和 BF16")
    return fmt


def _fp32_range() -> str:
    """「FP32 的范围（±3.4×10³⁸）」, the bound computed from FP32's largest finite value."""
    from c9.base import units
    from c9.core.formats import get_format  # here, as in sixteen_bit_format

    return f"FP32 的范围（±{units.sci(get_format('float32').max, 2)}）"


def fp32_numbers(text: str, where, label: str = "", beyond: str = "") -> list:
    """:func:`c9.base.typed.numbers` of ``text``, where a number past 10⁴⁰⁰ (1e999) is refused as beyond FP32,
    as 1e300 is (:func:`within_fp32`), not as beyond the parser's bound. ``where(i)`` names the i-th number;
    ``label`` is what typed's own messages call the list; ``beyond`` ends the refusal (what to type instead)."""
    try:
        return typed.numbers(text, label, where)
    except InputError as e:
        if str(e) != "too_big":
            raise
        i, tok = next((i, t) for i, t in enumerate(tokens(text)) if _too_big(t))
        raise InputError(f"{where(i)}「{quote(tok)}」超出了 {_fp32_range()}{beyond}") from None


def _too_big(token: str) -> bool:
    try:
        typed.parse(token)
    except InputError as e:
        return str(e) == "too_big"
    return False


def within_fp32(text: str, values: list, where, beyond: str = "") -> None:
    """Refuse a typed number beyond FP32's range, quoting it as typed: ``values`` are
    :func:`c9.base.typed.numbers` of ``text``; ``where(i)`` names the i-th number ("第 2 行第 1 列");
    ``beyond`` ends the refusal of a finite number past the range."""
    from c9.core.formats import get_format  # here, as in sixteen_bit_format

    top = get_format("float32").max
    for i, (tok, v) in enumerate(zip(tokens(text), values)):
        if isinstance(v, float) and math.isinf(v):  # an infinity is not a number too large: say which it is
            sign = "正" if v > 0 else "负"
            raise InputError(
                f"{where(i)}「{quote(tok)}」是{sign}无穷大：这里只量化有限数，且要在 {_fp32_range()}之内"
            )
        if v == v and abs(v) > top:
            raise InputError(f"{where(i)}「{quote(tok)}」超出了 {_fp32_range()}{beyond}")
