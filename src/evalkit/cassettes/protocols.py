"""The two model APIs the proxy speaks, and what each one's requests mean for matching.

A `ModelProtocol` knows which paths belong to it, which part of a request decides
the answer (the normalised content that is matched), which text in it is the user's
(to tell whose case a request belongs to), how it streams, and where it is served
without evalkit. Gemini covers the Gemini API and Vertex AI path forms; OpenAI covers
Chat Completions. See docs/cassettes.md, "What is matched".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# Keys anywhere in a request that change between runs without changing the question:
# ids that clients invent for tool calls, and request labels/metadata.
_VOLATILE_KEYS = {"id", "tool_call_id", "labels", "metadata", "user", "request_id", "stream_options"}


def without_volatile(value: Any) -> Any:
    """`value` with every volatile key removed, at any depth."""
    # Every request passes through here (twice per model call in a replay), and most of
    # its nodes are leaves: they are tested in place rather than by a call each.
    if isinstance(value, dict):
        return {k: without_volatile(v) if isinstance(v, (dict, list)) else v
                for k, v in value.items() if k not in _VOLATILE_KEYS}
    if isinstance(value, list):
        return [without_volatile(v) if isinstance(v, (dict, list)) else v for v in value]
    return value


@dataclass(frozen=True)
class ModelProtocol:
    name: str
    env_var: str  # the variable that points a client at the proxy
    default_upstream: str  # where the client goes when the variable is unset
    sse_separator: bytes

    def matches(self, path: str) -> bool:
        raise NotImplementedError

    def is_stream(self, path: str, body: dict[str, Any]) -> bool:
        raise NotImplementedError

    def normalise(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """What decides the answer: the request's content without volatile fields."""
        raise NotImplementedError

    def user_texts(self, body: dict[str, Any]) -> list[str]:
        """The texts of the user's messages in the request, in order."""
        raise NotImplementedError

    def stream_end(self) -> bytes:
        """What ends a server-sent event stream after the last event."""
        return b""


_GEMINI_PATH = re.compile(
    r"^/(?P<version>v1|v1beta|v1alpha|v1beta1)/(?P<scope>(?:projects/[^/]+/locations/[^/]+/publishers/[^/]+/)?)"
    r"models/(?P<model>[^/:]+):(?P<method>generateContent|streamGenerateContent)$"
)


class GeminiProtocol(ModelProtocol):
    def matches(self, path: str) -> bool:
        return _GEMINI_PATH.match(path.split("?", 1)[0]) is not None

    def is_stream(self, path: str, body: dict[str, Any]) -> bool:
        return path.split("?", 1)[0].endswith(":streamGenerateContent")

    def normalise(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        match = _GEMINI_PATH.match(path.split("?", 1)[0])
        assert match is not None
        fields = {k: v for k, v in without_volatile(body).items() if k != "model"}
        # The API version and Vertex project are where it is served, not what is asked.
        return {"model": match["model"], "method": match["method"], **fields}

    def user_texts(self, body: dict[str, Any]) -> list[str]:
        texts = []
        for content in body.get("contents") or []:
            if isinstance(content, dict) and content.get("role", "user") == "user":
                text = "\n".join(p["text"] for p in content.get("parts") or [] if isinstance(p, dict) and p.get("text"))
                if text:
                    texts.append(text)
        return texts


class OpenAIProtocol(ModelProtocol):
    def matches(self, path: str) -> bool:
        return path.split("?", 1)[0].endswith("/chat/completions")

    def is_stream(self, path: str, body: dict[str, Any]) -> bool:
        return bool(body.get("stream"))

    def normalise(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return without_volatile(body)

    def user_texts(self, body: dict[str, Any]) -> list[str]:
        texts = []
        for message in body.get("messages") or []:
            if isinstance(message, dict) and message.get("role") == "user":
                content = message.get("content")
                if isinstance(content, list):  # typed parts
                    content = "\n".join(p["text"] for p in content if isinstance(p, dict) and p.get("text"))
                if isinstance(content, str) and content:
                    texts.append(content)
        return texts

    def stream_end(self) -> bytes:
        return b"data: [DONE]\n\n"


GEMINI = GeminiProtocol("gemini", "GOOGLE_GEMINI_BASE_URL", "https://generativelanguage.googleapis.com", b"\r\n\r\n")
OPENAI = OpenAIProtocol("openai", "OPENAI_BASE_URL", "https://api.openai.com/v1", b"\n\n")
PROTOCOLS = (GEMINI, OPENAI)


def protocol_for(path: str) -> ModelProtocol | None:
    return next((p for p in PROTOCOLS if p.matches(path)), None)
