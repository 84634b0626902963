"""Synthetic agents for checking evalkit's statistics (docs/repeats.md): pure functions, no runs.

A synthetic case is a pass probability; a synthetic run of it is a seeded coin. The
comparisons go through the real `compare_runs` and `add_significance`, so what is measured
is the gate a user gets.
"""

from __future__ import annotations

import random

from evalkit.compare.diff import compare_runs
from evalkit.compare.significance import add_significance
from evalkit.results.reader import ScoredCase, ScoredRun
from evalkit.schema.results import Status
from evalkit.stats.stability import another_run, stability


def simulated_run(label: str, pass_probabilities: list[float], repeats: int, rng: random.Random) -> ScoredRun:
    """One run of the synthetic agent: each case `repeats` times; it passes when every run did."""
    run = ScoredRun(label=label, kind="evalkit")
    for index, probability in enumerate(pass_probabilities):
        passed = sum(rng.random() < probability for _ in range(repeats))
        status = Status.PASSED if passed == repeats else Status.FAILED
        run.cases[("sim", f"case{index}")] = ScoredCase("sim", f"case{index}", status, runs=repeats, passed_runs=passed)
    return run


def gate_fails(base_probabilities: list[float], new_probabilities: list[float], repeats: int, level: float,
               rng: random.Random) -> bool:
    base = simulated_run("base", base_probabilities, repeats, rng)
    new = simulated_run("new", new_probabilities, repeats, rng)
    comparison = compare_runs(base, new)
    add_significance(comparison, base, new, level)
    return comparison.fails_gate


def alarm_rate(base_probabilities: list[float], new_probabilities: list[float], repeats: int, level: float,
               comparisons: int, seed: int) -> float:
    """The share of `comparisons` in which the gate failed."""
    rng = random.Random(seed)
    alarms = sum(gate_fails(base_probabilities, new_probabilities, repeats, level, rng) for _ in range(comparisons))
    return alarms / comparisons


def mixed_agent(cases: int, rng: random.Random, stable_share: float = 0.8) -> list[float]:
    """Pass probabilities: `stable_share` of the cases always pass or always fail (4 to 1),
    the rest are flaky, passing between 20% and 80% of the time."""
    probabilities = []
    for _ in range(cases):
        if rng.random() < stable_share:
            probabilities.append(1.0 if rng.random() < 0.8 else 0.0)
        else:
            probabilities.append(rng.uniform(0.2, 0.8))
    return probabilities


def auto_repeat_runs(probability: float, max_runs: int, agreeing: int, rng: random.Random) -> tuple[int, str]:
    """(agent runs used, stability verdict) of one case under `--repeat auto`."""
    outcomes: list[bool] = []
    while not outcomes or another_run(outcomes, max_runs, agreeing):
        outcomes.append(rng.random() < probability)
    return len(outcomes), stability(outcomes)


def fixed_repeat_verdict(probability: float, runs: int, rng: random.Random) -> str:
    return stability([rng.random() < probability for _ in range(runs)])
