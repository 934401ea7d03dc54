"""The figures the codec-lab tasks quote (lesson 4's FP8 bit flipper, the FP4 branch's E2M1/E8M0 one),
each read off the bit flipper's own view, so the answer under a task is what the widget shows.
:func:`figures` returns dicts ``{"name", "value", "text", "formula", "inputs"}`` for build_numbers.py.
Only the inputs the tasks chose (464, 465, 65,536, 3) are typed.
"""

from __future__ import annotations

from fractions import Fraction

from c9.core import formats as F
from c9.figures.figure import figure
from c9.views.bit_flipper import view

__all__ = ["figures"]

FP8 = "float8_e4m3fn,float8_e5m2"
FP4 = "float4_e2m1fn,float8_e8m0fnu"
MODE_ZH = {"default": "非饱和", "saturate": "饱和"}


def _row(formats: str, fmt: str, x: str, overflow: str = "default") -> dict:
    rows = view({"formats": formats, "value": x, "overflow": overflow})["rows"]
    return next(r for r in rows if r["format"] == fmt)


def _pair(name: str, formats: str, fmt: str, label: str, x: str, overflow: str, why: str) -> list[dict]:
    """Two figures for one stored value: its value as the widget writes it, and its code."""
    r = _row(formats, fmt, x, overflow)
    mode = f"（{MODE_ZH[overflow]}）" if fmt in ("float8_e4m3fn", "float8_e5m2") else ""
    how = f"{label}{mode or ' '}存 {int(x):,}：{why}"
    value = r["value"] if r["value"] is not None else r["value_text"]
    # a whole number with thousands separators, as the page writes its own (57,344); else as the widget shows it
    text = f"{int(value):,}" if isinstance(value, float) and value == int(value) else r["value_text"]
    return [
        figure(name, value, text, how, x=int(x)),
        figure(name + "_hex", r["code"], r["hex"], how + "（编码）", x=int(x)),
    ]


def _edges() -> list[dict]:
    """Where overflow starts: E4M3's value after 448 were the exponent unbounded (448 + its spacing),
    and the smallest real E5M2 sends to ∞ (the midpoint above 57,344, a tie that goes up)."""
    e4, e5 = F.get_format("E4M3"), F.get_format("E5M2")
    beyond = Fraction(e4.max) + Fraction(F.ulp(e4, e4.max))
    mid = Fraction(e5.max) + Fraction(F.ulp(e5, e5.max)) / 2
    assert F.rounds_past_max(e5, mid) and F.encode(e5, mid) == e5.inf_code  # the tie itself overflows
    return [
        figure(
            "cl_e4m3_beyond_max",
            int(beyond),
            f"{int(beyond):,}",
            "最大有限值加上那里的间距（指数不设上限时的下一个数）",
            max=int(e4.max),
            format=e4.name,
        ),
        figure(
            "cl_e5m2_overflow_from",
            int(mid),
            f"{int(mid):,}",
            "最大有限值加半个间距：从这里起舍入到更大的数，超出范围",
            max=int(e5.max),
            format=e5.name,
        ),
    ]


def figures() -> list[dict]:
    e4, e5, e2, e8 = "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "float8_e8m0fnu"
    return _edges() + (
        _pair("cl_e4m3_464", FP8, e4, "E4M3", "464", "default", "恰在 448 与 480 正中，取尾数为偶的 448")
        + _pair("cl_e4m3_464_sat", FP8, e4, "E4M3", "464", "saturate", "平局取偶，本来就是 448")
        + _pair("cl_e4m3_465", FP8, e4, "E4M3", "465", "default", "离 480 更近，480 超出范围，成了 NaN")
        + _pair(
            "cl_e4m3_465_sat", FP8, e4, "E4M3", "465", "saturate", "离 480 更近，480 超出范围，截到最大有限值"
        )
        + _pair(
            "cl_e5m2_465",
            FP8,
            e5,
            "E5M2",
            "465",
            "default",
            "E5M2 在 256 到 512 之间每 64 一格，最近的是 448",
        )
        + _pair("cl_e5m2_65536", FP8, e5, "E5M2", "65536", "default", "超出最大有限值，成了无穷大")
        + _pair("cl_e5m2_65536_sat", FP8, e5, "E5M2", "65536", "saturate", "超出最大有限值，截到最大有限值")
        + _pair("cl_e2m1_3", FP4, e2, "E2M1", "3", "default", "3 = 1.5 × 2¹，恰好可表示")
        + _pair(
            "cl_e8m0_3",
            FP4,
            e8,
            "E8M0",
            "3",
            "default",
            "恰在 2 与 4 正中；没有尾数位，取偶的有效数字是 2，即 4",
        )
        + _pair("cl_e2m1_5", FP4, e2, "E2M1", "5", "default", "恰在 4 与 6 正中，取尾数为偶的 4")
        + _pair("cl_e8m0_0", FP4, e8, "E8M0", "0", "default", "E8M0 没有 0，也没有负数")
    )
