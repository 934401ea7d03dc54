"""The Python scratchpad (草稿本) near the end of each lesson and the FP4 page: the reader's own lines,
run like a notebook cell by :func:`c9.base.reader_code.run_cell` (the exercises' path) in the page's
worker, with the chapter's modules importable.

``view({"code": …})`` returns what the code printed and its last expression's value, or a Chinese
message naming the line and the kind of error. ``page_context(page=…)`` gives the page its example lines,
which use the chapter's modules on that lesson's topic (tests/views/test_scratchpad.py runs them all).
"""

from __future__ import annotations

from c9.base.errors import InputError
from c9.base.reader_code import MAX_OUTPUT, run_cell

# The modules the examples import, imported here too so that the page's Python zip holds them
# (hooks/modules.py ships what the views import).
from c9.core import activations, blockscale, formats, ledger  # noqa: F401
from c9.views.params import with_defaults

WIDGET = "scratchpad"
DEFAULTS = {"code": ""}
MAX_CODE = 20_000  # characters, as for an exercise

# Two or three lines per page, on that page's topic, each a call of the chapter's own Python.
EXAMPLES = {
    "lesson-1": (
        "from c9.core import ledger\n"
        "# 混合精度 + AdamW：每个参数要几字节\n"
        'print(ledger.bytes_per_parameter("bf16_mixed_adamw"))\n'
        "# 80 亿参数的模型状态，逐项\n"
        "states = ledger.model_states(8_000_000_000)\n"
        "[(leaf.label, leaf.bytes) for leaf in states.leaves()]\n"
    ),
    "lesson-2": (
        "from c9.core import formats\n"
        "# FP16 在 1 附近的间隔；1 + 2⁻¹¹ 恰在两数正中，舍入到偶数；10⁻⁸ 太小，存进去就成了 0\n"
        'print(formats.ulp("float16", 1.0))\n'
        'print(formats.round_value("float16", 1 + 2**-11))\n'
        'formats.round_value("float16", 1e-8)\n'
    ),
    "lesson-3": (
        "from c9.core import formats\n"
        "# 257 存成 BF16 会变成多少；它的 16 位码字\n"
        'print(formats.round_value("bfloat16", 257))\n'
        'hex(formats.encode("bfloat16", 257))\n'
    ),
    "lesson-4": (
        "from c9.core import formats\n"
        "# E4M3FN 的最大值 448 的码字；超过最大值时默认得到 NaN\n"
        'print(hex(formats.encode("float8_e4m3fn", 448)))\n'
        'print(formats.round_value("float8_e4m3fn", 500))\n'
        'formats.round_value("float8_e4m3fn", 500, overflow="saturate")\n'
    ),
    "fp4": (
        "from c9.core import blockscale, formats\n"
        "# E2M1 的 16 个码点；一个 NVFP4 块量化后的值\n"
        'print(formats.code_points("float4_e2m1fn"))\n'
        'blockscale.quantize([0.3, -1.2, 2.7, 0.05], "nvfp4").dequantized\n'
    ),
    "lesson-5": (
        "from c9.core import activations\n"
        "# 式 1：一层全存时的激活字节数（s = 4096，b = 1，h = 4096，a = 32）\n"
        "print(activations.per_layer(s=4096, b=1, h=4096, a=32))\n"
        "activations.linear_term(s=4096, b=1, h=4096)\n"
    ),
}


def view(params: dict | None = None) -> dict:
    p = with_defaults(params, DEFAULTS)
    code = p["code"]
    if not isinstance(code, str):
        raise InputError("代码应当是一段文字")
    if len(code) > MAX_CODE:
        raise InputError(f"代码太长了：最多 {MAX_CODE} 个字符")
    cell = run_cell(code)
    if cell.error:
        summary = cell.error
    elif cell.output or cell.value:
        summary = "运行完毕，输出在下面。"
    else:
        summary = "运行完毕，没有输出：用 print() 打印，或在最后一行写一个表达式看它的值。"
    if cell.cut:
        summary += f"输出太长，只显示前 {MAX_OUTPUT} 个字符。"
    if cell.restart:
        summary += "页面里的 Python 会重新启动，以释放内存。"
    return {
        "params": {"code": code},
        "output": cell.output,
        "value": cell.value,
        "error": cell.error,
        "restart": cell.restart,
        "summary": summary,
    }


def page_context(page: str = "lesson-1") -> dict:
    if page not in EXAMPLES:
        raise InputError("这一页没有草稿本的示例")
    example = EXAMPLES[page]
    return {"page": page, "example": example, "rows": max(example.count("\n") + 2, 6)}
