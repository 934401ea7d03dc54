"""The repeated small update's third line, through c9.views.api.handle: stochastic rounding (the mean and
spread of the seeded runs, replayed here with the same random.Random draws and an ml_dtypes/fractions
rounding oracle) and Kahan summation (against the oracle's recomputation), at two settings each."""

import json
import math
import random
from fractions import Fraction

import numpy as np
import pytest

from c9.views import api
from c9.views import repeated_update as R
from tests.core.test_accumulate import kahan_oracle, sr_oracle

pytestmark = pytest.mark.timeout(240)


def ask(params):
    return json.loads(api.handle(json.dumps({"widget": "repeated-update", "params": params})))


def _fp32(text: str) -> float:
    return float(np.float32(float(text)))


@pytest.mark.parametrize(
    "fmt,w0,delta,steps,seed",
    [("bfloat16", "1", "1e-4", 300, 1), ("float16", "0.5", "3e-5", 200, 11)],
)
def test_stochastic_mean_and_spread(fmt, w0, delta, steps, seed):
    out = ask({"fmt": fmt, "w0": w0, "delta": delta, "steps": steps, "method": "stochastic", "seed": seed})
    assert out["ok"], out
    v = out["view"]
    d = _fp32(delta)
    w_start = _fp32(w0)  # 1 and 0.5: the same in FP32, BF16 and FP16
    ends = []
    for r in range(R.RUNS):
        draw = random.Random(seed * 1000 + r).random
        w = w_start
        for _ in range(steps):
            w = sr_oracle(fmt, Fraction(w) + Fraction(d), draw())
        ends.append(w)
    mean = math.fsum(ends) / len(ends)
    sd = math.sqrt(math.fsum((e - mean) ** 2 for e in ends) / (len(ends) - 1))
    m = v["method"]
    assert m["method"] == "stochastic"
    assert math.isclose(m["final"], mean, rel_tol=1e-15) and math.isclose(m["sd"], sd, rel_tol=1e-12)
    assert math.isclose(m["expect"], w_start + steps * d, rel_tol=1e-15)
    assert abs(mean - m["expect"]) < 4 * sd / math.sqrt(R.RUNS)  # the mean tracks the exact sum
    assert f"随机舍入（{R.RUNS} 次，种子 {seed}）" in v["summary"]
    assert len(v["table"]) == 5 and v["table"][-1]["label"].startswith("随机舍入")
    names = [t.get("name") for t in v["figure"]["data"]]
    assert "随机舍入：± 一个标准差" in names and f"随机舍入 {R.RUNS} 次的平均" in names


@pytest.mark.parametrize(
    "fmt,w0,delta,steps",
    [("bfloat16", "1", "1e-4", 1000), ("bfloat16", "0", "1", 600), ("float16", "1", "1e-4", 700)],
)
def test_kahan_tracks_master(fmt, w0, delta, steps):
    out = ask({"fmt": fmt, "w0": w0, "delta": delta, "steps": steps, "method": "kahan"})
    assert out["ok"], out
    v = out["view"]
    ws, cs = kahan_oracle(fmt, _fp32(w0), _fp32(delta), steps)
    m = v["method"]
    assert m["final"] == ws[-1] and m["compensation"] == cs[-1] and m["compensated"] == ws[-1] - cs[-1]
    master = v["final"]["master"]
    assert abs(m["compensated"] - master) / master < 0.005
    assert v["final"]["low"] != ws[-1]  # round-to-nearest alone ends elsewhere
    assert "Kahan 补偿累加" in v["summary"] and len(v["table"]) == 5


def test_default_is_round_to_nearest_as_before():
    a = ask({})["view"]
    assert a["params"]["method"] == "nearest" and a["method"] == {"method": "nearest"}
    assert len(a["table"]) == 4 and len(a["figure"]["data"]) == 4


@pytest.mark.parametrize("params", [{"method": "truncate"}, {"method": "stochastic", "seed": "x"}])
def test_bad_method_or_seed_refused_in_chinese(params):
    out = ask(params)
    assert not out["ok"] and ("舍入方式" in out["error"] or "随机种子" in out["error"])


@pytest.mark.parametrize("seed", [10**7, "x", -1])
@pytest.mark.parametrize(
    "fmt,method", [("float16", "nearest"), ("bfloat16", "nearest"), ("bfloat16", "kahan")]
)
def test_a_bad_seed_blocks_only_the_method_that_reads_it(seed, fmt, method):
    """A seed of 1e7 refused every control, even with plain round-to-nearest on BF16, which has no seed;
    the answer is the one the default seed gives, and stochastic rounding still refuses it."""
    out = ask({"fmt": fmt, "method": method, "seed": seed, "w0": "1", "delta": "1e-3", "steps": 200})
    want = ask({"fmt": fmt, "method": method, "w0": "1", "delta": "1e-3", "steps": 200})
    assert out["ok"] and out["view"]["table"] == want["view"]["table"], out.get("error")
    bad = ask({"fmt": fmt, "method": "stochastic", "seed": seed})
    assert not bad["ok"] and "随机种子" in bad["error"]
