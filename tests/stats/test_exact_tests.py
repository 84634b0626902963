"""The exact conditional tests against hand-worked fractions and scipy's implementations."""

from __future__ import annotations

import itertools

import pytest
from scipy import stats as scipy_stats

from evalkit.stats.conditional import (
    Stratum,
    binomial_weights,
    case_better,
    case_floor,
    case_worse,
    combined_weights,
    stratified_worse,
)
from evalkit.stats.multiple import holm_adjusted, tarone_holm_adjusted
from tests.stats.scipy_reference import scipy_stratified


def fixed(base_passed: int, base_runs: int, new_passed: int, new_runs: int) -> Stratum:
    return Stratum(base_passed, binomial_weights(base_runs), new_passed, binomial_weights(new_runs))


def test_ten_of_ten_falling_to_five_of_ten_by_hand():
    # Margins: 20 runs, 15 passes. P(base holds all 10 of its runs as passes) = C(15,10)·C(5,0)/C(20,10).
    assert case_worse(fixed(10, 10, 5, 10)) == pytest.approx(3003 / 184756, rel=1e-12)


def test_a_case_that_passed_twenty_times_and_fails_now_by_hand():
    # 20 passes in 21 runs, the one failure in the new run: P = 1/21 (the contract's example).
    assert case_worse(fixed(20, 20, 0, 1)) == pytest.approx(1 / 21, rel=1e-12)
    assert case_worse(fixed(10, 20, 0, 1)) == pytest.approx(11 / 21, rel=1e-12)  # 10 of 20: not significant


@pytest.mark.parametrize("base_passed, base_runs, new_passed, new_runs", [
    (10, 10, 5, 10), (5, 5, 0, 5), (3, 5, 2, 5), (1, 1, 0, 1), (0, 1, 1, 1), (7, 9, 8, 12),
    (20, 20, 19, 20), (4, 10, 9, 10), (0, 5, 0, 5), (5, 5, 5, 5), (2, 3, 10, 30), (20, 20, 0, 1),
])
def test_fisher_matches_scipy_both_ways(base_passed, base_runs, new_passed, new_runs):
    table = [[base_passed, base_runs - base_passed], [new_passed, new_runs - new_passed]]
    worse = scipy_stats.fisher_exact(table, alternative="greater").pvalue
    better = scipy_stats.fisher_exact(table, alternative="less").pvalue
    stratum = fixed(base_passed, base_runs, new_passed, new_runs)
    assert case_worse(stratum) == pytest.approx(worse, rel=1e-12)
    assert case_better(stratum) == pytest.approx(better, rel=1e-12)


def test_cases_run_once_make_the_stratified_test_mcnemars():
    # Six cases flipping to fail, one back, one unchanged: the discordant cases are fair
    # coins, so P = P(Binomial(7, 1/2) ≥ 6) = 8/128.
    strata = [fixed(1, 1, 0, 1)] * 6 + [fixed(0, 1, 1, 1), fixed(1, 1, 1, 1)]
    p_value, floor = stratified_worse(strata)
    assert p_value == pytest.approx(8 / 128, rel=1e-12)
    assert p_value == pytest.approx(scipy_stats.binomtest(6, 7, 0.5, alternative="greater").pvalue, rel=1e-12)
    assert floor == pytest.approx(1 / 128)


@pytest.mark.parametrize("tables", [
    [(5, 5, 2, 5), (4, 5, 4, 5), (3, 5, 1, 5)],
    [(9, 10, 4, 10), (10, 10, 10, 10), (6, 10, 7, 10), (2, 10, 0, 10)],
    [(20, 20, 0, 1), (15, 20, 1, 1), (3, 20, 0, 1)],  # a history of 20 runs against one new run
    [(1, 1, 0, 5), (3, 3, 2, 5), (0, 1, 1, 5), (1, 1, 5, 5)],  # 1 run against 5
])
def test_stratified_matches_scipy(tables):
    strata = [fixed(*table) for table in tables]
    assert stratified_worse(strata)[0] == pytest.approx(scipy_stratified(tables), rel=1e-9)
    # One stratum: Fisher's test.
    assert stratified_worse(strata[:1])[0] == pytest.approx(case_worse(strata[0]), rel=1e-12)


