"""An actual turn, written as the new expected turn in the style of the one it replaces.

Only `final_response` and `intermediate_data` change; the user's message, the turn's
id, its rubrics and every other member stay as written. Keys follow the old turn's
spelling (snake_case or camelCase) and its form of `intermediate_data`: ADK's Form A
(the hand-written form) with the members the old turn listed, plus `tool_uses` when the
agent called tools; or the recorded events (Form B) when the old turn had events. Run-specific noise (timings,
token counts, model versions, thought signatures, call ids in Form A) is left out.
"""

from __future__ import annotations

from typing import Any

from pydantic.alias_generators import to_camel

from evalkit.schema.content import Content, FunctionCall, FunctionResponse, Part
from evalkit.schema.evalset import IntermediateData, Invocation, InvocationEvents
from evalkit.schema.views import tool_calls, tool_responses

FINAL, INTERMEDIATE = "final_response", "intermediate_data"
FORM_A_KEYS = ("tool_uses", "tool_responses", "intermediate_responses")
_CAMEL_MARKERS = ("userContent", "finalResponse", "intermediateData", "invocationId", "creationTimestamp")
# Part fields that differ from run to run without changing what the agent said or did.
_VOLATILE_PART_FIELDS = ("thought_signature", "part_metadata", "video_metadata", "media_resolution")


def new_members(old_turn: dict[str, Any], actual: Invocation) -> dict[str, Any]:
    """The members to set in the old turn's mapping (file spelling → value), in order."""
    camel = any(key in old_turn for key in _CAMEL_MARKERS)

    def spelled(snake: str) -> str:
        return to_camel(snake) if camel else snake

    members: dict[str, Any] = {spelled(FINAL): _content(actual.final_response, camel)}
    old_data = _member(old_turn, INTERMEDIATE)
    data = _intermediate(old_data, actual, camel)
    if data is not None or old_data is not None:
        members[spelled(INTERMEDIATE)] = data
    return members


def _member(mapping: Any, snake: str) -> Any:
    if not isinstance(mapping, dict):
        return None
    return mapping.get(snake, mapping.get(to_camel(snake)))


def _dump(model: Any, camel: bool) -> Any:
    return model.model_dump(mode="json", exclude_none=True, by_alias=camel)


def _clean_part(part: Part) -> Part:
    return part.model_copy(update=dict.fromkeys(_VOLATILE_PART_FIELDS))


def _content(content: Content | None, camel: bool) -> Any:
    if content is None:
        return None
    return _dump(content.model_copy(update={"parts": [_clean_part(p) for p in content.parts or ()]}), camel)


def _intermediate(old_data: Any, actual: Invocation, camel: bool) -> Any:
    """Form B when the old turn had events (and the run recorded events), else Form A."""
    recorded = actual.intermediate_data
    if _member(old_data, "invocation_events") is not None and isinstance(recorded, InvocationEvents):
        events = [
            {"author": event.author, "content": _content(event.content, camel)}
            for event in recorded.invocation_events
            if event.content is not None
        ]
        return {to_camel("invocation_events") if camel else "invocation_events": events}
    form_a = IntermediateData(
        tool_uses=[FunctionCall(name=c.name, args=c.args) for c in tool_calls(actual)],
        tool_responses=[FunctionResponse(name=r.name, response=r.response) for r in tool_responses(actual)],
        intermediate_responses=_intermediate_responses(recorded),
    )
    written = _dump(form_a, camel)
    # The old turn's keys in their order; `tool_uses` (what trajectory criteria compare)
    # is added when there are calls, the others only where the old turn listed them.
    snake_of = {to_camel(key): key for key in FORM_A_KEYS} | {key: key for key in FORM_A_KEYS}
    wanted = [snake_of[key] for key in old_data if key in snake_of] if isinstance(old_data, dict) else []
    if "tool_uses" not in wanted and form_a.tool_uses:
        wanted.insert(0, "tool_uses")
    if not wanted and old_data is None:
        return None
    return {(to_camel(key) if camel else key): written.get(to_camel(key) if camel else key, []) for key in wanted}


def _intermediate_responses(recorded: Any) -> list[tuple[str, list[Part]]]:
    if isinstance(recorded, IntermediateData):
        return list(recorded.intermediate_responses)
    if not isinstance(recorded, InvocationEvents):
        return []
    responses = []
    for event in recorded.invocation_events:
        texts = [Part(text=p.text) for p in (event.content.parts if event.content else None) or () if p.text]
        if texts:
            responses.append((event.author, texts))
    return responses
