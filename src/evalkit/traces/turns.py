"""One trace's spans → its turns (docs/traces.md, "How traces become cases").

- A turn is an agent span (`invoke_agent`, `invoke_workflow`, an OpenInference AGENT,
  ADK's legacy `invocation`) with no agent span above it; in a trace with no agent span,
  the root span that holds model calls. A top agent span with no name
  and no content of its own (the OpenAI Agents SDK's trace around several runs) wraps
  turns: the agent spans right under it are the turns, one after another, and one whose
  user message is the one before's (a handoff) continues that turn.
- What runs under a turn is the turn; what runs inside a tool (an agent called as a tool)
  is the tool's own business, as in ADK's event stream. `turn_events.py` builds the turn.
- Nothing is guessed: a span whose parent is not in the file, a model or tool span
  outside any agent invocation and an operation not known here are reported (`Unplaced`);
  framework bookkeeping (spans with no conversation content) is counted apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from evalkit.traces.spans import AGENT, BOOKKEEPING, MODEL, OPENINFERENCE, OTHER, TOOL, UNKNOWN, Chain, SlimSpan
from evalkit.traces.turn_events import Turn, build_turn


UNASKED = "tool spans with no recorded arguments that no model call asked for (e.g. a framework's handoff step)"


@dataclass
class Unplaced:
    reason: str
    trace_id: str
    count: int = 1


@dataclass
class TraceTurns:
    turns: list[Turn]
    unplaced: list[Unplaced]
    bookkeeping: int  # spans of frameworks' structure, with no conversation content


def turns_of_trace(spans: list[SlimSpan]) -> TraceTurns:
    by_id = {span.span_id: span for span in spans}
    if not any(span.kind == AGENT for span in spans):
        _roots_as_turns(spans, by_id)
    tops = {span.span_id: _top(span, by_id) for span in spans if span.kind == AGENT}
    # Wrappers that wrap something: a wrapper with no agent under it is a turn of its own.
    wrappers = {top.span_id for below, top in tops.items() if top is not None and top.span_id != below and is_wrapper(top)}
    chains = {span.span_id: _chain(span, by_id, wrappers) for span in spans}
    unplaced: dict[str, Unplaced] = {}

    def note(reason: str, span: SlimSpan) -> None:
        if reason in unplaced:
            unplaced[reason].count += 1
        else:
            unplaced[reason] = Unplaced(reason, span.trace_id)

    members: dict[str, list[SlimSpan]] = {}
    bookkeeping = 0
    for span in spans:
        chain = chains[span.span_id]
        if span.kind == OTHER:
            continue
        if span.kind == BOOKKEEPING:
            bookkeeping += 1
        elif chain.orphan:
            note("spans whose parent span is not in the file", span)
        elif span.kind == UNKNOWN:
            note(f"spans of an unknown operation {span.operation!r}", span)
        elif chain.unit is None:
            if chain.root is None or span.kind != AGENT:
                note(f"{span.kind} spans outside any agent invocation", span)
        elif not chain.inside_tool:
            members.setdefault(chain.unit.span_id, []).append(span)
    turns = [build_turn([by_id[unit] for unit in units], [s for unit in units for s in members[unit]], chains)
             for units in _turn_units(members, by_id)]
    turns.sort(key=lambda turn: turn.start_ns)
    for turn in turns:
        if turn.unasked_tools:
            found = unplaced.setdefault(UNASKED, Unplaced(UNASKED, spans[0].trace_id, 0))
            found.count += turn.unasked_tools
    return TraceTurns(turns, list(unplaced.values()), bookkeeping)


def _roots_as_turns(spans: list[SlimSpan], by_id: dict[str, SlimSpan]) -> None:
    """A trace with no agent span (LlamaIndex workflows, DSPy modules, LangGraph graphs under OpenInference:
    their root is a chain): the root span that holds model calls is the turn. A model call that is its
    own root stays outside any invocation: nothing says which calls make one turn."""
    for span in spans:
        if span.kind != MODEL:
            continue
        top = _top(span, by_id)
        if top is not None and top.kind not in (MODEL, TOOL, AGENT):
            top.kind = AGENT


def _turn_units(members: dict[str, list[SlimSpan]], by_id: dict[str, SlimSpan]) -> list[list[str]]:
    """Units under one wrapper become turns in time order; a unit that repeats the user's message joins the one before."""
    grouped: list[list[str]] = []
    previous: dict[str, tuple[str, list[str] | None]] = {}  # wrapper → (its last turn's key, user texts)
    for unit_id in sorted(members, key=lambda key: by_id[key].start_ns):
        unit = by_id[unit_id]
        said = unit.user_texts or _first_model_texts(members[unit_id])
        wrapper = _wrapper_of(unit, by_id)
        if wrapper is not None and wrapper in previous and said == previous[wrapper][1]:
            next(group for group in grouped if group[0] == previous[wrapper][0]).append(unit_id)
            continue
        grouped.append([unit_id])
        if wrapper is not None:
            previous[wrapper] = (unit_id, said)
    return grouped


def _first_model_texts(spans: list[SlimSpan]) -> list[str] | None:
    models = sorted((s for s in spans if s.kind == MODEL and s.user_texts), key=lambda s: s.start_ns)
    return models[0].user_texts if models else None


def _wrapper_of(unit: SlimSpan, by_id: dict[str, SlimSpan]) -> str | None:
    parent = by_id.get(unit.parent_id)
    while parent is not None and parent.kind != AGENT:
        parent = by_id.get(parent.parent_id)
    return parent.span_id if parent is not None else None


def is_wrapper(span: SlimSpan) -> bool:
    """An agent span that only groups runs: no agent name and no content of its own (a workflow is one turn)."""
    return span.kind == AGENT and (span.operation == "invoke_agent" or span.source == OPENINFERENCE) \
        and not span.agent and not span.has_content and not span.parent_id


def _top(span: SlimSpan, by_id: dict[str, SlimSpan]) -> SlimSpan | None:
    seen = {span.span_id}
    while span.parent_id:
        parent = by_id.get(span.parent_id)
        if parent is None or parent.span_id in seen:
            return None
        seen.add(parent.span_id)
        span = parent
    return span


def _chain(span: SlimSpan, by_id: dict[str, SlimSpan], wrappers: set[str]) -> Chain:
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
    root = line[agents[-1]] if agents else None
    unit_index = agents[-1] if agents else None
    if root is not None and root.span_id in wrappers:
        unit_index = agents[-2] if len(agents) > 1 else None
    return Chain(
        root=root,
        unit=line[unit_index] if unit_index is not None else None,
        orphan=orphan,
        inside_tool=unit_index is not None and any(s.kind == TOOL for s in line[1:unit_index]),
        inside_model=models[-1] if models else None,
        agent=next((s for s in line if s.kind == AGENT and s.agent), None),
    )
