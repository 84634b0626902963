"""ADK events of one turn → one actual Invocation in ADK's Form B (`invocation_events`).

The grouping follows what `adk eval` records (docs/adk-parity.md, "Invocations and events"), so criteria and
judges see the same invocation from evalkit as from ADK:
- an event authored by the user carries the user's message and is not kept;
- among the other events with parts, every one for which `is_final_response()` holds
  is a candidate final response and the last one wins, except that a candidate
  without text never replaces one with text;
- an event is kept if a part holds a function call, a function response, text or
  inline data, or if the event has grounding metadata;
- the final-response event is kept without its content (its usage and model version
  still count) unless it also calls functions, so its text is not counted twice.

An event carrying an error code (`errorCode` / `errorMessage` in JSON) means the turn
failed: ADK for TypeScript's API server answers a failed model call that way, with
HTTP 200, and every ADK records a blocked or empty model answer so. `raise_on_error_event`
makes such a turn the case's `error`, for both adapters (docs/agents.md, "Failures").

Events are read duck-typed: ADK's own `Event` objects (the in-process adapter) and
`evalkit.schema.adk_session.AdkEvent` parsed from JSON (the API-server adapter and the
session importer) answer the same questions, so every path builds invocations with
this one code. google-adk is not imported here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from collections.abc import Sequence

from evalkit.errors import AgentError, AgentOverloaded
from evalkit.schema.content import Content
from evalkit.schema.evalset import AppDetails, Invocation, InvocationEvent, InvocationEvents, UsageMetadata

# Error codes that mean the model (or its server) was saturated: the case runs again later.
OVERLOAD_CODES = frozenset({"429", "503", "RESOURCE_EXHAUSTED", "UNAVAILABLE"})
USER_AUTHOR = "user"
DEFAULT_AUTHOR = "agent"  # what ADK assumes for an event without an author


@dataclass
class TurnTiming:
    """Seconds, rounded to milliseconds as ADK reports them."""

    wall: float
    model: float
    tool: float


def invocation_from_events(
    events: Sequence[Any],
    user_content: Content,
    *,
    fallback_id: str,
    started_at: float,
    timing: TurnTiming | None = None,
    app_details: AppDetails | None = None,
) -> Invocation:
    final_event: Any = None
    kept: list[Any] = []
    for event in events:
        if (event.author or DEFAULT_AUTHOR).lower() == USER_AUTHOR:
            if event.content is not None:
                user_content = _whole_content(event.content)
            continue
        parts = event.content.parts if event.content is not None else None
        if parts:
            if event.is_final_response() and _may_replace(final_event, parts):
                final_event = event
            if event.grounding_metadata is not None or any(_is_recorded_part(p) for p in parts):
                kept.append(event)
        elif event.grounding_metadata is not None:
            kept.append(event)
    return Invocation(
        invocation_id=next((e.invocation_id for e in events if e.invocation_id), fallback_id),
        user_content=user_content,
        final_response=to_content(final_event.content) if final_event is not None else None,
        intermediate_data=InvocationEvents(invocation_events=[_recorded(e, e is final_event) for e in kept]),
        creation_timestamp=started_at,
        duration=round(timing.wall, 3) if timing else None,
        model_duration=round(timing.model, 3) if timing else None,
        tool_duration=round(timing.tool, 3) if timing else None,
        app_details=app_details,
    )


def raise_on_error_event(events: Sequence[Any], where: str, source: str) -> None:
    """Raise the case's error for the first event with an error code; return when there is none.

    `source` says who reported it ("the agent", "the agent on the ADK server"). A code
    meaning overload (429, 503, RESOURCE_EXHAUSTED) raises `AgentOverloaded`, so the run
    backs off and plays the case again, as for an HTTP 429.
    """
    for event in events:
        code = getattr(event, "error_code", None)
        if not code:
            continue
        code = str(getattr(code, "value", code))  # ADK's Python events hold genai's FinishReason enum
        message = " ".join(str(getattr(event, "error_message", None) or "").split())
        author = f" (event by {event.author})" if event.author else ""
        text = f"{where}: {source} reported error {code}{': ' + message if message else ''}{author}"
        if code.upper() in OVERLOAD_CODES:
            raise AgentOverloaded(text)
        raise AgentError(text)


def invocations_from_session_events(events: Sequence[Any]) -> list[Invocation]:
    """A whole session's events → one invocation per user turn, as ADK converts a session.

    Events are grouped by invocation id in order of first appearance (ADK's
    `convert_events_to_eval_invocations`); a group without a user message (a state
    update made without running the agent) is no turn and is skipped. Each turn's
    `creation_timestamp` is its user event's time; durations are unknown afterwards.
    """
    groups: dict[str, list[Any]] = {}
    for event in events:
        groups.setdefault(event.invocation_id or "", []).append(event)
    invocations = []
    for index, (invocation_id, group) in enumerate(groups.items()):
        user_event = next(
            (e for e in group if (e.author or DEFAULT_AUTHOR).lower() == USER_AUTHOR and e.content is not None), None
        )
        if user_event is None:
            continue
        invocations.append(
            invocation_from_events(
                group,
                _whole_content(user_event.content),
                fallback_id=invocation_id or f"turn-{index}",
                started_at=float(getattr(user_event, "timestamp", None) or 0.0),
            )
        )
    return invocations


def _may_replace(current: Any, parts: Sequence[Any]) -> bool:
    """A later final response wins, but one without text does not displace one with text."""
    if current is None:
        return True
    current_has_text = any(p.text for p in current.content.parts or ())
    return not current_has_text or any(p.text for p in parts)


def _is_recorded_part(part: Any) -> bool:
    return bool(part.function_call or part.function_response or part.text or part.inline_data)


def _recorded(event: Any, is_final: bool) -> InvocationEvent:
    # The final answer's text already lives in `final_response`; its function calls
    # must stay here, because tool-call views read them from the events.
    drop_content = is_final and not event.get_function_calls()
    return InvocationEvent(
        author=event.author,
        content=None if drop_content else to_content(event.content),
        usage_metadata=_usage(event.usage_metadata),
        model_version=event.model_version,
        grounding_metadata=_json(event.grounding_metadata),
    )


def to_content(content: Any) -> Content | None:
    """A google-genai Content → evalkit's Content (same JSON)."""
    return None if content is None else _whole_content(content)


def _whole_content(content: Any) -> Content:
    if isinstance(content, Content):
        return content.model_copy(deep=True)
    return Content.model_validate(content.model_dump(mode="json", exclude_none=True))


def _usage(usage: Any) -> UsageMetadata | None:
    if usage is None:
        return None
    if isinstance(usage, UsageMetadata):
        return usage
    return UsageMetadata.model_validate(usage.model_dump(mode="json", exclude_none=True))


def _json(value: Any) -> Any:
    if value is None:
        return None
    dump = getattr(value, "model_dump", None)
    return dump(mode="json", exclude_none=True) if callable(dump) else value
