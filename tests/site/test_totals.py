"""Every total on the built pages agrees with what it totals, and equal things read equal.

Over the built HTML: every line of arithmetic "a + b (+ …) = c" in sizes or shares, and every table with a
total row or a total column. Each must add up as shown (exactly, as decimals), at one precision; where its
values are figures (``{{ fig.NAME }}``, their exact values from build_numbers), or cells of the tables the
widgets draw from data (the lab's memory snapshots, lesson 5's stages, the memory bar's activation
tables, the ledgers), the total is the true total rounded and each part its own value rounded, so that
equal values read equal. The oracle rounds with Python's Decimal (ROUND_HALF_UP, a wide context), not
with c9.base.units.
"""

from __future__ import annotations

import json
import re
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

import pytest
from page_text import blocks, pages, parse, tables, view_strings

import build_numbers
from c9.base import units
from c9.core import lab_results
from c9.core.models import anchor
from c9.views import memory_bar, memory_tables, step_stages
from c9.views.lab_charts import PART_LABELS
from c9.views.lab_text import POINT_LABELS

UNIT = r"(?:B|KB|MB|GB|TB|KiB|MiB|GiB|TiB|%)"
# an amount, its unit, and the figure it is (a token the test puts after each figure's text)
TERM = rf"(\d[\d,]*(?:\.\d+)?)\s*({UNIT})(?:⟦([\w]+)⟧)?"
SUM = re.compile(rf"{TERM}(?:\s*\+\s*{TERM})+\s*=\s*{TERM}")
ONE = re.compile(TERM)
TOTAL = re.compile(r"合计|总计|^共")
FIG = re.compile(
    r'<span class="fig" tabindex="0" data-fig="([^"]+)">(.*?)<span class="fig-how"[^>]*>.*?</span></span>',
    re.S,
)


@pytest.fixture(scope="module")
def figures():
    return build_numbers.compute()


@pytest.fixture(scope="module")
def articles(built_site):
    """Each page's article, every figure's text followed by ⟦its name⟧."""
    out = []
    for name, path in pages(built_site):
        markup = FIG.sub(lambda m: f"{m.group(2)}⟦{m.group(1)}⟧", path.read_text(encoding="utf-8"))
        out.append((name, next(n for n in parse(markup).iter() if n.tag == "article")))
    return out


def half_up(x: Fraction, digits: int) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = 200
        return (Decimal(x.numerator) / Decimal(x.denominator)).quantize(
            Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP
        )


def amount(text: str) -> Decimal:
    return Decimal(text.replace(",", ""))


def decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def true_value(fig, unit: str, shown: str) -> Fraction:
    """A figure's exact value in ``unit``: its byte count where it has one (the value, or the ``bytes`` input),
    else its value, which is then in the unit shown."""
    if unit == "%":
        return Fraction(fig.value) * 100
    if "bytes" in fig.inputs:
        return Fraction(fig.inputs["bytes"]) / units.UNITS[unit]
    v = Fraction(fig.value)
    step = Fraction(1, 10 ** decimals(shown))
    in_bytes = v / units.UNITS[unit]
    return in_bytes if abs(in_bytes - Fraction(amount(shown))) <= step else v


def sums(node) -> list[list[tuple[str, str, str | None]]]:
    """Every printed sum in the node's blocks: [(amount, unit, figure name or None), …], the total last."""
    found = []
    for b in blocks(node):
        for m in SUM.finditer(b):
            found.append([(a, u, f or None) for a, u, f in ONE.findall(m.group(0))])
    return found


