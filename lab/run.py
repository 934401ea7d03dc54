"""One command runs the whole lab and writes the data file the site reads.

    python -m lab.run            # the full run (config.json "full"), writes lab/results/c09-precision.json
    python -m lab.run --smoke    # a few steps, same pipeline (the test suite uses it)
    python -m lab.run --throughput-only   # re-measure only the throughput section of the existing file

Four runs from the same seed, initial weights and batches: FP32; BF16 autocast; FP16 autocast without
loss scaling; FP16 autocast with our DynamicLossScaler. Parameters, gradients and AdamW's state stay FP32
in every run (autocast only runs the operators in 16 bits).

Throughput is measured apart from the training runs: on one thread, in tokens per CPU-second of this
process (time.process_time), over repeated blocks of training steps with the precisions interleaved, so
that other load on a shared machine moves neither the measure nor the ranking much; the file keeps
every repeat, the median and the spread.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import platform
import statistics
import sys
import time
from pathlib import Path

import torch
from torch.nn import functional as F

from . import RESULTS_PATH, load_config
from .data import BPE, load_corpus
from .memory import SavedTensors, snapshot
from .model import build, param_count
from .probe import histogram
from .scaler import DynamicLossScaler

SCHEMA = "c09-precision/1"
RUNS = {
    "fp32": {"label": "FP32", "dtype": None, "scaling": False},
    "bf16": {"label": "BF16 autocast", "dtype": torch.bfloat16, "scaling": False},
    "fp16": {"label": "FP16 autocast（不缩放）", "dtype": torch.float16, "scaling": False},
    "fp16_scaled": {"label": "FP16 autocast + 动态 loss scaling", "dtype": torch.float16, "scaling": True},
}


def _autocast(dtype):
    return torch.autocast("cpu", dtype=dtype or torch.bfloat16, enabled=dtype is not None)


def batches(tokens: torch.Tensor, n: int, b: int, s: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    for _ in range(n):
        ix = torch.randint(0, tokens.numel() - s - 1, (b,), generator=g)
        yield torch.stack([tokens[i : i + s + 1] for i in ix.tolist()])


def lr_at(step: int, steps: int, o: dict) -> float:
    w = o["warmup_steps"]
    if step < w:
        return o["lr"] * (step + 1) / w
    p = (step - w) / max(1, steps - w)
    return o["lr"] * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * p)))


def loss_of(model, batch, dtype):
    with _autocast(dtype):
        logits = model(batch[:, :-1])
    loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1))
    return loss, logits


@torch.no_grad()
def val_loss(model, val_tokens, cfg, prof) -> float:
    s = cfg["model"]["context"]
    seqs = val_tokens[: (val_tokens.numel() - 1) // s * s + 1]
    starts = list(range(0, seqs.numel() - s - 1, s))[: prof["val_batches"] * prof["batch_size"]]
    total, n = 0.0, 0
    for k in range(0, len(starts), prof["batch_size"]):
        batch = torch.stack([val_tokens[i : i + s + 1] for i in starts[k : k + prof["batch_size"]]])
        loss, _ = loss_of(model, batch, None)  # evaluated in FP32: every run keeps FP32 weights
        total += float(loss) * batch.shape[0]
        n += batch.shape[0]
    return total / n


def zero_fraction(params) -> float:
    zeros = sum(int((p.grad == 0).sum()) for p in params if p.grad is not None)
    return zeros / sum(p.numel() for p in params)


def train_one(name: str, cfg: dict, prof: dict, train_tokens, val_tokens, log=print) -> dict:
    spec = RUNS[name]
    torch.manual_seed(cfg["seed"])
    mem = []
    model = build(cfg)
    params = list(model.parameters())
    o = cfg["optimizer"]
    opt = torch.optim.AdamW(
        params, lr=o["lr"], betas=tuple(o["betas"]), eps=o["eps"], weight_decay=o["weight_decay"]
    )
    mem.append(snapshot("after_build", model, opt, 0))
    scaler = DynamicLossScaler(**cfg["scaler"]) if spec["scaling"] else None
    s, b, steps = cfg["model"]["context"], prof["batch_size"], prof["steps"]
    log_steps, skipped_total = [], 0
    for step, batch in enumerate(batches(train_tokens, steps, b, s, cfg["seed"] + 1)):
        for g in opt.param_groups:
            g["lr"] = lr_at(step, steps, o)
        t0, c0 = time.perf_counter(), time.process_time()
        if step == 0:
            with SavedTensors(exclude=params) as body:
                with _autocast(spec["dtype"]):
                    logits = model(batch[:, :-1])
            with SavedTensors(exclude=params + [logits]) as head:
                loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1))
            snap = snapshot("after_forward", model, opt, body.nbytes + head.nbytes, logits)
            snap["saved_detail"] = {
                "model_body": body.nbytes,
                "loss_head": head.nbytes,
                "by_dtype": body.by_dtype(),
                "param_storages_saved": body.excluded_hits,
                "weight_copies_16bit": _weight_copies(body, params),
            }
            mem.append(snap)
        else:
            loss, logits = loss_of(model, batch, spec["dtype"])
        (scaler.scale_loss(loss) if scaler else loss).backward()
        del logits
        if step == 0:
            mem.append(snapshot("after_backward", model, opt, 0))
        zf = zero_fraction(params) if not scaler else None
        if scaler:
            # zero check on the scaled gradients is the same set of elements as after unscaling
            zf = zero_fraction(params)
            skipped = scaler.step(opt)
            skipped_total = scaler.skipped_steps
        else:
            opt.step()
            skipped = False
        if step == 0:
            mem.append(snapshot("after_step", model, opt, 0))
        opt.zero_grad(set_to_none=True)
        el, cpu = time.perf_counter() - t0, time.process_time() - c0
        rec = {
            "step": step + 1,
            "loss": loss.item(),
            "tokens_per_s": b * s / el,
            "loss_scale": scaler.scale if scaler else None,
            "skipped": bool(skipped),
            "skipped_steps": skipped_total,
            "zero_grad_fraction": zf,
            "seconds": el,
            "cpu_seconds": cpu,
            "tokens_per_cpu_s": b * s / cpu if cpu > 0 else None,
        }
        log_steps.append(rec)
        if step % 10 == 0 or step == steps - 1:
            log(
                f"[{name}] step {step + 1}/{steps} loss {rec['loss']:.4f} tok/s {rec['tokens_per_s']:.0f} "
                f"zero {zf:.3e} scale {rec['loss_scale']} skipped {skipped_total}"
            )
    vl = val_loss(model, val_tokens, cfg, prof)
    tps = [r["tokens_per_s"] for r in log_steps[1:]] or [log_steps[0]["tokens_per_s"]]
    tpc = sorted(r["tokens_per_cpu_s"] for r in (log_steps[1:] or log_steps) if r["tokens_per_cpu_s"])
    return {
        "label": spec["label"],
        "autocast_dtype": str(spec["dtype"]).replace("torch.", "") if spec["dtype"] else None,
        "loss_scaling": "DynamicLossScaler" if scaler else None,
        "steps": log_steps,
        "val_loss": vl,
        "tokens_per_s_median": sorted(tps)[len(tps) // 2],
        # tokens per second of this process's CPU time (all its threads): robust to other load
        "tokens_per_cpu_s_median": tpc[len(tpc) // 2] if tpc else None,
        "skipped_steps": skipped_total,
        "mean_zero_grad_fraction": sum(r["zero_grad_fraction"] for r in log_steps) / len(log_steps),
        "final_loss_scale": scaler.scale if scaler else None,
        "final_train_loss": log_steps[-1]["loss"],
        "memory": mem,
        "peak_bytes": max(m["total"] for m in mem),
    }, model


# Repeated timed blocks of training steps per precision (the throughput section of the data file).
THROUGHPUT = {
    "full": {"threads": 1, "repeats": 9, "steps_per_repeat": 10, "warmup_steps": 2},
    "smoke": {"threads": 1, "repeats": 2, "steps_per_repeat": 1, "warmup_steps": 0},
}


def throughput(cfg: dict, prof: dict, train_tokens, opts: dict, names, log=print) -> dict:
    """Tokens per CPU-second of one training step, per precision: `repeats` blocks of `steps_per_repeat`
    steps each, the precisions taking turns (the starting one rotates), on `threads` threads. CPU time
    counts only this process's own work, and one thread leaves no OpenMP thread spinning while its partner
    waits for a core, so the figure hardly moves with other load; wall-clock figures are kept beside it."""
    threads_before = torch.get_num_threads()
    torch.set_num_threads(opts["threads"])
    s, b = cfg["model"]["context"], prof["batch_size"]
    o = cfg["optimizer"]
    total = opts["warmup_steps"] + opts["repeats"] * opts["steps_per_repeat"]
    state = {}
    for name in names:
        torch.manual_seed(cfg["seed"])
        model = build(cfg)
        opt = torch.optim.AdamW(
            model.parameters(),
            lr=o["lr"],
            betas=tuple(o["betas"]),
            eps=o["eps"],
            weight_decay=o["weight_decay"],
        )
        scaler = DynamicLossScaler(**cfg["scaler"]) if RUNS[name]["scaling"] else None
        state[name] = (model, opt, scaler, batches(train_tokens, total, b, s, cfg["seed"] + 1))

    def run_steps(name, n):
        model, opt, scaler, it = state[name]
        for _ in range(n):
            loss, logits = loss_of(model, next(it), RUNS[name]["dtype"])
            (scaler.scale_loss(loss) if scaler else loss).backward()
            del logits
            scaler.step(opt) if scaler else opt.step()
            opt.zero_grad(set_to_none=True)

    for name in names:
        run_steps(name, opts["warmup_steps"])
    tokens = opts["steps_per_repeat"] * b * s
    per = {name: {"cpu_seconds": [], "wall_seconds": []} for name in names}
    for rep in range(opts["repeats"]):
        order = names[rep % len(names) :] + names[: rep % len(names)]
        for name in order:
            t0, c0 = time.perf_counter(), time.process_time()
            run_steps(name, opts["steps_per_repeat"])
            per[name]["wall_seconds"].append(time.perf_counter() - t0)
            per[name]["cpu_seconds"].append(time.process_time() - c0)
        log(
            f"[throughput] repeat {rep + 1}/{opts['repeats']}: "
            + ", ".join(f"{n} {tokens / per[n]['cpu_seconds'][-1]:.1f} tok/cpu-s" for n in names)
        )
    torch.set_num_threads(threads_before)
    for r in per.values():
        tpc = sorted(tokens / c for c in r["cpu_seconds"])
        tpw = sorted(tokens / w for w in r["wall_seconds"])
        r.update(
            {
                "tokens_per_cpu_s": [tokens / c for c in r["cpu_seconds"]],
                "tokens_per_cpu_s_median": statistics.median(tpc),
                "tokens_per_cpu_s_min": tpc[0],
                "tokens_per_cpu_s_max": tpc[-1],
                "tokens_per_s_median": statistics.median(tpw),
                "tokens_per_s_min": tpw[0],
                "tokens_per_s_max": tpw[-1],
            }
        )
    return {
        "method": "time.process_time around each block of steps; precisions interleaved, starting one rotated",
        "cpu": _cpu_name(),
        "cpu_flags_16bit": _cpu_flags(),
        "torch": torch.__version__,
        "threads": opts["threads"],
        "repeats": opts["repeats"],
        "steps_per_repeat": opts["steps_per_repeat"],
        "warmup_steps": opts["warmup_steps"],
        "tokens_per_repeat": tokens,
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "runs": per,
    }


def _weight_copies(saved: SavedTensors, params) -> int:
    """Bytes of 16-bit saved tensors shaped like a weight matrix: autocast's casted copies of the weights."""
    shapes = {tuple(p.shape) for p in params if p.dim() == 2}
    return sum(b for b, dt, shape in saved.records if dt != "torch.float32" and shape in shapes)


