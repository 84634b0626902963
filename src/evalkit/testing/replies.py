"""What a scripted model server answers: replies of texts and tool calls, the rules that
choose them, and the record of each request (`evalkit.testing.scripted_server` serves them).
"""

from __future__ import annotations

import base64
import binascii
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class FunctionCall:
    """A tool call the scripted model makes."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class Reply:
    """A scripted reply of several parts, in order: texts and function calls."""

    parts: tuple[str | FunctionCall, ...]

    def __init__(self, *parts: str | FunctionCall):
        for part in parts:
            if not isinstance(part, (str, FunctionCall)):
                raise TypeError(f"a Reply part is a str or a FunctionCall, not {type(part).__name__}")
        object.__setattr__(self, "parts", tuple(parts))

    @property
    def text(self) -> str:
        return "".join(p for p in self.parts if isinstance(p, str))

    @property
    def function_calls(self) -> list[FunctionCall]:
        return [p for p in self.parts if isinstance(p, FunctionCall)]


def function_call(name: str, call_id: str | None = None, /, **args: Any) -> FunctionCall:
    """`function_call("get_weather", city="Paris")`: a reply part that calls a tool."""
    return FunctionCall(name, dict(args), call_id)


@dataclass(frozen=True)
class ReceivedMedia:
    """A media part a fake server received, decoded: its type, its bytes, and how it was sent.

    `kind` is the protocol's name for it: `inlineData` (Gemini), `image_url` or
    `input_audio` (chat completions). For `input_audio`, `mime_type` is the format
    it named (`wav`, `mp3`).
    """

    kind: str
    mime_type: str
    data: bytes = field(repr=False)


class RequestRejected(Exception):
    """A request the real service would refuse with 400 (a fake server answers it so)."""


def strict_base64(text: Any, where: str, *, url_safe_too: bool = False) -> bytes:
    """Padded base64 as the providers require it; RequestRejected naming `where` otherwise.

    `url_safe_too`: the URL-safe alphabet is accepted too (Google's JSON APIs read both, and
    google-genai writes that one).
    """
    if not isinstance(text, str):
        raise RequestRejected(f"{where}: expected a base64 string")
    if url_safe_too:
        text = text.replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise RequestRejected(f"{where}: invalid base64 data") from None


Responder = Callable[[str, dict[str, Any]], "str | Reply | FunctionCall | None"]


def as_reply(value: str | Reply | FunctionCall) -> Reply:
    """Every scripted reply as a `Reply` (a plain text is one text part)."""
    if isinstance(value, Reply):
        return value
    if isinstance(value, (str, FunctionCall)):
        return Reply(value)
    raise TypeError(f"a scripted reply is a str, a Reply or a FunctionCall, not {type(value).__name__}")


def reply_token_text(reply: Reply) -> str:
    """The text the output token count is estimated from (function calls count as their JSON)."""
    return "".join(p if isinstance(p, str) else json.dumps({"name": p.name, "args": p.args}) for p in reply.parts)


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it, and what it did with it."""

    path: str
    model: str
    prompt: str
    config: dict[str, Any]
    body: dict[str, Any]
    headers: dict[str, str]
    outcome: str  # "reply", "status 429", "malformed", "dropped"
    media: tuple[ReceivedMedia, ...] = ()  # the images, sounds and files sent beside the text, in order


@dataclass(frozen=True)
class ParsedCall:
    """What a subclass extracts from a request it serves."""

    model: str
    prompt: str
    config: dict[str, Any]
    stream: bool = False
    media: tuple[ReceivedMedia, ...] = ()


@dataclass(frozen=True)
class _Fault:
    kind: str  # "status", "malformed", "dropped"
    status: int = 503
    retry_after: float | None = None
    message: str = "injected"


@dataclass
class _Rule:
    match: Callable[[str], bool] | None = None
    texts: tuple[Reply, ...] = ()
    thought: str | None = None
    responder: Responder | None = None
    positions: dict[str, int] = field(default_factory=dict)


class ReplyRule:
    """Returned by `when()`: say what prompts containing the substring get."""

    def __init__(self, rule: _Rule, lock: threading.Lock):
        self._rule = rule
        self._lock = lock

    def reply(self, *texts: str | Reply | FunctionCall, thought: str | None = None) -> ReplyRule:
        """Cycle through `texts` per prompt; `thought` adds a thought part before them.

        Each reply is a text, a `FunctionCall` or a `Reply` of several parts.
        """
        if not texts:
            raise ValueError("reply() needs at least one text")
        replies = tuple(as_reply(t) for t in texts)
        with self._lock:
            self._rule.texts = replies
            self._rule.thought = thought
        return self


def token_count(text: str) -> int:
    """The token count the fake reports: about four characters per token."""
    return max(1, (len(text) + 3) // 4)
