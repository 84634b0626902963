"""The OpenTelemetry GenAI semantic conventions: span attributes, their span events, and the
deprecated per-message events (`gen_ai.user.message`, `gen_ai.choice`, ...) that Strands and
others still write by default.

`gen_ai.operation.name` says what a span is: `invoke_agent` / `invoke_workflow` (a turn or
a sub-agent), `chat` / `generate_content` / `text_completion` (a model call), `execute_tool`.
Content comes from `gen_ai.input.messages` / `gen_ai.output.messages` (JSON text or
structured; on the span or on an event), else from the per-message events, in order.
"""

from __future__ import annotations

from typing import Any

from evalkit.traces.otlp_json import RawSpan
from evalkit.traces.readers.content import fill_model, fill_tool
from evalkit.traces.readers.messages import Message, messages, text_or_none
from evalkit.traces.spans import AGENT, BOOKKEEPING, MODEL, TOOL, UNKNOWN, SlimSpan

AGENT_OPERATIONS = ("invoke_agent", "invoke_workflow")
MODEL_OPERATIONS = ("chat", "generate_content", "text_completion")
TOOL_OPERATION = "execute_tool"
# Known, and no part of a turn's content: frameworks' structure (ADK's workflow nodes and
# history compaction, Strands' event-loop cycles, LangGraph's tasks as OpenLLMetry names
# them, the OpenAI Agents SDK's task and turn spans and handoff markers, whose call is on
# the model's answer) and operations that are not conversation.
BOOKKEEPING_OPERATIONS = ("embeddings", "retrieval", "create_agent", "invoke_node", "compact_events",
                          "execute_event_loop_cycle", "execute_task", "unknown", "agent_handoff")
EVENT_ROLES = {"gen_ai.system.message": "system", "gen_ai.user.message": "user",
               "gen_ai.assistant.message": "assistant", "gen_ai.tool.message": "tool"}
CHOICE_EVENT = "gen_ai.choice"


def read(span: RawSpan, record: SlimSpan) -> None:
    attributes = span.attributes
    operation = attributes.get("gen_ai.operation.name")
    record.agent = text_or_none(attributes.get("gen_ai.agent.name") or attributes.get("gen_ai.workflow.name"))
    if operation in AGENT_OPERATIONS:
        record.kind, record.operation = AGENT, operation
        fill_model(record, *conversation(span))
    elif operation in MODEL_OPERATIONS:
        record.kind = MODEL
        fill_model(record, *conversation(span))
    elif operation == TOOL_OPERATION:
        record.kind, record.tool_name = TOOL, text_or_none(attributes.get("gen_ai.tool.name"))
        record.tool_call_id = text_or_none(attributes.get("gen_ai.tool.call.id"))
        arguments, outcome = _tool_events(span)
        failed = span.failed or attributes.get("gen_ai.tool.status") == "error"
        fill_tool(record, attributes.get("gen_ai.tool.call.arguments", arguments),
                  attributes.get("gen_ai.tool.call.result", outcome), failed, span.status_message)
    elif operation in BOOKKEEPING_OPERATIONS:
        record.kind = BOOKKEEPING
    elif isinstance(operation, str) and operation:
        record.kind, record.operation = UNKNOWN, operation


def conversation(span: RawSpan) -> tuple[list[Message] | None, list[Message] | None]:
    """A span's input and output messages, wherever the conventions put them."""
    attributes = span.attributes
    inputs = messages(attributes.get("gen_ai.input.messages"))
    outputs = messages(attributes.get("gen_ai.output.messages"))
    for _name, event in span.events:  # the newer conventions' event carrying both
        inputs = inputs if inputs is not None else messages(event.get("gen_ai.input.messages"))
        outputs = outputs if outputs is not None else messages(event.get("gen_ai.output.messages"))
    if inputs is None and outputs is None:
        inputs, outputs = _message_events(span)
    return inputs, outputs


def _message_events(span: RawSpan) -> tuple[list[Message] | None, list[Message] | None]:
    """The deprecated per-message events: one event per input message, `gen_ai.choice` per answer."""
    inputs: list[Message] = []
    outputs: list[Message] = []
    for name, event in span.events:
        if name in EVENT_ROLES:
            inputs += _event_messages(event.get("content"), EVENT_ROLES[name])
        elif name == CHOICE_EVENT:
            outputs += _event_messages(event.get("message", event.get("content")), "assistant")
    return (inputs or None), (outputs or None)


def _event_messages(value: Any, role: str) -> list[Message]:
    found = messages(value, role)
    if found is None and isinstance(value, str):
        return [{"role": role, "parts": [{"type": "text", "content": value}]}]
    for message in found or ():
        message["role"] = role if role != "assistant" or message.get("role") in (None, "user") else message["role"]
    return found or []


def _tool_events(span: RawSpan) -> tuple[Any, Any]:
    """A tool span's arguments and result on events (Strands: `gen_ai.tool.message`, `gen_ai.choice`)."""
    arguments = outcome = None
    for name, event in span.events:
        if name == "gen_ai.tool.message":
            arguments = event.get("content")
        elif name == CHOICE_EVENT:
            outcome = event.get("message")
    return arguments, outcome
