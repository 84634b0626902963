"""ADK's legacy telemetry schema (`ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1`): an `invocation` span per
turn, `call_llm` spans carrying `gcp.vertex.agent.llm_request` / `.llm_response` (genai Content
JSON), and tool spans carrying `gcp.vertex.agent.tool_call_args` / `.tool_response`."""

from __future__ import annotations

from evalkit.traces.otlp_json import RawSpan
from evalkit.traces.readers.content import fill_model, fill_tool
from evalkit.traces.readers.messages import message, parsed
from evalkit.traces.spans import AGENT, BOOKKEEPING, MODEL, SlimSpan

ADK_SCOPE = "gcp.vertex.agent"
ADK_MERGED_TOOLS = "(merged tools)"  # ADK's summary span of parallel calls; each call has its own span


def is_legacy(span: RawSpan) -> bool:
    return span.scope == ADK_SCOPE and span.name in ("invocation", "call_llm")


def read(span: RawSpan, record: SlimSpan) -> None:
    attributes = span.attributes
    if span.name == "invocation":
        if attributes.get("gen_ai.operation.name") is None:
            record.kind = AGENT
        return
    record.kind = MODEL
    request, response = (parsed(attributes.get(key)) for key in ("gcp.vertex.agent.llm_request",
                                                                 "gcp.vertex.agent.llm_response"))
    contents = request.get("contents") if isinstance(request, dict) else None
    inputs = [m for m in (message(c) for c in contents or () if isinstance(c, dict)) if m]
    content = response.get("content") if isinstance(response, dict) else None
    outputs = [m for m in (message(content),) if m] if isinstance(content, dict) else None
    fill_model(record, inputs or None, outputs)
    record.captured = bool(request) or bool(response)  # ADK writes "{}" when content is not captured


def read_tool(span: RawSpan, record: SlimSpan) -> None:
    """ADK's tool spans: legacy attribute names where the conventions' are absent; its merged summary skipped."""
    attributes = span.attributes
    if record.tool_name == ADK_MERGED_TOOLS:
        record.kind = BOOKKEEPING
        return
    if "gen_ai.tool.call.arguments" not in attributes and "gcp.vertex.agent.tool_call_args" in attributes:
        fill_tool(record, attributes.get("gcp.vertex.agent.tool_call_args"),
                  attributes.get("gcp.vertex.agent.tool_response"), span.failed, span.status_message)
