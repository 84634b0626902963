"""One reader per vocabulary, each turning a span into the same `SlimSpan` (docs/traces.md, "Which spans are read").

- `genai.py`: the GenAI semantic conventions (attributes, span events, message events);
- `openinference.py`: OpenInference;
- `adk_legacy.py`: ADK's legacy schema;
- `haystack.py`: Haystack's own tracing;
- `older.py`: older attribute names (pydantic-ai's earlier formats, OpenLLMetry's `traceloop.*`).

A new vocabulary is one more module here and one more line in `slim`. The conversation a
span belongs to is read here, for all of them (`conversation_of`).
"""

from __future__ import annotations

from typing import Any

from evalkit.traces.otlp_json import RawSpan
from evalkit.traces.readers import adk_legacy, genai, haystack, older, openinference
from evalkit.traces.readers.messages import parsed, text_or_none
from evalkit.traces.spans import (
    ADK,
    ADK_LEGACY,
    AGENT_FRAMEWORK,
    GENAI,
    HAYSTACK,
    OPENAI_AGENTS,
    OPENINFERENCE,
    OPENLLMETRY,
    OTHER,
    PYDANTIC_AI,
    STRANDS,
    TOOL,
    SlimSpan,
)

# The attributes that name a span's conversation, most specific first: the conventions',
# then the frameworks' own session, thread and group ids.
CONVERSATION_ATTRIBUTES = ("gen_ai.conversation.id", "session.id", "gcp.vertex.agent.session_id",
                           "traceloop.association.properties.thread_id",
                           "traceloop.association.properties.session_id", "thread_id", "group_id")
METADATA_KEYS = ("thread_id", "session_id", "conversation_id")  # inside OpenInference's `metadata` JSON
SCOPES = (("openinference.", OPENINFERENCE), ("opentelemetry.instrumentation.langchain", OPENLLMETRY),
          ("strands.", STRANDS), ("pydantic-ai", PYDANTIC_AI), ("opentelemetry.instrumentation.openai_agents",
                                                                OPENAI_AGENTS), ("agent_framework", AGENT_FRAMEWORK),
          (adk_legacy.ADK_SCOPE, ADK))


def slim(span: RawSpan, group_by: str | None = None, hash_history: bool = True) -> SlimSpan:
    record = SlimSpan(span.trace_id, span.span_id, span.parent_id, OTHER, span.start_ns, span.end_ns, span.service,
                      name=span.name)
    if not hash_history:
        record.hash_history = False  # type: ignore[misc]  # an instance's own, over the class default
    record.source = next((source for prefix, source in SCOPES if span.scope.startswith(prefix)), GENAI)
    record.conversation = conversation_of(span.attributes, group_by)  # first: with it, no history is hashed
    if openinference.is_openinference(span):
        openinference.read(span, record)
    elif haystack.is_haystack(span):
        record.source = HAYSTACK
        haystack.read(span, record)
    elif adk_legacy.is_legacy(span):
        record.source = ADK_LEGACY
        adk_legacy.read(span, record)
    else:
        genai.read(span, record)
        if record.source == ADK and record.kind == TOOL:
            adk_legacy.read_tool(span, record)
        older.read(span, record)
    record.invocation_id = text_or_none(span.attributes.get("gcp.vertex.agent.invocation_id"))
    record.failed, record.error = span.failed, span.status_message
    return record


def conversation_of(attributes: dict[str, Any], group_by: str | None = None) -> str | None:
    if group_by:
        return text_or_none(attributes.get(group_by))
    for key in CONVERSATION_ATTRIBUTES:
        if attributes.get(key) not in (None, ""):
            return str(attributes[key])
    metadata = parsed(attributes.get("metadata"))
    if isinstance(metadata, dict):
        return next((str(metadata[key]) for key in METADATA_KEYS if metadata.get(key) not in (None, "")), None)
    return None
