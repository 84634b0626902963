"""One trace's spans → its turns: one per top-level agent invocation (docs/traces.md, "How a trace becomes turns").

- A turn is an agent span (`invoke_agent`, `invoke_workflow`, ADK's legacy `invocation`)
  with no agent span above it. What runs under it is the turn; what runs inside a tool
  (an agent called as a tool, say) is the tool's own business, as in ADK's event stream.
- Model calls and tool calls become ADK-style events (a model's answer with the tool
  calls that followed it, then their results), authored by the agent that made them,
  and the Invocation is built from them by the code that converts a live ADK turn
  (`evalkit.agents.adk_events`): the same final-response rule, the same Form B shape, so
  sub-agents' calls are attributed exactly as in a run.
- Nothing is guessed: a span whose parent is not in the file, a model or tool span
  outside any agent invocation, an operation not known here and a turn whose content
  was not recorded are reported (`Unplaced`), never filled in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evalkit.importers.otel.genai_spans import (
    ADK,
    ADK_LEGACY,
    AGENT,
    MODEL,
    OTHER,
    TOOL,
    UNKNOWN,
    SlimSpan,
)

DEFAULT_AUTHOR = "agent"


@dataclass
class Turn:
    conversation: str
    start_ns: int
    service: str
    invocation: dict[str, Any] | None  # the Invocation's JSON; None when the turn could not be built
    missing: str | None = None  # why not: which content was not recorded
    source: str = ""


@dataclass
class Unplaced:
    reason: str
    trace_id: str
    count: int = 1


@dataclass
class _Chain:
    root: SlimSpan | None  # the top-most agent span above (or at) the span
    orphan: bool  # the chain ends at a parent that is not in the file
    inside_tool: bool  # a tool span lies between the span and its root
    inside_model: SlimSpan | None  # the outermost model span above the span, if any
    agent: SlimSpan | None  # the nearest agent span at or above the span


@dataclass
class _Event:
    author: str
    parts: list[dict[str, Any]] = field(default_factory=list)
    responses: list[dict[str, Any]] = field(default_factory=list)


def turns_of_trace(spans: list[SlimSpan]) -> tuple[list[Turn], list[Unplaced]]:
    by_id = {span.span_id: span for span in spans}
    chains = {span.span_id: _chain(span, by_id) for span in spans}
    unplaced: dict[str, Unplaced] = {}

    def note(reason: str, span: SlimSpan) -> None:
        if reason in unplaced:
            unplaced[reason].count += 1
        else:
            unplaced[reason] = Unplaced(reason, span.trace_id)

    members: dict[str, list[SlimSpan]] = {}
    for span in spans:
        chain = chains[span.span_id]
        if span.kind == OTHER:
            continue
        if chain.orphan:
            note("spans whose parent span is not in the file", span)
        elif span.kind == UNKNOWN:
            note(f"spans of an unknown operation {span.operation!r}", span)
        elif chain.root is None:
            note(f"{span.kind} spans outside any agent invocation", span)
        elif not chain.inside_tool:
            members.setdefault(chain.root.span_id, []).append(span)
    turns = [_turn(by_id[root_id], group, chains) for root_id, group in members.items()]
    turns.sort(key=lambda turn: turn.start_ns)
    return turns, list(unplaced.values())


def _chain(span: SlimSpan, by_id: dict[str, SlimSpan]) -> _Chain:
    line = [span]  # the span, then its ancestors, nearest first
    seen = {span.span_id}
    orphan = False
    while line[-1].parent_id:
        parent = by_id.get(line[-1].parent_id)
        if parent is None or parent.span_id in seen:  # a parent loop has no top either
            orphan = True
            break
        seen.add(parent.span_id)
        line.append(parent)
    agents = [index for index, s in enumerate(line) if s.kind == AGENT]
    models = [s for s in line[1:] if s.kind == MODEL]
    return _Chain(
        root=line[agents[-1]] if agents else None,
        orphan=orphan,
        inside_tool=bool(agents) and any(s.kind == TOOL for s in line[1:agents[-1]]),
        inside_model=models[-1] if models else None,
        agent=line[agents[0]] if agents else None,
    )


def _turn(root: SlimSpan, group: list[SlimSpan], chains: dict[str, _Chain]) -> Turn:
    from evalkit.agents.adk_events import invocation_from_events
    from evalkit.schema.adk_session import AdkEvent
    from evalkit.schema.content import Content, Part

    conversation = root.conversation or next((s.conversation for s in group if s.conversation), None)
    turn = Turn(conversation or f"trace-{root.trace_id}", root.start_ns, root.service, None, source=root.source)
    models = _model_calls(group, chains)
    tools = sorted((s for s in group if s.kind == TOOL), key=lambda s: s.start_ns)
    first_model = min(models, key=lambda s: s.start_ns, default=None)
    user_texts = root.user_texts or (first_model.user_texts if first_model else None)
    sources = {s.source for s in group}
    turn.source = next((x for x in (ADK_LEGACY, ADK) if x in sources), root.source)
    if not user_texts:
        turn.missing = "the user's message"
        return turn
    if any(not tool.captured for tool in tools):
        turn.missing = "tool call arguments"
        return turn

    events: list[_Event] = []
    for item in sorted([*models, *tools], key=lambda s: (s.start_ns, s.kind != MODEL)):
        author = _author(item, chains, root)
        if item.kind == MODEL:
            events.append(_Event(author, [p for p in item.output if "text" in p]))
            continue
        if not events or events[-1].author != author:  # calls join the answer of their agent's model call that asked
            events.append(_Event(author))
        call = {"name": item.tool_name, "args": item.tool_args or {}, **({"id": item.tool_call_id} if item.tool_call_id else {})}
        events[-1].parts.append({"function_call": call})
        if item.tool_result is not None:
            events[-1].responses.append({"function_response": {k: v for k, v in call.items() if k != "args"}
                                         | {"response": item.tool_result}})
    if not any("text" in p for e in events for p in e.parts) and any("text" in p for p in root.output):
        events.append(_Event(root.agent or DEFAULT_AUTHOR, [p for p in root.output if "text" in p]))

    invocation_id = root.invocation_id or next((s.invocation_id for s in group if s.invocation_id), None)
    adk_events = []
    for event in events:
        if event.parts:
            adk_events.append(AdkEvent.model_validate(
                {"author": event.author, "invocation_id": invocation_id or "", "content": {"role": "model", "parts": event.parts}}))
        if event.responses:
            adk_events.append(AdkEvent.model_validate(
                {"author": event.author, "invocation_id": invocation_id or "", "content": {"role": "user", "parts": event.responses}}))
    user_content = Content(role="user", parts=[Part(text=text) for text in user_texts])
    invocation = invocation_from_events(adk_events, user_content, fallback_id=invocation_id or root.span_id,
                                        started_at=round(root.start_ns / 1e9, 6))
    turn.invocation = invocation.model_dump(mode="json", exclude_none=True)
    return turn


def _model_calls(group: list[SlimSpan], chains: dict[str, _Chain]) -> list[SlimSpan]:
    """One span per model call: an inner model span (ADK's generate_content in call_llm) fills in what the outer lacks."""
    outer: dict[str, SlimSpan] = {}
    for span in sorted((s for s in group if s.kind == MODEL), key=lambda s: s.start_ns):
        container = chains[span.span_id].inside_model
        if container is None:
            outer.setdefault(span.span_id, span)
            continue
        merged = outer.setdefault(container.span_id, container)
        merged.user_texts = merged.user_texts or span.user_texts
        merged.output = merged.output or span.output
        merged.captured = merged.captured or span.captured
    return list(outer.values())


def _author(span: SlimSpan, chains: dict[str, _Chain], root: SlimSpan) -> str:
    if span.agent:
        return span.agent
    agent = chains[span.span_id].agent
    return (agent.agent if agent else None) or root.agent or DEFAULT_AUTHOR
