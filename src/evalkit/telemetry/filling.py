"""A turn's spans → what its reply left out: tool calls and their responses, authors, usage.

The spans are read into a turn as `evalkit import otel` reads a file's (evalkit.traces:
turns_of_trace, build_turn), after the span evalkit made for the turn is taken off their
top (the agent's top spans hang under it, and it is never exported). Per turn, a reply
that holds any tool call takes no call from telemetry: what the protocol reported stands.
Each call taken from the spans says so: `"source": "otel"` on its `function_call` (or its
`tool_uses` entry, in a turn written in that form). Usage comes from the outermost model
spans that record it (an inner span repeating the same call is not counted twice), and
only when the reply reported none.
"""

from __future__ import annotations

from typing import Any

from evalkit.schema.content import Content
from evalkit.schema.evalset import IntermediateData, Invocation, InvocationEvent, InvocationEvents, UsageMetadata
from evalkit.schema.views import tool_calls
from evalkit.telemetry.usage import ModelUsage
from evalkit.traces.spans import MODEL, SlimSpan
from evalkit.traces.turns import turns_of_trace

OTEL_SOURCE = "otel"
MODEL_ROLE, USER_ROLE = "model", "user"
DEFAULT_AUTHOR = "agent"


def fill_turn(invocation: Invocation, spans: list[SlimSpan], usage: dict[str, ModelUsage]) -> int:
    """Fill `invocation` from its turn's spans, in place; return the tool calls taken from them."""
    read = _events_of(spans)
    calls = 0
    if not tool_calls(invocation):
        taken = [event for event in read if _is_tool_event(event)]
        calls = len([part for event in taken if event.content is not None for part in event.content.parts or ()
                     if part.function_call is not None])
        if taken:
            _put_events(invocation, taken)
    if not _has_usage(invocation):
        _put_usage(invocation, spans, usage, read)
    return calls


def wants_spans(invocation: Invocation) -> bool:
    """Whether the turn's spans could add anything to its reply: tool calls, or usage where it has room for it."""
    data = invocation.intermediate_data
    return not tool_calls(invocation) or (not _has_usage(invocation) and not isinstance(data, IntermediateData))


def _events_of(spans: list[SlimSpan]) -> list[InvocationEvent]:
    """The events of every turn the spans make, in time order, with only their tool calls and responses.

    Built straight from each turn's draft, each part validated once: the whole Invocation that
    `import otel` builds (final answer, texts, a JSON round trip) is not needed here."""
    ids = {span.span_id for span in spans}
    by_trace: dict[str, list[SlimSpan]] = {}
    for span in spans:
        if span.parent_id and span.parent_id not in ids:
            span.parent_id = ""  # its parent is evalkit's turn span (or one its exporter never sent): a top span
        by_trace.setdefault(span.trace_id, []).append(span)
    drafts = sorted(((turn.start_ns, turn.draft) for trace in by_trace.values() for turn in turns_of_trace(trace).turns
                     if turn.draft is not None), key=lambda item: item[0])
    events: list[InvocationEvent] = []
    for _, draft in drafts:
        for event in draft["events"]:
            calls = [{"function_call": part["function_call"] | {"source": OTEL_SOURCE}}
                     for part in event["parts"] if "function_call" in part]
            # As a live turn is recorded: the model's calls, then their responses as the user's part.
            for role, parts in ((MODEL_ROLE, calls), (USER_ROLE, event["responses"])):
                if parts:
                    events.append(InvocationEvent(author=event["author"],
                                                  content=Content.model_validate({"role": role, "parts": parts})))
    return events


def _is_tool_event(event: InvocationEvent) -> bool:
    return event.content is not None and bool(event.content.parts)


def _put_events(invocation: Invocation, events: list[InvocationEvent]) -> None:
    data = invocation.intermediate_data
    if isinstance(data, IntermediateData):  # the hand-written form: calls and responses in their lists
        for event in events:
            for part in event.content.parts or ():  # type: ignore[union-attr]  # _is_tool_event
                if part.function_call is not None:
                    data.tool_uses.append(part.function_call)
                if part.function_response is not None:
                    data.tool_responses.append(part.function_response)
        return
    kept = data.invocation_events if isinstance(data, InvocationEvents) else []
    invocation.intermediate_data = InvocationEvents(invocation_events=[*events, *kept])


def _has_usage(invocation: Invocation) -> bool:
    data = invocation.intermediate_data
    return isinstance(data, InvocationEvents) and any(e.usage_metadata is not None for e in data.invocation_events)


def _put_usage(invocation: Invocation, spans: list[SlimSpan], usage: dict[str, ModelUsage],
               events: list[InvocationEvent]) -> None:
    if not usage or isinstance(invocation.intermediate_data, IntermediateData):
        return
    by_id = {span.span_id: span for span in spans}
    added: list[InvocationEvent] = []
    for span in sorted(spans, key=lambda s: s.start_ns):
        found = usage.get(span.span_id)
        if found is None or span.kind != MODEL or _under_counted_model(span, by_id, usage):
            continue
        added.append(InvocationEvent(
            author=span.agent or (events[0].author if events else DEFAULT_AUTHOR),
            usage_metadata=UsageMetadata(prompt_token_count=found.input_tokens,
                                         candidates_token_count=found.output_tokens),
            model_version=found.model))
    if added:
        data = invocation.intermediate_data
        kept = data.invocation_events if isinstance(data, InvocationEvents) else []
        invocation.intermediate_data = InvocationEvents(invocation_events=[*kept, *added])


def _under_counted_model(span: SlimSpan, by_id: dict[str, SlimSpan], usage: dict[str, Any]) -> bool:
    parent = by_id.get(span.parent_id)
    seen = {span.span_id}
    while parent is not None and parent.span_id not in seen:
        if parent.kind == MODEL and parent.span_id in usage:
            return True
        seen.add(parent.span_id)
        parent = by_id.get(parent.parent_id)
    return False

