"""The Wilson score interval for a pass rate (docs/repeats.md, "The interval").

Chosen over the textbook `p ± z·sqrt(p(1-p)/n)` because that one collapses to a single
point at 0 of n and n of n, exactly the counts repeated agent runs produce most.
"""

from __future__ import annotations

import math
from statistics import NormalDist


def wilson_interval(passed: int, runs: int, confidence: float = 0.95) -> tuple[float, float]:
    """The two-sided interval holding the true pass rate with the given confidence;
    (0, 1) when there are no runs: nothing is known."""
    if runs < 0 or not 0 <= passed <= runs:
        raise ValueError(f"counts out of range: {passed} of {runs}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence {confidence} must be above 0 and below 1")
    if runs == 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    rate = passed / runs
    z2 = z * z
    centre = (rate + z2 / (2 * runs)) / (1 + z2 / runs)
    half = z / (1 + z2 / runs) * math.sqrt(rate * (1 - rate) / runs + z2 / (4 * runs * runs))
    # Clamp the rounding at the ends: 0 of n has a low of exactly 0, n of n a high of exactly 1.
    low = 0.0 if passed == 0 else max(0.0, centre - half)
    high = 1.0 if passed == runs else min(1.0, centre + half)
    return low, high

