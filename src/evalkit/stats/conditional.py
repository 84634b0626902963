"""Exact conditional tests of pass counts, per case and across cases (docs/repeats.md,
"The tests").

A case's runs on one side are described by its *outcome weights*: `weights[y]` is the
number of pass/fail sequences of that many runs with y passes that the side's sampling
rule could have produced. For a fixed number of runs n that is C(n, y); for runs that
stop early (`--repeat auto`) it is the number of paths the stopping rule allows
(stats/sequential.py). Every such sequence with y passes has the same chance p^y (1-p)^(n-y),
so once the total passes S of both sides are known, the base side's passes x follow

    P(x | S) = wb[x] · wn[S - x] / Σ_j wb[j] · wn[S - j],

whatever the case's pass rate, when both sides share it. With binomial weights this is
Fisher's exact test; across cases, the sum of the base's passes over the cases, whose
distribution is the convolution of the cases' own, is the exact conditional test of a
common odds ratio (the exact form of the Cochran-Mantel-Haenszel test).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property


def binomial_weights(runs: int) -> list[int]:
    """The outcome weights of `runs` runs made whatever happened: C(runs, y)."""
    if runs < 0:
        raise ValueError(f"runs out of range: {runs}")
    return [math.comb(runs, y) for y in range(runs + 1)]


def combined_weights(*parts: Sequence[int]) -> list[int]:
    """The weights of independent batches of runs of one case taken together (several
    earlier runs of it, each with its own rule): the product of their polynomials."""
    total = [1]
    for part in parts:
        total = [sum(total[i] * part[k - i] for i in range(max(0, k - len(part) + 1), min(k, len(total) - 1) + 1))
                 for k in range(len(total) + len(part) - 1)]
    return total


@dataclass(frozen=True)
class Stratum:
    """One case on both sides: its passes and the weights of each side's runs."""

    base_passed: int
    base_weights: Sequence[int]
    new_passed: int
    new_weights: Sequence[int]

    def __post_init__(self) -> None:
        for passed, weights in ((self.base_passed, self.base_weights), (self.new_passed, self.new_weights)):
            if not 0 <= passed < len(weights) or weights[passed] == 0:
                raise ValueError(f"{passed} passes cannot come from runs with weights {list(weights)}")

    @cached_property
    def null(self) -> tuple[int, list[float]]:
        """(lowest possible base passes, the chances of each base count from there) given
        the case's total passes, if both sides pass at the same rate. Worked out once per
        case: the per-case tests, their floors and the stratified test all start from it."""
        total = self.base_passed + self.new_passed
        lowest = max(0, total - (len(self.new_weights) - 1))
        highest = min(len(self.base_weights) - 1, total)
        products = [self.base_weights[x] * self.new_weights[total - x] for x in range(lowest, highest + 1)]
        # Trim impossible counts at both ends (a stopping rule allows only some).
        while products and products[-1] == 0:
            products.pop()
        start = 0
        while start < len(products) and products[start] == 0:
            start += 1
        whole = sum(products[start:])
        return lowest + start, [p / whole for p in products[start:]]


def case_worse(stratum: Stratum) -> float:
    """One-sided p-value that the new side passes less often: P(base passes ≥ seen | S)."""
    lowest, chances = stratum.null
    return min(1.0, math.fsum(chances[stratum.base_passed - lowest:]))


def case_better(stratum: Stratum) -> float:
    """The mirror of `case_worse`: small when the new side passes more often."""
    lowest, chances = stratum.null
    return min(1.0, math.fsum(chances[: stratum.base_passed - lowest + 1]))


def case_floor(stratum: Stratum) -> float:
    """The smallest p-value `case_worse` could give with these totals: a test that cannot
    reach a level need not share it (stats/multiple.py)."""
    _, chances = stratum.null
    return chances[-1]


def stratified_worse(strata: Sequence[Stratum]) -> tuple[float, float]:
    """(p-value, floor) of the exact stratified test: P(Σ base passes ≥ seen | every
    case's total), the cases independent. Cases that could not have come out otherwise
    (all passing or all failing on both sides) add nothing and are skipped.

    Sums whose chance falls below `NEGLIGIBLE` are dropped as the cases are added (the
    distribution's far ends, many standard deviations out), which keeps a run of a
    thousand flaky cases fast; what is dropped is added to the tail, so the p-value can
    only come out larger than the exact one, and by less than 10^-40."""
    distribution, seen, start, dropped = [1.0], 0, 0, 0.0
    floor = 1.0
    for stratum in strata:
        lowest, chances = stratum.null
        seen += stratum.base_passed - lowest
        floor *= chances[-1]
        if len(chances) == 1:
            continue
        distribution = _convolve(distribution, chances)
        first, last = 0, len(distribution) - 1
        while distribution[first] < NEGLIGIBLE and first < last:
            first += 1
        while distribution[last] < NEGLIGIBLE and last > first:
            last -= 1
        dropped += math.fsum(distribution[:first]) + math.fsum(distribution[last + 1:])
        distribution = distribution[first:last + 1]
        start += first
    tail = math.fsum(distribution[max(0, seen - start):]) if seen - start < len(distribution) else 0.0
    return min(1.0, tail + dropped), floor


NEGLIGIBLE = 1e-45  # below this a sum's chance is dropped (and added to the tail)


def _convolve(left: list[float], right: list[float]) -> list[float]:
    out = [0.0] * (len(left) + len(right) - 1)
    for shift, chance in enumerate(right):
        if chance == 0.0:
            continue
        end = shift + len(left)
        out[shift:end] = map(operator.add, out[shift:end], [chance * value for value in left])
    return out
