"""The rubric-based judge criteria's shared flow (docs/adk-parity.md, "Rubric criteria").

For each judged turn: the rubrics that apply, one prompt, `num_samples` replies, each
reply read into per-rubric verdicts, a majority vote per rubric, and the turn's score
as the mean of its rubric verdicts. The case score is the mean over every (turn,
rubric) verdict, so turns with more rubrics weigh more, as in ADK.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Annotated, ClassVar

from pydantic import Field, field_validator

from evalkit.criteria.base import CriterionOptions, EvalContext, Outcome
from evalkit.criteria.judging.criterion import JudgeCriterion, judge_error, outcome_with_errors
from evalkit.criteria.judging.inputs import UnknownAgentError
from evalkit.criteria.judging.options import JudgeModelOptions, judge_options_field
from evalkit.criteria.adk.rubrics import (
    attached_rubrics,
    duplicate_ids,
    effective_rubrics,
    has_turn_scoped,
    parse_verdicts,
    resolve,
    rubric_list_problem,
)
from evalkit.criteria.judging.voting import RubricScore, majority_by_rubric, mean_or_none, rubric_means
from evalkit.errors import InputError
from evalkit.schema.evalset import Rubric
from evalkit.schema.media_parts import MediaPart, turn_media
from evalkit.schema.results import InvocationScore, Status


def vote_on_rubrics(replies: Sequence[str], rubrics: Sequence[Rubric]) -> tuple[list[RubricScore], dict]:
    """Read each reply into per-rubric verdicts, then take a majority vote per rubric.

    Returns the chosen verdicts and the turn's details (verdicts, and any properties the
    judge named that match no rubric).
    """
    per_sample: list[list[RubricScore]] = []
    unmatched: list[str] = []
    for reply in replies:
        scores, missed = resolve(parse_verdicts(reply), rubrics)
        per_sample.append(scores)
        unmatched += [m for m in missed if m not in unmatched]
    chosen = majority_by_rubric(per_sample)
    details: dict = {"rubric_scores": [v.to_dict() for v in chosen]}
    if unmatched:
        details["unmatched_properties"] = unmatched
    return chosen, details


class TurnRubric(Rubric):
    """A criterion's rubric; evalkit lets it name the turns it applies to."""

    invocation_indexes: list[Annotated[int, Field(ge=0)]] | None = Field(
        default=None, description="only these turns (0-based); every judged turn when absent"
    )


class RubricOptions(CriterionOptions):
    judge_model_options: JudgeModelOptions = judge_options_field()
    rubrics: list[TurnRubric] = Field(
        default_factory=list,
        description="rubrics applied to every judged turn (or to its invocation_indexes), whatever their type",
    )
    include_intermediate_responses_in_final: bool = Field(
        default=False,
        description="show the judge the agent's intermediate texts with its final response "
        "(final-response rubrics only; the other rubric criteria ignore it, as in ADK)",
    )

    @field_validator("rubrics")
    @classmethod
    def _unique_ids(cls, rubrics: list[TurnRubric]) -> list[TurnRubric]:
        duplicates = duplicate_ids(rubrics)
        if duplicates:
            raise ValueError("rubric id " + ", ".join(repr(d) for d in duplicates) + " is used more than once")
        return rubrics


def _judged(positions: list[int], rubric_lists: list[list[Rubric]]) -> tuple[list[int], list[list[Rubric]]]:
    kept = [(p, r) for p, r in zip(positions, rubric_lists) if r]
    return [p for p, _ in kept], [r for _, r in kept]


def rubric_bullets(rubrics: Sequence[Rubric]) -> str:
    """Rubrics as the bullet list the judge echoes back: `*  [id: r1] The answer ...`."""
    return "\n".join(f"*  [id: {r.rubric_id}] {r.rubric_content.text_property}" for r in rubrics)


class RubricCriterion(JudgeCriterion[RubricOptions]):
    """Base of the rubric-based criteria; subclasses write the prompt."""

    Options = RubricOptions
    rubric_type: ClassVar[str]

    @property
    def rubric_options(self) -> RubricOptions:
        return self.options

    def judged_positions(self, turns: int) -> list[int]:
        """Which turns the judge scores (all of them; the multi-turn criterion: the last)."""
        return list(range(turns))

    def media_for(self, ctx: EvalContext, index: int) -> tuple[MediaPart, ...]:
        """The media the judge sees with turn `index`'s prompt: that turn's."""
        return turn_media(ctx.actual[index])

    @abstractmethod
    def build_prompt(self, ctx: EvalContext, index: int, rubrics: Sequence[Rubric]) -> str: ...

    def rubrics_for(self, ctx: EvalContext, index: int) -> list[Rubric]:
        """Turn `index`'s own rubric list; InputError if it has duplicates or is empty."""
        expected = ctx.expected[index] if ctx.expected is not None and index < len(ctx.expected) else None
        attached = attached_rubrics(ctx.case, ctx.actual[index], expected)
        rubrics = effective_rubrics(self.rubric_options.rubrics, attached, self.rubric_type, index)
        if not rubrics and has_turn_scoped(self.rubric_options.rubrics):
            return []  # per-turn rubrics that name other turns: this turn is not judged
        problem = rubric_list_problem(self.name, self.rubric_type, rubrics, f"turn {index + 1}")
        if problem is None:
            # ADK also refuses an id repeated among the turn's rubrics of other types.
            repeated = duplicate_ids(attached)
            if repeated:
                problem = f"rubric id {repeated[0]!r} is used more than once for turn {index + 1}"
        if problem is not None:
            raise InputError(problem)
        return rubrics

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        turns = len(ctx.actual)
        positions = self.judged_positions(turns)
        rubric_lists = [self.rubrics_for(ctx, index) for index in positions]
        positions, rubric_lists = _judged(positions, rubric_lists)
        try:
            prompts = [self.build_prompt(ctx, index, rubrics) for index, rubrics in zip(positions, rubric_lists)]
        except UnknownAgentError as error:
            # ADK cannot build the prompt either and reports the criterion NOT_EVALUATED.
            return Outcome(
                score=None,
                status=Status.NOT_EVALUATED,
                invocations=[InvocationScore(status=Status.NOT_EVALUATED) for _ in range(turns)],
                details={"reason": str(error)},
            )
        sampled = await self.sample(ctx, prompts, [self.media_for(ctx, index) for index in positions])

        invocations = [InvocationScore(score=None, status=Status.NOT_EVALUATED) for _ in range(turns)]
        verdicts: list[RubricScore] = []
        for index, rubrics, samples in zip(positions, rubric_lists, sampled):
            if samples.error is not None:
                invocations[index] = judge_error(samples.error, samples.replies)
                continue
            chosen, details = vote_on_rubrics(samples.texts, rubrics)
            score = mean_or_none(v.score for v in chosen)
            details["judge_replies"] = samples.replies
            invocations[index] = InvocationScore(score=score, status=self.gate(score), details=details)
            verdicts += chosen

        overall = mean_or_none(v.score for v in verdicts)
        outcome = Outcome(
            score=overall,
            status=self.gate(overall),
            invocations=invocations,
            details={"rubric_scores": [{"rubric_id": m.rubric_id, "score": m.score} for m in rubric_means(verdicts)]},
        )
        return outcome_with_errors(invocations, outcome)
