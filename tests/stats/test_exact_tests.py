"""The exact tests against hand-worked fractions and scipy's implementations."""

from __future__ import annotations

from fractions import Fraction

import pytest
from scipy import stats as scipy_stats

from evalkit.stats.exact_tests import (
    binomial_upper_tail,
    fisher_better,
    fisher_worse,
    fisher_worse_floor,
    mcnemar_floor,
    mcnemar_worse,
)
from evalkit.stats.multiple import holm_adjusted, tarone_holm_adjusted


def test_ten_of_ten_falling_to_five_of_ten_by_hand():
    # Margins: 20 runs, 15 passes. P(base holds all 10 of its runs as passes) = C(15,10)·C(5,0)/C(20,10).
    assert fisher_worse(10, 10, 5, 10) == pytest.approx(3003 / 184756, rel=1e-15)
    assert round(fisher_worse(10, 10, 5, 10), 4) == 0.0163


def test_six_flips_to_fail_and_one_back_by_hand():
    # Seven discordant cases, at least six of them worse: (C(7,6) + C(7,7)) / 2^7.
    assert binomial_upper_tail(6, 7) == Fraction(8, 128)
    assert mcnemar_worse(6, 1) == 8 / 128


@pytest.mark.parametrize("base_passed, base_runs, new_passed, new_runs", [
    (10, 10, 5, 10), (5, 5, 0, 5), (3, 5, 2, 5), (1, 1, 0, 1), (0, 1, 1, 1), (7, 9, 8, 12),
    (20, 20, 19, 20), (4, 10, 9, 10), (0, 5, 0, 5), (5, 5, 5, 5), (2, 3, 10, 30),
])
def test_fisher_matches_scipy_both_ways(base_passed, base_runs, new_passed, new_runs):
    table = [[base_passed, base_runs - base_passed], [new_passed, new_runs - new_passed]]
    worse = scipy_stats.fisher_exact(table, alternative="greater").pvalue
    better = scipy_stats.fisher_exact(table, alternative="less").pvalue
    assert fisher_worse(base_passed, base_runs, new_passed, new_runs) == pytest.approx(worse, rel=1e-12)
    assert fisher_better(base_passed, base_runs, new_passed, new_runs) == pytest.approx(better, rel=1e-12)


@pytest.mark.parametrize("regressed, improved", [(6, 1), (0, 0), (0, 5), (5, 0), (1, 1), (12, 8), (40, 22), (3, 0)])
def test_mcnemar_matches_scipy_binomtest(regressed, improved):
    expected = 1.0 if regressed + improved == 0 else scipy_stats.binomtest(
        regressed, regressed + improved, 0.5, alternative="greater").pvalue
    assert mcnemar_worse(regressed, improved) == pytest.approx(expected, rel=1e-12)


def test_no_runs_on_either_side_is_no_evidence():
    assert fisher_worse(0, 0, 0, 0) == 1.0
    assert fisher_worse(3, 3, 0, 0) == 1.0
    assert mcnemar_worse(0, 0) == 1.0


def test_all_equal_is_no_evidence():
    assert fisher_worse(5, 5, 5, 5) == 1.0
    assert fisher_worse(0, 5, 0, 5) == 1.0


def test_counts_out_of_range_are_refused():
    with pytest.raises(ValueError):
        fisher_worse(6, 5, 0, 5)
    with pytest.raises(ValueError):
        binomial_upper_tail(-1, 3)


def test_holm_by_hand():
    p_values = [0.01, 0.04, 0.03, 0.005, 0.5, 1.0]
    # Holm by hand: sorted 0.005, 0.01, 0.03, 0.04, 0.5, 1.0 times 6, 5, 4, 3, 2, 1, made monotone.
    assert holm_adjusted(p_values) == pytest.approx([0.05, 0.12, 0.12, 0.03, 1.0, 1.0])
    assert holm_adjusted([]) == []


def test_the_floor_is_the_most_extreme_table_with_these_margins():
    # One run each side: the most extreme table (1/1 → 0/1) gives 1/2, so a single case never
    # reaches 0.05 on its own.
    assert fisher_worse_floor(1, 1, 0, 1) == 0.5 == fisher_worse(1, 1, 0, 1)
    # 10/10 → 5/10 is already the most extreme table with 15 passes in 20 runs.
    assert fisher_worse_floor(10, 10, 5, 10) == fisher_worse(10, 10, 5, 10)
    assert fisher_worse_floor(7, 10, 8, 10) == fisher_worse(10, 10, 5, 10)
    assert mcnemar_floor(6, 1) == 1 / 128 == mcnemar_worse(7, 0)


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
