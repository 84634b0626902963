"""`--repeat auto`: when a case stops, and what its runs say when it stopped early
(docs/repeats.md, "Repeats that stop early").

The rule is *curtailment* of a fixed number of runs: a case stops as soon as running it
the rest of the way could no longer change what the fixed number would decide, so the
verdict is always the one `--repeat N` would give, with fewer runs.

- With `--pass-rate` (the decision: does the case pass `required` of `max_runs` runs?):
  it stops once `required` runs passed, or once so many failed that `required` can no
  longer be reached.
- Without (every run must pass, and the question is whether the case is stable): it
  stops at the first run that disagrees with the others (flaky, and failed), or after
  `cap` runs that all agree, where `cap` is the fewest runs after which a case passing
  only half the time looks stable (all passing *or* all failing) with chance
  2^(1-cap) at most `alpha`: 6 runs at 0.05, where 2^-5 ≈ 0.031.

Early stopping biases the plain share of passing runs (a case that stops at its first
failure shows too many failures among few runs). The stopping rule depends only on
(runs so far, passes so far), so every sequence of outcomes ending at the same point
is equally likely, and counting the sequences the rule allows (`weights`) gives:
the unbiased estimate of the pass rate (Girshick, Mosteller and Savage, 1946: the
share of the allowed paths to the stopping point that begin with a pass), an exact
interval (ordering the stopping points by that estimate), and the exact conditional
tests of stats/conditional.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

STABILITY, PASS_RATE = "stability", "pass_rate"


def agreeing_runs_needed(alpha: float) -> int:
    """Runs that must all agree before a case that passes half the time would look stable,
    in either direction, with chance at most `alpha`: the fewest k with 2^(1-k) ≤ alpha."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha {alpha} must be above 0 and below 1")
    return max(2, math.ceil(1 + math.log2(1 / alpha) - 1e-9))


@dataclass(frozen=True)
class StoppingRule:
    """The `--repeat auto` rule: `kind` STABILITY (stop at disagreement, or after `max_runs`
    agreeing runs) or PASS_RATE (stop once `required` of `max_runs` passes is decided)."""

    kind: str
    max_runs: int
    required_passes: int = 0  # PASS_RATE only: passes out of max_runs for the case to pass
    _paths: dict[tuple[int, int], list[list[int]]] = field(default_factory=dict, compare=False, repr=False)
    # One rule serves a whole run, and its cases stop at a few (runs, passed) points: each
    # interval is worked out once.
    _intervals: dict[tuple[int, int, float], tuple[float, float]] = field(default_factory=dict, compare=False,
                                                                         repr=False)

    def __post_init__(self) -> None:
        if self.max_runs < 1 or (self.kind == PASS_RATE and not 0 <= self.required_passes <= self.max_runs + 1):
            raise ValueError(f"not a stopping rule: {self}")

    def stops(self, runs: int, passed: int) -> bool:
        if runs >= self.max_runs:
            return True
        if self.kind == STABILITY:
            return 0 < passed < runs
        return passed >= self.required_passes or runs - passed > self.max_runs - self.required_passes

    def required(self, runs: int) -> int:
        """Passes a case that stopped after `runs` runs needs: all of them, or `required_passes`."""
        return runs if self.kind == STABILITY else self.required_passes

    def sample(self, draw: Callable[[], bool]) -> list[bool]:
        """Run the rule on outcomes from `draw` (simulation and tests)."""
        outcomes = [draw()]
        while not self.stops(len(outcomes), sum(outcomes)):
            outcomes.append(draw())
        return outcomes

    def weights(self, runs: int) -> list[int]:
        """Per number of passes y, the pass/fail sequences of `runs` runs with y passes at
        which the rule stops (and not before): the case's outcome weights."""
        counts = self._path_counts(0, 0)[runs]
        return [counts[y] if self.stops(runs, y) else 0 for y in range(runs + 1)]

    def outcome_weights(self, runs: int, passed: int) -> list[int]:
        """`weights`, or for a case cut short before the rule stopped it (Ctrl-C), the
        sequences that reach `runs` runs without the rule stopping them earlier."""
        weights = self.weights(runs)
        return weights if weights[passed] else list(self._path_counts(0, 0)[runs])

    def unbiased_rate(self, runs: int, passed: int) -> float:
        """The unbiased estimate of the pass rate from a case that stopped at (runs, passed)."""
        total = self.weights(runs)[passed]
        if total == 0:
            raise ValueError(f"the rule never stops at {passed} of {runs}")
        from_a_pass = self._path_counts(1, 1)[runs][passed]
        return from_a_pass / total

    def interval(self, runs: int, passed: int, confidence: float = 0.95) -> tuple[float, float]:
        """An exact two-sided interval for the pass rate that accounts for the stopping: the
        rates at which a stopping point ranked at least (or at most) this one by the unbiased
        estimate has chance (1 - confidence) / 2."""
        key = (runs, passed, confidence)
        if key not in self._intervals:
            self._intervals[key] = self._interval(runs, passed, confidence)
        return self._intervals[key]

    @cached_property
    def _stopping_points(self) -> list[tuple[int, int, int, float]]:
        """(runs, passes, weight, unbiased rate) of every point the rule can stop at."""
        return [(n, y, w, self.unbiased_rate(n, y)) for n in range(1, self.max_runs + 1)
                for y, w in enumerate(self.weights(n)) if w]

    def _interval(self, runs: int, passed: int, confidence: float) -> tuple[float, float]:
        seen = self.unbiased_rate(runs, passed)
        points = self._stopping_points
        tail = (1 - confidence) / 2

        def at_least(p: float) -> float:
            return math.fsum(w * p**y * (1 - p) ** (n - y) for n, y, w, rank in points if rank >= seen - 1e-12)

        def at_most(p: float) -> float:
            return math.fsum(w * p**y * (1 - p) ** (n - y) for n, y, w, rank in points if rank <= seen + 1e-12)

        low = 0.0 if seen <= 0 else _solve(at_least, tail, rising=True)
        high = 1.0 if seen >= 1 else _solve(at_most, tail, rising=False)
        return low, high

    def _path_counts(self, start_runs: int, start_passed: int) -> list[list[int]]:
        """counts[n][y]: paths from (start_runs, start_passed) to (n, y) that never stopped before n."""
        key = (start_runs, start_passed)
        if key not in self._paths:
            counts = [[0] * (n + 1) for n in range(self.max_runs + 1)]
            counts[start_runs][start_passed] = 1
            for n in range(start_runs, self.max_runs):
                for y in range(n + 1):
                    if counts[n][y] and (n == 0 or not self.stops(n, y)):
                        counts[n + 1][y] += counts[n][y]
                        counts[n + 1][y + 1] += counts[n][y]
            self._paths[key] = counts
        return self._paths[key]


def _solve(chance: Callable[[float], float], target: float, rising: bool) -> float:
    """The p in (0, 1) where a monotone `chance(p)` crosses `target`, by bisection."""
    low, high = 0.0, 1.0
    for _ in range(60):
        middle = (low + high) / 2
        below = chance(middle) < target
        if below == rising:
            low = middle
        else:
            high = middle
    return (low + high) / 2
