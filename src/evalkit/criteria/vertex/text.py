"""Vertex AI's computation-based text metrics: `exact_match`, `bleu` and `rouge`.

Each scores the final response of every turn against the expected one, as the Vertex
AI Gen AI evaluation service scores a `response` against its `reference`; the case
score is the mean over turns, gated by the threshold like every other criterion.
BLEU and ROUGE are computed by the maintained libraries (sacrebleu, rouge-score),
imported only when one of these criteria runs.
"""

from __future__ import annotations

import threading
from abc import abstractmethod
from functools import lru_cache
from typing import Any, Literal

from pydantic import Field

from evalkit.criteria.base import Criterion, CriterionOptions, EvalContext, NoOptions, OptionsT, Outcome
from evalkit.errors import EvalkitError
from evalkit.schema.views import final_text

RougeType = Literal[
    "rouge1", "rouge2", "rouge3", "rouge4", "rouge5", "rouge6", "rouge7", "rouge8", "rouge9",
    "rougeL", "rougeLsum",
]


class _ReferenceTextCriterion(Criterion[OptionsT]):
    """Per turn: a score of the actual final response against the expected one."""

    requires_expected = True

    @abstractmethod
    def score_text(self, response: str, reference: str) -> float: ...

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        assert ctx.expected is not None
        scores: list[float | None] = []
        details: list[dict] = []
        for actual, expected in zip(ctx.actual, ctx.expected):
            response, reference = final_text(actual), final_text(expected)
            score = self.score_text(response, reference)
            scores.append(score)
            passed = self.threshold is None or score >= self.threshold
            details.append({} if passed else {"expected": reference, "actual": response})
        return self.mean_outcome(scores, details)


class ExactMatchCriterion(_ReferenceTextCriterion[NoOptions]):
    name = "exact_match"
    description = "Vertex exact_match: 1 when the final response equals the expected one character for character, else 0"

    def score_text(self, response: str, reference: str) -> float:
        return 1.0 if response == reference else 0.0


class BleuOptions(CriterionOptions):
    use_effective_order: bool = Field(
        default=False,
        description="ignore n-gram orders with no matches in the response (Vertex's BleuSpec option; "
        "short responses otherwise score 0)",
    )


def sentence_bleu(response: str, reference: str, use_effective_order: bool = False) -> float:
    """sacrebleu's sentence BLEU (13a tokenizer, exponential smoothing), scaled to [0, 1]."""
    import sacrebleu  # deferred: only runs that score BLEU pay for the import

    result = sacrebleu.sentence_bleu(response, [reference], use_effective_order=use_effective_order)
    return float(result.score) / 100.0


class BleuCriterion(_ReferenceTextCriterion[BleuOptions]):
    name = "bleu"
    description = "Vertex bleu: sentence BLEU of the final response against the expected one, in [0, 1]"
    Options = BleuOptions

    def score_text(self, response: str, reference: str) -> float:
        options = self.options
        return sentence_bleu(response, reference, options.use_effective_order)


class RougeOptions(CriterionOptions):
    rouge_type: RougeType = Field(
        default="rougeLsum",
        description="rouge1 … rouge9 (n-gram overlap), rougeL (longest common subsequence) or "
        "rougeLsum (LCS per sentence, sentences split on newlines); Vertex's default is rougeLsum",
    )
    use_stemmer: bool = Field(default=False, description="Porter-stem words before matching")
    split_summaries: bool = Field(
        default=False, description="for rougeLsum: split sentences with nltk instead of on newlines"
    )


_scorer_lock = threading.Lock()


@lru_cache(maxsize=32)
def _rouge_scorer(rouge_type: str, use_stemmer: bool, split_summaries: bool) -> Any:
    from rouge_score import rouge_scorer  # deferred: pulls in nltk and numpy

    return rouge_scorer.RougeScorer([rouge_type], use_stemmer=use_stemmer, split_summaries=split_summaries)


def rouge_fmeasure(
    response: str, reference: str, rouge_type: str = "rougeLsum", use_stemmer: bool = False,
    split_summaries: bool = False,
) -> float:
    """rouge-score's F-measure of `response` against `reference` (Vertex reports the F1)."""
    with _scorer_lock:  # lru_cache builds each scorer once even when turns are scored in threads
        scorer = _rouge_scorer(rouge_type, use_stemmer, split_summaries)
    try:
        return float(scorer.score(target=reference, prediction=response)[rouge_type].fmeasure)
    except LookupError:
        # split_summaries splits sentences with nltk's punkt model, a separate data download.
        raise EvalkitError(
            "rouge with split_summaries needs nltk's sentence model: run "
            "`python -m nltk.downloader punkt_tab` once, or set split_summaries to false"
        ) from None


class RougeCriterion(_ReferenceTextCriterion[RougeOptions]):
    name = "rouge"
    description = "Vertex rouge: ROUGE F-measure of the final response against the expected one (rouge_type, default rougeLsum)"
    Options = RougeOptions

    def score_text(self, response: str, reference: str) -> float:
        options = self.options
        return rouge_fmeasure(response, reference, options.rouge_type, options.use_stemmer, options.split_summaries)
