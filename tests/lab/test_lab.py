"""The lab (lab/): our small model, the loss scaler against torch's GradScaler, the smoke run's data file
and its memory accounting. Needs torch (pip install .[lab]); skipped without it."""

from __future__ import annotations

import json
import math
from decimal import ROUND_HALF_UP, Decimal

import pytest

torch = pytest.importorskip("torch")
# The smoke run (the module fixture below) takes about 15 s, minutes on a loaded machine: charged to the first test.
pytestmark = pytest.mark.timeout(300)

from c9.base import units  # noqa: E402
from c9.core.ledger import model_states  # noqa: E402
from lab import load_config  # noqa: E402
from lab.model import build, param_count  # noqa: E402
from lab.scaler import DynamicLossScaler  # noqa: E402

PSI = 3_688_704


@pytest.fixture(scope="module")
def cfg():
    return load_config()


def test_model_has_the_course_parameter_count(cfg):
    torch.manual_seed(0)
    model = build(cfg)
    assert param_count(model) == PSI == cfg["expected_param_count"]
    # tied embeddings: the output head is the token embedding, counted once
    assert model.tok.weight.numel() == cfg["model"]["vocab_size"] * cfg["model"]["d_model"]


def test_ledger_for_our_model_is_56_3_mib():
    ms = model_states(PSI, "fp32_adamw")
    assert ms.bytes == 16 * PSI
    assert units.size(ms.bytes, "MiB", 1) == "56.3 MiB"


def _grad_sequence():
    """Gradients (before scaling) for a run of steps: clean ones, overflows (inf, NaN, and values that
    overflow only once multiplied by the scale), enough clean steps in a row to grow the scale twice."""
    g = torch.Generator().manual_seed(7)
    seq = []
    for k in range(40):
        v = torch.randn(5, generator=g) * 1e-3
        if k in (3, 4):
            v[1] = math.inf
        if k == 9:
            v[0] = math.nan
        if k == 30:
            v[2] = 1e35  # finite, but × 65,536 (or more) overflows FP32
        seq.append(v)
    return seq


def _run_ours(seq, **kw):
    p = torch.nn.Parameter(torch.zeros(5))
    opt = torch.optim.SGD([p], lr=1.0)
    s = DynamicLossScaler(**kw)
    skips, scales = [], []
    for g in seq:
        opt.zero_grad()
        s.scale_loss((p * g).sum()).backward()
        skips.append(s.step(opt))
        scales.append(s.scale)
    return skips, scales, p.detach().clone(), s.skipped_steps


def _run_torch(seq, **kw):
    p = torch.nn.Parameter(torch.zeros(5))
    opt = torch.optim.SGD([p], lr=1.0)
    s = torch.amp.GradScaler("cpu", **kw)
    skips, scales = [], []
    for g in seq:
        opt.zero_grad()
        s.scale((p * g).sum()).backward()
        before = p.detach().clone()
        scale_before = s.get_scale()
        s.step(opt)
        s.update()
        # GradScaler skipped the step iff it found inf/NaN, which is iff it lowered the scale
        skipped = s.get_scale() < scale_before
        if skipped:
            assert torch.equal(p.detach(), before)
        skips.append(skipped)
        scales.append(s.get_scale())
    return skips, scales, p.detach().clone()


@pytest.mark.parametrize("interval", [2, 5, 8])
def test_scaler_skips_exactly_where_torch_gradscaler_does(interval):
    kw = dict(init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=interval)
    seq = _grad_sequence()
    ours_skip, ours_scale, ours_p, n_skipped = _run_ours(seq, **kw)
    ref_skip, ref_scale, ref_p = _run_torch(seq, **kw)
    assert ours_skip == ref_skip
    assert ours_scale == ref_scale
    assert n_skipped == sum(ref_skip) >= 4
    assert torch.allclose(ours_p, ref_p, rtol=1e-6, atol=0)
    assert any(b > a for a, b in zip(ours_scale, ours_scale[1:]))  # the scale did grow after clean runs


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    """The smoke configuration of the full pipeline, run in this process."""
    from lab.run import main

    out = tmp_path_factory.mktemp("lab") / "c09-precision.json"
    assert (
        main(["--smoke", "--threads", "1", "--out", str(out)]) == 0
    )  # one thread: the other worker has the other core
    return json.loads(out.read_text(encoding="utf-8"))