def check_sum(terms, figures) -> list[str]:
    """What is wrong with one printed sum (empty if nothing): one unit and one precision, the parts as shown
    adding up to the total as shown, and, where its terms are figures, each part and the total the true
    values rounded (the total: the parts' true total)."""
    text = " + ".join(a + u for a, u, _ in terms[:-1]) + " = " + terms[-1][0] + terms[-1][1]
    bad = []
    if len({u for _, u, _ in terms}) > 1 or len({decimals(a) for a, _, _ in terms}) > 1:
        bad.append(f"{text}：单位或小数位不一")
    if sum(amount(a) for a, _, _ in terms[:-1]) != amount(terms[-1][0]):
        bad.append(f"{text}：分项加起来不等于合计")
    if all(f for _, _, f in terms[:-1]):
        d, unit = decimals(terms[-1][0]), terms[-1][1]
        exact = [true_value(figures[f], unit, a) for a, _, f in terms[:-1]]
        if half_up(sum(exact), d) != amount(terms[-1][0]):
            bad.append(f"{text}：合计不是分项真值之和的舍入 {half_up(sum(exact), d)}")
        for (a, _, f), x in zip(terms, exact):
            if half_up(x, d) != amount(a):
                bad.append(f"{text}：{f} 不是它自己的真值舍入 {half_up(x, d)}")
    return bad


def test_the_sum_checker_catches_each_kind(figures):
    """The memory bar's Qwen3-8B sum (its total not the true total), a table's moved digit, mixed decimals."""
    assert check_sum([("131.1", "GB", None), ("117.2", "GB", None), ("248.3", "GB", None)], figures) == []
    # figures: lesson 5's one-layer terms, their true total 2.5390625 GiB; a moved digit or a wrong total shows
    ok = [
        ("0.66", "GiB", "layer_linear_anchor"),
        ("1.88", "GiB", "layer_scores_anchor"),
        ("2.54", "GiB", None),
    ]
    assert check_sum(ok, figures) == []
    moved = [
        ("0.67", "GiB", "layer_linear_anchor"),
        ("1.88", "GiB", "layer_scores_anchor"),
        ("2.55", "GiB", None),
    ]
    assert any("真值" in b for b in check_sum(moved, figures))
    mixed = [("0.66", "GiB", None), ("1.9", "GiB", None), ("2.56", "GiB", None)]
    assert any("小数位" in b for b in check_sum(mixed, figures))


def test_every_printed_sum_adds_up_and_totals_the_true_values(articles, figures):
    found = [(name, s) for name, node in articles for s in sums(node)]
    names = {n for n, _ in found}
    assert {"lab", "lesson-5"} <= names, names  # the lab's snapshot sum, lesson 5's bar and one-layer sums
    assert any(all(f for *_, f in s[:-1]) for _, s in found)  # some sums are of figures
    bad = [f"{name}: {b}" for name, s in found for b in check_sum(s, figures)]
    assert not bad, "\n".join(bad)


# --- tables ------------------------------------------------------------------------------------------------


def reads_as(bound, shown: str, n_bytes: int, unit: str, digits: int) -> bool:
    """Whether `shown` (with `bound`: it was written "< shown") is n_bytes in `unit` rounded half-up to
    `digits`: a bound is one unit of the last decimal, for a count above 0 that rounds to 0."""
    rounded = half_up(Fraction(n_bytes, units.UNITS[unit]), digits)
    if bound:
        return n_bytes > 0 and rounded == 0 and amount(shown) == Decimal(1).scaleb(-digits)
    return amount(shown) == rounded


def cell(text: str) -> tuple[str, str, str | None] | None:
    """A cell's amount, unit and figure name: '111.13 GB⟦ledger_master⟧' → ('111.13', 'GB', 'ledger_master')."""
    text = re.sub(r"（[^（）]*）", "", text.replace("*", "")).strip()
    m = re.fullmatch(TERM, text)
    if m:
        return m.group(1), m.group(2), m.group(3) or None
    m = re.fullmatch(rf"(\d+(?:\s*\+\s*\d+)+)\s*({UNIT})", text)  # bytes per parameter: '4 + 4 B'
    return (str(sum(int(x) for x in m.group(1).split("+"))), m.group(2), None) if m else None


