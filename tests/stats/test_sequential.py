"""`--repeat auto`'s stopping rule: its path counts, its unbiased estimate and exact interval,
and that its verdicts are those of the fixed number of runs it curtails."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from evalkit.stats.sequential import PASS_RATE, STABILITY, StoppingRule

RULES = [StoppingRule(STABILITY, 6), StoppingRule(PASS_RATE, 10, 8), StoppingRule(PASS_RATE, 20, 20),
         StoppingRule(PASS_RATE, 7, 3), StoppingRule(STABILITY, 1)]


def _stopping_points(rule: StoppingRule):
    """Every (runs, passes, weight) the rule can stop at."""
    return [(n, y, w) for n in range(1, rule.max_runs + 1) for y, w in enumerate(rule.weights(n)) if w]


@pytest.mark.parametrize("rule", RULES[:2] + RULES[3:], ids=str)
def test_weights_count_the_sequences_the_rule_stops_at(rule):
    stopped: dict[tuple[int, int], int] = {}
    for sequence in itertools.product([True, False], repeat=rule.max_runs):
        n = next(k for k in range(1, rule.max_runs + 1) if rule.stops(k, sum(sequence[:k])))
        key = (n, sum(sequence[:n]))
        # Each distinct prefix counts once: it stands for all 2^(max - n) completions.
        stopped[key] = stopped.get(key, 0) + 1 / 2 ** (rule.max_runs - n)
    assert {(n, y): w for n, y, w in _stopping_points(rule)} == pytest.approx(stopped)


@pytest.mark.parametrize("rule", RULES, ids=str)
def test_the_stopping_points_hold_all_the_chance(rule):
    for p in (0.1, 0.5, 0.93):
        assert math.fsum(w * p**y * (1 - p) ** (n - y) for n, y, w in _stopping_points(rule)) == pytest.approx(1.0)


@pytest.mark.parametrize("rule", RULES, ids=str)
def test_the_estimate_is_unbiased_and_the_plain_share_is_not(rule):
    for p in (0.2, 0.5, 0.8, 0.9):
        points = _stopping_points(rule)
        expected = math.fsum(w * p**y * (1 - p) ** (n - y) * rule.unbiased_rate(n, y) for n, y, w in points)
        assert expected == pytest.approx(p, abs=1e-12)
    plain = math.fsum(w * 0.8**y * 0.2 ** (n - y) * y / n for n, y, w in _stopping_points(StoppingRule(PASS_RATE, 10, 8)))
    assert abs(plain - 0.8) > 0.01  # the share of passing runs is biased by the stopping


@pytest.mark.parametrize("rule", [RULES[0], RULES[1], RULES[3]], ids=str)
def test_the_exact_interval_covers_at_least_its_confidence(rule):
    # Coverage computed exactly (every stopping point, weighted by its chance), over a grid of rates.
    points = [(n, y, w, rule.interval(n, y)) for n, y, w in _stopping_points(rule)]
    for p in [i / 40 for i in range(1, 40)]:
        coverage = math.fsum(w * p**y * (1 - p) ** (n - y) for n, y, w, (low, high) in points if low <= p <= high)
        assert coverage >= 0.95 - 1e-9, (p, coverage)


def test_curtailment_gives_the_verdict_of_the_fixed_number_of_runs():
    rng = random.Random(11)
    rule = StoppingRule(PASS_RATE, 10, 8)
    for _ in range(2000):
        outcomes = [rng.random() < 0.8 for _ in range(10)]
        n = next(k for k in range(1, 11) if rule.stops(k, sum(outcomes[:k])))
        assert (sum(outcomes[:n]) >= rule.required(n)) == (sum(outcomes) >= 8)
    stability_rule = StoppingRule(STABILITY, 6)
    for _ in range(2000):
        outcomes = [rng.random() < 0.7 for _ in range(6)]
        n = next(k for k in range(1, 7) if stability_rule.stops(k, sum(outcomes[:k])))
        assert (sum(outcomes[:n]) >= stability_rule.required(n)) == all(outcomes)


def test_a_perfect_agent_reaches_a_confident_pass_when_the_cap_allows_it():
    # --repeat auto --max-repeat 20 --pass-rate 0.8 --confidence 0.95: 20 of 20 are needed.
    rule = StoppingRule(PASS_RATE, 20, 20)
    outcomes = rule.sample(lambda: True)
    assert len(outcomes) == 20 and sum(outcomes) >= rule.required(20)
    assert rule.sample(lambda: False) == [False]  # one failure settles it
