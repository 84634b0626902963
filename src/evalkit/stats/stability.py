"""Flake verdicts for repeated runs (docs/repeats.md).

A case's runs either all end the same way (`stable_pass`, `stable_fail`) or they do
not (`flaky`). How many agreeing runs it takes before "stable" means something is the
`--repeat auto` rule's business (stats/sequential.py): a case that passes half the
time makes all of n runs agree with chance 2^(1-n), 6.25% at 5 runs, 3.1% at 6.
"""

from __future__ import annotations

STABLE_PASS, FLAKY, STABLE_FAIL = "stable_pass", "flaky", "stable_fail"


def stability(outcomes: list[bool]) -> str:
    """The verdict of runs that passed (True) or did not (False); no runs is not flaky."""
    if len(set(outcomes)) > 1:
        return FLAKY
    return STABLE_PASS if outcomes and outcomes[0] else STABLE_FAIL
