"""The tests themselves under simulation (docs/repeats.md, "How well it works"): seeded, pure, fast.

An agent compared with itself must fail the gate at most `level` of the time; a real drop
must fail it nearly always. The benchmark (benchmarks/bench_repeats.py) runs the same with
more comparisons for the figures in the docs.
"""

from __future__ import annotations

import math
import random

from benchmarks.stat_simulation import (
    alarm_rate,
    auto_repeat_runs,
    fixed_repeat_verdict,
    mixed_agent,
)
from evalkit.stats.stability import agreeing_runs_needed

LEVEL = 0.05
COMPARISONS = 400


def _allowed(rate: float, trials: int) -> float:
    """rate plus three standard errors of a share measured over `trials`."""
    return rate + 3 * math.sqrt(rate * (1 - rate) / trials)


def test_an_agent_compared_with_itself_rarely_fails_the_gate():
    agent = [0.3 + 0.7 * (i / 29) for i in range(30)]  # 30 cases from flaky (0.3) to always passing
    for repeats in (1, 5):
        rate = alarm_rate(agent, agent, repeats, LEVEL, COMPARISONS, seed=repeats)
        assert rate <= _allowed(LEVEL, COMPARISONS), (repeats, rate)


def test_a_mixed_agent_compared_with_itself_rarely_fails_the_gate():
    agent = mixed_agent(30, random.Random(3))
    rate = alarm_rate(agent, agent, 5, LEVEL, COMPARISONS, seed=4)
    assert rate <= _allowed(LEVEL, COMPARISONS), rate


def test_a_real_drop_is_caught_nearly_always():
    rate = alarm_rate([0.9] * 30, [0.5] * 30, 5, LEVEL, 200, seed=5)
    assert rate >= 0.95, rate


def test_a_small_drop_in_one_case_is_not_called_a_regression_by_itself():
    # One case of 30 fell from 0.9 to 0.7: real, but too small to see in 5 runs; the gate must
    # not be a coin flip on it.
    agent = [0.9] * 30
    worse = [0.7] + [0.9] * 29
    assert alarm_rate(agent, worse, 5, LEVEL, 200, seed=6) <= 0.15


def test_repeat_auto_saves_runs_and_keeps_the_verdict():
    rng = random.Random(8)
    agent = mixed_agent(400, rng)
    agreeing = agreeing_runs_needed(LEVEL)
    auto = [auto_repeat_runs(p, 10, agreeing, rng) for p in agent]
    fixed = [fixed_repeat_verdict(p, 10, rng) for p in agent]
    runs = sum(used for used, _ in auto)
    same = sum(verdict == other for (_, verdict), other in zip(auto, fixed, strict=True))
    assert runs <= 0.6 * 10 * len(agent), runs
    assert same >= 0.95 * len(agent), same
