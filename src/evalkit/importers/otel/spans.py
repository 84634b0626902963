"""A span reduced to what a turn is built from (`SlimSpan`), whichever vocabulary it was read in.

The readers (`readers/`) fill it in; everything after them reads only this. It is small
on purpose: a model call keeps the user's last message, its answer, the tool results it
was sent and two hashes of its history (for grouping turns into conversations), not the
whole history, so what waits on disk for the rest of its trace stays small.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

AGENT, MODEL, TOOL, UNKNOWN, BOOKKEEPING, OTHER = "agent", "model", "tool", "unknown", "bookkeeping", "other"
# Which vocabulary or framework wrote the span: picks the hint for content that was not recorded.
GENAI, ADK, ADK_LEGACY, OPENINFERENCE, OPENLLMETRY = "genai", "adk", "adk-legacy", "openinference", "openllmetry"
STRANDS, PYDANTIC_AI, OPENAI_AGENTS, AGENT_FRAMEWORK = "strands", "pydantic-ai", "openai-agents", "agent-framework"


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
    output: list[dict[str, Any]] = field(default_factory=list)  # genai parts: text and function_call
    responses: list[dict[str, Any]] = field(default_factory=list)  # tool results a model call was sent
    prior: str | None = None  # hash of the conversation before the user's last message (model input)
    exchange: str | None = None  # hash of the conversation through this call's answer
    tool_name: str | None = None
    tool_call_id: str | None = None
    tool_args: dict[str, Any] | None = None
    tool_result: Any = None
    tool_error: str | None = None
    failed: bool = False  # the span ended in error
    error: str = ""

    def to_json(self) -> str:
        return json.dumps(self.__dict__, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> SlimSpan:
        return cls(**json.loads(text))

    @property
    def has_content(self) -> bool:
        return bool(self.user_texts or self.output or self.responses)
