"""A pasted text that is not JSON is refused with the place json stopped at, in the reader's terms."""

from __future__ import annotations

import pytest

from c9.base.errors import InputError
from c9.base.json_text import loads

SLIPS = [
    '{\n  "hidden_size": 4096,\n  "num_layers" 32\n}',  # a missing colon
    '{"a": 1,, "b": 2}',  # a doubled comma, on line 1
    '{\n  "a": 1,\n  "b": [1, 2\n  "c": 3\n}',  # an unclosed list, two lines down
]


def _place(text: str) -> tuple[int, int]:
    """Line and column (from 1) of the slip each text was written with, counted in the text itself."""
    marks = {'"num_layers" 32': '"num_layers" ', ",,": ",", '2\n  "c"': "2\n  "}
    for bad, good in marks.items():
        if bad in text:
            i = text.index(bad) + len(good)
            return text[:i].count("\n") + 1, i - text.rfind("\n", 0, i)
    raise AssertionError(text)


@pytest.mark.timeout(10)
@pytest.mark.parametrize("text", SLIPS)
def test_a_slip_is_placed_by_line_and_column(text):
    line, col = _place(text)
    with pytest.raises(InputError) as e:
        loads(text, "config.json")
    msg = str(e.value)
    assert f"第 {line} 行第 {col} 个字符附近" in msg and "config.json" in msg, (msg, line, col)
