"""`rubric_based_final_response_quality_v1`: the final answer judged against rubrics (docs/adk-parity.md).

The judge sees what ADK shows it: the answering agent's instructions, the available
tools, the user's message, the tool calls with their results, grounding metadata, the
final answer and the rubrics of type FINAL_RESPONSE_QUALITY (plus the criterion's own).
Expected turns are not used.
"""

from __future__ import annotations

from collections.abc import Sequence

from evalkit.criteria.base import EvalContext
from evalkit.criteria.judging.inputs import (
    grounding_json,
    responding_agent_instructions,
    tool_declarations_json,
    tool_steps_json,
    events_of,
)
from evalkit.criteria.adk.rubric_criterion import RubricCriterion, rubric_bullets
from evalkit.criteria.judging.prompting import quote, render
from evalkit.schema.evalset import Rubric
from evalkit.schema.views import response_text, user_text


class RubricFinalResponseQualityCriterion(RubricCriterion):
    name = "rubric_based_final_response_quality_v1"
    description = "An LLM judge checks the final response against rubrics (type FINAL_RESPONSE_QUALITY)"
    rubric_type = "FINAL_RESPONSE_QUALITY"
    prompt_templates = ("rubric_final_response",)

    def build_prompt(self, ctx: EvalContext, index: int, rubrics: Sequence[Rubric]) -> str:
        actual = ctx.actual[index]
        answer = response_text(actual, self.rubric_options.include_intermediate_responses_in_final)
        return render(
            "rubric_final_response",
            developer_instructions=quote("DEVELOPER INSTRUCTIONS", responding_agent_instructions(actual)),
            tool_declarations=quote("AVAILABLE TOOLS", tool_declarations_json(actual.app_details)),
            user_prompt=quote("USER PROMPT", user_text(actual)),
            response_steps=quote("TOOL STEPS", tool_steps_json(actual)),
            grounding_metadata=quote("GROUNDING METADATA", grounding_json(events_of(actual))),
            final_answer=quote("FINAL ANSWER", answer),
            properties=rubric_bullets(rubrics),
        )
