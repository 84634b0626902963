"""`rubric_based_multi_turn_trajectory_quality_v1`: the whole conversation judged once (docs/adk-parity.md).

The judge reads the full dialogue (user turns, agent texts, tool calls and outputs,
final answers), every agent's instructions and tool list, and the rubrics of type
TRAJECTORY_QUALITY that apply to the last turn (plus the criterion's own). Only the last
turn gets a score; the earlier ones are not evaluated, and the case score is the last
turn's.

Unlike ADK (E16), tool declarations loaded from JSON (plain dicts) are listed instead of
making the criterion fail.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from evalkit.criteria.adk.rubric_criterion import RubricCriterion
from evalkit.criteria.base import EvalContext
from evalkit.criteria.judging.inputs import declaration_field, events_of, function_declarations
from evalkit.criteria.judging.prompting import quote, render
from evalkit.schema.content import Content
from evalkit.schema.evalset import Invocation, Rubric
from evalkit.schema.media_parts import MediaPart, conversation_media


def _texts(content: Content | None) -> list[str]:
    return [p.text for p in (content.parts or ()) if p.text] if content is not None else []


def dialogue(invocations: Sequence[Invocation]) -> str:
    """The conversation as numbered lines: `USER TURN 1: ...`, `AGENT (root) TURN 1 (tool call): ...`."""
    lines: list[str] = []
    for number, invocation in enumerate(invocations, start=1):
        said = _texts(invocation.user_content)
        if said:
            lines.append(f"USER TURN {number}: {' '.join(said)}")
        events = events_of(invocation)
        for event in events:
            role = "USER" if event.author and event.author.lower() == "user" else f"AGENT ({event.author})"
            if event.content is None or not event.content.parts:
                continue
            said = _texts(event.content)
            if said:
                lines.append(f"{role} TURN {number}: {' '.join(said)}")
            for part in event.content.parts:
                if part.function_call is not None:
                    call = part.function_call
                    args = json.dumps(dict(call.args)) if call.args else "{}"
                    lines.append(f"{role} TURN {number} (tool call): {call.name}({args})")
                if part.function_response is not None:
                    response = part.function_response
                    output = json.dumps(dict(response.response)) if response.response else "{}"
                    lines.append(f"{role} TURN {number} (tool output): {response.name} -> {output}")
        said = _texts(invocation.final_response)
        if said:
            agent = events[0].author if events else "agent"
            lines.append(f"AGENT ({agent}) TURN {number}: {' '.join(said)}")
    return "\n".join(lines)


def agents_overview(invocations: Sequence[Invocation]) -> tuple[str, str]:
    """Every agent's instructions, and every agent's function list, without repeats."""
    instructions: dict[str, None] = {}
    tools: dict[str, None] = {}
    for invocation in invocations:
        if invocation.app_details is None:
            continue
        for agent_id, details in invocation.app_details.agent_details.items():
            instructions[f"Agent {agent_id} Instructions:\n{details.instructions}"] = None
            tools[f"Agent: {agent_id}"] = None
            for tool in details.tool_declarations:
                for declaration in function_declarations(tool):
                    name = declaration_field(declaration, "name")
                    summary = declaration_field(declaration, "description")
                    tools[f"- {name}: {summary}"] = None
    return "\n\n".join(instructions), "\n".join(tools)


def properties_json(rubrics: Sequence[Rubric]) -> str:
    listed = []
    for rubric in rubrics:
        entry = {"id": rubric.rubric_id, "property": rubric.rubric_content.text_property}
        if rubric.type:
            entry["type"] = rubric.type
        listed.append(entry)
    return json.dumps(listed, indent=2)


class RubricMultiTurnTrajectoryCriterion(RubricCriterion):
    name = "rubric_based_multi_turn_trajectory_quality_v1"
    description = "An LLM judge checks the whole conversation against rubrics (type TRAJECTORY_QUALITY)"
    rubric_type = "TRAJECTORY_QUALITY"
    prompt_templates = ("rubric_multi_turn",)

    def judged_positions(self, turns: int) -> list[int]:
        return [turns - 1] if turns else []

    def media_for(self, ctx: EvalContext, index: int) -> tuple[MediaPart, ...]:
        return conversation_media(ctx.actual[: index + 1])  # the prompt holds the conversation so far

    def build_prompt(self, ctx: EvalContext, index: int, rubrics: Sequence[Rubric]) -> str:
        instructions, tools = agents_overview(ctx.actual)
        return render(
            "rubric_multi_turn",
            agent_instructions=quote("AGENT INSTRUCTIONS", instructions),
            tool_definitions=quote("AGENT TOOLS", tools),
            dialogue=quote("CONVERSATION", dialogue(ctx.actual)),
            properties=properties_json(rubrics),
        )
