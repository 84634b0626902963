"""`response_match_score`: ROUGE-1 F of the final response against the reference (docs/adk-parity.md)."""

from __future__ import annotations

from pydantic import Field

from evalkit.criteria.base import Criterion, CriterionOptions, EvalContext, Outcome
from evalkit.schema.views import final_text


class ResponseMatchOptions(CriterionOptions):
    include_intermediate_responses_in_final: bool = Field(
        default=False, description="accepted for ADK compatibility; ADK ignores it for this criterion"
    )


class ResponseMatchCriterion(Criterion[ResponseMatchOptions]):
    name = "response_match_score"
    description = "ROUGE-1 F-measure of the final response against the expected one"
    Options = ResponseMatchOptions
    requires_expected = True
    preload_modules = ("rouge_score.rouge_scorer",)

    def prepare(self) -> None:
        from evalkit.criteria.adk.rouge1 import rouge1_fmeasure

        rouge1_fmeasure("warm up", "warm up")  # the first call imports rouge_score and nltk

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        from evalkit.criteria.adk.rouge1 import rouge1_fmeasure

        assert ctx.expected is not None
        scores: list[float | None] = []
        details: list[dict] = []
        for actual, expected in zip(ctx.actual, ctx.expected):
            candidate, reference = final_text(actual), final_text(expected)
            score = rouge1_fmeasure(reference, candidate)
            scores.append(score)
            details.append({} if score >= (self.threshold or 0) else {"expected": reference, "actual": candidate})
        return self.mean_outcome(scores, details)
