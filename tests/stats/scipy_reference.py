"""The exact stratified test built from scipy's hypergeometric distribution: the reference
evalkit's own (stats/conditional.py) is checked against, in values and in power."""

from __future__ import annotations

import numpy as np
from scipy import stats as scipy_stats


def scipy_stratified(tables: list[tuple[int, int, int, int]]) -> float:
    """One-sided p of the exact conditional test of a common odds ratio over tables of
    (base passed, base runs, new passed, new runs): the convolution of each table's null
    distribution of the base's passes, its upper tail at the passes seen."""
    distribution, seen, offset = np.array([1.0]), 0, 0
    for base_passed, base_runs, new_passed, new_runs in tables:
        total = base_passed + new_passed
        support = np.arange(max(0, total - new_runs), min(base_runs, total) + 1)
        pmf = scipy_stats.hypergeom(base_runs + new_runs, total, base_runs).pmf(support)
        distribution = np.convolve(distribution, pmf)
        offset += support[0]
        seen += base_passed
    return float(distribution[seen - offset:].sum())
