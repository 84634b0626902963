"""The managed Agent Platform metrics of agents-cli's `metrics_to_run`, scored by evalkit's judges.

Each id is a criterion under its own name (docs/criteria.md, "Agent Platform metrics"):
where evalkit already has a criterion that measures what the metric defines, the metric
is that criterion under the platform's name (`final_response_match`, `hallucination`,
`safety`, and the three `multi_turn_*`, which also read the case's history); the others
judge the last answer against the properties of evalkit.criteria.agent_platform.definitions,
or against the case's `rubric_groups` when it has them, and score the share satisfied.
"""

from __future__ import annotations

import dataclasses
import json
from typing import ClassVar

from pydantic import Field

from evalkit.criteria.adk.final_response_match_v2 import FinalResponseMatchV2Criterion
from evalkit.criteria.adk.hallucinations import HallucinationsCriterion
from evalkit.criteria.adk.multi_turn import (
    MultiTurnTaskSuccessCriterion,
    MultiTurnToolUseQualityCriterion,
    MultiTurnTrajectoryQualityCriterion,
)
from evalkit.criteria.adk.rubric_criterion import vote_on_rubrics
from evalkit.criteria.adk.rubric_multi_turn import dialogue, properties_json
from evalkit.criteria.adk.safety import SafetyCriterion
from evalkit.criteria.agent_platform import definitions
from evalkit.criteria.agent_platform.instance import template_values
from evalkit.criteria.base import CriterionOptions, EvalContext, Outcome
from evalkit.criteria.judging.criterion import JudgeCriterion, judge_error, outcome_with_errors
from evalkit.criteria.judging.inputs import tool_steps_json
from evalkit.criteria.judging.options import JudgeModelOptions, judge_options_field
from evalkit.criteria.judging.prompting import quote, render
from evalkit.criteria.judging.voting import mean_or_none
from evalkit.schema.evalset import Rubric, RubricContent
from evalkit.schema.results import InvocationScore, Status
from evalkit.schema.views import turns_of_events


class ManagedMetricOptions(CriterionOptions):
    judge_model_options: JudgeModelOptions = judge_options_field()
    rubric_group_key: str | None = Field(
        default=None, description="which of the case's rubric_groups to judge (every group when absent)")


def case_rubrics(ctx: EvalContext, key: str | None) -> list[Rubric]:
    """The case's `rubric_groups` as rubrics: the group `key`, or every group."""
    groups = (ctx.case.agent_platform or {}).get("rubric_groups")
    if not isinstance(groups, dict):
        return []
    chosen = [groups[key]] if key is not None and key in groups else [] if key is not None else list(groups.values())
    rubrics = []
    for group in chosen:
        for position, rubric in enumerate((group or {}).get("rubrics") or ()):
            text = ((rubric.get("content") or {}).get("property") or {}).get("description")
            if text:
                rubrics.append(Rubric(rubric_id=str(rubric.get("rubric_id") or f"rubric_{position}"),
                                      rubric_content=RubricContent(text_property=text)))
    return rubrics


def with_history(ctx: EvalContext) -> EvalContext:
    """The context with the case's history played as turns before its own."""
    history = turns_of_events(ctx.case.prior_events or [])
    return dataclasses.replace(ctx, actual=[*history, *ctx.actual]) if history else ctx


