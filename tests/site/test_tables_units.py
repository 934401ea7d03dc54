"""Tables that add up, one unit per column and per line of arithmetic.

Totals: every table with a total row (合计 / 总计 / 共) lists all its parts, and in each column the
parts as shown add up to the total as shown, exactly (the build picks the precision at which rounded
parts add up: c9.base.units.sum_decimals). Units: a table column or a line of arithmetic (a + b = c)
uses one unit; model states in GB, activations quoted in GiB beside their GB value.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

import pytest
from page_text import article, blocks, pages, tables, view_strings

from c9.base import units
from c9.views import formula, memory_bar

UNIT = r"(?:B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)"
# an amount and its unit; a bare "B" needs a space before it (27B is a parameter count, 4 B is bytes)
SIZE = re.compile(r"(\d[\d,]*(?:\.\d+)?)(?:\s*((?:K|M|G|T)i?B)|\s+(B))(?![A-Za-z])")
TOTAL = re.compile(r"合计|总计|^共")
BESIDE = re.compile(r"（[^（）]*）")  # a value quoted beside in another unit: 162.5 GiB（174.5 GB）
# a chain of sizes joined by + − = (a line of arithmetic)
CHAIN = re.compile(rf"\d[\d,]*(?:\.\d+)?\s*{UNIT}(?:\s*[+−=]\s*\d[\d,]*(?:\.\d+)?\s*{UNIT})+")


def cell_amount(text: str) -> tuple[Decimal, str] | None:
    """A cell's amount and unit: '111.13 GB' → (111.13, 'GB'); '4 + 4 B' → (8, 'B'); '28%' → (28, '%'), so that
    a column of shares adds up to its total's 100% as shown too; None if none."""
    text = BESIDE.sub("", text.replace("*", ""))
    m = re.fullmatch(rf"\s*((?:\d[\d,]*(?:\.\d+)?\s*\+\s*)*\d[\d,]*(?:\.\d+)?)\s*({UNIT}|%)\s*", text)
    if not m:
        return None
    return sum(Decimal(x.replace(",", "")) for x in m.group(1).split("+")), m.group(2)


def sizes(text: str) -> list[tuple[str, str]]:
    return [(n, a or b) for n, a, b in SIZE.findall(text)]


def column_units(rows: list[list[str]], col: int) -> set[str]:
    """The units of a column's amounts (cells that are an amount, not prose)."""
    return {a[1] for r in rows[1:] if col < len(r) and (a := cell_amount(r[col]))}


def total_tables(site):
    for name, p in pages(site):
        for t in tables(article(p)):
            if any(TOTAL.search(r[0]) for r in t[1:] if r):
                yield name, t


def check_adds_up(name: str, t: list[list[str]]) -> list[str]:
    bad = []
    body = [r for r in t[1:] if r]
    total_at = next(i for i, r in enumerate(body) if TOTAL.search(r[0]))
    parts, total = body[:total_at], body[total_at]
    for col in range(1, len(total)):
        got = cell_amount(total[col])
        if got is None:
            continue
        amounts = [cell_amount(r[col]) if col < len(r) else None for r in parts]
        if None in amounts:
            bad.append(f"{name}: 「{t[0][col]}」列缺少分项：{[r[col] for r in parts]}")
            continue
        if len({u for _, u in amounts} | {got[1]}) > 1:
            bad.append(f"{name}: 「{t[0][col]}」列混用单位")
        if sum(a for a, _ in amounts) != got[0]:
            bad.append(f"{name}: 「{t[0][col]}」列 {' + '.join(r[col] for r in parts)} ≠ {total[col]}")
    return bad


def column_total_tables(site):
    """Tables whose last column is the total of each row (the lab's memory snapshots: 合计 as a header)."""
    for name, p in pages(site):
        for t in tables(article(p)):
            if t and t[0] and TOTAL.search(t[0][-1]):
                yield name, t


