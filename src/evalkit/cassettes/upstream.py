"""Where recording forwards requests: the server the agent would have called without evalkit.

`Upstreams.from_environment()` is read before evalkit points the variables at the
proxy: `GOOGLE_GEMINI_BASE_URL`, `GOOGLE_VERTEX_BASE_URL` and `OPENAI_BASE_URL` as
they were, else the public APIs. Requests go out with their own headers and query
(the key stays with the request; it is only never written), over one shared httpx
client; the proxy runs handlers on threads, so the client is the sync one.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any


from evalkit.cassettes.protocols import GEMINI, OPENAI, ModelProtocol
from evalkit.cassettes.store import RecordedResponse

# Hop-by-hop headers, and those httpx recomputes for the forwarded body.
_NOT_FORWARDED = {"host", "content-length", "connection", "keep-alive", "transfer-encoding", "accept-encoding"}
VERTEX_ENV_VAR = "GOOGLE_VERTEX_BASE_URL"


@dataclass(frozen=True)
class Upstreams:
    gemini: str
    vertex: str
    openai: str

    @classmethod
    def from_environment(cls, environ: dict[str, str] | None = None) -> Upstreams:
        env = os.environ if environ is None else environ
        location = (env.get("GOOGLE_CLOUD_LOCATION") or "").strip()
        vertex_default = (f"https://{location}-aiplatform.googleapis.com" if location and location != "global"
                          else "https://aiplatform.googleapis.com")
        return cls(
            gemini=(env.get(GEMINI.env_var) or GEMINI.default_upstream).rstrip("/"),
            vertex=(env.get(VERTEX_ENV_VAR) or vertex_default).rstrip("/"),
            openai=(env.get(OPENAI.env_var) or OPENAI.default_upstream).rstrip("/"),
        )

    def url_for(self, protocol: ModelProtocol, path: str) -> str:
        """The upstream URL of a request the proxy received at `path` (with its query)."""
        if protocol is OPENAI:
            # The proxy serves OpenAI at /v1, as OPENAI_BASE_URL does upstream.
            return self.openai + path.removeprefix("/v1")
        base = self.vertex if "/projects/" in path.split("?", 1)[0] else self.gemini
        return base + path


class Forwarder:
    def __init__(self, upstreams: Upstreams, timeout: float = 600.0):
        import httpx  # only a recording run forwards: replay never loads the HTTP client

        self.upstreams = upstreams
        self._client = httpx.Client(timeout=timeout)

    def forward(self, protocol: ModelProtocol, path: str, headers: dict[str, str], body: bytes) -> tuple[int, str, bytes]:
        """(status, content type, raw body) of the upstream's answer; raises httpx.HTTPError."""
        outgoing = {k: v for k, v in headers.items() if k.lower() not in _NOT_FORWARDED}
        response = self._client.post(self.upstreams.url_for(protocol, path), headers=outgoing, content=body)
        return response.status_code, response.headers.get("content-type", "application/json"), response.content

    def close(self) -> None:
        self._client.close()


def parse_response(status: int, content_type: str, raw: bytes) -> RecordedResponse:
    """An upstream answer as a cassette keeps it: JSON, or the JSON of each streamed event."""
    text = raw.decode("utf-8", errors="replace")
    if content_type.startswith("text/event-stream"):
        events = []
        for block in text.replace("\r\n", "\n").split("\n\n"):
            data = "\n".join(line[5:].lstrip() for line in block.split("\n") if line.startswith("data:"))
            if data and data != "[DONE]":
                events.append(_json_or_text(data))
        return RecordedResponse(status, content_type, events=events)
    return RecordedResponse(status, content_type, body=_json_or_text(text))


def render_response(protocol: ModelProtocol, response: RecordedResponse) -> bytes:
    """The bytes a replay sends: the recorded JSON, or the recorded events as a stream."""
    if response.events is not None:
        chunks = [b"data: " + _dumps(event) + protocol.sse_separator for event in response.events]
        return b"".join(chunks) + protocol.stream_end()
    return _dumps(response.body)


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _dumps(value: Any) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8")
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
