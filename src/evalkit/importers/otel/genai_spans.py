"""What a span means to an eval set: the one place span names and attributes are read.

Two vocabularies are understood (docs/traces.md, "Which spans are read"):
- the OpenTelemetry GenAI semantic conventions: `gen_ai.operation.name` (`invoke_agent`,
  `invoke_workflow`, `chat`, `generate_content`, `text_completion`, `execute_tool`),
  `gen_ai.conversation.id`, `gen_ai.agent.name`, `gen_ai.tool.name`,
  `gen_ai.tool.call.id` / `.arguments` / `.result`, and `gen_ai.input.messages` /
  `gen_ai.output.messages` (JSON text or structured values, on the span or on one of its
  events). ADK 2.13 speaks these in its default telemetry schema (v2);
- ADK's legacy schema (`ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1`): an `invocation` span per
  turn, `call_llm` spans carrying `gcp.vertex.agent.llm_request` / `.llm_response`
  (genai Content JSON) and `gcp.vertex.agent.session_id`, and tool spans carrying
  `gcp.vertex.agent.tool_call_args` / `.tool_response`.

A span is reduced to a `SlimSpan` as it is read: only what a turn is built from is kept
(the user's last message rather than the whole history a model call was sent), so what
waits for the rest of its trace is small.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from evalkit.importers.otel.otlp_json import RawSpan

ADK_SCOPE = "gcp.vertex.agent"
AGENT_OPERATIONS = ("invoke_agent", "invoke_workflow")
MODEL_OPERATIONS = ("chat", "generate_content", "text_completion")
TOOL_OPERATION = "execute_tool"
# Known, and no part of a turn's content: ADK's workflow nodes (`invoke_node`, structure only:
# what they run has spans of its own) and its history compaction (`compact_events`).
IGNORED_OPERATIONS = ("embeddings", "retrieval", "create_agent", "invoke_node", "compact_events")
ADK_MERGED_TOOLS = "(merged tools)"  # ADK's summary span of parallel calls; each call has its own span

AGENT, MODEL, TOOL, UNKNOWN, OTHER = "agent", "model", "tool", "unknown", "other"
ADK, ADK_LEGACY, GENAI = "adk", "adk-legacy", "genai"


@dataclass
class SlimSpan:
    trace_id: str
    span_id: str
    parent_id: str
    kind: str  # AGENT, MODEL, TOOL, UNKNOWN (an operation not known here) or OTHER
    start_ns: int
    end_ns: int
    service: str = ""
    source: str = GENAI  # which vocabulary: ADK, ADK_LEGACY or GENAI (for the hint on missing content)
    agent: str | None = None
    conversation: str | None = None
    invocation_id: str | None = None
    operation: str | None = None
    captured: bool = True  # False: the span is one whose content is opt-in, and it was not recorded
    user_texts: list[str] | None = None  # the last user message's texts (agent and model spans)
    output: list[dict[str, Any]] = field(default_factory=list)  # genai parts: text and function_call
    tool_name: str | None = None
    tool_call_id: str | None = None
    tool_args: dict[str, Any] | None = None
    tool_result: dict[str, Any] | None = None

    def to_json(self) -> str:
        return json.dumps(self.__dict__, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> SlimSpan:
        return cls(**json.loads(text))


def slim(span: RawSpan) -> SlimSpan:
    attributes = dict(span.attributes)
    for event in span.event_attributes:  # content recorded on an event of the span
        for key in ("gen_ai.input.messages", "gen_ai.output.messages"):
            if key in event and key not in attributes:
                attributes[key] = event[key]
    record = SlimSpan(span.trace_id, span.span_id, span.parent_id, OTHER, span.start_ns, span.end_ns, span.service)
    operation = attributes.get("gen_ai.operation.name")
    adk = span.scope == ADK_SCOPE
    record.source = (ADK_LEGACY if span.name in ("invocation", "call_llm") else ADK) if adk else GENAI
    record.conversation = _text(attributes.get("gen_ai.conversation.id") or attributes.get("gcp.vertex.agent.session_id"))
    record.invocation_id = _text(attributes.get("gcp.vertex.agent.invocation_id"))
    record.agent = _text(attributes.get("gen_ai.agent.name") or attributes.get("gen_ai.workflow.name"))
    if adk and span.name == "invocation" and operation is None:
        record.kind = AGENT
    elif adk and span.name == "call_llm":
        record.kind = MODEL
        _read_legacy_model(record, attributes)
    elif operation in AGENT_OPERATIONS:
        record.kind = AGENT
        record.user_texts = last_user_texts(_messages(attributes.get("gen_ai.input.messages")))
        record.output = output_parts(_messages(attributes.get("gen_ai.output.messages")))
    elif operation in MODEL_OPERATIONS:
        record.kind = MODEL
        inputs, outputs = (_messages(attributes.get(key)) for key in ("gen_ai.input.messages", "gen_ai.output.messages"))
        record.captured = inputs is not None or outputs is not None
        record.user_texts = last_user_texts(inputs)
        record.output = output_parts(outputs)
    elif operation == TOOL_OPERATION:
        _read_tool(record, attributes, adk)
    elif isinstance(operation, str) and operation and operation not in IGNORED_OPERATIONS:
        record.kind, record.operation = UNKNOWN, operation
    return record


def _read_legacy_model(record: SlimSpan, attributes: dict[str, Any]) -> None:
    request, response = (_json(attributes.get(key)) for key in ("gcp.vertex.agent.llm_request",
                                                                "gcp.vertex.agent.llm_response"))
    record.captured = bool(request) or bool(response)  # ADK writes "{}" when content is not captured
    contents = request.get("contents") if isinstance(request, dict) else None
    record.user_texts = last_user_texts([_genai_message(c) for c in contents or () if isinstance(c, dict)])
    content = response.get("content") if isinstance(response, dict) else None
    record.output = output_parts([_genai_message(content)] if isinstance(content, dict) else None)


def _read_tool(record: SlimSpan, attributes: dict[str, Any], adk: bool) -> None:
    name = _text(attributes.get("gen_ai.tool.name"))
    if adk and name == ADK_MERGED_TOOLS:
        return
    record.kind, record.tool_name = TOOL, name
    record.tool_call_id = _text(attributes.get("gen_ai.tool.call.id"))
    raw_args = attributes.get("gen_ai.tool.call.arguments", attributes.get("gcp.vertex.agent.tool_call_args"))
    args = _json(raw_args) if isinstance(raw_args, str) else raw_args
    record.captured = isinstance(args, dict)
    record.tool_args = args if isinstance(args, dict) else None
    raw_result = attributes.get("gen_ai.tool.call.result", attributes.get("gcp.vertex.agent.tool_response"))
    if raw_result is not None:
        result = _json(raw_result) if isinstance(raw_result, str) else raw_result
        record.tool_result = result if isinstance(result, dict) else {"result": result}


def last_user_texts(messages: list[dict[str, Any]] | None) -> list[str] | None:
    """The texts of the last user message that has text (tool results are not the user's words)."""
    for message in reversed(messages or ()):
        if message.get("role") != "user":
            continue
        texts = [p["content"] for p in message.get("parts") or () if _is_text(p)]
        if texts:
            return texts
    return None


def output_parts(messages: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """An answer's parts in genai form: texts (reasoning left out) and the tool calls it asked for."""
    parts: list[dict[str, Any]] = []
    for message in messages or ():
        if message.get("role") not in (None, "assistant", "model"):
            continue
        for part in message.get("parts") or ():
            if _is_text(part):
                parts.append({"text": part["content"]})
            elif isinstance(part, dict) and part.get("type") == "tool_call" and part.get("name"):
                arguments = part.get("arguments")
                arguments = _json(arguments) if isinstance(arguments, str) else arguments
                call = {"name": part["name"], "args": arguments if isinstance(arguments, dict) else {}}
                parts.append({"function_call": {**call, **({"id": part["id"]} if part.get("id") else {})}})
    return parts


def _genai_message(content: dict[str, Any]) -> dict[str, Any]:
    """A genai Content (ADK's legacy attributes) in the conventions' message shape."""
    parts: list[dict[str, Any]] = []
    for part in content.get("parts") or ():
        if not isinstance(part, dict) or part.get("thought"):
            continue
        if isinstance(part.get("text"), str):
            parts.append({"type": "text", "content": part["text"]})
        elif isinstance(part.get("function_call"), dict):
            call = part["function_call"]
            parts.append({"type": "tool_call", "name": call.get("name"), "arguments": call.get("args"),
                          "id": call.get("id")})
    return {"role": "assistant" if content.get("role") == "model" else content.get("role"), "parts": parts}


def _is_text(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("content"), str)


def _messages(value: Any) -> list[dict[str, Any]] | None:
    """gen_ai.*.messages as a list of messages; None when absent (not captured)."""
    if isinstance(value, str):
        value = _json(value)
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        return None
    return [m for m in value if isinstance(m, dict)]


def _json(value: Any) -> Any:
    if not isinstance(value, str):
        return None
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return None


def _text(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None
