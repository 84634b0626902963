"""`rubric_based_tool_use_quality_v1`: the agent's tool use judged against rubrics (docs/adk-parity.md).

The judge sees the available tools, the user's message and the tool calls with their
results, and the rubrics of type TOOL_USE_QUALITY (plus the criterion's own).
Expected turns are not used.
"""

from __future__ import annotations

from collections.abc import Sequence

from evalkit.criteria.adk.rubric_criterion import RubricCriterion, rubric_bullets
from evalkit.criteria.base import EvalContext
from evalkit.criteria.judging.inputs import tool_declarations_json, tool_steps_json
from evalkit.criteria.judging.prompting import quote, render
from evalkit.schema.evalset import Rubric
from evalkit.schema.views import user_text


class RubricToolUseQualityCriterion(RubricCriterion):
    name = "rubric_based_tool_use_quality_v1"
    description = "An LLM judge checks the agent's tool use against rubrics (type TOOL_USE_QUALITY)"
    rubric_type = "TOOL_USE_QUALITY"
    prompt_templates = ("rubric_tool_use",)

    def build_prompt(self, ctx: EvalContext, index: int, rubrics: Sequence[Rubric]) -> str:
        actual = ctx.actual[index]
        return render(
            "rubric_tool_use",
            tool_declarations=quote("AVAILABLE TOOLS", tool_declarations_json(actual.app_details)),
            user_prompt=quote("USER INPUT", user_text(actual)),
            tool_usage=quote("TOOL STEPS", tool_steps_json(actual)),
            properties=rubric_bullets(rubrics),
        )
