"""The conversation so far, as text for the simulated user and for its judge.

Two formats, each as ADK writes it (docs/adk-parity.md, "User simulator"), because the
replies of a model depend on what it was shown:

* `simulator_history`: one entry per text part, `<author>: <text>`, the user's parts
  as `user`, the agent's under the name of the agent that wrote them; thoughts left
  out; with `include_function_calls`, tool calls as
  `<author> called tool '<name>' with args: <args>` and results as
  `Tool '<name>' returned: <response>`. Entries are separated by blank lines.
* `judge_history`: per turn, `user: <text>` and `<role>: <final response text>`.
"""

from __future__ import annotations

from collections.abc import Sequence

from evalkit.schema.content import Content, Part
from evalkit.schema.evalset import Invocation, InvocationEvent, InvocationEvents

USER_AUTHOR = "user"
DEFAULT_AGENT_AUTHOR = "agent"


def simulator_history(invocations: Sequence[Invocation], include_function_calls: bool = False) -> str:
    entries: list[str] = []
    for invocation in invocations:
        entries += _content_entries(USER_AUTHOR, invocation.user_content, include_function_calls)
        events = _events(invocation)
        final_in_events = False
        for event in events:
            if event.content is None:
                continue
            if invocation.final_response is not None and event.content == invocation.final_response:
                final_in_events = True
            entries += _content_entries(event.author, event.content, include_function_calls)
        if invocation.final_response is not None and not final_in_events:
            entries += _content_entries(_final_author(events), invocation.final_response, include_function_calls)
    return "\n\n".join(entries)


def judge_history(invocations: Sequence[Invocation]) -> str:
    entries: list[str] = []
    for invocation in invocations:
        if invocation.user_content.parts:
            entries.append(f"{USER_AUTHOR}: {invocation.user_content.text()}")
        final = invocation.final_response
        if final is not None:
            entries.append(f"{final.role}: {final.text()}")
    return "\n\n".join(entries)


def _events(invocation: Invocation) -> list[InvocationEvent]:
    data = invocation.intermediate_data
    return list(data.invocation_events) if isinstance(data, InvocationEvents) else []


def _final_author(events: list[InvocationEvent]) -> str:
    """Who wrote the final answer.

    Adapters that record ADK events keep the final answer's event without its content
    (the text lives in `final_response`), so the last content-less event names its
    author. Other turns fall back to the generic name that turn-protocol agents use.
    """
    for event in reversed(events):
        if event.content is None and event.author:
            return event.author
    return DEFAULT_AGENT_AUTHOR


def _content_entries(author: str, content: Content | None, include_function_calls: bool) -> list[str]:
    if content is None:
        return []
    return [entry for part in content.parts or () if (entry := _part_entry(author, part, include_function_calls))]


def _part_entry(author: str, part: Part, include_function_calls: bool) -> str | None:
    if part.text and not part.thought:
        return f"{author}: {part.text}"
    if include_function_calls and part.function_call is not None:
        call = part.function_call
        return f"{author} called tool '{call.name}' with args: {call.args}"
    if include_function_calls and part.function_response is not None:
        response = part.function_response
        return f"Tool '{response.name}' returned: {response.response}"
    return None
