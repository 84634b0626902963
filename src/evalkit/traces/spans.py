"""A span reduced to what a turn is built from (`SlimSpan`), whichever vocabulary it was read in.

The readers (`readers/`) fill it in; everything after them reads only this. It is small
on purpose: a model call keeps the user's last message, its answer, the tool results it
was sent and two hashes of its history (for grouping turns into conversations), not the
whole history, so what waits on disk for the rest of its trace stays small.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

AGENT, MODEL, TOOL, UNKNOWN, BOOKKEEPING, OTHER = "agent", "model", "tool", "unknown", "bookkeeping", "other"
# Which vocabulary or framework wrote the span: picks the hint for content that was not recorded.
GENAI, ADK, ADK_LEGACY, OPENINFERENCE, OPENLLMETRY = "genai", "adk", "adk-legacy", "openinference", "openllmetry"
STRANDS, PYDANTIC_AI, OPENAI_AGENTS, AGENT_FRAMEWORK = "strands", "pydantic-ai", "openai-agents", "agent-framework"
HAYSTACK = "haystack"

CONTENT_HINTS = {
    ADK: "ADK records it on spans when the agent runs with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="
         "SPAN_ONLY (or SPAN_AND_EVENT)",
    ADK_LEGACY: "ADK's legacy schema records it on spans unless ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=false "
                "(or the run config's telemetry capture_message_content is NO_CONTENT or EVENT_ONLY)",
    GENAI: "set OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental and "
           "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (or true, as the instrumentation reads it) "
           "on the agent",
    OPENINFERENCE: "OpenInference records it unless OPENINFERENCE_HIDE_INPUTS, OPENINFERENCE_HIDE_OUTPUTS or "
                   "OPENINFERENCE_HIDE_INPUT_MESSAGES is set (or the TraceConfig hides it)",
    OPENLLMETRY: "OpenLLMetry records it unless TRACELOOP_TRACE_CONTENT=false",
    STRANDS: "Strands records it by default; with a gen_ai_unredacted_attributes=... token in "
             "OTEL_SEMCONV_STABILITY_OPT_IN, list gen_ai.input.messages and gen_ai.output.messages in it",
    PYDANTIC_AI: "pydantic-ai records it unless InstrumentationSettings(include_content=False)",
    OPENAI_AGENTS: "set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only (or span_and_event) for "
                   "opentelemetry-instrumentation-openai-agents-v2",
    HAYSTACK: "Haystack records it with HAYSTACK_CONTENT_TRACING_ENABLED=true (or tracer.is_content_tracing_enabled = True)",
    AGENT_FRAMEWORK: "Agent Framework records it with ENABLE_SENSITIVE_DATA=true "
                     "(or enable_instrumentation(enable_sensitive_data=True))",
}


@dataclass
class SlimSpan:
    trace_id: str
    span_id: str
    parent_id: str
    kind: str  # AGENT, MODEL, TOOL, UNKNOWN (an operation not known here), BOOKKEEPING or OTHER
    start_ns: int
    end_ns: int
    service: str = ""
    source: str = GENAI
    name: str = ""
    agent: str | None = None
    conversation: str | None = None
    invocation_id: str | None = None
    operation: str | None = None
    captured: bool = True  # False: the span is one whose content is opt-in, and it was not recorded
    user_texts: list[str] | None = None  # the last user message's texts (agent and model spans)
    user_media: list[dict[str, Any]] = field(default_factory=list)  # that message's media, genai parts
    output: list[dict[str, Any]] = field(default_factory=list)  # genai parts: text and function_call
    responses: list[dict[str, Any]] = field(default_factory=list)  # tool results a model call was sent
    prior: str | None = None  # hash of the conversation before the user's last message (model input)
    exchange: str | None = None  # hash of the conversation through this call's answer
    said: list[str] | None = None  # an agent's or root's own input texts: what the user may have typed
    answer: str | None = None  # an agent's or root's own output text: the answer it returned
    tool_name: str | None = None
    tool_call_id: str | None = None
    tool_args: dict[str, Any] | None = None
    tool_result: Any = None
    tool_error: str | None = None
    failed: bool = False  # the span ended in error
    error: str = ""
    # False on a live run's spans, whose turn is known: the history rule's hashes are not made. A class
    # default, so the spans an import keeps on disk do not each carry it.
    hash_history: ClassVar[bool] = True

    @property
    def has_content(self) -> bool:
        return bool(self.user_texts or self.output or self.responses)


@dataclass
class Chain:
    """Where a span sits under its trace's agent spans (turns.py finds it, turn_events.py reads it)."""

    root: SlimSpan | None  # the top-most agent span above (or at) the span
    unit: SlimSpan | None  # the agent span that is the span's turn (the root, or the one under a wrapper)
    orphan: bool  # the chain ends at a parent that is not in the file
    inside_tool: bool  # a tool span lies between the span and its turn
    inside_model: SlimSpan | None  # the outermost model span above the span, if any
    agent: SlimSpan | None  # the nearest agent span at or above the span
