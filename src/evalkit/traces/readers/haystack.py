"""Haystack's own tracing (`haystack.tracing`, into OpenTelemetry through opentelemetry-haystack).

Span names say what a span is: `haystack.agent.run` (a turn: `haystack.agent.input` /
`.output` hold its messages), `haystack.agent.step.llm` (a model call: `….llm.input`
`{"messages"}`, `….llm.output` `{"replies"}`), `haystack.agent.step.tool` (a tool call:
`haystack.tool.name`, `….tool.input` / `.output`, `haystack.tool.error`), and outside an
agent `haystack.component.run` (a chat generator is a model call: `haystack.component.input`
/ `.output`) under `haystack.pipeline.run`. Content is recorded when content tracing is on
(`HAYSTACK_CONTENT_TRACING_ENABLED=true`). Messages are Haystack's `ChatMessage.to_dict()`.
"""

from __future__ import annotations

from typing import Any

from evalkit.traces.otlp_json import RawSpan
from evalkit.traces.readers import own_words
from evalkit.traces.readers.content import fill_model, fill_tool
from evalkit.traces.readers.messages import Message, messages, parsed, text_or_none
from evalkit.traces.spans import AGENT, BOOKKEEPING, MODEL, TOOL, SlimSpan

PREFIX = "haystack."
AGENT_RUN = "haystack.agent.run"
MODEL_STEP = "haystack.agent.step.llm"
TOOL_STEP = "haystack.agent.step.tool"
COMPONENT = "haystack.component.run"


def is_haystack(span: RawSpan) -> bool:
    return span.name.startswith(PREFIX)


def read(span: RawSpan, record: SlimSpan) -> None:
    attributes = span.attributes
    if span.name == AGENT_RUN:
        record.kind = AGENT
        inputs = _messages(attributes.get("haystack.agent.input"), "messages")
        answer = [m for m in _messages(attributes.get("haystack.agent.output"), "messages") or ()
                  if m.get("role") == "assistant"][-1:]
        fill_model(record, inputs, answer or None)
        record.output = [p for p in record.output if "text" in p][-1:]  # the answer, not the calls before it
    elif span.name == MODEL_STEP:
        record.kind = MODEL
        fill_model(record, _messages(attributes.get(f"{MODEL_STEP}.input"), "messages"),
                   _messages(attributes.get(f"{MODEL_STEP}.output"), "replies"))
    elif span.name == TOOL_STEP:
        record.kind, record.tool_name = TOOL, text_or_none(attributes.get("haystack.tool.name"))
        arguments = next((attributes[key] for key in (f"{TOOL_STEP}.input", "haystack.tool.input") if key in attributes),
                         None)
        outcome = next((attributes[key] for key in (f"{TOOL_STEP}.output", "haystack.tool.output") if key in attributes),
                       None)
        failed = span.failed or str(attributes.get("haystack.tool.error")).lower() == "true"
        error = parsed(outcome)
        message = error["error"] if failed and isinstance(error, dict) and isinstance(error.get("error"), str) else ""
        fill_tool(record, arguments, outcome, failed, message or span.status_message)
    elif span.name == COMPONENT and _is_generator(attributes):
        record.kind = MODEL
        fill_model(record, _messages(attributes.get("haystack.component.input"), "messages"),
                   _messages(attributes.get("haystack.component.output"), "replies"))
    else:
        record.kind = BOOKKEEPING  # pipelines, steps, other components: structure
        if not span.parent_id:  # a pipeline's root may be the turn (turns.py)
            record.said = own_words.said(attributes.get("haystack.pipeline.input_data"))
            record.answer = own_words.answer(attributes.get("haystack.pipeline.output_data"))


def _is_generator(attributes: dict[str, Any]) -> bool:
    kind = str(attributes.get("haystack.component.type") or "")
    return kind.endswith("ChatGenerator")


def _messages(value: Any, key: str) -> list[Message] | None:
    found = parsed(value)
    if isinstance(found, dict):
        found = found.get(key)
    return messages(found) if isinstance(found, list) else None
