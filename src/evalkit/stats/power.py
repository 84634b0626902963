"""What a "within noise" verdict could have seen: the smallest drop in every case's pass
rate that the overall test would catch 80% of the time (docs/repeats.md, "What it can see").

An approximation, and named as one where it is shown: the overall test is exact, but its
power is worked out with the normal approximation of its statistic (each case's drop in
pass rate, weighted as the Cochran-Mantel-Haenszel statistic weighs it), taking the
base side's pass rates as the truth. The suite checks it against the simulated power of
the real gate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist


def detectable_drop(cases: Sequence[tuple[int, int, int]], level: float, power: float = 0.8) -> float | None:
    """The smallest drop d (in pass rate, 0 to 1) such that every case falling by d (or to
    0) is caught with chance `power`; None when no drop up to 1 would be.

    `cases`: (base passed, base runs, new runs) per case in common."""
    rated = [(passed / runs, runs, new_runs) for passed, runs, new_runs in cases if runs and new_runs]
    # The exact test's smallest p-value over every outcome: each case with all its passes on
    # the base side. Above the level, no drop at all could be caught.
    floor = math.prod(1 / math.comb(runs + new_runs, runs) for _, runs, new_runs in rated)
    if not rated or floor > level:
        return None
    if _power(rated, 1.0, level) < power:
        return None
    low, high = 0.0, 1.0
    for _ in range(40):
        middle = (low + high) / 2
        if _power(rated, middle, level) >= power:
            high = middle
        else:
            low = middle
    return high


def _power(rated: list[tuple[float, int, int]], drop: float, level: float) -> float:
    shift = null_var = alt_var = 0.0
    for rate, runs, new_runs in rated:
        weight = runs * new_runs / (runs + new_runs)
        fallen = max(0.0, rate - drop)
        pooled = (rate * runs + fallen * new_runs) / (runs + new_runs)
        shift += weight * (rate - fallen)
        null_var += weight * weight * pooled * (1 - pooled) * (1 / runs + 1 / new_runs)
        alt_var += weight * weight * (rate * (1 - rate) / runs + fallen * (1 - fallen) / new_runs)
    if shift <= 0:
        return 0.0
    if alt_var <= 0:
        return 1.0 if shift > NormalDist().inv_cdf(1 - level) * math.sqrt(null_var) else 0.0
    # Less half a pass: the continuity correction, as the exact test moves in whole passes.
    return NormalDist().cdf((shift - 0.5 - NormalDist().inv_cdf(1 - level) * math.sqrt(null_var)) / math.sqrt(alt_var))