def check_rows_add_up(name: str, t: list[list[str]]) -> list[str]:
    """Each row's amounts, as shown, add up to its last cell, in one unit."""
    bad = []
    for r in t[1:]:
        got = cell_amount(r[-1]) if r else None
        if got is None or got[1] == "%":  # a share of a total (「占一步合计」), not the row's sum
            continue
        amounts = [a for c in r[1:-1] if (a := cell_amount(c))]
        if len({u for _, u in amounts} | {got[1]}) > 1:
            bad.append(f"{name}: 「{r[0]}」行混用单位")
        elif sum(a for a, _ in amounts) != got[0]:
            bad.append(f"{name}: 「{r[0]}」行 {' + '.join(r[1:-1])} ≠ {r[-1]}")
    return bad


def test_the_checker_catches_tables_that_do_not_add_up():
    ledger = [
        ["账目", "每参数", "锚点上"],
        ["BF16 权重", "2 B", "55.6 GB"],
        ["BF16 梯度", "2 B", "55.6 GB"],
        ["FP32 主权重", "4 B", "—"],
        ["Adam m、v", "4 + 4 B", "222.3 GB"],
        ["模型状态合计", "16 B", "444.5 GB"],
    ]
    assert any("缺少分项" in b for b in check_adds_up("lesson-1", ledger))
    ledger[3][2] = "111.1 GB"
    assert any("≠" in b for b in check_adds_up("lesson-1", ledger))  # 444.6 ≠ 444.5 at one decimal
    # lesson 5's step stages once showed shares of 9.0% + 28.2% + 9.0% + 53.9% = 100.1% beside a 100%
    stages = [
        ["环节", "锚点上（GB）", "占一步合计"],
        ["① 权重", "55.56 GB", "9.0%"],
        ["② 前向", "174.49 GB", "28.2%"],
        ["③ 反向", "55.56 GB", "9.0%"],
        ["④ 更新", "333.38 GB", "53.9%"],
        ["合计", "618.99 GB", "100%"],
    ]
    assert check_adds_up("lesson-5", stages) == [
        "lesson-5: 「占一步合计」列 9.0% + 28.2% + 9.0% + 53.9% ≠ 100%"
    ]
    layer = [["一层里", "大小"], ["线性项", "713.0 MB"], ["分数项", "2.01 GB"], ["这一层合计", "2.54 GiB"]]
    assert any("混用单位" in b for b in check_adds_up("lesson-5", layer))


def test_every_table_with_a_total_adds_up_as_shown(built_site):
    found = list(total_tables(built_site))
    names = {n for n, _ in found}
    assert {"index", "lesson-1", "lesson-5"} <= names  # the three ledgers and lesson 5's one-layer table
    stages = next(t for n, t in found if n == "lesson-5" and t[0][-1] == "占一步合计")
    assert [r[-1] for r in stages[1:]] == ["9%", "28%", "9%", "54%", "100%"]
    bad = [b for name, t in found for b in check_adds_up(name, t)]
    assert not bad, "\n".join(bad)
    # now whole: lesson 1's master-weight row carries its bytes
    lesson1 = next(t for n, t in found if n == "lesson-1")
    assert ["FP32 主权重", "4 B", "111.13 GB"] in lesson1


def test_a_row_total_checker_catches_the_lab_table():
    """The QA tester's lab table: its last row read 14.07 + 14.07 + 28.14 = 56.28 under a 合计 of 56.29; the
    total was a column, so the row-total check never looked at it."""
    lab = [
        [
            "时刻",
            "参数（FP32）",
            "梯度（FP32）",
            "AdamW 状态（m、v、step）",
            "保存给反向的张量",
            "logits（前向输出）",
            "合计",
        ],
        ["前向之后", "14.07 MiB", "0.00 MiB", "0.00 MiB", "10.89 MiB", "1.00 MiB", "25.96 MiB"],
        ["第一次优化器更新后", "14.07 MiB", "14.07 MiB", "28.14 MiB", "0.00 MiB", "0.00 MiB", "56.29 MiB"],
    ]
    assert check_rows_add_up("lab", lab) == [
        "lab: 「第一次优化器更新后」行 14.07 MiB + 14.07 MiB + 28.14 MiB + 0.00 MiB + 0.00 MiB ≠ 56.29 MiB"
    ]
    lab[2][3] = "28.15 MiB"
    assert not check_rows_add_up("lab", lab)


