"""Combining judge samples and turns into scores, with ADK's exact rules (docs/adk-parity.md, "Voting").

A judge is asked the same question several times; its answers are voted on. Ties go
to the negative side, answers that could not be read do not vote, and when nothing
could be read the result is None (not evaluated). Means use `statistics.mean`, which
rounds exactly once, so scores at a threshold come out as ADK's do.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class RubricScore:
    """One rubric's verdict: 1.0 (yes), 0.0 (no) or None (unreadable)."""

    rubric_id: str
    score: float | None
    rationale: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def mean_or_none(values: Iterable[float | None]) -> float | None:
    """Mean of the values that are not None; None when there are none."""
    present = [float(v) for v in values if v is not None]
    return float(statistics.mean(present)) if present else None


def binary_majority(samples: Sequence[float | None]) -> float | None:
    """1.0 if more samples say 1.0 than 0.0, else 0.0 (ties too); None if none voted."""
    positives = sum(1 for s in samples if s == 1.0)
    negatives = sum(1 for s in samples if s == 0.0)
    if positives == 0 and negatives == 0:
        return None
    return 1.0 if positives > negatives else 0.0


def majority_by_rubric(samples: Sequence[Sequence[RubricScore]]) -> list[RubricScore]:
    """One verdict per rubric id (in order of first appearance) by majority over samples.

    A verdict of exactly 1.0 is positive, any other number negative, None abstains.
    More positives than negatives keeps the first positive verdict; otherwise (ties
    included) the first negative one; with only abstentions, the first abstention.
    A rubric judged twice within one sample votes twice, as in ADK.
    """
    buckets: dict[str, tuple[list[RubricScore], list[RubricScore], list[RubricScore]]] = {}
    for sample in samples:
        for verdict in sample:
            abstained, positive, negative = buckets.setdefault(verdict.rubric_id, ([], [], []))
            if verdict.score is None:
                abstained.append(verdict)
            elif verdict.score == 1.0:
                positive.append(verdict)
            else:
                negative.append(verdict)
    chosen: list[RubricScore] = []
    for abstained, positive, negative in buckets.values():
        if not positive and not negative:
            chosen.append(abstained[0])
        elif len(positive) > len(negative):
            chosen.append(positive[0])
        else:
            chosen.append(negative[0])
    return chosen


def rubric_means(verdicts: Iterable[RubricScore]) -> list[RubricScore]:
    """Per rubric id, the mean of its verdicts across turns (None if all are None)."""
    by_id: dict[str, list[float | None]] = {}
    for verdict in verdicts:
        by_id.setdefault(verdict.rubric_id, []).append(verdict.score)
    return [RubricScore(rubric_id, mean_or_none(scores)) for rubric_id, scores in by_id.items()]
