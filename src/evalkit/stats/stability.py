"""Flake verdicts for repeated runs, and when `--repeat auto` stops (docs/repeats.md).

A case's runs either all end the same way (`stable_pass`, `stable_fail`) or they do
not (`flaky`). Once two runs disagree the case is flaky whatever comes next, so
`--repeat auto` stops it there; while they agree it keeps going until `agreeing` runs in
a row agree (or the cap is reached). `agreeing` is the fewest runs after which a case
that passes only half the time would look stable in the direction seen with chance at
most `alpha`: 2^-k ≤ alpha, so 5 runs at alpha 0.05 (1 in 32).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

STABLE_PASS, FLAKY, STABLE_FAIL = "stable_pass", "flaky", "stable_fail"


def stability(outcomes: list[bool]) -> str:
    """The verdict of runs that passed (True) or did not (False); no runs is not flaky."""
    if len(set(outcomes)) > 1:
        return FLAKY
    return STABLE_PASS if outcomes and outcomes[0] else STABLE_FAIL


def agreeing_runs_needed(alpha: float) -> int:
    """Runs that must agree before `--repeat auto` calls a case stable."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha {alpha} must be above 0 and below 1")
    return max(2, math.ceil(math.log2(1 / alpha) - 1e-9))


def another_run(outcomes: Sequence[Hashable], max_runs: int, agreeing: int) -> bool:
    """Whether `--repeat auto` runs the case again after these outcomes (pass/fail, or the
    runs' statuses: any two that differ make the case flaky)."""
    if len(outcomes) >= max_runs:
        return False
    if len(set(outcomes)) > 1:
        return False  # flaky already: more runs cannot make it stable
    return len(outcomes) < agreeing
