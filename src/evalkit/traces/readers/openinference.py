"""OpenInference (Arize Phoenix's conventions; `openinference-instrumentation-*`).

`openinference.span.kind` says what a span is: `AGENT` (a turn, or a sub-agent), `LLM` (a
model call), `TOOL`; `CHAIN` and the rest are structure. Messages are flattened into
attributes (`llm.input_messages.0.message.role`, `...content`, `...contents.0.message_content.text`,
`...tool_calls.0.tool_call.function.name` / `.arguments` / `.id`, `...tool_call_id`); an agent's
and a tool's own input and output are `input.value` / `output.value` (JSON or text).
"""

from __future__ import annotations


import re
from typing import Any

from evalkit.traces.otlp_json import RawSpan
from evalkit.traces.readers import own_words
from evalkit.traces.readers.content import fill_model, fill_tool
from evalkit.traces.readers.messages import Message, message, messages, parsed, text_or_none
from evalkit.traces.spans import AGENT, BOOKKEEPING, MODEL, TOOL, SlimSpan

KIND = "openinference.span.kind"
HANDOFF = "handoff to "
_PRIVATE_METHOD = re.compile(r"(.+)\._[a-z]\w*")
_INDEX = re.compile(r"(\d+)\.(.+)")
_METHODS = (".__call__", ".acall", ".__acall__", ".call", ".forward", ".aforward", ".run", ".arun")


def is_openinference(span: RawSpan) -> bool:
    return KIND in span.attributes


def read(span: RawSpan, record: SlimSpan) -> None:
    attributes = span.attributes
    kind = str(attributes.get(KIND, "")).upper()
    if kind == "AGENT" and not _graph_node(attributes):
        # a span with neither a name nor content of its own (the OpenAI Agents SDK's trace around runs) is no agent
        own = "input.value" in attributes or "output.value" in attributes
        record.kind = AGENT
        record.agent = text_or_none(attributes.get("agent.name")) or (_callable(span.name) if own else None)
        inputs = _flattened(attributes, "llm.input_messages.")
        if not any(m.get("parts") for m in inputs or ()):
            inputs = messages(attributes.get("input.value"), "user")
        fill_model(record, inputs, messages(attributes.get("output.value"), "assistant"))
        record.output = [p for p in record.output if "text" in p][-1:]  # the agent's answer, not its history
        _own_words(span, record)
        if not record.output and record.answer:  # a plain-text answer, or one under an answer-like key
            record.output = [{"text": record.answer}]
    elif kind == "LLM":
        record.kind = MODEL
        fill_model(record, _flattened(attributes, "llm.input_messages."),
                   _flattened(attributes, "llm.output_messages."))
    elif kind == "TOOL" and span.name.startswith(HANDOFF):
        record.kind = BOOKKEEPING  # the OpenAI Agents SDK's handoff step: the call is on the model's answer
    elif kind == "TOOL":
        record.kind, record.tool_name = TOOL, text_or_none(attributes.get("tool.name")) or _callable(span.name)
        record.tool_call_id = text_or_none(attributes.get("tool_call.id"))
        # input.value is the arguments when the tool took an object; LangChain's single-argument tools
        # record the bare value ("Paris"), and then the arguments come from the model's call.
        arguments = parsed(attributes.get("input.value"))
        fill_tool(record, arguments if isinstance(arguments, dict) else None, attributes.get("output.value"),
                  span.failed, span.status_message)
    else:
        record.kind = BOOKKEEPING
        if not span.parent_id:  # a root may be the turn when the trace has no agent span (turns.py)
            _own_words(span, record)


def _own_words(span: RawSpan, record: SlimSpan) -> None:
    # the output's texts too: CrewAI's task output, not its input, holds the task's description
    said = [*(own_words.said(span.attributes.get("input.value")) or ()),
            *(own_words.said(span.attributes.get("output.value")) or ())]
    record.said = said[:own_words.MAX_CANDIDATES] or None
    record.answer = own_words.answer(span.attributes.get("output.value"))


def _callable(name: str) -> str:
    """A span named after the method that ran it (DSPy's `get_weather.__call__`, smolagents' `weather_agent.run`)."""
    for suffix in _METHODS:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[:-len(suffix)]
    private = _PRIVATE_METHOD.fullmatch(name)  # CrewAI's `weather desk._execute_core`
    return private[1] if private else name


def _graph_node(attributes: dict[str, Any]) -> bool:
    """LangGraph marks its nodes (`agent`, `tools`) AGENT too: a node is the graph's structure, not a sub-agent."""
    metadata = parsed(attributes.get("metadata"))
    return isinstance(metadata, dict) and "langgraph_node" in metadata


def _flattened(attributes: dict[str, Any], prefix: str) -> list[Message] | None:
    """`llm.input_messages.N.message.*` attributes back into messages, in index order."""
    by_index: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        if not key.startswith(prefix):
            continue
        found = _INDEX.fullmatch(key[len(prefix):])
        if found:
            _put(by_index.setdefault(int(found[1]), {}), found[2].split("."), value)
    if not by_index:
        return None
    found_messages = []
    for index in sorted(by_index):
        raw = by_index[index].get("message") or {}
        item: dict[str, Any] = {"role": raw.get("role"), "content": raw.get("content"),
                                "tool_call_id": raw.get("tool_call_id")}
        contents = raw.get("contents") or {}
        if item["content"] is None and contents:
            item["content"] = [{"type": "text", "text": c.get("message_content", {}).get("text")}
                               for _, c in sorted(contents.items()) if isinstance(c, dict)]
        calls = raw.get("tool_calls") or {}
        item["tool_calls"] = [{"id": (c.get("tool_call") or {}).get("id"),
                               "function": (c.get("tool_call") or {}).get("function") or {}}
                              for _, c in sorted(calls.items()) if isinstance(c, dict)]
        converted = message(item)
        if converted is not None:
            found_messages.append(converted)
    return found_messages


def _put(holder: dict[Any, Any], path: list[str], value: Any) -> None:
    """Nested dicts from a dotted path; numbered steps (`tool_calls.0`) become int keys."""
    for step in path[:-1]:
        key: Any = int(step) if step.isdigit() else step
        holder = holder.setdefault(key, {})
        if not isinstance(holder, dict):
            return
    holder[int(path[-1]) if path[-1].isdigit() else path[-1]] = value