def known_cells() -> dict[tuple[str, str], int]:
    """The exact byte counts behind the tables widgets draw from data, by (row label, column name): the lab's
    memory snapshots (FP32), lesson 5's stages, the memory bar's eq. 1 table at its default state."""
    out = {}
    snaps = lab_results.snapshots(lab_results.precision(), "fp32")
    for p, label in POINT_LABELS.items():
        for k, name in PART_LABELS.items():
            out[(label, name)] = snaps[p]["parts"][k]
        out[(label, "合计")] = snaps[p]["total"]
    v = step_stages.page_context()
    for s in v["stages"]:
        # the row's label as read, with the note screen readers hear on the stage lesson 1's ledger lacks
        label = s["label"] + (step_stages.NEW_NOTE if s["key"] == step_stages.NEW else "")
        out[(label, "锚点上（GB）")] = s["bytes"]
    out[("合计", "锚点上（GB）")] = v["total_bytes"]
    p = memory_bar.DEFAULTS
    acts = memory_tables.activation_tables(anchor(), p["s"], p["b"], p["mode"])
    for r in acts["eq1"]["rows"]:
        out[(r["label"], f"大小（{acts['unit']}）")] = r["bytes"]
    out[("合计", f"大小（{acts['unit']}）")] = acts["eq1"]["total_bytes"]
    return out


def total_tables(articles):
    """(page, table, where the total is: "row" or "column") for every table with a total."""
    for name, node in articles:
        for t in tables(node):
            body = [r for r in t[1:] if r]
            if any(TOTAL.search(r[0]) for r in body):
                yield name, t, "row"
            elif t and t[0] and TOTAL.search(t[0][-1]):
                yield name, t, "column"


def lines_of(t: list[list[str]], where: str):
    """Each sum a table holds, as [((row label, column name), cell text)], its total last."""
    head, body = t[0], [r for r in t[1:] if r]
    if where == "column":
        for r in body:
            parts = [((r[0], head[i]), c) for i, c in enumerate(r[1:-1], 1) if cell(c)]
            yield parts + [((r[0], head[-1]), r[-1])]
        return
    at = next(i for i, r in enumerate(body) if TOTAL.search(r[0]))
    for col in range(1, len(body[at])):
        if cell(body[at][col]):
            parts = [((r[0], head[col]), r[col] if col < len(r) else "") for r in body[:at]]
            yield parts + [(("合计", head[col]), body[at][col])]


def check_table(name, t, where, figures, known) -> list[str]:
    """What is wrong with a table's sums: each adds up as shown (check_sum); a share column adds up to its
    total; the cells drawn from data (``known``: bytes by row and column) are each their true value
    rounded, the total the parts' true total rounded."""
    bad = []
    for line in lines_of(t, where):
        keys, terms = [k for k, _ in line], [cell(c) for _, c in line]
        if None in terms:
            bad.append(f"{name}: 缺少分项 {[c for _, c in line]}")
            continue
        if terms[-1][1] == "%":  # a share column (「占一步合计」): it adds up to its total as shown
            if sum(amount(a) for a, _, _ in terms[:-1]) != amount(terms[-1][0]):
                bad.append(f"{name}: {[c for _, c in line]} 加起来不是合计")
            continue
        bad += [f"{name}: {b}" for b in check_sum(terms, figures)]
        if all(k in known for k in keys):
            unit, d = terms[-1][1], decimals(terms[-1][0])
            exact = [Fraction(known[k], units.UNITS[unit]) for k in keys]
            for (a, _, _), x, k in zip(terms, exact, keys):
                if half_up(x, d) != amount(a):
                    bad.append(f"{name}: {k} 显示 {a}，真值舍入是 {half_up(x, d)}")
            if half_up(sum(exact[:-1]), d) != amount(terms[-1][0]):
                bad.append(f"{name}: {keys[-1]} 不是分项真值之和的舍入")
    return bad


