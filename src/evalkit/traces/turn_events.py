"""A turn's spans → the turn: the user's message, the calls and results in order, the final answer.

- Tool calls are taken where the model asked for them (its output messages), so a tool
  span that is missing, has no attributes or holds a framework's payload instead of the
  arguments loses nothing. Tool spans give each call its result or error (matched by call
  id, else by name in order); a tool span no model output asked for is a call of its own.
  A call with no tool span takes its result from the next model call's input.
- Model calls and tool calls become ADK-style events (a model's answer with the calls it
  asked for, then their results), authored by the agent that made them (the nearest named
  agent span), and the Invocation is built by the code that converts a live ADK turn
  (`evalkit.agents.adk_events`): the same final-response rule, the same Form B shape.
- A turn whose agent span failed without an answer is a crashed run: kept with its error,
  so the importer lists it rather than expecting an empty answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evalkit.traces.readers.content import response_object
from evalkit.traces.readers.own_words import chosen_user_text
from evalkit.traces.spans import ADK, ADK_LEGACY, MODEL, TOOL, Chain, SlimSpan

DEFAULT_AUTHOR = "agent"


@dataclass
class Turn:
    conversation: str
    start_ns: int
    service: str
    draft: dict[str, Any] | None  # what its Invocation is built from (`invocation_of`); None when it could not be
    missing: str | None = None  # why not: which content was not recorded
    source: str = ""
    crashed: str | None = None  # the run failed: its error
    recorded: bool = True  # the conversation id was recorded on the spans (not made up from the trace)
    prior: str | None = None  # hash of the history its first model call was sent
    exchange: str | None = None  # hash of the history through its final answer
    unasked_tools: int = 0  # tool spans with no arguments that no recorded model answer asked for (not placed)
    silent_models: bool = False  # it has model calls and none records its messages (they went to logs)


@dataclass
class _Event:
    author: str
    parts: list[dict[str, Any]] = field(default_factory=list)
    responses: list[dict[str, Any]] = field(default_factory=list)


def build_turn(units: list[SlimSpan], group: list[SlimSpan], chains: dict[str, Chain]) -> Turn:
    root = units[0]
    everything = [*units, *group]
    conversation = next((s.conversation for s in everything if s.conversation), None)
    turn = Turn(conversation or f"trace-{root.trace_id}", root.start_ns, root.service, None, source=root.source,
                recorded=conversation is not None)
    models = _model_calls(group, chains)
    tools = sorted((s for s in group if s.kind == TOOL), key=lambda s: s.start_ns)
    # the first and last calls that recorded messages (LlamaIndex also traces the request's preparation)
    first_model = min((m for m in models if m.user_texts), key=lambda s: s.start_ns, default=None)
    last_model = max((m for m in models if m.exchange or m.output), key=lambda s: s.start_ns, default=None)
    model_texts = first_model.user_texts if first_model else None
    turn.silent_models = bool(models) and first_model is None and last_model is None
    user_texts = chosen_user_text(root.said, root.user_texts or model_texts) or root.user_texts or model_texts
    if not user_texts and root.said and len(root.said) == 1:
        user_texts = root.said
    turn.prior = (first_model.prior if first_model else None) or root.prior
    turn.exchange = (last_model.exchange if last_model else None) or root.exchange
    sources = {s.source for s in everything}
    turn.source = next((x for x in (ADK_LEGACY, ADK) if x in sources), root.source)
    if not user_texts:
        turn.missing = "the user's message"
        return turn
    skipped: list[SlimSpan] = []
    events = _events(models, tools, chains, root, skipped)
    turn.unasked_tools = len(skipped)
    if events is None:
        turn.missing = "tool call arguments"
        return turn
    answered = _own_answer(events, units)
    failed = next((u for u in units if u.failed), None)
    if failed is not None and not answered:
        turn.crashed = failed.error or "the agent's span ended in error"
        return turn
    invocation_id = root.invocation_id or next((s.invocation_id for s in group if s.invocation_id), None)
    media = root.user_media or (first_model.user_media if first_model else [])
    turn.draft = {"events": [event.__dict__ for event in events], "user_texts": user_texts, "user_media": media,
                  "invocation_id": invocation_id or "", "fallback_id": invocation_id or root.span_id,
                  "started_at": round(root.start_ns / 1e9, 6)}
    return turn


def _own_answer(events: list[_Event], units: list[SlimSpan]) -> bool:
    """Whether the turn answered: the models' last word when it is text; else the agent's own output
    (an answer given through a tool, `final_answer`). Where the last word wraps the agent's own answer in
    the framework's fields (DSPy's `[[ ## answer ## ]]`), the answer is the agent's."""
    last = next((e for e in reversed(events) if e.parts), None)
    ended_in_text = last is not None and not any("function_call" in p for p in last.parts) \
        and any("text" in p for p in last.parts)
    own = next((u for u in reversed(units) if u.answer or any("text" in p for p in u.output)), None)
    if own is None:
        return any("text" in p for e in events for p in e.parts)
    text = [p for p in own.output if "text" in p][-1:] or [{"text": str(own.answer)}]
    if not ended_in_text:
        events.append(_Event(own.agent or DEFAULT_AUTHOR, text))
    elif last is not None:
        said = "".join(p["text"] for p in last.parts if "text" in p).strip()
        if text[0]["text"].strip() in said and text[0]["text"].strip() != said:
            last.parts = [p for p in last.parts if "text" not in p] + text
    return True