def test_stopping_rule_weights_by_enumeration():
    # The base side stops at its first failure, at most 3 runs: its sequences are F, PF, PPF
    # and PPP, so 3 runs end with 2 passes (PPF) or 3 (PPP), one sequence each. It ran PPP;
    # the new side ran 2 fixed runs, FF. Given 3 passes in all, enumerate every pair of
    # sequences the two sides could have produced and see how often the base holds all 3.
    base_sequences = [(True, True, False), (True, True, True)]
    pairs = [(b, n) for b in base_sequences for n in itertools.product([True, False], repeat=2)
             if sum(b) + sum(n) == 3]
    expected = sum(1 for b, _ in pairs if sum(b) == 3) / len(pairs)
    assert expected == pytest.approx(1 / 3)
    stratum = Stratum(3, [0, 0, 1, 1], 0, binomial_weights(2))
    assert case_worse(stratum) == pytest.approx(expected)
    # Treating the three runs as a fixed number would give Fisher's 1/10: too small.
    assert case_worse(fixed(3, 3, 0, 2)) == pytest.approx(1 / 10)


def test_combined_weights_of_fixed_runs_are_binomial():
    assert combined_weights(binomial_weights(3), binomial_weights(4)) == binomial_weights(7)
    assert combined_weights() == [1]


def test_no_runs_and_no_change_are_no_evidence():
    assert case_worse(fixed(0, 0, 0, 0)) == 1.0
    assert case_worse(fixed(3, 3, 0, 0)) == 1.0
    assert case_worse(fixed(5, 5, 5, 5)) == 1.0
    assert stratified_worse([]) == (1.0, 1.0)
    assert stratified_worse([fixed(5, 5, 5, 5), fixed(0, 3, 0, 3)])[0] == 1.0


def test_counts_out_of_range_are_refused():
    with pytest.raises(ValueError):
        fixed(6, 5, 0, 5)
    with pytest.raises(ValueError):
        Stratum(1, [1, 0, 1], 0, [1])  # a count the stopping rule cannot give


def test_the_floor_is_the_most_extreme_table_with_these_margins():
    # One run each side: the most extreme table (1/1 → 0/1) gives 1/2, so a single case never
    # reaches 0.05 on its own.
    assert case_floor(fixed(1, 1, 0, 1)) == 0.5 == case_worse(fixed(1, 1, 0, 1))
    assert case_floor(fixed(10, 10, 5, 10)) == pytest.approx(case_worse(fixed(10, 10, 5, 10)))
    assert case_floor(fixed(7, 10, 8, 10)) == pytest.approx(case_worse(fixed(10, 10, 5, 10)))


def test_holm_by_hand():
    p_values = [0.01, 0.04, 0.03, 0.005, 0.5, 1.0]
    # Holm by hand: sorted 0.005, 0.01, 0.03, 0.04, 0.5, 1.0 times 6, 5, 4, 3, 2, 1, made monotone.
    assert holm_adjusted(p_values) == pytest.approx([0.05, 0.12, 0.12, 0.03, 1.0, 1.0])
    assert holm_adjusted([]) == []


def test_tarone_leaves_out_tests_that_cannot_reach_the_level():
    # Thirty single-run cases (floor 1/2) and one overall test: only the overall test is in the
    # family, so it keeps its own p-value instead of 31 times it.
    p_values = [0.5] * 30 + [0.01]
    floors = [0.5] * 30 + [0.001]
    adjusted = tarone_holm_adjusted(p_values, floors, 0.05)
    assert adjusted == [1.0] * 30 + [0.01]
    # Two tests that can both reach 0.05/2: plain Holm over the two.
    assert tarone_holm_adjusted([0.02, 0.03], [0.001, 0.001], 0.05) == pytest.approx([0.04, 0.04])
    assert tarone_holm_adjusted([], [], 0.05) == []


def test_many_flaky_cases_stay_exact_where_it_matters_and_never_below():
    # 300 flaky cases: the far ends of the sum's distribution are dropped as it is built;
    # the p-value still matches scipy's exact one, and is never smaller.
    import random

    rng = random.Random(4)
    tables = []
    for _ in range(300):
        base_runs, new_runs = rng.choice([(10, 10), (5, 5), (20, 1)])
        tables.append((rng.randint(1, base_runs - 1), base_runs, rng.randint(0, new_runs), new_runs))
    p_value, _ = stratified_worse([fixed(*table) for table in tables])
    reference = scipy_stratified(tables)
    assert p_value == pytest.approx(reference, rel=1e-9, abs=1e-40) and p_value >= reference - 1e-12  # float rounding