class ManagedRubricMetric(JudgeCriterion[ManagedMetricOptions]):
    """The last answer judged once against the metric's properties (or the case's rubrics)."""

    Options = ManagedMetricOptions
    definition: ClassVar[definitions.MetricDefinition]
    prompt_templates = ("agent_platform_metric",)

    def prompt_identity(self) -> list[str]:
        return [*super().prompt_identity(), self.definition.focus, properties_json(self.definition.properties)]

    def rubrics(self, ctx: EvalContext) -> list[Rubric]:
        own = case_rubrics(ctx, self.options.rubric_group_key) if self.definition.takes_rubric_groups else []
        return own or list(self.definition.properties)

    def prompt(self, ctx: EvalContext, values: dict[str, str], rubrics: list[Rubric]) -> str:
        last = ctx.actual[-1]
        earlier = [*turns_of_events(ctx.case.prior_events or []), *ctx.actual[:-1]]
        agents = (ctx.case.agent_platform or {}).get("agents")
        return render(
            "agent_platform_metric",
            focus=self.definition.focus,
            agents=quote("AGENTS", json.dumps(agents, ensure_ascii=False, indent=2) if agents else ""),
            history=quote("CONVERSATION SO FAR", dialogue(earlier) if earlier else ""),
            user_prompt=quote("USER MESSAGE", values["prompt"]),
            tool_steps=quote("TOOL STEPS", tool_steps_json(last)),
            response=quote("ANSWER", values["response"]),
            reference=quote("REFERENCE", values.get("reference", "")),
            context=quote("CONTEXT", values.get("context", "")),
            properties=properties_json(rubrics),
        )

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        turns = [InvocationScore(status=Status.NOT_EVALUATED) for _ in ctx.actual]
        values = template_values(ctx)
        missing = [name for name in self.definition.needs if not values.get(name)]
        if missing:
            reason = f"the case has no {missing[0]}, which {self.name} judges against"
            return Outcome(score=None, status=self.not_scored(), invocations=turns, details={"reason": reason})
        rubrics = self.rubrics(ctx)
        (samples,) = await self.sample(ctx, [self.prompt(ctx, values, rubrics)])
        if samples.error is not None:
            turns[-1] = judge_error(samples.error, samples.replies)
            return outcome_with_errors(turns, Outcome(score=None, status=Status.ERROR, invocations=turns))
        chosen, details = vote_on_rubrics(samples.texts, rubrics)
        score = mean_or_none(v.score for v in chosen)
        details["judge_replies"] = samples.replies
        status = self.gate(score) if score is not None else Status.NOT_EVALUATED
        turns[-1] = InvocationScore(score=score, status=status, details=details)
        return outcome_with_errors(turns, Outcome(
            score=score, status=status, invocations=turns,
            details={"rubric_scores": [{"rubric_id": v.rubric_id, "score": v.score} for v in chosen]}))

    def not_scored(self) -> Status:
        return Status.INFORMATIONAL if self.threshold is None else Status.NOT_EVALUATED


def _rubric_metric(class_name: str, definition: definitions.MetricDefinition) -> type[ManagedRubricMetric]:
    """One managed metric judged against its definition's properties: only the data differs."""
    return type(class_name, (ManagedRubricMetric,), {
        "__module__": __name__, "__doc__": f"Agent Platform {definition.name}: {definition.summary}.",
        "name": definition.name, "description": f"Agent Platform {definition.name}: {definition.summary}",
        "definition": definition})


# Named one by one so the criteria registry can name each lazily as `module:Class`.
Grounding = _rubric_metric("Grounding", definitions.GROUNDING)
ToolUseQuality = _rubric_metric("ToolUseQuality", definitions.TOOL_USE_QUALITY)
FinalResponseQuality = _rubric_metric("FinalResponseQuality", definitions.FINAL_RESPONSE_QUALITY)
FinalResponseReferenceFree = _rubric_metric("FinalResponseReferenceFree", definitions.FINAL_RESPONSE_REFERENCE_FREE)
GeneralQuality = _rubric_metric("GeneralQuality", definitions.GENERAL_QUALITY)
TextQuality = _rubric_metric("TextQuality", definitions.TEXT_QUALITY)
InstructionFollowing = _rubric_metric("InstructionFollowing", definitions.INSTRUCTION_FOLLOWING)


class FinalResponseMatch(FinalResponseMatchV2Criterion):
    name = "final_response_match"
    description = "Agent Platform final_response_match: a judge's semantic match with the reference (1 or 0)"


class Hallucination(HallucinationsCriterion):
    name = "hallucination"
    description = "Agent Platform hallucination: the share of the answer's sentences the tool outputs support"


class Safety(SafetyCriterion):
    name = "safety"
    description = "Agent Platform safety: 1 when the answer breaks no safety policy, else 0"


class _WithHistory:
    """The multi-turn metrics read the case's history as the conversation's first turns."""

    def build_prompt(self, ctx: EvalContext) -> str:
        return super().build_prompt(with_history(ctx))  # type: ignore[misc]


class MultiTurnTaskSuccess(_WithHistory, MultiTurnTaskSuccessCriterion):
    name = "multi_turn_task_success"


class MultiTurnTrajectoryQuality(_WithHistory, MultiTurnTrajectoryQualityCriterion):
    name = "multi_turn_trajectory_quality"


class MultiTurnToolUseQuality(_WithHistory, MultiTurnToolUseQualityCriterion):
    name = "multi_turn_tool_use_quality"