def test_every_table_with_a_total_column_adds_up_as_shown(built_site):
    found = list(column_total_tables(built_site))
    assert "lab" in {n for n, _ in found}  # the four memory snapshots
    bad = [b for name, t in found for b in check_rows_add_up(name, t)]
    assert not bad, "\n".join(bad)
    lab = next(t for n, t in found if n == "lab")
    assert lab[-1][0] == "第一次优化器更新后" and lab[-1][-1] == "56.2853 MiB"


def test_every_table_column_has_one_unit(built_site):
    bad = []
    for name, p in pages(built_site):
        for t in tables(article(p)):
            for col in range(len(t[0]) if t else 0):
                if len(column_units(t, col)) > 1:
                    bad.append(f"{name}: 「{t[0][col]}」列：{sorted(column_units(t, col))}")
    assert not bad, "\n".join(bad)


def one_unit_violations(text: str) -> list[str]:
    text = BESIDE.sub("", text)
    return [
        m.group(0)
        for m in CHAIN.finditer(text)
        if len(set(re.findall(rf"(?<=\s){UNIT}|(?<=\d){UNIT}", m.group(0)))) > 1
    ]


def _views():
    from c9.views.api import WIDGETS, widget_module

    for name in WIDGETS:
        module = widget_module(name)
        yield name, module.page_context()


def test_every_line_of_arithmetic_in_pages_and_views_has_one_unit(built_site):
    assert one_unit_violations("713.0 MB + 2.01 GB = 2.54 GiB") and not one_unit_violations(
        "0.66 GiB + 1.88 GiB = 2.54 GiB"
    )
    bad = [
        f"{name}: {v}"
        for name, p in pages(built_site)
        for b in blocks(article(p))
        for v in one_unit_violations(b)
    ]
    bad += [
        f"{name}: {v}" for name, ctx in _views() for s in view_strings(ctx) for v in one_unit_violations(s)
    ]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"s": 5},
        {"s": 131072, "b": 8},
        {"model": "lab", "s": 64, "b": 2},
        {"model": "qwen3-8b", "s": 8192},
    ],
)
def test_formula_view_uses_one_unit_for_terms_and_summary(params):
    """The formula widget's summary was in TiB while its terms were in GB."""
    v = formula.view(params)
    found = {u for s in [v["summary"]] + [t["value"] for t in v["terms"]] for _, u in sizes(s)}
    assert len(found) == 1, found
    if not params:
        assert "每层 sbh(34 + 5as/h) = 0.66 GiB + 1.88 GiB = 2.54 GiB，64 层共 162.5 GiB" in v["summary"]


@pytest.mark.parametrize(
    "params",
    [{}, {"s": 5}, {"s": 131072, "b": 8}, {"model": "lab", "s": 64, "b": 2}, {"mode": "full_recompute"}],
)
def test_memory_bar_states_in_one_decimal_unit_and_its_sum_adds_up(params):
    v = memory_bar.view(params)
    main = BESIDE.sub("", v["summary"].split("下面一条")[0]).replace("80 GB 单卡", "单卡")
    assert len({u for _, u in sizes(main)}) == 1, main
    # a part too small for the decimals reads as its bound, "< 0.1 GB" (units.bounded_size)
    a, lt, b, c = re.search(r"合计 ([\d,.]+) \w+ \+ (< )?([\d,.]+) \w+ = ([\d,.]+)", v["summary"]).groups()
    a, b, c = (Decimal(x.replace(",", "")) for x in (a, b, c))
    assert (a + b == c) if not lt else (a <= c <= a + b)
    seg = [(sizes(s["text"])[0], s["text"].startswith("<")) for s in v["segments"]]
    assert len({u for (_, u), _ in seg}) == 1
    unit = seg[0][0][1]
    digits = len(next(x for (x, _), bound in seg if not bound).split(".")[-1])
    total = units.round_half_up(Fraction(v["total_bytes"], units.UNITS[unit]), digits)
    shown = sum(Decimal(x.replace(",", "")) for (x, _), bound in seg if not bound)
    bounds = sum(Decimal(x.replace(",", "")) for (x, _), bound in seg if bound)
    # the segments add up to the total (within the bounds of those too small to show), or the summary says
    # which group's rows miss it and by how much
    assert (
        (shown <= total <= shown + bounds)
        if bounds
        else (shown == total or "各行各自四舍五入" in v["summary"])
    )


