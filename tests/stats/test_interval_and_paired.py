"""The Wilson interval and the paired sign-flip test against scipy."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy import stats as scipy_stats

from evalkit.stats.interval import wilson_interval
from evalkit.stats.paired import DRAWS, EXACT_UP_TO, paired_better, paired_floor, paired_worse


@pytest.mark.parametrize("passed, runs", [(0, 1), (1, 1), (8, 10), (10, 10), (0, 10), (5, 10), (3, 7), (49, 50)])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_wilson_matches_scipy(passed, runs, confidence):
    expected = scipy_stats.binomtest(passed, runs).proportion_ci(confidence_level=confidence, method="wilson")
    low, high = wilson_interval(passed, runs, confidence)
    assert (low, high) == pytest.approx((expected.low, expected.high), abs=1e-12)


def test_wilson_by_hand_for_eight_of_ten():
    # z = 1.959964; centre (0.8 + z²/20) / (1 + z²/10); half-width z/(1 + z²/10)·sqrt(0.016 + z²/400).
    low, high = wilson_interval(8, 10)
    assert round(low, 4) == 0.4902 and round(high, 4) == 0.9433


def test_wilson_edges():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(10, 10)
    assert high == 1.0 and round(low, 4) == 0.7225
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and round(high, 4) == 0.2775
    with pytest.raises(ValueError):
        wilson_interval(1, 0)


def _scipy_paired(base, new, alternative):
    result = scipy_stats.permutation_test(
        (np.array(new), np.array(base)), lambda x, y: np.mean(x - y), permutation_type="samples",
        alternative=alternative, n_resamples=np.inf)
    return result.pvalue


@pytest.mark.parametrize("seed", range(6))
def test_sign_flip_matches_scipy_exact_permutation(seed):
    rng = random.Random(seed)
    n = rng.randint(3, 10)
    base = [round(rng.random(), 3) for _ in range(n)]
    new = [round(max(0.0, min(1.0, b + rng.uniform(-0.4, 0.2))), 3) for b in base]
    assert paired_worse(base, new) == pytest.approx(_scipy_paired(base, new, "less"), abs=1e-9)
    assert paired_better(base, new) == pytest.approx(_scipy_paired(base, new, "greater"), abs=1e-9)


def test_sign_flip_with_ties_and_zero_differences():
    # 0/1 scores: four cases fell 1 → 0, one rose, three unchanged (zero differences drop out).
    base = [1, 1, 1, 1, 0, 1, 0, 1]
    new = [0, 0, 0, 0, 1, 1, 0, 1]
    # With the zeros gone: five differences of size 1, four of them drops: P(at least 3 net drops)
    # = P(at least 4 of 5 signs negative) = 6/32.
    assert paired_worse(base, new) == pytest.approx(6 / 32)
    assert paired_worse(base, new) == pytest.approx(_scipy_paired(base, new, "less"), abs=1e-9)


def test_sign_flip_edges():
    assert paired_worse([], []) == 1.0
    assert paired_worse([0.5, 0.7], [0.5, 0.7]) == 1.0
    # One case that fell: half of the two sign patterns are at least as bad.
    assert paired_worse([1.0], [0.0]) == 0.5
    with pytest.raises(ValueError):
        paired_worse([1.0], [])


def test_sign_flip_beyond_the_exact_range_stays_close_to_scipy():
    rng = random.Random(7)
    n = EXACT_UP_TO + 24
    base = [rng.random() for _ in range(n)]
    new = [max(0.0, b - rng.uniform(-0.1, 0.15)) for b in base]
    expected = scipy_stats.permutation_test(
        (np.array(new), np.array(base)), lambda x, y: np.mean(x - y), permutation_type="samples",
        alternative="less", n_resamples=20000, rng=np.random.default_rng(1)).pvalue
    assert paired_worse(base, new) == pytest.approx(expected, abs=0.01)


def test_seventeen_cases_are_exact():
    # 17 cases whose 0/1 score changed, 12 of them down: the exact tail is
    # P(Binomial(17, 1/2) ≥ 12) = 9402/131072 ≈ 0.0717 (a normal approximation says 0.0448).
    base, new = [1.0] * 12 + [0.0] * 5, [0.0] * 12 + [1.0] * 5
    assert paired_worse(base, new) == pytest.approx(9402 / 131072, rel=1e-12)
    assert paired_worse(base, new) == pytest.approx(
        scipy_stats.binomtest(12, 17, 0.5, alternative="greater").pvalue, rel=1e-12)


@pytest.mark.parametrize("n", [EXACT_UP_TO - 1, EXACT_UP_TO])
def test_sign_flip_is_exact_up_to_the_limit(n):
    drops = n * 2 // 3
    base, new = [1.0] * drops + [0.0] * (n - drops), [0.0] * drops + [1.0] * (n - drops)
    assert paired_worse(base, new) == pytest.approx(
        scipy_stats.binomtest(drops, n, 0.5, alternative="greater").pvalue, rel=1e-9)
    assert paired_floor(base, new) == 0.5 ** n


def test_beyond_the_limit_the_sampled_p_value_is_never_below_its_floor_and_repeats():
    n = EXACT_UP_TO + 10
    base, new = [1.0] * n, [0.0] * n  # every case fell: the exact tail is 2^-40
    assert paired_worse(base, new) == 1 / (DRAWS + 1) == paired_floor(base, new)
    rng = random.Random(3)
    base = [rng.random() for _ in range(n)]
    new = [b - rng.uniform(-0.2, 0.25) for b in base]
    assert paired_worse(base, new) == paired_worse(list(base), list(new))  # seeded by the data
