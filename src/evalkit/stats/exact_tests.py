"""One-sided exact tests on pass counts: Fisher's for one case run several times on each
side, McNemar's (a binomial test on the cases that flipped) across cases.

Both are computed exactly from binomial coefficients in integers, so the p-values are
the fractions a textbook would give (docs/repeats.md, "How the tests work").
"""

from __future__ import annotations

import math
from fractions import Fraction


def fisher_worse(base_passed: int, base_runs: int, new_passed: int, new_runs: int) -> float:
    """The chance, if both sides had the same pass rate, of the base holding this many or
    more of all the passes: small when the new side passes less often than the base.

    With the margins fixed (total runs on each side, total passes), the base's passes
    follow a hypergeometric distribution; this is its upper tail at `base_passed`.
    """
    return float(_hypergeometric_tail(base_passed, base_runs, new_passed, new_runs))


def fisher_better(base_passed: int, base_runs: int, new_passed: int, new_runs: int) -> float:
    """The mirror of `fisher_worse`: small when the new side passes more often."""
    return float(_hypergeometric_tail(new_passed, new_runs, base_passed, base_runs))


def fisher_worse_floor(base_passed: int, base_runs: int, new_passed: int, new_runs: int) -> float:
    """The smallest p-value `fisher_worse` could give with these margins (every pass on
    the base side as far as the totals allow): a test that cannot reach a level need not
    be counted against it (stats/multiple.py)."""
    total_passed = base_passed + new_passed
    highest = min(base_runs, total_passed)
    return float(_hypergeometric_tail(highest, base_runs, total_passed - highest, new_runs))


def _hypergeometric_tail(passed: int, runs: int, other_passed: int, other_runs: int) -> Fraction:
    _check_counts(passed, runs)
    _check_counts(other_passed, other_runs)
    total_runs = runs + other_runs
    total_passed = passed + other_passed
    if total_runs == 0 or runs == 0 or other_runs == 0:
        return Fraction(1)  # one side did not run: nothing to test
    lowest = max(0, total_passed - other_runs)
    highest = min(runs, total_passed)
    tail = sum(math.comb(total_passed, k) * math.comb(total_runs - total_passed, runs - k)
               for k in range(max(passed, lowest), highest + 1))
    return Fraction(tail, math.comb(total_runs, runs))


def mcnemar_worse(regressed: int, improved: int) -> float:
    """One-sided exact McNemar test: among the cases whose verdict flipped, the chance of
    this many or more flipping to worse if a flip were equally likely either way."""
    return float(binomial_upper_tail(regressed, regressed + improved))


def mcnemar_floor(regressed: int, improved: int) -> float:
    """The smallest p-value `mcnemar_worse` could give with this many flips: all of them worse."""
    return 0.5 ** (regressed + improved)


def binomial_upper_tail(successes: int, trials: int) -> Fraction:
    """P(X ≥ successes) for X ~ Binomial(trials, 1/2), exactly."""
    _check_counts(successes, trials)
    if trials == 0:
        return Fraction(1)
    return Fraction(sum(math.comb(trials, k) for k in range(successes, trials + 1)), 2**trials)


def _check_counts(passed: int, runs: int) -> None:
    if runs < 0 or not 0 <= passed <= runs:
        raise ValueError(f"counts out of range: {passed} of {runs}")
