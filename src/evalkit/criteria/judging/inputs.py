"""What a judge is shown about a turn: tool steps, tool declarations, grounding, instructions.

The same information ADK gives its judges (docs/adk-parity.md, "Rubric criteria"), serialised as
JSON the judge can read. Sentences used when something is absent are kept as ADK
words them where a judge might rely on them ("No intermediate steps were taken.").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evalkit.criteria.judging.prompting import json_text
from evalkit.schema.evalset import AppDetails, Invocation, InvocationEvent, InvocationEvents
from evalkit.schema.views import tool_calls_with_responses

NO_STEPS = "No intermediate steps were taken."
NO_TOOLS = "Agent has no tools."
NO_GROUNDING = "No grounding metadata was provided."


class UnknownAgentError(ValueError):
    """The turn was answered by an agent that `app_details` does not describe."""


def _plain(model: Any) -> Any:
    return model.model_dump(mode="json", exclude_none=True) if hasattr(model, "model_dump") else model


def tool_steps_json(invocation: Invocation) -> str:
    """Each tool call with its response (paired by id, as ADK pairs them), numbered from 0."""
    pairs = tool_calls_with_responses(invocation)
    if not pairs:
        return NO_STEPS
    steps = [
        {"step": index, "tool_call": _plain(call), "tool_response": _plain(response) if response else "None"}
        for index, (call, response) in enumerate(pairs)
    ]
    return json_text({"tool_calls_and_response": steps})


def tool_declarations_json(app_details: AppDetails | None) -> str:
    """The tools of every agent, by agent name; a sentence when nothing is known."""
    if app_details is None:
        return NO_TOOLS
    by_agent = {name: [_plain(t) for t in details.tool_declarations] for name, details in app_details.agent_details.items()}
    return json_text({"tool_declarations": by_agent})


def grounding_json(events: Sequence[InvocationEvent]) -> str:
    """Grounding metadata of the events that carry some, with their position and author."""
    entries = [
        {"step": index, "author": event.author, "grounding_metadata": _plain(event.grounding_metadata)}
        for index, event in enumerate(events)
        if event.grounding_metadata
    ]
    if not entries:
        return NO_GROUNDING
    return json_text({"grounding_metadata": entries})


def events_of(invocation: Invocation) -> list[InvocationEvent]:
    """The recorded events of a turn (Form B); Form A turns have none."""
    data = invocation.intermediate_data
    return list(data.invocation_events) if isinstance(data, InvocationEvents) else []


def responding_agent_instructions(invocation: Invocation) -> str:
    """Instructions of the agent that answered: the first event's author, else the first agent.

    As in ADK, an author that `app_details` does not list is an error
    (UnknownAgentError), and a turn without `app_details` has no instructions.
    """
    details = invocation.app_details
    if details is None:
        return ""
    events = events_of(invocation)
    if events:
        name: str | None = events[0].author
    else:
        name = next(iter(details.agent_details), None)
    if name is None:
        return ""
    if name not in details.agent_details:
        raise UnknownAgentError(f"the agent {name!r} that answered is not described in the turn's app_details")
    return details.agent_details[name].instructions


def function_declarations(tool: Any) -> list[Any]:
    """The function declarations of one tool, whether it is a dict or an object."""
    if isinstance(tool, dict):
        return list(tool.get("function_declarations") or tool.get("functionDeclarations") or [])
    return list(getattr(tool, "function_declarations", None) or [])


def declaration_field(declaration: Any, name: str) -> Any:
    if isinstance(declaration, dict):
        return declaration.get(name)
    return getattr(declaration, name, None)