def test_the_table_checker_catches_a_moved_digit(figures):
    """Main's lab table moved AdamW's 28.1426… MiB to 28.15 so that its row made 56.29 MiB."""
    known = known_cells()
    lab = [
        ["时刻", *PART_LABELS.values(), "合计"],
        ["第一次优化器更新后", "14.07 MiB", "14.07 MiB", "28.15 MiB", "0.00 MiB", "0.00 MiB", "56.29 MiB"],
    ]
    assert any("28.15" in b for b in check_table("lab", lab, "column", figures, known))
    lab[1][3] = "28.14 MiB"  # its own value: now the row no longer adds up at two decimals
    assert any("加起来不等于合计" in b for b in check_table("lab", lab, "column", figures, known))


def test_every_table_with_a_total_adds_up_and_each_cell_is_its_true_value(articles, figures):
    known = known_cells()
    found = list(total_tables(articles))
    assert {"index", "lesson-1", "lesson-5", "lab"} <= {n for n, _, _ in found}
    bad = [b for name, t, where in found for b in check_table(name, t, where, figures, known)]
    assert not bad, "\n".join(bad)
    # the tables drawn from data were all found, so their cells were checked against their bytes
    keys = {k for _, t, where in found for line in lines_of(t, where) for k, _ in line}
    assert {
        ("第一次优化器更新后", "合计"),
        ("② 前向：留给反向的激活" + step_stages.NEW_NOTE, "锚点上（GB）"),
        ("softmax 输出", "大小（GiB）"),
    } <= keys & set(known)


# --- the widgets' answers the build caches (what a reader's first touch shows) ------------------------------


def cached_answers(site):
    """(widget, view) of every answer in the built site's answer cache (hooks/answers.py)."""
    for f in sorted((site / "assets" / "answers").glob("*.json")):
        for key, answer in json.loads(f.read_text(encoding="utf-8"))["answers"].items():
            if answer.get("ok"):
                yield json.loads(key)["widget"], answer["view"]


def test_every_sum_in_the_cached_answers_adds_up_and_the_bars_total_is_true(built_site, figures):
    """Main's cache held the memory bar's Qwen3-8B answer 「131.1 GB + 117.2 GB = 248.3 GB」 (true: 248.22 GB)
    and Llama-3.1-70B's segments 282.3, 282.2, 282.2 GB for three equal 4Ψ."""
    answers = list(cached_answers(built_site))
    bars = [v for w, v in answers if w == "memory-bar"]
    assert len(bars) > 30 and {v["params"]["model"] for v in bars} >= {"qwen3-8b", "llama-3.1-70b", "lab"}
    bad = []
    for widget, v in answers:
        for text in view_strings(v):
            for m in SUM.finditer(text):
                terms = [(a, u, None) for a, u, _ in ONE.findall(m.group(0))]
                bad += [f"{widget} {v.get('params')}: {b}" for b in check_sum(terms, figures)]
    for v in bars:
        # a part too small for the decimals reads as its bound ("< 0.1 GB", units.bounded_size)
        m = re.search(rf"合计 (<\s*)?{TERM} \+ (<\s*)?{TERM} = (<\s*)?{TERM}", v["summary"])
        shown = [(m.group(1 + 4 * i), m.group(2 + 4 * i)) for i in range(3)]
        unit = m.group(3)
        d = decimals(shown[0][1])
        true = [v["states_bytes"], v["activation_bytes"], v["total_bytes"]]
        if not all(reads_as(bound, x, n, unit, d) for (bound, x), n in zip(shown, true)):
            bad.append(f"memory-bar {v['params']['model']}: {m.group(0)} 不是真值的舍入")
        for seg in v["segments"]:
            text = re.sub(r"（[^（）]*）", "", seg["text"]).strip()
            bound = text.startswith("<")
            if not reads_as(bound, cell(text.lstrip("< "))[0], seg["bytes"], unit, d):
                bad.append(
                    f"memory-bar {v['params']['model']}: {seg['label']} {seg['text']} 不是它的真值舍入"
                )
    assert not bad, "\n".join(sorted(set(bad))[:40])
