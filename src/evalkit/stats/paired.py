"""A paired sign-flip permutation test for per-criterion score changes across cases.

Why this test (docs/repeats.md, "Scores"): it asks whether the *mean* score fell, the
number evalkit shows, and assumes nothing about how scores are distributed: if a change
made no difference, each case's difference (new − base) was as likely to come out with
the opposite sign. Wilcoxon's signed-rank test asks about ranks instead and needs a
rule for tied and zero differences, which 0/1 criteria produce in bulk.

Exact: every one of the 2^n sign patterns is counted when n (the cases whose score
changed) is at most `EXACT_UP_TO`; above that, the normal distribution with the
permutation distribution's own mean (0) and variance (Σ d²) stands in for it, which at
such n differs from the exact tail by far less than any gate's level.
"""

from __future__ import annotations

import math
from statistics import NormalDist

EXACT_UP_TO = 16  # 2^16 sums: a few milliseconds

# Scores come from different machines and libraries: differences below this are equal.
_EPSILON = 1e-9


def paired_worse(base: list[float], new: list[float]) -> float:
    """One-sided p-value that the new scores are lower on average than the base ones
    (the same cases, in the same order on both sides)."""
    return _sign_flip_tail([b - n for b, n in zip(base, new, strict=True)])


def paired_better(base: list[float], new: list[float]) -> float:
    """The mirror of `paired_worse`: small when the new scores are higher."""
    return _sign_flip_tail([n - b for b, n in zip(base, new, strict=True)])


def _sign_flip_tail(drops: list[float]) -> float:
    """P(Σ s·|d| ≥ Σ d) over independent fair signs s: how often chance alone gives a
    drop at least as large as the one seen."""
    changed = [d for d in drops if abs(d) > _EPSILON]
    if not changed:
        return 1.0
    observed = sum(changed)
    sizes = [abs(d) for d in changed]
    if len(sizes) <= EXACT_UP_TO:
        sums = [0.0]
        for size in sizes:
            sums = [s + size for s in sums] + [s - size for s in sums]
        at_least = sum(1 for s in sums if s >= observed - _EPSILON * len(sizes))
        return at_least / len(sums)
    spread = math.sqrt(sum(size * size for size in sizes))
    return 1.0 - NormalDist(0.0, spread).cdf(observed)
