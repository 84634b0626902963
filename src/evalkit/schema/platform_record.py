"""An evalkit case and the agent's turns → an Agent Platform eval case, as agents-cli writes it.

One conversion for the three places that need agents-cli's view of a case: the `instance`
handed to a `custom_function`, the `{agent_data}` of a `prompt_template`, and
`evalkit export agent-platform` (docs/agent-platform.md). Events are written as
agents-cli's `eval generate` writes what an ADK server streamed: each authored by the
agent (tool calls with role `model`, tool results with role `user`), the final answer
last, `thought_signature` left out; a case with a `prompt` gets its agent events in
`turn_0`, a conversation gets one turn per user message, the history's turns first.
"""

from __future__ import annotations

from typing import Any

from evalkit.schema.content import Content, Part
from evalkit.schema.evalset import EvalCase, IntermediateData, Invocation, InvocationEvent, InvocationEvents

DEFAULT_AGENT = "root_agent"  # agents-cli's name for the agent when the server names none
# agent_platform keys that evalkit added while reading a dataset (evalkit.loading.platform_cases),
# as opposed to the case's own fields, which are written back as they were.
BOOKKEEPING = ("agents", "turn_layout", "other_responses")


def platform_case(case: EvalCase, turns: list[Invocation] | None, *, evalkit_fields: dict[str, Any] | None = None
                  ) -> dict[str, Any]:
    """`case` as an Agent Platform eval case; `turns` are the agent's answers (None: none yet)."""
    kept = dict(case.agent_platform or {})
    agent = _agent_name(kept, turns)
    expected = case.conversation or []
    out: dict[str, Any] = {"eval_case_id": case.eval_id}
    history = list(case.prior_events or [])
    single = not history and len(expected) <= 1 and expected
    if single:
        out["prompt"] = _dump(expected[0].user_content)
    last_expected = expected[-1] if expected else None
    if last_expected is not None and last_expected.final_response is not None:
        out["reference"] = {"response": _dump(last_expected.final_response)}
    if turns and turns[-1].final_response is not None:
        out["responses"] = [{"response": _dump(turns[-1].final_response)}]
        out["responses"] += [{"response": other} for other in kept.get("other_responses", [])]
    for key, value in kept.items():
        if key not in BOOKKEEPING:
            out[key] = value
    agent_data = _agent_data(history, expected, turns, agent, kept, single=bool(single))
    if agent_data is not None:
        out["agent_data"] = agent_data
    if evalkit_fields:
        out["evalkit"] = evalkit_fields
    return out


def _agent_data(history: list[InvocationEvent], expected: list[Invocation], turns: list[Invocation] | None,
                agent: str, kept: dict[str, Any], *, single: bool) -> dict[str, Any] | None:
    conversation: list[dict[str, Any]] = []
    read_layout = kept.get("turn_layout")
    layout: list[Any] = read_layout if isinstance(read_layout, list) else []
    if history:
        conversation = _history_turns(history, layout)
    later = layout[len(conversation):]  # the read turns after the history's: the last message's own
    if single:
        if turns:
            conversation.append({"turn_index": 0, "turn_id": "turn_0", "events": agent_events(turns[0], agent)})
    else:
        played = turns or []
        for index, turn in enumerate(expected):
            events = [{"author": "user", "content": _dump(turn.user_content)}]
            if index < len(played):
                events += agent_events(played[index], agent)
            elif turn.final_response is not None and index < len(expected) - 1:
                # An earlier turn nobody played: its expected answer stands for what the agent said.
                events += agent_events(turn, agent)
            if index == 0 and conversation and _open(conversation, layout):
                conversation[-1]["events"] += events  # the history's open turn ends with this message
                continue
            position = len(conversation)
            if index == 0 and later:
                turn_index, turn_id = later[0][0], later[0][1]
                conversation.append({**({"turn_index": turn_index} if turn_index is not None else {}),
                                     **({"turn_id": turn_id} if turn_id is not None else {}), "events": events})
                continue
            conversation.append({"turn_index": position, "turn_id": f"turn_{position}", "events": events})
    if not conversation and not kept.get("agents"):
        return None
    data: dict[str, Any] = {}
    if kept.get("agents"):
        data["agents"] = kept["agents"]
    data["turns"] = conversation
    return data


def _history_turns(history: list[InvocationEvent], layout: list[Any]) -> list[dict[str, Any]]:
    """The history's events in the turns they were read from, when the layout still fits."""
    events = [{"author": event.author, "content": _dump(event.content)} for event in history]
    sizes = [entry[2] for entry in layout]
    turns: list[dict[str, Any]] = []
    start = 0
    for position, entry in enumerate(layout):
        if start >= len(events):
            break
        size = min(sizes[position], len(events) - start)
        index, turn_id = entry[0], entry[1]
        turns.append({**({"turn_index": index} if index is not None else {}),
                      **({"turn_id": turn_id} if turn_id is not None else {}), "events": events[start:start + size]})
        start += size
    if start < len(events):
        turns.append({"turn_index": len(turns), "events": events[start:]})
    return turns


def _open(conversation: list[dict[str, Any]], layout: list[Any]) -> bool:
    """Whether the message answered belongs in the history's last turn: that turn held more events
    when it was read, or, read from no dataset, the history ends with the user."""
    events = conversation[-1]["events"]
    if len(layout) >= len(conversation):
        return len(events) < layout[len(conversation) - 1][2]
    return not events or events[-1]["author"] == "user"


def agent_events(turn: Invocation, agent: str) -> list[dict[str, Any]]:
    """The agent's events of one turn: its steps, then its final answer."""
    data = turn.intermediate_data
    events: list[dict[str, Any]] = []
    if isinstance(data, InvocationEvents):
        for event in data.invocation_events:
            if event.content is not None:
                events.append({"author": event.author or agent, "content": _dump(event.content)})
    elif isinstance(data, IntermediateData):
        for call in data.tool_uses:
            events.append({"author": agent, "content": _dump(Content(role="model", parts=[Part(function_call=call)]))})
        for response in data.tool_responses:
            events.append({"author": agent,
                           "content": _dump(Content(role="user", parts=[Part(function_response=response)]))})
        for author, parts in data.intermediate_responses:
            events.append({"author": author or agent, "content": _dump(Content(role="model", parts=list(parts)))})
    if turn.final_response is not None:
        events.append({"author": agent, "content": _dump(turn.final_response.model_copy(
            update={"role": turn.final_response.role or "model"}))})
    return events


def _agent_name(kept: dict[str, Any], turns: list[Invocation] | None) -> str:
    for turn in turns or ():
        if isinstance(turn.intermediate_data, InvocationEvents):
            for event in turn.intermediate_data.invocation_events:
                if event.author and event.author != "user":
                    return event.author
    agents = kept.get("agents")
    if isinstance(agents, dict) and agents:
        return str(next(iter(agents)))
    return DEFAULT_AGENT


def _dump(content: Content | None) -> dict[str, Any] | None:
    if content is None:
        return None
    data = content.model_dump(mode="json", exclude_none=True)
    for part in data.get("parts") or ():
        part.pop("thought_signature", None)  # as `eval generate` strips them
    return data
