"""A paired sign-flip permutation test for per-criterion score changes across cases.

Why this test (docs/repeats.md, "The tests"): it asks whether the *mean* score fell, the
number evalkit shows, and assumes nothing about how scores are distributed: if a change
made no difference, each case's difference (new − base) was as likely to come out with
the opposite sign. Wilcoxon's signed-rank test asks about ranks instead and needs a
rule for tied and zero differences, which 0/1 criteria produce in bulk.

Exact at every size where it is affordable: the 2^n sign patterns of the n cases whose
score changed are counted, up to `EXACT_UP_TO` cases, by splitting them into two halves
and counting the pairs of half-sums that reach the drop (2 × 2^(n/2) sums, not 2^n).
Beyond that a seeded random sample of `DRAWS` sign patterns stands in for them, and the
p-value is (b + 1) / (DRAWS + 1) for b patterns at least as extreme: counting the seen
pattern as one of the draws keeps it a valid p-value, never below the level more often
than the level allows (Phipson and Smyth, 2010). No normal approximation is used.
"""

from __future__ import annotations

import random
from bisect import bisect_left

EXACT_UP_TO = 30  # two halves of 2^15 sums each: a fraction of a second
DRAWS = 9_999

# Scores come from different machines and libraries: differences below this are equal.
_EPSILON = 1e-9


def paired_worse(base: list[float], new: list[float]) -> float:
    """One-sided p-value that the new scores are lower on average than the base ones
    (the same cases, in the same order on both sides)."""
    return _sign_flip_tail([b - n for b, n in zip(base, new, strict=True)])


def paired_better(base: list[float], new: list[float]) -> float:
    """The mirror of `paired_worse`: small when the new scores are higher."""
    return _sign_flip_tail([n - b for b, n in zip(base, new, strict=True)])


def paired_floor(base: list[float], new: list[float]) -> float:
    """The smallest p-value `paired_worse` could give for these cases (every change a
    drop): a test that cannot reach a level need not share it (stats/multiple.py)."""
    changed = sum(1 for b, n in zip(base, new, strict=True) if abs(b - n) > _EPSILON)
    if changed == 0:
        return 1.0
    if changed <= EXACT_UP_TO:
        return 0.5 ** changed
    return 1 / (DRAWS + 1)


def _sign_flip_tail(drops: list[float]) -> float:
    """P(Σ s·|d| ≥ Σ d) over independent fair signs s: how often chance alone gives a
    drop at least as large as the one seen."""
    changed = [d for d in drops if abs(d) > _EPSILON]
    if not changed:
        return 1.0
    observed = sum(changed) - _EPSILON * len(changed)
    sizes = [abs(d) for d in changed]
    if len(sizes) <= EXACT_UP_TO:
        return _exact_tail(sizes, observed)
    return _sampled_tail(sizes, observed)


def _exact_tail(sizes: list[float], observed: float) -> float:
    half = len(sizes) // 2
    left, right = _signed_sums(sizes[:half]), sorted(_signed_sums(sizes[half:]))
    at_least = sum(len(right) - bisect_left(right, observed - s) for s in left)
    return at_least / (len(left) * len(right))


def _signed_sums(sizes: list[float]) -> list[float]:
    sums = [0.0]
    for size in sizes:
        sums = [s + size for s in sums] + [s - size for s in sums]
    return sums


def _sampled_tail(sizes: list[float], observed: float) -> float:
    # Seeded by the data: the same scores always give the same p-value.
    rng = random.Random(hash(tuple(round(s, 9) for s in sizes)) ^ len(sizes))
    total = sum(sizes)
    # The sizes in bytes of 8: per byte, the 256 sums of the sizes its bits pick, so one draw
    # costs n/8 look-ups instead of n additions.
    tables = [_signed_sums_by_bits(sizes[start:start + 8]) for start in range(0, len(sizes), 8)]
    at_least = 0
    for _ in range(DRAWS):
        negative = sum(map(list.__getitem__, tables, rng.randbytes(len(tables))))
        if total - 2 * negative >= observed:
            at_least += 1
    return (at_least + 1) / (DRAWS + 1)


def _signed_sums_by_bits(sizes: list[float]) -> list[float]:
    return [sum(size for bit, size in enumerate(sizes) if pattern >> bit & 1) for pattern in range(256)]
