"""Every sum the site prints reads true: c9.base.units.sum_decimals and the helpers on it.

The rule: a total is the true total rounded; equal quantities read equal; the parts as shown add up to the
total as shown; where the three cannot hold at the decimals asked for, more decimals. The oracle here is
Python's Decimal with ROUND_HALF_UP in a 200-digit context (units rounds with integer arithmetic of its
own), and the shown texts are added back up as decimals.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from c9.base import units

UNIT_NAMES = ["GB", "GiB", "MB", "MiB", "B"]


def oracle(n: int | Fraction, unit: str, digits: int) -> Decimal:
    """``n`` (bytes, or an exact number with unit "B") in ``unit``, rounded half-up to ``digits``."""
    fr = Fraction(n) / units.UNITS[unit]
    with localcontext() as ctx:
        ctx.prec = 200
        return (Decimal(fr.numerator) / Decimal(fr.denominator)).quantize(
            Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP
        )


def holds(parts: list[int], unit: str, digits: int) -> bool:
    """The rule, by the oracle: the parts rounded on their own add up to the true total rounded."""
    with localcontext() as ctx:
        ctx.prec = 200  # 30 decimals of GiB and more: Decimal's default 28 digits would round the sum
        return sum(oracle(p, unit, digits) for p in parts) == oracle(sum(parts), unit, digits)


def value(text: str) -> Decimal:
    """A shown size back as a decimal: '1,128.859 GB' → 1128.859, '−0.5 GB' → −0.5."""
    return Decimal(text.split(" ")[0].replace(",", "").replace("−", "-"))


def decimals_of(text: str) -> int:
    number = text.split(" ")[0]
    return len(number.split(".")[1]) if "." in number else 0


# byte counts: arbitrary, multiples of one Ψ (a ledger's rows), and signed (a − b = c written b + c = a)
parts_lists = st.one_of(
    st.lists(st.integers(0, 10**13), min_size=1, max_size=9),
    st.integers(1, 10**11).flatmap(
        lambda psi: st.lists(st.sampled_from([2, 4, 8, 12]), min_size=1, max_size=6).map(
            lambda ks: [k * psi for k in ks]
        )
    ),
    st.lists(st.integers(-(10**12), 10**12), min_size=2, max_size=4),
)


@settings(max_examples=examples(500), deadline=None)
@given(parts_lists, st.sampled_from(UNIT_NAMES), st.integers(0, 3))
def test_shown_parts_add_up_to_the_true_total_rounded_and_equal_parts_read_equal(parts, unit, digits):
    texts, total = units.adding_up(parts, unit, digits)
    d = decimals_of(total)
    assert d >= digits and all(decimals_of(t) == d for t in texts)
    # the parts as shown add up exactly to the total as shown
    assert sum(value(t) for t in texts) == value(total)
    # the total is the true total rounded, and each part its own value rounded (so equal parts read equal)
    assert value(total) == oracle(sum(parts), unit, d)
    assert [value(t) for t in texts] == [oracle(p, unit, d) for p in parts]
    for p, t in zip(parts, texts):
        assert all(t == u for q, u in zip(parts, texts) if q == p)
    # the fewest decimals: at every precision below, the oracle finds the rule broken
    assert not any(holds(parts, unit, k) for k in range(digits, d))


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(parts_lists, min_size=1, max_size=4), st.sampled_from(UNIT_NAMES), st.integers(0, 2))
def test_sums_shown_together_share_the_fewest_decimals_at_which_all_hold(sums, unit, digits):
    d = units.sum_decimals(sums, unit, digits)
    assert d >= digits and all(holds(s, unit, d) for s in sums)
    assert not any(all(holds(s, unit, k) for s in sums) for k in range(digits, d))


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 10**12), min_size=2, max_size=3), min_size=1, max_size=2),
    st.lists(parts_lists, min_size=0, max_size=3),
    st.sampled_from(["GB", "MB", "GiB"]),
    st.integers(0, 2),
)
def test_a_widgets_precision_makes_the_most_sums_read_true_within_what_a_reader_reads(
    printed, also, unit, digits
):
    """readable_decimals: of ``digits`` to ``digits`` + READABLE decimals, the one at which the most printed
    sums hold, then the most of the others, then the fewest decimals; where the printed sums can all hold in
    that range they do, and without others it is sum_decimals' own answer."""
    d = units.readable_decimals(printed, unit, digits, also=also)
    span = range(digits, digits + units.READABLE + 1)
    assert d in span
    score = lambda k: (sum(holds(s, unit, k) for s in printed), sum(holds(s, unit, k) for s in also), -k)
    assert all(score(k) <= score(d) for k in span)
    need = units.sum_decimals(printed, unit, digits)
    if need in span:
        assert all(holds(s, unit, d) for s in printed)
        if not also:
            assert d == need
    # what a sum that misses makes, as shown: its parts' shown values added up
    for s in printed:
        made = units.shown_sum(s, unit, d)
        assert value(made) == sum(oracle(p, unit, d) for p in s) and made.endswith(" " + unit)


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.integers(0, 10**9), min_size=1, max_size=6).filter(lambda xs: sum(xs) > 0), st.integers(0, 2)
)
def test_shares_are_the_true_shares_and_add_up_to_the_shown_whole_where_they_can(parts, digits):
    texts, whole = units.shares_adding_up(parts, digits)
    d = decimals_of(whole.rstrip("%"))
    assert digits <= d <= digits + 2 and whole == units.share(1, d)
    total = sum(parts)
    for p, t in zip(parts, texts):
        assert t == units.share(Fraction(p, total), d)  # the true share, by the one rule for shares
    exact = [Fraction(100 * p, total) for p in parts]
    if sum(oracle(x, "B", d) for x in exact) != 100:  # they do not add up at d: then at no precision in reach
        assert not any(sum(oracle(x, "B", k) for x in exact) == 100 for k in range(digits, digits + 3))


