"""Summary statistics over samples (latency figures, budgets)."""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(samples: Sequence[float], p: float) -> float | None:
    """The p-th percentile of the samples by linear interpolation; None when there are none."""
    if not samples:
        return None
    ordered = sorted(samples)
    position = (len(ordered) - 1) * p / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