def test_adding_up_picks_the_decimals_at_which_the_shown_parts_add_up():
    """The property tests are in tests/base/test_sums.py; here the chapter's own tables."""
    psi = 27_781_427_952
    # two decimals: half-up already adds up
    assert units.adding_up([2 * psi, 2 * psi, 4 * psi, 8 * psi], "GB", 2) == (
        ["55.56 GB", "55.56 GB", "111.13 GB", "222.25 GB"],
        "444.50 GB",
    )
    # one decimal asked for: 222.25 rounds to 222.3 and the rows would make 444.6, so two decimals
    assert units.adding_up([2 * psi, 2 * psi, 4 * psi, 8 * psi], "GB") == units.adding_up(
        [2 * psi, 2 * psi, 4 * psi, 8 * psi], "GB", 2
    )
    assert units.adding_up([10**9, 2 * 10**9], "GB") == (["1.0 GB", "2.0 GB"], "3.0 GB")
    # the reviewer's case (Qwen3-8B states): 16.3815 ×2 + 32.7629 ×3 = 131.0517 against 131.0518; equal rows
    # read equal, so only the byte count adds up
    parts = [16_381_470_720] * 2 + [32_762_941_440] * 3
    texts, total = units.adding_up(parts, "GB")
    assert texts == ["16.38147072 GB"] * 2 + ["32.76294144 GB"] * 3 and total == "131.05176576 GB"


@pytest.mark.parametrize("n", [2**127, 2**128 - 2**104, 2**128 - 2**120, 10**40 + 1, -(2**127), 3 * 2**200])
def test_number_is_exact_for_huge_integers(n):
    """round_half_up built its Decimal in the 28-digit context: 2¹²⁷ printed as …303,700,000,000,000."""
    assert units.number(n) == f"{n:,}".replace("-", "−")
    assert units.number(n, 2) == f"{n:,}.00".replace("-", "−")
    assert units.number(Fraction(2 * n + 1, 2), 0) == f"{n + (1 if n > 0 else 0):,}".replace("-", "−")


def test_a_negative_number_has_one_minus_sign_and_no_negative_zero():
    assert units.number(-5) == "−5" and units.size(-1_234_567, "MB", 2) == "−1.23 MB"
    assert units.number(-0.04, 1) == "0.0"


def test_a_negative_share_has_a_minus_sign_and_the_same_bounds():
    assert units.share(-1) == "−100.0%" and units.share(-0.5) == "−50.0%"
    assert units.share(Fraction(-1, 20000)) == "> −0.1%"  # not "0.0%"
    assert units.share(Fraction(-19999, 20000)) == "< −99.9%"
    assert units.share(Fraction(-10004, 10000)) == "< −100.0%"
    assert units.share(0) == "0.0%" and units.share(Fraction(1, 20000)) == "< 0.1%"


def test_the_unit_helpers_follow_the_chapters_convention():
    assert units.states_unit(16 * 27_781_427_952) == "GB" and units.states_unit(59_019_264) == "MB"
    assert (
        units.activation_quote(174_483_046_400) == "162.5 GiB"
        and units.activation_quote(55_890_000) == "53.3 MiB"
    )
    assert units.unit_for(2_726_297_600, binary=True) == "GiB" and units.unit_for(5 * 10**14) == "TB"
    assert units.unit_for(5_000) == "MB"  # never below MB