def test_smoke_data_file_schema(smoke, cfg):
    from lab.run import SCHEMA

    assert smoke["schema"] == SCHEMA
    prov = smoke["provenance"]
    for k in (
        "torch",
        "python",
        "device",
        "cpu",
        "threads",
        "seed",
        "date",
        "wall_time_s",
        "config",
        "command",
    ):
        assert k in prov
    assert prov["device"] == "cpu" and prov["profile"] == "smoke" and prov["torch"] == torch.__version__
    assert smoke["model"]["param_count"] == PSI
    assert list(smoke["runs"]) == ["fp32", "bf16", "fp16", "fp16_scaled"]
    steps = cfg["smoke"]["steps"]
    for name, r in smoke["runs"].items():
        assert len(r["steps"]) == steps
        for s in r["steps"]:
            assert set(s) >= {
                "step",
                "loss",
                "tokens_per_s",
                "loss_scale",
                "skipped_steps",
                "zero_grad_fraction",
            }
            assert math.isfinite(s["loss"]) and s["tokens_per_s"] > 0 and 0 <= s["zero_grad_fraction"] <= 1
        assert math.isfinite(r["val_loss"])
        assert [m["point"] for m in r["memory"]] == [
            "after_build",
            "after_forward",
            "after_backward",
            "after_step",
        ]
        assert all("saved_tensors_hooks" in m["method"] for m in r["memory"])
        assert (r["steps"][0]["loss_scale"] is not None) == (name == "fp16_scaled")
    assert [p["when"] for p in smoke["probe"]] == ["initialization", "after_training_fp32"]
    # the throughput section: every run timed in every repeat, on one thread, in CPU seconds
    tp = smoke["throughput"]
    assert tp["threads"] == 1 and set(tp["runs"]) == set(smoke["runs"])
    for r in tp["runs"].values():
        assert len(r["cpu_seconds"]) == len(r["tokens_per_cpu_s"]) == tp["repeats"]
        assert all(c > 0 for c in r["cpu_seconds"])
        assert r["tokens_per_cpu_s_min"] <= r["tokens_per_cpu_s_median"] <= r["tokens_per_cpu_s_max"]
    for p in smoke["probe"]:
        assert sum(p["counts"]) + p["exact_zero"] == p["elements"] == PSI
        assert p["below_2^-24_after_x65536"] <= p["below_2^-24"]


def test_smoke_snapshots_reconcile_with_the_ledger(smoke):
    n_tensors = sum(1 for _ in build(load_config()).parameters())
    acc = smoke["accounting"]
    assert acc["ledger_model_states_bytes"] == 16 * PSI
    for name, r in smoke["runs"].items():
        snap = {m["point"]: m for m in r["memory"]}
        assert snap["after_build"]["total"] == 4 * PSI  # FP32 weights only
        assert snap["after_forward"]["parts"]["parameters"] == 4 * PSI
        assert snap["after_forward"]["parts"]["saved_for_backward"] > 0
        assert snap["after_backward"]["parts"]["saved_for_backward"] == 0  # freed by backward
        assert snap["after_backward"]["parts"]["gradients"] == 4 * PSI  # FP32 grads even under autocast
        # after the step: 16 B × Ψ exactly, plus AdamW's FP32 step counter (one per parameter tensor)
        assert snap["after_step"]["total"] == 16 * PSI + 4 * n_tensors
        if name != "fp32":  # autocast saves 16-bit copies of the weight matrices for backward
            assert r["memory"][1]["saved_detail"]["weight_copies_16bit"] > 0


def test_smoke_file_feeds_the_page_figures(smoke):
    """The figures module reads whatever the pipeline writes (here: the smoke run's file)."""
    from c9.figures.lab import figures

    rows = figures(smoke)
    names = [r["name"] for r in rows]
    assert len(names) == len(set(names))
    figs = {r["name"]: r for r in rows}
    # 16 B × Ψ in MiB, at the precision the file's sums need (c9.views.lab_text.mib_digits: two or more)
    shown = figs["lab_ledger_mib"]["text"].removesuffix(" MiB")
    digits = len(shown.split(".")[1])
    exact = (Decimal(16 * PSI) / 2**20).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    assert digits >= 2 and Decimal(shown) == exact
    assert figs["lab_params"]["value"] == PSI
    assert figs["lab_fp32_step_minus_ledger"]["value"] == 4 * figs["lab_step_counters"]["value"]


def test_corpus_is_real_text_held_out():
    from lab.data import load_corpus

    c = load_corpus(0.05)
    assert c["train_files"] < c["files"]
    assert len(c["train"]) > 100_000 and len(c["val"]) > 5_000
    assert c["val"] not in c["train"]
