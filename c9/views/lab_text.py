"""The lab's measurements as the lab page writes them (c9.core.lab_results reads them): the names of the
snapshot points, a snapshot's parts in MiB, small fractions, the throughput cell. The page's charts and
tables (c9/views/lab_charts.py) and the figures its prose quotes (c9/figures/lab.py) both write through
here, so a table cell and the sentence quoting it are the same text.
"""

from __future__ import annotations

import math
from fractions import Fraction

from c9.base import units
from c9.core.lab_results import PARTS, POINTS, RUN_ORDER, snapshots, throughput

POINT_LABELS = {
    "after_build": "建好模型后",
    "after_forward": "前向之后",
    "after_backward": "反向之后",
    "after_step": "第一次优化器更新后",
}


def mib_sums(d: dict) -> list[list[int]]:
    """Every sum the lab's pages show in MiB, as lists of parts (byte counts): each snapshot of each run
    (its parts to its total), the saved tensors split into the model body and the loss head, eq. 1's two
    terms to its estimate, the estimate plus the gap to what each run saved, and the parameters plus the
    estimate (the memory chart's mark); the ledger's 16 B × Ψ stands alone."""
    acc = d["accounting"]
    fa = acc["formula_activation_bytes"]
    sums = [[acc["ledger_model_states_bytes"]], list(acc["formula_parts"].values())]
    for name in RUN_ORDER:
        snaps = snapshots(d, name)
        sums += [[snaps[p]["parts"][k] for k in PARTS] for p in POINTS]
        fwd = snaps["after_forward"]
        det = fwd["saved_detail"]
        saved = fwd["parts"]["saved_for_backward"]
        sums += [[det["model_body"], det["loss_head"]], [fa, saved - fa], [det["weight_copies_16bit"]]]
        sums.append([fwd["parts"]["parameters"], fa])  # the chart's mark: parameters + eq. 1's estimate
    return sums


def mib_digits(d: dict) -> int:
    """The one precision of every MiB figure of the lab (at least two decimals): the fewest at which every
    sum of :func:`mib_sums` adds up as shown, each value rounded on its own (units.sum_decimals), so that
    a snapshot's parameters read the same in every row and every run."""
    return units.sum_decimals(mib_sums(d), "MiB", 2)


def snapshot_texts(snap: dict, digits: int) -> tuple[dict, str]:
    """A snapshot's parts and total in MiB as the table shows them and the prose quotes them, at the lab's
    one precision (``digits``: :func:`mib_digits`), where the shown parts add up to the shown total."""
    return {k: units.size(snap["parts"][k], "MiB", digits) for k in PARTS}, units.size(
        snap["total"], "MiB", digits
    )


def sci(x: float, digits: int = 2) -> str:
    """x as a·10^b with Unicode superscripts, spaced ('1.2 × 10⁻⁴', x > 0), or '0'."""
    if x == 0:
        return "0"
    e = math.floor(math.log10(abs(x)))
    m = units.round_half_up(Fraction(x) / Fraction(10) ** e, digits - 1)
    if abs(m) >= 10:
        e, m = e + 1, units.round_half_up(Fraction(x) / Fraction(10) ** (e + 1), digits - 1)
    sup = str(e).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return f"{m} × 10{sup}"


def frac_text(x: float) -> str:
    """A fraction as a percentage with two decimals, or in a·10^b form (as a fraction) when below 0.01%."""
    if x == 0:
        return "0"
    if x < 1e-4:
        return sci(x)
    return units.percent(Fraction(x), 1, 2)


def throughput_rows(d: dict) -> dict:
    """Per run: tokens per CPU-second (c9.core.lab_results.throughput: median, lowest and highest) and the
    table's cell "median（lowest–highest）"."""
    out = {}
    for name, r in throughput(d).items():
        cell = f"{units.number(r['median'])}（{units.number(r['min'])}–{units.number(r['max'])}）"
        out[name] = {**r, "cell": cell}
    return out
