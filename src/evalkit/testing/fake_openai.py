"""A fake OpenAI-compatible chat-completions server for offline tests.

    with FakeOpenAI(default_reply="Yes") as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)   # ends in /v1
        ...  # judge_model "openai/<anything>"

It serves `POST .../chat/completions` with a `chat.completion` object including
`usage` (with `"stream": true`, as `chat.completion.chunk` server-sent events ending
in `data: [DONE]`); errors have OpenAI's shape (`{"error": {"message", "type", "code"}}`).
Scripting and fault injection are those of `evalkit.testing.scripted_server`. A user
message's `image_url` parts (as data URLs) and `input_audio` parts (`wav`, `mp3`) are
decoded and kept with each request (`fake.requests[i].media`); an image URL that is not a
data URL, another audio format or bad base64 is answered 400.
"""

from __future__ import annotations

import json
import re
from typing import Any

from evalkit.testing.replies import strict_base64
from evalkit.testing.scripted_server import ParsedCall, ReceivedMedia, Reply, RequestRejected, ScriptedModelServer

_DATA_URL = re.compile(r"^data:(?P<mime>[\w.+-]+/[\w.+-]+);base64,(?P<data>.*)$", re.DOTALL)
_AUDIO_FORMATS = ("wav", "mp3")


def _message_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # typed parts: [{"type": "text", "text": ...}]
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _media_of(message: Any, index: int) -> list[ReceivedMedia]:
    """A message's `image_url` (data URLs only) and `input_audio` parts, decoded; a malformed one is a 400."""
    content = message.get("content") if isinstance(message, dict) else None
    received: list[ReceivedMedia] = []
    for p, part in enumerate(content if isinstance(content, list) else ()):
        where = f"messages[{index}].content[{p}]"
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "image_url":
            url = (part.get("image_url") or {}).get("url")
            match = _DATA_URL.match(url) if isinstance(url, str) else None
            if match is None:
                raise RequestRejected(f"{where}.image_url.url: expected a data URL (data:<type>;base64,<data>)")
            data = strict_base64(match["data"], f"{where}.image_url.url")
            received.append(ReceivedMedia("image_url", match["mime"], data))
        elif kind == "input_audio":
            audio = part.get("input_audio") or {}
            if audio.get("format") not in _AUDIO_FORMATS:
                raise RequestRejected(f"{where}.input_audio.format: expected one of {', '.join(_AUDIO_FORMATS)}")
            data = strict_base64(audio.get("data"), f"{where}.input_audio.data")
            received.append(ReceivedMedia("input_audio", audio["format"], data))
    return received


class FakeOpenAI(ScriptedModelServer):
    """Speaks chat completions; `base_url` (ending in /v1) goes into OPENAI_BASE_URL."""

    url_suffix = "/v1"

    def _parse(self, path: str, body: dict[str, Any]) -> ParsedCall | None:
        if not path.split("?", 1)[0].endswith("/chat/completions"):
            return None
        messages = body.get("messages") or []
        prompt = "\n".join(_message_text(m.get("content")) for m in messages if isinstance(m, dict))
        config = {k: v for k, v in body.items() if k not in ("model", "messages")}
        media = tuple(m for index, message in enumerate(messages) for m in _media_of(message, index))
        return ParsedCall(model=str(body.get("model", "")), prompt=prompt, config=config,
                          stream=bool(body.get("stream")), media=media)

    def _render_reply(
        self, call: ParsedCall, reply: Reply, thought: str | None, input_tokens: int, output_tokens: int
    ) -> tuple[str, bytes]:
        text = reply.text
        content = text if thought is None else f"<think>{thought}</think>\n{text}"
        message: dict[str, Any] = {"role": "assistant", "content": content}
        calls = reply.function_calls
        if calls:  # function calls become `tool_calls`, as chat completions sends them
            message["content"] = content or None
            message["tool_calls"] = [
                {"id": c.id or f"call_{index}", "type": "function",
                 "function": {"name": c.name, "arguments": json.dumps(c.args)}}
                for index, c in enumerate(calls)
            ]
        response = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": call.model,
            "choices": [
                {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
            ],
            "usage": {
                "prompt_tokens": input_tokens,
                "completion_tokens": output_tokens,
                "total_tokens": input_tokens + output_tokens,
            },
        }
        if call.stream:
            return "text/event-stream", _stream(response)
        return "application/json", json.dumps(response).encode("utf-8")

    def _render_error(self, status: int, message: str) -> bytes:
        if status == 429:
            kind = "rate_limit_error"
        else:
            kind = "server_error" if status >= 500 else "invalid_request_error"
        return json.dumps({"error": {"message": message, "type": kind, "code": status}}).encode("utf-8")


def _stream(response: dict[str, Any]) -> bytes:
    """The reply as a stream: a role chunk, the content, the tool calls, then the finish reason."""
    choice = response["choices"][0]
    message = choice["message"]
    base = {"id": response["id"], "object": "chat.completion.chunk", "created": 0, "model": response["model"]}
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    if message.get("content"):
        deltas.append({"content": message["content"]})
    # one chunk per tool call, as OpenAI streams them (some clients read only a chunk's first call)
    deltas += [{"tool_calls": [{"index": i, **call}]} for i, call in enumerate(message.get("tool_calls") or ())]
    chunks = [{**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]} for delta in deltas]
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}],
                   "usage": response["usage"]})
    events = [b"data: " + json.dumps(chunk).encode("utf-8") + b"\n\n" for chunk in chunks]
    return b"".join(events) + b"data: [DONE]\n\n"
