"""Synthetic agents for checking evalkit's statistics (docs/repeats.md): pure functions, no runs.

A synthetic case is a pass probability; a synthetic run of it is a seeded coin. The
comparisons go through the real `compare_runs` and `add_significance` (and, for
`--repeat auto` and `--baseline history`, the real stopping rule and history pooling),
so what is measured is the gate a user gets.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from evalkit.compare.diff import compare_runs
from evalkit.compare.history_baseline import pooled_baseline
from evalkit.compare.significance import add_significance
from evalkit.results.reader import ScoredCase, ScoredCriterion, ScoredRun
from evalkit.schema.results import Status
from evalkit.stats.sequential import StoppingRule
from evalkit.stats.stability import stability

AUTO = "auto"
Repeats = int | str  # a fixed number of runs, or AUTO (with a rule)
RunMaker = Callable[[random.Random], ScoredRun]


def simulated_run(label: str, pass_probabilities: list[float], repeats: int, rng: random.Random,
                  rule: StoppingRule | None = None, scores: bool = False) -> ScoredRun:
    """One run of the synthetic agent: each case `repeats` times (or under `rule`, stopping
    early); it passes when enough runs did. With `scores`, each case also has a criterion
    whose score is the mean of its runs' scores (a passing run scores 0.6 to 1, a failing
    one 0 to 0.6)."""
    run = ScoredRun(label=label, kind="evalkit")
    for index, probability in enumerate(pass_probabilities):
        outcomes = rule.sample(lambda p=probability: rng.random() < p) if rule else [
            rng.random() < probability for _ in range(repeats)]
        passed = sum(outcomes)
        needed = rule.required(len(outcomes)) if rule else len(outcomes)
        status = Status.PASSED if passed >= needed else Status.FAILED
        case = ScoredCase("sim", f"case{index}", status, runs=len(outcomes), passed_runs=passed,
                          weights=rule.weights(len(outcomes)) if rule else None)
        if scores:
            score = sum(rng.uniform(0.6, 1.0) if ok else rng.uniform(0.0, 0.6) for ok in outcomes) / len(outcomes)
            case.criteria["score"] = ScoredCriterion("score", Status.PASSED if score >= 0.5 else Status.FAILED,
                                                     score, 0.5)
        run.cases[("sim", f"case{index}")] = case
    return run


def fixed(probabilities: list[float], repeats: int, scores: bool = False) -> RunMaker:
    return lambda rng: simulated_run("run", probabilities, repeats, rng, scores=scores)


def auto(probabilities: list[float], rule: StoppingRule) -> RunMaker:
    return lambda rng: simulated_run("run", probabilities, rule.max_runs, rng, rule=rule)


def history(probabilities: list[float], runs: int, repeats: int = 1) -> RunMaker:
    """`--baseline history:N`: N earlier runs of the same agent, pooled as evalkit pools them."""
    return lambda rng: pooled_baseline([simulated_run(f"run{i}", probabilities, repeats, rng) for i in range(runs)],
                                       "history")


def gate_fails(base: ScoredRun, new: ScoredRun, level: float, gate_scores: bool = False) -> bool:
    comparison = compare_runs(base, new)
    add_significance(comparison, base, new, level, gate_scores=gate_scores)
    return comparison.fails_gate


def alarm_rate(base: RunMaker, new: RunMaker, level: float, comparisons: int, seed: int,
               gate_scores: bool = False) -> float:
    """The share of `comparisons` in which the gate failed."""
    rng = random.Random(seed)
    alarms = sum(gate_fails(base(rng), new(rng), level, gate_scores) for _ in range(comparisons))
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


def three_level_agent(cases: int = 30) -> list[float]:
    """A third of the cases always pass, a third pass 90% of the time, a third half the time."""
    return [(1.0, 0.9, 0.5)[i * 3 // cases] for i in range(cases)]


def auto_repeat_runs(probability: float, rule: StoppingRule, rng: random.Random) -> tuple[int, str, bool]:
    """(agent runs used, stability verdict, passed) of one case under `--repeat auto`."""
    outcomes = rule.sample(lambda: rng.random() < probability)
    return len(outcomes), stability(outcomes), sum(outcomes) >= rule.required(len(outcomes))


def fixed_repeat_verdict(probability: float, runs: int, rng: random.Random, required: int | None = None
                         ) -> tuple[str, bool]:
    outcomes = [rng.random() < probability for _ in range(runs)]
    return stability(outcomes), sum(outcomes) >= (runs if required is None else required)