def probe(cfg: dict, prof: dict, train_tokens, when: str, model=None) -> dict:
    torch.manual_seed(cfg["seed"])
    if model is None:
        model = build(cfg)
    s, b = cfg["model"]["context"], prof["batch_size"]
    grads = [torch.zeros_like(p) for p in model.parameters()]
    n = prof["probe_batches"]
    for batch in batches(train_tokens, n, b, s, cfg["seed"] + 99):
        model.zero_grad(set_to_none=True)
        loss, _ = loss_of(model, batch, None)
        loss.backward()
        for acc, p in zip(grads, model.parameters()):
            acc.add_(p.grad, alpha=1.0 / n)
    # per-batch gradients (not their mean) are what FP16 would have to hold: use the last batch's
    h = histogram([p.grad for p in model.parameters()])
    h["when"] = when
    h["batches"] = 1
    return h


def ledger_and_formula(cfg: dict, prof: dict, n_params: int) -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from c9.core.activations import activation_memory
    from c9.core.ledger import model_states

    m = cfg["model"]
    ms = model_states(n_params, "fp32_adamw")
    act = activation_memory(
        s=m["context"], b=prof["batch_size"], h=m["d_model"], a=m["n_heads"], L=m["n_layers"]
    )
    return {
        "ledger_recipe": "fp32_adamw",
        "ledger_model_states_bytes": ms.bytes,
        "ledger_parts": {c.key: c.bytes for c in ms.children},
        "formula": "Korthikanti et al. 2022 eq. 1: L·s·b·h·(34 + 5·a·s/h) bytes (16-bit activations, with dropout)",
        "formula_inputs": {
            "s": m["context"],
            "b": prof["batch_size"],
            "h": m["d_model"],
            "a": m["n_heads"],
            "L": m["n_layers"],
        },
        "formula_activation_bytes": act.bytes,
        "formula_parts": {c.key: c.bytes for c in act.children},
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--smoke", action="store_true", help="a few steps (the test suite)")
    ap.add_argument("--out", type=Path, default=RESULTS_PATH)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", default=",".join(RUNS))
    ap.add_argument(
        "--throughput-only",
        action="store_true",
        help="re-measure only the throughput section and write it into the existing --out file",
    )
    args = ap.parse_args(argv)
    t_start = time.perf_counter()
    torch.set_num_threads(args.threads)
    cfg = load_config()
    prof = cfg["smoke" if args.smoke else "full"]
    log = lambda msg: print(f"{time.perf_counter() - t_start:7.1f}s {msg}", flush=True)  # noqa: E731

    corpus = load_corpus(cfg["data"]["val_fraction"])
    bpe = BPE.train(corpus["train"][: prof.get("bpe_train_chars") or None], cfg["model"]["vocab_size"])
    train_tokens = torch.tensor(bpe.encode(corpus["train"]), dtype=torch.long)
    val_tokens = torch.tensor(bpe.encode(corpus["val"]), dtype=torch.long)
    log(f"corpus: {corpus['files']} files, {train_tokens.numel()} train / {val_tokens.numel()} val tokens")

    torch.manual_seed(cfg["seed"])
    n_params = param_count(build(cfg))
    if n_params != cfg["expected_param_count"]:
        raise SystemExit(f"parameter count {n_params} != {cfg['expected_param_count']}")

    names = args.runs.split(",")
    tp_opts = THROUGHPUT["smoke" if args.smoke else "full"]
    if args.throughput_only:
        t0 = time.perf_counter()
        out = json.loads(args.out.read_text(encoding="utf-8"))
        out["throughput"] = throughput(cfg, prof, train_tokens, tp_opts, names, log)
        out["throughput"]["wall_time_s"] = time.perf_counter() - t0
        out["throughput"]["command"] = "python -m lab.run --throughput-only"
        _write(args.out, out)
        log(f"wrote the throughput section of {args.out}")
        return 0

    probes = [probe(cfg, prof, train_tokens, "initialization")]
    runs = {}
    for name in names:
        runs[name], model = train_one(name, cfg, prof, train_tokens, val_tokens, log)
        if name == "fp32":
            probes.append(probe(cfg, prof, train_tokens, "after_training_fp32", model))
        log(f"[{name}] val loss {runs[name]['val_loss']:.4f}")

    out = {
        "schema": SCHEMA,
        "provenance": {
            "torch": torch.__version__,
            "python": platform.python_version(),
            "device": "cpu",
            "cpu": _cpu_name(),
            "threads": torch.get_num_threads(),
            "machine": platform.machine(),
            "command": "python -m lab.run" + (" --smoke" if args.smoke else ""),
            "profile": "smoke" if args.smoke else "full",
            "seed": cfg["seed"],
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "wall_time_s": None,
            "config": cfg,
        },
        "model": {"param_count": n_params, "config": cfg["model"]},
        "data": {k: corpus[k] for k in ("source", "files", "train_files", "val_first_file", "sha256")}
        | {
            "train_tokens": train_tokens.numel(),
            "val_tokens": val_tokens.numel(),
            "vocab_size": bpe.vocab_size,
            "tokens_per_step": prof["batch_size"] * cfg["model"]["context"],
        },
        "runs": runs,
        "probe": probes,
        "accounting": ledger_and_formula(cfg, prof, n_params),
    }
    t0 = time.perf_counter()
    out["throughput"] = throughput(cfg, prof, train_tokens, tp_opts, names, log)
    out["throughput"]["wall_time_s"] = time.perf_counter() - t0
    out["throughput"]["command"] = out["provenance"]["command"]
    out["provenance"]["wall_time_s"] = time.perf_counter() - t_start
    _write(args.out, out)
    log(f"wrote {args.out}")
    return 0


def _write(path: Path, out: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, ensure_ascii=False, indent=1, allow_nan=False) + "\n", encoding="utf-8")


# The CPU's 16-bit arithmetic extensions, as /proc/cpuinfo lists them: which precisions have hardware.
FLAGS_16BIT = ("avx512_bf16", "amx_bf16", "avx512_fp16", "amx_fp16", "f16c")


def _cpu_flags() -> list[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                have = set(line.split(":", 1)[1].split())
                return [f for f in FLAGS_16BIT if f in have]
    except OSError:
        pass
    return []


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


if __name__ == "__main__":
    sys.exit(main())
