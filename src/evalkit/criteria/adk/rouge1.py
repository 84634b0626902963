"""ROUGE-1 between a reference and a candidate text, bit-identical to ADK 2.13.

The arithmetic is left to the `rouge_score` package itself (the same code ADK calls),
so borderline values such as 0.8000000000000002 come out exactly as ADK reports them
and verdicts at the threshold (`score >= threshold`) agree. Two empty texts score 0.0,
not 1.0, as in ADK.
"""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

from evalkit.criteria.adk.rouge_tokenizer import UnicodeRougeTokenizer


class Rouge1Score(NamedTuple):
    precision: float
    recall: float
    fmeasure: float


_scorer: Any = None
_scorer_lock = threading.Lock()


def _get_scorer() -> Any:
    """The shared scorer, built on first use; it is stateless apart from its caches."""
    global _scorer
    if _scorer is None:
        with _scorer_lock:
            if _scorer is None:
                # Deferred heavy import: rouge_score pulls in nltk and numpy.
                from rouge_score import rouge_scorer

                _scorer = rouge_scorer.RougeScorer(
                    ["rouge1"], tokenizer=UnicodeRougeTokenizer(use_stemmer=True)
                )
    return _scorer


def rouge1_scores(reference: str, candidate: str) -> Rouge1Score:
    """Precision, recall and F-measure of `candidate` against `reference`."""
    score = _get_scorer().score(target=reference, prediction=candidate)["rouge1"]
    return Rouge1Score(
        precision=float(score.precision),
        recall=float(score.recall),
        fmeasure=float(score.fmeasure),
    )


def rouge1_fmeasure(reference: str, candidate: str) -> float:
    """The ROUGE-1 F-measure used as the `response_match_score` value."""
    return rouge1_scores(reference, candidate).fmeasure
