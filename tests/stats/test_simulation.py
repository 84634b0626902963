"""The gate under simulation (docs/repeats.md, "How well it works"): seeded, pure, fast.

An agent compared with itself must fail the gate at most `level` of the time in every
configuration (equal and mixed repeats, `--repeat auto`, `--gate-scores`, a history
baseline); a real drop must be caught at least as often as the exact stratified test,
computed with scipy, catches it. benchmarks/bench_repeats.py runs the same with more
comparisons for the figures in the docs.
"""

from __future__ import annotations

import math
import random

import pytest

from benchmarks.stat_simulation import (
    alarm_rate,
    auto,
    auto_repeat_runs,
    fixed,
    fixed_repeat_verdict,
    gate_fails,
    history,
    mixed_agent,
    three_level_agent,
)
from evalkit.stats.sequential import PASS_RATE, STABILITY, StoppingRule
from tests.stats.scipy_reference import scipy_stratified

LEVEL = 0.05
COMPARISONS = 300
GRADED = [0.3 + 0.7 * (i / 29) for i in range(30)]  # 30 cases from flaky (0.3) to always passing
THREE_LEVELS = three_level_agent(30)


def _allowed(rate: float, trials: int) -> float:
    """rate plus three standard errors of a share measured over `trials`."""
    return rate + 3 * math.sqrt(rate * (1 - rate) / trials)


CONFIGURATIONS = {
    "graded, 1 run each side": (fixed(GRADED, 1), fixed(GRADED, 1)),
    "graded, 5 runs each side": (fixed(GRADED, 5), fixed(GRADED, 5)),
    "80% stable, 5 runs each side": (fixed(mixed_agent(30, random.Random(3)), 5),
                                     fixed(mixed_agent(30, random.Random(3)), 5)),
    "1 run against 5": (fixed(THREE_LEVELS, 1), fixed(THREE_LEVELS, 5)),
    "5 runs against auto": (fixed(THREE_LEVELS, 5), auto(THREE_LEVELS, StoppingRule(STABILITY, 6))),
    "auto --pass-rate 0.8 against 10 runs": (auto(THREE_LEVELS, StoppingRule(PASS_RATE, 10, 8)),
                                             fixed(THREE_LEVELS, 10)),
    "history of 20 single runs against 1": (history(THREE_LEVELS, 20), fixed(THREE_LEVELS, 1)),
}


@pytest.mark.parametrize("name", CONFIGURATIONS)
def test_an_agent_compared_with_itself_rarely_fails_the_gate(name):
    base, new = CONFIGURATIONS[name]
    rate = alarm_rate(base, new, LEVEL, COMPARISONS, seed=sorted(CONFIGURATIONS).index(name))
    assert rate <= _allowed(LEVEL, COMPARISONS), (name, rate)


def test_with_gate_scores_the_whole_gate_keeps_its_level():
    agent = three_level_agent(18)
    rate = alarm_rate(fixed(agent, 1, scores=True), fixed(agent, 1, scores=True), LEVEL, COMPARISONS, seed=40,
                      gate_scores=True)
    assert rate <= _allowed(LEVEL, COMPARISONS), rate


def _tables(base, new):
    return [(base.cases[key].passes, base.cases[key].runs, new.cases[key].passes, new.cases[key].runs)
            for key in base.cases]


@pytest.mark.parametrize("alternative, repeats", [("three cases 0.9 -> 0.4", 5), ("every case down 0.1", 5)])
def test_the_gate_catches_every_drop_the_exact_stratified_test_catches(alternative, repeats):
    before = THREE_LEVELS
    if alternative.startswith("three"):
        after = [0.4 if p == 0.9 and i % 10 < 3 else p for i, p in enumerate(before)]
    else:
        after = [p - 0.1 for p in before]
    rng = random.Random(50 + repeats)
    caught = reference = 0
    for _ in range(150):
        base, new = fixed(before, repeats)(rng), fixed(after, repeats)(rng)
        significant = scipy_stratified(_tables(base, new)) <= LEVEL
        fails = gate_fails(base, new, LEVEL)
        assert fails or not significant  # never misses what the reference catches
        caught += fails
        reference += significant
    assert caught >= reference > 0


def test_a_real_drop_is_caught_nearly_always():
    rate = alarm_rate(fixed([0.9] * 30, 5), fixed([0.5] * 30, 5), LEVEL, 100, seed=5)
    assert rate >= 0.95, rate


def test_a_case_that_always_passed_and_now_always_fails_is_named():
    rng = random.Random(6)
    from evalkit.compare.diff import compare_runs
    from evalkit.compare.significance import add_significance

    agent = [1.0] * 29 + [1.0]
    worse = [1.0] * 29 + [0.0]
    base, new = fixed(agent, 5)(rng), fixed(worse, 5)(rng)
    comparison = compare_runs(base, new)
    add_significance(comparison, base, new, LEVEL)
    assert [c.eval_id for c in comparison.gate_regressions] == ["case29"]


def test_repeat_auto_saves_runs_and_keeps_the_verdict_of_the_fixed_runs_it_stands_for():
    rng = random.Random(8)
    agent = mixed_agent(400, rng)
    rule = StoppingRule(PASS_RATE, 10, 8)
    auto_runs = [auto_repeat_runs(p, rule, rng) for p in agent]
    fixed_runs = [fixed_repeat_verdict(p, 10, rng, required=8) for p in agent]
    assert sum(used for used, _, _ in auto_runs) <= 0.8 * 10 * len(agent)
    # Same verdict distribution: the pass shares agree within sampling error.
    auto_share = sum(passed for _, _, passed in auto_runs) / len(agent)
    fixed_share = sum(passed for _, passed in fixed_runs) / len(agent)
    assert abs(auto_share - fixed_share) <= 4 * math.sqrt(0.25 / len(agent))


def test_a_half_passing_case_is_rarely_called_stable_by_repeat_auto():
    rng = random.Random(9)
    rule = StoppingRule(STABILITY, 6)
    trials = 4000
    stable = sum(auto_repeat_runs(0.5, rule, rng)[1] != "flaky" for _ in range(trials))
    assert stable / trials <= _allowed(0.5 ** 5, trials) and LEVEL >= 0.5 ** 5