def _events(models: list[SlimSpan], tools: list[SlimSpan], chains: dict[str, Chain], root: SlimSpan,
            skipped: list[SlimSpan]) -> list[_Event] | None:
    events: list[_Event] = []
    pending: list[tuple[_Event, dict[str, Any]]] = []  # calls asked for and not yet answered
    for item in sorted([*models, *tools], key=lambda s: (s.start_ns, s.kind != MODEL)):
        author = _author(item, chains, root)
        if item.kind == MODEL:
            _answer_from_inputs(item, pending)
            event = _Event(author, [p for p in item.output if "text" in p or "function_call" in p])
            events.append(event)
            pending += [(event, p["function_call"]) for p in event.parts if "function_call" in p]
            continue
        asked = _match(item, pending)
        if asked is None:
            if item.tool_args is None and any(m.output for m in models):
                skipped.append(item)  # the model's recorded answers never asked for it: not a call of this turn's
                continue
            if item.tool_args is None:
                return None
            if not events or events[-1].author != author:
                events.append(_Event(author))
            call = {"name": item.tool_name, "args": item.tool_args,
                    **({"id": item.tool_call_id} if item.tool_call_id else {})}
            events[-1].parts.append({"function_call": call})
            asked = (events[-1], call)
        else:
            pending.remove(asked)
        _respond(asked, item.tool_result, item.tool_error)
    return events


def _match(tool: SlimSpan, pending: list[tuple[_Event, dict[str, Any]]]) -> tuple[_Event, dict[str, Any]] | None:
    if tool.tool_call_id:
        by_id = next((p for p in pending if p[1].get("id") == tool.tool_call_id), None)
        if by_id is not None:
            return by_id
    return next((p for p in pending if p[1].get("name") == tool.tool_name), None)


def _answer_from_inputs(model: SlimSpan, pending: list[tuple[_Event, dict[str, Any]]]) -> None:
    """Calls no tool span answered: their results as the next model call was sent them."""
    for response in model.responses:
        asked = next((p for p in pending if response.get("id") and p[1].get("id") == response["id"]), None)
        if asked is None and pending and not response.get("id"):
            asked = pending[0]
        if asked is not None:
            pending.remove(asked)
            _respond(asked, response.get("result"), str(response.get("result")) if response.get("error") else None)


def _respond(asked: tuple[_Event, dict[str, Any]], result: Any, error: str | None) -> None:
    event, call = asked
    if result is None and error is None:
        return
    event.responses.append({"function_response": {k: v for k, v in call.items() if k != "args"}
                            | {"response": response_object(result, error)}})


def invocation_of(draft: dict[str, Any]) -> dict[str, Any]:
    """A turn's Invocation JSON from its draft, built only for the turns an eval set keeps (it is the costly step)."""
    from evalkit.agents.adk_events import invocation_from_events
    from evalkit.schema.adk_session import AdkEvent
    from evalkit.schema.content import Content, Part

    adk_events = []
    for event in draft["events"]:
        if event["parts"]:
            adk_events.append(AdkEvent.model_validate({"author": event["author"], "invocation_id": draft["invocation_id"],
                                                       "content": {"role": "model", "parts": event["parts"]}}))
        if event["responses"]:
            adk_events.append(AdkEvent.model_validate({"author": event["author"], "invocation_id": draft["invocation_id"],
                                                       "content": {"role": "user", "parts": event["responses"]}}))
    user_content = Content(role="user", parts=[*(Part(text=text) for text in draft["user_texts"]),
                                               *(Part.model_validate(media) for media in draft.get("user_media") or ())])
    invocation = invocation_from_events(adk_events, user_content, fallback_id=draft["fallback_id"],
                                        started_at=draft["started_at"])
    return invocation.model_dump(mode="json", exclude_none=True)


def shape_of(draft: dict[str, Any]) -> list[Any]:
    """What makes two turns the same for de-duplication: the user's texts and the calls (name, arguments)."""
    calls = [[part["function_call"].get("name"), part["function_call"].get("args")]
             for event in draft["events"] for part in event["parts"] if "function_call" in part]
    media = draft.get("user_media")
    return [list(draft["user_texts"]), calls, *([media] if media else [])]


def _model_calls(group: list[SlimSpan], chains: dict[str, Chain]) -> list[SlimSpan]:
    """One span per model call: an inner model span (ADK's generate_content in call_llm) fills in what the
    outer lacks; a model span of another agent under a model call (ADK for TypeScript) is that agent's own."""
    outer: dict[str, SlimSpan] = {}
    for span in sorted((s for s in group if s.kind == MODEL), key=lambda s: s.start_ns):
        container = chains[span.span_id].inside_model
        if container is None or chains[container.span_id].agent is not chains[span.span_id].agent:
            outer.setdefault(span.span_id, span)
            continue
        merged = outer.setdefault(container.span_id, container)
        merged.user_texts = merged.user_texts or span.user_texts
        merged.user_media = merged.user_media or span.user_media
        merged.output = merged.output or span.output
        merged.responses = merged.responses or span.responses
        merged.prior, merged.exchange = merged.prior or span.prior, merged.exchange or span.exchange
        merged.captured = merged.captured or span.captured
    return list(outer.values())


def _author(span: SlimSpan, chains: dict[str, Chain], root: SlimSpan) -> str:
    agent = chains[span.span_id].agent
    return (agent.agent if agent else None) or span.agent or root.agent or DEFAULT_AUTHOR
