"""What an A2A agent sends, checked and made readable before the a2a-sdk parses it.

The SDK's client reads its HTTP answers through the httpx transport made here
(`GuardedTransport`), which sits between it and the network and, for every answer:
- bounds it: one JSON body or one server-sent event past `EVENT_LIMIT` bytes, or a
  stream past `STREAM_LIMIT` bytes in all, ends the request with `PeerError`, having
  held no more than that in memory (an agent that answers 100 MB, or streams forever);
- reads a task status's `timestamp` without a zone as UTC, and one that is no date at
  all as absent (the SDK's protobuf parser rejects both, failing the whole answer);
- stores a lone UTF-16 surrogate (`"\\ud800"`, valid JSON but no Unicode text) escaped,
  as the six characters `\\ud800`, rather than failing the case;
- checks that a JSON-RPC answer carries the id of its request;
- keeps the `--header` values (credentials) to the agent's own origin and those the user
  named with `--header-origin`: a request to any other scheme, host or port (an interface
  the card names elsewhere, a redirect) goes without them.
It knows the A2A wire formats, JSON-RPC and HTTP+JSON, of 0.3 and 1.0 alike, and no server.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from datetime import datetime, timezone
from typing import Any

import httpx

EVENT_LIMIT = 16 * 1024 * 1024  # one JSON answer or one streamed event
STREAM_LIMIT = 64 * 1024 * 1024  # one streamed answer in all
_SURROGATE = re.compile("[\ud800-\udfff]")


class PeerError(httpx.TransportError):
    """The agent's answer broke the protocol or a bound; the SDK reports it as a transport failure."""


def readable_timestamp(value: str) -> str | None:
    """An ISO 8601 date-time as RFC 3339 in UTC (no zone: read as UTC); None when it is no date-time."""
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def made_readable(value: Any) -> Any:
    """The JSON with every `timestamp` readable (or dropped) and every lone surrogate escaped."""
    if isinstance(value, dict):
        cleaned: dict[str, Any] = {}
        for key, item in value.items():
            if key == "timestamp" and isinstance(item, str):
                item = readable_timestamp(item)
                if item is None:
                    continue
            cleaned[made_readable(key) if isinstance(key, str) else key] = made_readable(item)
        return cleaned
    if isinstance(value, list):
        return [made_readable(item) for item in value]
    if isinstance(value, str) and _SURROGATE.search(value):
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", value)
    return value


def _request_id(request: httpx.Request) -> Any:
    """The JSON-RPC id of a request evalkit's client sent, or None when it is no JSON-RPC request."""
    try:
        body = json.loads(request.content) if request.content else None
    except (ValueError, httpx.RequestNotRead):
        return None
    return body.get("id") if isinstance(body, dict) and body.get("jsonrpc") else None


