"""genai-style message content: `Content`, `Part` and the function call/response payloads.

These mirror google-genai's types closely enough to read and write the same JSON,
without importing google-genai (which costs a second of start-up) just to load a file.
Unknown keys are rejected, as google-genai rejects them.
"""

from __future__ import annotations

import base64
from typing import Any

from pydantic import Field, field_serializer, field_validator

from evalkit.media.encoding import decode_base64
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


class Blob(StrictModel):
    """Bytes with their MIME type (genai's `Blob`): an image, a recording, a document.

    Read from JSON as base64 (standard or URL-safe alphabet), written as standard base64; in
    Python it holds the bytes (docs/media.md).
    """

    mime_type: str | None = None
    data: bytes | None = None
    display_name: str | None = None
    # evalkit's, not genai's: a run's record refers to bytes kept in its media folder by these
    # instead of holding `data` (results/media_folder.py).
    sha256: str | None = None
    size: int | None = None

    @field_validator("data", mode="before")
    @classmethod
    def _decoded(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        data = decode_base64(value)
        if data is None:
            raise ValueError("expected base64 data (the bytes of the file, base64-encoded)")
        return data

    @field_serializer("data", when_used="json-unless-none")
    def _encoded(self, data: bytes) -> str:
        return base64.b64encode(data).decode("ascii")


class FileData(StrictModel):
    """A file named by URI (genai's `FileData`); evalkit reads local paths only (docs/media.md)."""

    mime_type: str | None = None
    file_uri: str | None = None
    display_name: str | None = None


class Part(StrictModel):
    text: str | None = None
    thought: bool | None = None
    function_call: FunctionCall | None = None
    function_response: FunctionResponse | None = None
    # Media (docs/media.md): once a case is loaded for a run, a `file_data` part holds its
    # file's bytes in `inline_data` too, so agents and judges read bytes in one place.
    inline_data: Blob | None = None
    file_data: FileData | None = None
    # Payloads evalkit passes through untouched; typed loosely on purpose.
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

    def for_model(self) -> Content:
        """This content as a model takes it: a part holding both a file's bytes and its `file_data`
        keeps the bytes only (genai allows one kind of data per part)."""
        if not any(part.inline_data is not None and part.file_data is not None for part in self.parts or ()):
            return self
        parts = [part.model_copy(update={"file_data": None}) if part.inline_data is not None else part
                 for part in self.parts or ()]
        return self.model_copy(update={"parts": parts})

    def text(self) -> str:
        """ADK's text of a Content: non-empty text parts, thoughts included, joined by newlines."""
        return "\n".join(p.text for p in self.parts or () if p.text)


def media_file_name(part: Part, index: int) -> str:
    """A name for a media part where a protocol wants one (A2A's file parts): its `display_name`,
    else its file's name, else `part-INDEX`."""
    for named in (part.inline_data, part.file_data):
        if named is not None and named.display_name:
            return named.display_name
    if part.file_data is not None and part.file_data.file_uri:
        return part.file_data.file_uri.rstrip("/").rsplit("/", 1)[-1] or f"part-{index}"
    return f"part-{index}"


def content_text(content: Content | None) -> str:
    """Text of a possibly missing Content ("" when absent), as ROUGE and the console use it."""
    return content.text() if content is not None else ""
