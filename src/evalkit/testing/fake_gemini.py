"""A fake Gemini API for offline tests: point google-genai at it and script replies.

    with FakeGemini(default_reply="Yes") as fake:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", fake.base_url)
        monkeypatch.setenv("GOOGLE_API_KEY", "dummy")
        fake.when("is the answer correct").reply("valid", "valid", "invalid")
        fake.fail_next(2, status=429, retry_after=0.01)
        ...  # run judges through the real google-genai client
        assert fake.call_count == ...

It serves `POST /{version}/models/{model}:generateContent` (and the Vertex AI form
`/{version}/projects/.../models/{model}:generateContent`) with a
GenerateContentResponse including `usageMetadata`, and `:streamGenerateContent`
(`?alt=sse`) as a single server-sent event. Errors have the Google API error shape
(`{"error": {"code", "message", "status"}}`). Scripting and fault injection are
described in `evalkit.testing.scripted_server`. `inlineData` parts are decoded and kept
with each request (`fake.requests[i].media`: type and bytes), so a test can check that a
judge saw an image's exact bytes.

A reply may call tools, so an ADK `LlmAgent` with tools runs offline:

    from evalkit.testing import Reply, function_call
    fake.when("weather in Paris").reply(
        function_call("get_weather", city="Paris"),          # 1st call: the model calls the tool
        "It is sunny in Paris.",                             # 2nd call (after the tool ran): text
    )
    fake.when("both").reply(Reply("Let me check.", function_call("a"), function_call("b")))

A function call part becomes `{"functionCall": {"name", "args"}}` (with `id` when given),
and the candidate's `finishReason` stays `STOP`, as the real API sends it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from evalkit.settings import Environment
from evalkit.testing.scripted_server import (
    FunctionCall,
    ParsedCall,
    ReceivedMedia,
    Reply,
    RequestRejected,
    ScriptedModelServer,
)
from evalkit.testing.replies import strict_base64

_METHOD_PATH = re.compile(
    r"^/[^/]+/(?:.*/)?models/(?P<model>[^/:?]+):(?P<method>generateContent|streamGenerateContent)(?:\?.*)?$"
)
# Google API error statuses by HTTP status, as the real service names them.
_ERROR_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    408: "DEADLINE_EXCEEDED",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def _text_of(contents: Any) -> str:
    """All text parts of all contents, joined by newlines (one user turn in practice)."""
    texts: list[str] = []
    for content in contents or []:
        for part in (content or {}).get("parts") or []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
    return "\n".join(texts)


def _media_of(contents: Any) -> tuple[ReceivedMedia, ...]:
    """Every `inlineData` part of every content, decoded; a part the API would refuse is a 400."""
    received: list[ReceivedMedia] = []
    for c, content in enumerate(contents or []):
        for p, part in enumerate((content or {}).get("parts") or []):
            blob = part.get("inlineData") if isinstance(part, dict) else None
            if blob is None:
                continue
            where = f"contents[{c}].parts[{p}].inlineData"
            # Google's JSON reads a field by its camelCase or its proto name; google-genai writes the latter.
            mime_type = (blob.get("mimeType") or blob.get("mime_type")) if isinstance(blob, dict) else None
            if not isinstance(mime_type, str) or "/" not in mime_type:
                raise RequestRejected(f"{where}.mimeType: expected a MIME type")
            data = strict_base64(blob.get("data"), f"{where}.data", url_safe_too=True)
            received.append(ReceivedMedia("inlineData", mime_type, data))
    return tuple(received)


# Variables that would send google-genai (or evalkit's judges) elsewhere, give them other
# credentials, or change their retry budget.
FOREIGN_ENVIRONMENT = (
    "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_ENTERPRISE", "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION", "GOOGLE_VERTEX_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL",
    *Environment.variables("judge_"),  # evalkit's own judge settings (retries, endpoints)
)


class FakeGemini(ScriptedModelServer):
    """Speaks the Gemini REST protocol; `base_url` goes into GOOGLE_GEMINI_BASE_URL."""

    def environment(self, api_key: str = "dummy-test-key") -> dict[str, str | None]:
        """The variables that point google-genai here and nowhere else (None: unset it).

            for name, value in fake.environment().items():
                monkeypatch.delenv(name, raising=False) if value is None else monkeypatch.setenv(name, value)
        """
        variables: dict[str, str | None] = dict.fromkeys(FOREIGN_ENVIRONMENT)
        variables.update(GOOGLE_GEMINI_BASE_URL=self.base_url, GOOGLE_API_KEY=api_key)
        return variables

    def _parse(self, path: str, body: dict[str, Any]) -> ParsedCall | None:
        match = _METHOD_PATH.match(path)
        if match is None:
            return None
        config = dict(body.get("generationConfig") or {})
        for name in ("systemInstruction", "safetySettings", "toolConfig", "tools"):
            if name in body:
                config[name] = body[name]
        return ParsedCall(
            model=match["model"],
            prompt=_text_of(body.get("contents")),
            config=config,
            stream=match["method"] == "streamGenerateContent",
            media=_media_of(body.get("contents")),
        )

    def _render_reply(
        self, call: ParsedCall, reply: Reply, thought: str | None, input_tokens: int, output_tokens: int
    ) -> tuple[str, bytes]:
        parts: list[dict[str, Any]] = []
        if thought is not None:
            parts.append({"text": thought, "thought": True})
        parts.extend(_gemini_part(part) for part in reply.parts)
        if not parts:
            parts.append({"text": ""})
        usage: dict[str, Any] = {
            "promptTokenCount": input_tokens,
            "candidatesTokenCount": output_tokens,
            "totalTokenCount": input_tokens + output_tokens,
        }
        response = {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": usage,
            "modelVersion": call.model,
            "responseId": "fake-response",
        }
        payload = json.dumps(response).encode("utf-8")
        if call.stream:
            return "text/event-stream", b"data: " + payload + b"\r\n\r\n"
        return "application/json", payload

    def _render_error(self, status: int, message: str) -> bytes:
        error = {"code": status, "message": message, "status": _ERROR_STATUS.get(status, "UNKNOWN")}
        return json.dumps({"error": error}).encode("utf-8")


def _gemini_part(part: str | FunctionCall) -> dict[str, Any]:
    if isinstance(part, str):
        return {"text": part}
    function_call: dict[str, Any] = {"name": part.name, "args": part.args}
    if part.id is not None:
        function_call["id"] = part.id
    return {"functionCall": function_call}