def _rewritten(raw: bytes, request_id: Any) -> bytes:
    """One JSON answer (a body, or one event's data), checked and made readable."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return raw  # not JSON: the SDK says so in its own words
    if request_id is not None and isinstance(data, dict) and "jsonrpc" in data and data.get("id") is not None \
            and data.get("id") != request_id:
        raise PeerError(f"the agent answered JSON-RPC request {request_id!r} with the id {data.get('id')!r}")
    return json.dumps(made_readable(data), ensure_ascii=False).encode("utf-8")


def _too_large(what: str, limit: int) -> PeerError:
    return PeerError(f"the agent sent {what} larger than {limit // (1024 * 1024)} MiB; evalkit stopped reading it")


class _GuardedStream(httpx.AsyncByteStream):
    """A streamed answer (server-sent events) re-emitted event by event, each checked and made readable."""

    def __init__(self, inner: httpx.AsyncByteStream, request_id: Any):
        self.inner = inner
        self.request_id = request_id

    async def __aiter__(self) -> AsyncIterator[bytes]:
        pending = bytearray()  # the unfinished line
        data: list[bytes] = []  # the data lines of the event being read
        event_size = total = 0
        name = b""  # the event's `event:` line, when it has one
        async for chunk in self.inner:
            total += len(chunk)
            if total > STREAM_LIMIT:
                raise _too_large("a stream", STREAM_LIMIT)
            pending += chunk
            start = 0
            while (end := pending.find(b"\n", start)) >= 0:
                line = bytes(pending[start:end]).rstrip(b"\r")
                start = end + 1
                if not line:  # the end of an event: passed on before the next is read
                    if data:
                        yield name + b"data: " + _rewritten(b"\n".join(data), self.request_id) + b"\n\n"
                    data, event_size, name = [], 0, b""
                elif line.startswith(b"data:"):
                    value = line[5:]
                    data.append(value[1:] if value.startswith(b" ") else value)
                    event_size += len(value)
                    if event_size > EVENT_LIMIT:
                        raise _too_large("an event", EVENT_LIMIT)
                elif line.startswith(b"event:"):
                    name = line + b"\n"
            del pending[:start]
            if len(pending) + event_size > EVENT_LIMIT:
                raise _too_large("an event", EVENT_LIMIT)
        if data:
            yield b"data: " + _rewritten(b"\n".join(data), self.request_id) + b"\n\n"

    async def aclose(self) -> None:
        await self.inner.aclose()


def origin(url: httpx.URL | str) -> tuple[str, str, int | None]:
    parsed = httpx.URL(url)
    return parsed.scheme, parsed.host, parsed.port or {"http": 80, "https": 443}.get(parsed.scheme)


Origin = tuple[str, str, int | None]
# the origins the `--header` headers may go to, and those headers' names
Private = tuple[frozenset[Origin], tuple[str, ...]]


def private_to(url: str, also: tuple[str, ...], headers: dict[str, str]) -> Private:
    """The `--header` headers go to the agent's own origin and to those named with `--header-origin`."""
    return frozenset([origin(url), *map(origin, also)]), tuple(headers)


def keep_private(request: httpx.Request, private: Private | None) -> None:
    """Drop the `--header` headers from a request that leaves the origins they may go to."""
    if private is not None and origin(request.url) not in private[0]:
        for name in private[1]:
            request.headers.pop(name, None)


class GuardedTransport(httpx.AsyncBaseTransport):
    """The network transport, with every answer bounded, checked and made readable (module docstring).
    `private`: the origins the `--header` headers may go to and their names."""

    def __init__(self, inner: httpx.AsyncBaseTransport | None = None,
                 private: Private | None = None):
        self.inner = inner or httpx.AsyncHTTPTransport()
        self.private = private

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        keep_private(request, self.private)
        request.headers["accept-encoding"] = "identity"  # the bytes read here are the JSON itself
        response = await self.inner.handle_async_request(request)
        stream = response.stream
        assert isinstance(stream, httpx.AsyncByteStream)
        if response.headers.get("content-encoding", "identity").lower() != "identity":
            return response  # compressed although asked not to: left to the SDK as it came
        request_id = _request_id(request)
        headers = [(k, v) for k, v in response.headers.multi_items()
                   if k.lower() not in ("content-length", "transfer-encoding")]
        if "text/event-stream" in response.headers.get("content-type", ""):
            return httpx.Response(response.status_code, headers=headers,
                                  stream=_GuardedStream(stream, request_id), extensions=response.extensions)
        body = bytearray()
        try:
            async for chunk in stream:
                body += chunk
                if len(body) > EVENT_LIMIT:
                    raise _too_large("an answer", EVENT_LIMIT)
        finally:
            await stream.aclose()
        content = _rewritten(bytes(body), request_id) if "json" in response.headers.get("content-type", "") else bytes(body)
        return httpx.Response(response.status_code, headers=headers, content=content, extensions=response.extensions)

    async def aclose(self) -> None:
        await self.inner.aclose()
