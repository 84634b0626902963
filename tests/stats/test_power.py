"""The drop a comparison could have caught (stats/power.py): an approximation, checked
against the simulated power of the real gate at the drop it reports."""

from __future__ import annotations

import pytest

from benchmarks.stat_simulation import alarm_rate, fixed, three_level_agent
from evalkit.stats.power import detectable_drop


@pytest.mark.parametrize("agent, repeats", [(three_level_agent(30), 5), (three_level_agent(30), 10)])
def test_the_reported_drop_is_caught_about_80_percent_of_the_time(agent, repeats):
    drop = detectable_drop([(round(p * repeats), repeats, repeats) for p in agent], 0.05)
    assert drop is not None
    after = [max(0.0, p - drop) for p in agent]
    caught = alarm_rate(fixed(agent, repeats), fixed(after, repeats), 0.05, 200, seed=repeats)
    assert 0.65 <= caught <= 0.95, (drop, caught)


def test_more_runs_see_smaller_drops():
    agent = three_level_agent(30)
    drops = [detectable_drop([(round(p * n), n, n) for p in agent], 0.05) for n in (1, 5, 10, 20)]
    assert all(d is not None for d in drops)
    assert drops == sorted(drops, reverse=True) and drops[0] > drops[-1]


def test_nothing_is_detectable_when_even_the_most_extreme_outcome_is_within_noise():
    # Three cases run once on each side: at best p = 1/8, never below 0.05.
    assert detectable_drop([(1, 1, 1)] * 3, 0.05) is None
    assert detectable_drop([], 0.05) is None
    assert detectable_drop([(1, 1, 1)] * 5, 0.05) is not None  # 1/32 can be reached