def test_the_issues_examples():
    """The sums the memory bar once printed wrong, and the rows of the chapter's tables."""
    # Qwen3-8B at s = 4,096: 131.1 GB + 117.2 GB = 248.3 GB, but the true total is 248.22 GB
    states, act = 16 * 8_190_735_360, 117_172_076_544
    assert units.adding_up([states, act], "GB") == (["131.05 GB", "117.17 GB"], "248.22 GB")
    # our model at s = 4,096: 0.1 GB + 1.5 GB = 1.6 GB beside 1.93% (which is 1.544 GB of 80 GB)
    states, act = 16 * 3_688_704, 1_484_783_616
    texts, total = units.adding_up([states, act], "GB")
    assert (texts, total) == (["0.06 GB", "1.48 GB"], "1.54 GB")
    assert units.percent(states + act, 80 * 10**9, 2) == "1.93%"
    # Llama-3.1-70B's model states: 4Ψ read 282.3 beside 282.2; at three decimals every row is its own value
    psi = 70_553_706_496
    assert units.adding_up([2 * psi, 2 * psi, 4 * psi, 4 * psi, 4 * psi], "GB") == (
        ["141.107 GB", "141.107 GB", "282.215 GB", "282.215 GB", "282.215 GB"],
        "1,128.859 GB",
    )
    # our model in FP32: 14.8 beside 14.7 MB; four equal rows of 4Ψ read the same, and add up only exactly
    psi = 3_688_704
    assert units.adding_up([4 * psi] * 4, "MB") == (["14.754816 MB"] * 4, "59.019264 MB")
    # the anchor's ledger table: two decimals, where half-up rows add up (at one, 222.25 → 222.3: 444.6)
    psi = 27_781_427_952
    assert units.adding_up([2 * psi, 2 * psi, 4 * psi, 8 * psi], "GB") == (
        ["55.56 GB", "55.56 GB", "111.13 GB", "222.25 GB"],
        "444.50 GB",
    )
    assert units.adding_up([2 * psi, 2 * psi, 4 * psi, 4 * psi, 4 * psi], "GB")[1] == "444.5 GB"
    # lesson 5's stage shares: whole percent add up (9 + 28 + 9 + 54), one decimal would not (100.1)
    step = [2 * psi, 174_483_046_400, 2 * psi, 12 * psi]
    assert units.shares_adding_up(step, 0) == (["9%", "28%", "9%", "54%"], "100%")
    # thirds never add up: the shares stay at the decimals asked for, each the true share
    assert units.shares_adding_up([1, 1, 1]) == (["33.3%"] * 3, "100.0%")


def test_a_sum_that_never_ends_raises_past_the_decimals_allowed():
    with pytest.raises(ValueError):
        units.sum_decimals([[Fraction(1, 3)] * 3], "B", 1)


@pytest.mark.parametrize("unit, most", [("GB", 9), ("MB", 6), ("GiB", 30), ("MiB", 20)])
def test_byte_counts_always_add_up_by_the_exact_decimals(unit, most):
    """At the decimals where every part is exact, rounding changes nothing: a ledger never fails."""
    parts = [1, 3, 2**20 + 1, 10**9 + 7]
    d = units.sum_decimals([parts], unit, 0)
    assert d <= most and holds(parts, unit, d)


@pytest.mark.timeout(60)
@settings(max_examples=examples(300), deadline=None)
@given(
    st.integers(min_value=0, max_value=10**13),
    st.sampled_from(["GB", "GiB", "MB", "MiB"]),
    st.integers(min_value=1, max_value=3),
)
def test_a_size_too_small_for_its_decimals_reads_as_the_bound_it_is_below(n, unit, digits):
    """units.bounded_size: the shown value rounded, as units.size; but a count above 0 that rounds to 0
    reads '< 0.1 GB' (the rule of units.share), true of it, and never '0.0 GB'."""
    text = units.bounded_size(n, unit, digits)
    value, shown_unit = text.removeprefix("< ").split(" ")
    assert shown_unit == unit and len(value.split(".")[1]) == digits
    if n > 0 and oracle(n, unit, digits) == 0:
        assert text.startswith("< ") and 0 < Fraction(n, units.UNITS[unit]) < Fraction(value)
        assert Decimal(value) == Decimal(1).scaleb(-digits)
    else:
        assert Decimal(value.replace(",", "")) == oracle(n, unit, digits) and text == units.size(
            n, unit, digits
        )


def test_bounded_size_at_the_edges():
    assert units.bounded_size(7680, "GB") == "< 0.1 GB"  # the anchor's scores at s = 1
    assert (
        units.bounded_size(49_999_999, "GB") == "< 0.1 GB"
        and units.bounded_size(50_000_000, "GB") == "0.1 GB"
    )
    assert (
        units.bounded_size(0, "GB", 3) == "0.000 GB" and units.bounded_size(499_999, "GB", 3) == "< 0.001 GB"
    )
