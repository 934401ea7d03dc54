"""The MX scale rule chosen in the block lab and the MXFP4-vs-NVFP4 widget, through the worker's entry point
(c9.views.api.handle): the clipped blocks and their share against an independent count (numpy float32 bits
for the floor and RCEIL exponents, exact fractions for the saturation), at two tensors."""

import json
import math
from fractions import Fraction

import numpy as np
import pytest

from c9.views import api, block_lab

pytestmark = pytest.mark.timeout(240)


def ask(widget, params):
    out = json.loads(api.handle(json.dumps({"widget": widget, "params": params})))
    return out


def _exponent(amax: float, rule: str, top: float, top_pow2: int) -> int:
    """Floor: FP32 exponent field − emax; RCEIL: ceil(log2 FP32(amax / top)), from numpy's float32."""
    if rule == "floor":
        bits = int(np.array([amax], np.float32).view(np.int32)[0])
        return max(-127, ((bits >> 23) & 0xFF) - 127 - top_pow2)
    d = Fraction(float(np.float32(amax) / np.float32(top)))
    e = 0
    while Fraction(2) ** e < d:
        e += 1
    while Fraction(2) ** (e - 1) >= d:
        e -= 1
    return max(-127, e)


def _count_clipped(tensor, top, top_pow2, mbits, rule):
    """Blocks of 1×32 whose amax / X rounds (ties to even, grid continued) above the element max."""
    ulp = Fraction(2) ** (top_pow2 - mbits)
    grid = []
    for row in tensor:
        grid_row = []
        for c0 in range(0, len(row), 32):
            amax = max(abs(v) for v in row[c0 : c0 + 32])
            x = Fraction(amax) / Fraction(2) ** _exponent(amax, rule, top, top_pow2)
            grid_row.append(amax > 0 and round(x / ulp) * ulp > Fraction(top))  # round(): ties to even
        grid.append(grid_row)
    return grid


@pytest.mark.parametrize("seed,channels", [(9, 4), (3, 0)])
@pytest.mark.parametrize("rule", ["floor", "rceil"])
@pytest.mark.parametrize("scheme,top,top_pow2,mbits", [("mxfp8_e4m3", 448.0, 8, 3), ("mxfp4", 6.0, 2, 1)])
def test_block_lab_clipped_blocks(seed, channels, rule, scheme, top, top_pow2, mbits):
    out = ask("block-lab", {"scheme": scheme, "rule": rule, "seed": seed, "channels": channels})
    assert out["ok"], out
    v = out["view"]
    t = block_lab.generate(seed, channels)
    want = _count_clipped(t, top, top_pow2, mbits, rule)
    n = sum(map(sum, want))
    assert v["clipped"] == [[i, j] for i, row in enumerate(want) for j, c in enumerate(row) if c]
    assert v["clipped_blocks"] == n and v["clipped_share"] == n / (len(want) * len(want[0]))
    assert v["mx_rule"] == rule
    if rule == "rceil":
        assert n == 0 and "没有哪个块的最大值被截断（缩放规则：RCEIL" in v["summary"]
    else:
        assert n > 0
        share = f"{100 * n / 512:.3g}%"  # three significant digits
        assert (
            f"512 个块里有 {n} 个的最大值被截断到元素上限 {top:g}，占 {share}（缩放规则：OCP" in v["summary"]
        )
    # the map outlines each clipped block (cell edges at index − 0.5) and no other
    rects = {
        (v["row_edges"].index(sh["y0"] + 0.5), v["col_edges"].index(sh["x0"] + 0.5))
        for sh in v["figure"]["layout"]["shapes"]
        if sh["type"] == "rect"
    }
    assert rects == {(i, j) for i, row in enumerate(want) for j, c in enumerate(row) if c}


def test_block_lab_default_rule_keeps_todays_figures():
    """The default is OCP's floor: the view without a rule equals the one with rule "floor"."""
    a = ask("block-lab", {"scheme": "mxfp4"})["view"]
    b = ask("block-lab", {"scheme": "mxfp4", "rule": "floor"})["view"]
    assert a["summary"] == b["summary"] and a["figure"] == b["figure"]
    assert a["params"]["rule"] == "floor"


def test_block_lab_rule_only_moves_mx_schemes():
    for scheme in ("per_tensor_e4m3", "nvfp4"):
        a = ask("block-lab", {"scheme": scheme, "rule": "floor"})["view"]
        b = ask("block-lab", {"scheme": scheme, "rule": "rceil"})["view"]
        assert a["summary"] == b["summary"] and a["mx_rule"] is None and a["clipped_blocks"] == 0


@pytest.mark.parametrize("widget", ["block-lab", "mx-nv"])
def test_unknown_rule_refused_in_chinese(widget):
    out = ask(widget, {"rule": "nearest"})
    assert not out["ok"] and out["error"].startswith("没有这种 MX 缩放规则")


@pytest.mark.parametrize(
    "text,rule,clipped,mx_value",
    [
        # 7.5 under floor: X = 2^(2 − 2) = 1, 7.5 / 1 rounds past 6 (to 8): stored as 6
        ("7.5, 1, 0.5", "floor", True, 6.0),
        # RCEIL: X = 2^ceil(log2(7.5 / 6)) = 2, 7.5 / 2 = 3.75 rounds to 4: 8
        ("7.5, 1, 0.5", "rceil", False, 8.0),
        # 6.5 / 1 rounds to 6 anyway: not cut by saturation
        ("6.5, 1", "floor", False, 6.0),
        ("0.3, -1.2, 2.7, 0.05", "floor", False, 3.0),
    ],
)
def test_mx_nv_clipped_maximum(text, rule, clipped, mx_value):
    out = ask("mx-nv", {"text": text, "rule": rule})
    assert out["ok"], out
    v = out["view"]
    mx = v["mx"]
    assert mx["clipped"] is clipped and mx["mx_rule"] == rule
    first = v["rows"][0]["mx"] if text.startswith(("7.5", "6.5")) else v["rows"][2]["mx"]
    assert math.isclose(first["dequantized"], mx_value, rel_tol=0) and first["clipped"] is clipped
    assert ("MXFP4 最大相对误差" in v["summary"]) and (
        ("块里最大的数被截断到上限" in v["summary"]) is clipped
    )
    label = {"floor": "OCP，向下取 2 的幂", "rceil": "RCEIL，向上取 2 的幂"}[rule]
    assert f"（缩放规则：{label}）" in mx["rule"]
    assert v["params"]["rule"] == rule
    assert v["nv"]["clipped"] is False
