"""Derived views of an Invocation that criteria read (docs/adk-parity.md, "Invocations and events").

Both shapes of `intermediate_data` are flattened here, once, so no criterion needs to
know which form a file used.
"""

from __future__ import annotations

from evalkit.schema.content import Content, FunctionCall, FunctionResponse, content_text
from evalkit.schema.evalset import IntermediateData, Invocation, InvocationEvent, InvocationEvents, UsageMetadata


def tool_calls(invocation: Invocation) -> list[FunctionCall]:
    """Every tool call of the turn, in order (transfer_to_agent and the like included)."""
    data = invocation.intermediate_data
    if isinstance(data, IntermediateData):
        return list(data.tool_uses)
    return _event_parts(data, "function_call")


def tool_responses(invocation: Invocation) -> list[FunctionResponse]:
    data = invocation.intermediate_data
    if isinstance(data, IntermediateData):
        return list(data.tool_responses)
    return _event_parts(data, "function_response")


def _event_parts(data: InvocationEvents | None, kind: str) -> list:
    """The `kind` payloads (function_call / function_response) of every Form B event's parts."""
    if not isinstance(data, InvocationEvents):
        return []
    return [
        getattr(part, kind)
        for event in data.invocation_events
        if event.content is not None
        for part in event.content.parts or ()
        if getattr(part, kind) is not None
    ]


def tool_calls_with_responses(
    invocation: Invocation,
) -> list[tuple[FunctionCall, FunctionResponse | None]]:
    """Pair calls with responses by id, as ADK does (E14: id-less calls share one slot)."""
    by_id: dict[str | None, FunctionResponse] = {}
    for response in tool_responses(invocation):
        by_id[response.id] = response
    return [(call, by_id.get(call.id)) for call in tool_calls(invocation)]


def intermediate_texts(invocation: Invocation) -> list[str]:
    """Non-empty texts the agent produced before its final response."""
    data = invocation.intermediate_data
    texts: list[str] = []
    if isinstance(data, IntermediateData):
        for _author, parts in data.intermediate_responses:
            text = "\n".join(p.text for p in parts if p.text)
            if text:
                texts.append(text)
    elif isinstance(data, InvocationEvents):
        for event in data.invocation_events:
            text = content_text(event.content)
            if text:
                texts.append(text)
    return texts


def final_text(invocation: Invocation) -> str:
    return content_text(invocation.final_response)


def final_text_with_intermediate(invocation: Invocation) -> str | None:
    """Intermediate texts then the final text, newline-joined; None when all are empty."""
    texts = intermediate_texts(invocation)
    final = final_text(invocation)
    if final:
        texts.append(final)
    return "\n".join(texts) or None


def response_text(invocation: Invocation, include_intermediate: bool) -> str:
    """The answer a judge sees: the final text, or (ADK's flag) everything the agent said."""
    if include_intermediate:
        return final_text_with_intermediate(invocation) or ""
    return final_text(invocation)


def user_text(invocation: Invocation) -> str:
    return content_text(invocation.user_content)


def usage_tokens(usage: UsageMetadata) -> tuple[int, int]:
    """A usage record's input tokens (prompt + tool-use prompt) and output tokens (candidates +
    thoughts, billed as output): what `cost_v1` prices and a run's `--max-tokens` counts."""
    return ((usage.prompt_token_count or 0) + (usage.tool_use_prompt_token_count or 0),
            (usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0))


def usage_records(invocation: Invocation) -> list[UsageMetadata]:
    """Token usage reports of a Form B turn (Form A carries none)."""
    data = invocation.intermediate_data
    if not isinstance(data, InvocationEvents):
        return []
    return [e.usage_metadata for e in data.invocation_events if e.usage_metadata is not None]


def authored_tool_calls(invocation: Invocation) -> list[tuple[str | None, FunctionCall]]:
    """Every tool call of the turn with the agent that made it (None for Form A, which has no authors)."""
    data = invocation.intermediate_data
    if isinstance(data, IntermediateData):
        return [(None, call) for call in data.tool_uses]
    if not isinstance(data, InvocationEvents):
        return []
    return [
        (event.author, part.function_call)
        for event in data.invocation_events
        if event.content is not None
        for part in event.content.parts or ()
        if part.function_call is not None
    ]


def turns_of_events(events: list[InvocationEvent]) -> list[Invocation]:
    """A conversation's events (a case's `prior_events`) as turns: one per user message, holding
    the events after it, the agent's last text among them as its final response."""
    turns: list[tuple[Content, list[InvocationEvent]]] = []
    for event in events:
        if event.author == "user" and event.content is not None and event.content.text():
            turns.append((event.content, []))
            continue
        if not turns:
            turns.append((Content(role="user", parts=[]), []))
        turns[-1][1].append(event)
    result = []
    for user_content, answer in turns:
        spoken = [e for e in answer if e.author != "user" and e.content is not None and e.content.text()]
        final = spoken[-1] if spoken else None
        steps = [e for e in answer if e is not final]
        result.append(Invocation(user_content=user_content, final_response=final.content if final else None,
                                 intermediate_data=InvocationEvents(invocation_events=steps)))
    return result
