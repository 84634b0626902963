"""genai-style message content: `Content`, `Part` and the function call/response payloads.

These mirror google-genai's types closely enough to read and write the same JSON,
without importing google-genai (which costs a second of start-up) just to load a file.
Unknown keys are rejected, as google-genai rejects them.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from evalkit.schema.base import StrictModel


class FunctionCall(StrictModel):
    id: str | None = None
    name: str | None = None
    args: dict[str, Any] | None = None
    partial_args: Any = None
    will_continue: bool | None = None
    # evalkit's, not genai's: "otel" when `run --otel` read the call from the agent's telemetry
    # because its reply reported none (docs/agents.md). Absent otherwise.
    source: str | None = None


class FunctionResponse(StrictModel):
    id: str | None = None
    name: str | None = None
    response: dict[str, Any] | None = None
    will_continue: bool | None = None
    scheduling: Any = None
    parts: Any = None


class Part(StrictModel):
    text: str | None = None
    thought: bool | None = None
    function_call: FunctionCall | None = None
    function_response: FunctionResponse | None = None
    # Payloads evalkit passes through untouched; typed loosely on purpose.
    inline_data: Any = None
    file_data: Any = None
    executable_code: Any = None
    code_execution_result: Any = None
    thought_signature: Any = None
    video_metadata: Any = None
    media_resolution: Any = None
    tool_call: Any = None
    tool_response: Any = None
    part_metadata: Any = None
    audio_transcription: Any = None
    media_processing: Any = None
    speech_metadata: Any = None


class Content(StrictModel):
    role: str | None = None
    parts: list[Part] | None = Field(default=None)

    @classmethod
    def of_text(cls, text: str, role: str = "model") -> Content:
        return cls(role=role, parts=[Part(text=text)])

    def text(self) -> str:
        """ADK's text of a Content: non-empty text parts, thoughts included, joined by newlines."""
        return "\n".join(p.text for p in self.parts or () if p.text)


def content_text(content: Content | None) -> str:
    """Text of a possibly missing Content ("" when absent), as ROUGE and the console use it."""
    return content.text() if content is not None else ""
