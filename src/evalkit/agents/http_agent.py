"""`http://…` / `https://…`: an agent behind an HTTP endpoint, one POST per turn.

The body is the turn as JSON (`Turn.to_json()`); the answer is the reply object of
the turn protocol. After a case the endpoint receives
`{"type": "end_session", "session_id": …}`; its answer and any failure are ignored.
Connections are pooled and reused, up to `--jobs` at once. A 429 or 503 answer is an
overload: the run backs off (honouring `Retry-After`) and plays the case again. The per-turn limit
(`--timeout`) is the runner's; the client's own timeout only sits behind it as a
backstop, so the message a user sees names `--timeout`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from typing import Any

from evalkit.agents.turn_protocol import Turn, TurnProtocolAgent
from evalkit.agents.worker_pool import snippet
from evalkit.defaults import DEFAULT_JOBS
from evalkit.foundation.concurrency import most_in_flight
from evalkit.foundation.overloads import OVERLOAD_STATUSES
from evalkit.errors import AgentError, AgentLoadError, AgentOverloaded
from evalkit.foundation.retry_after import parse_retry_after
from evalkit.foundation.trace_context import send_turn_trace

CONNECT_TIMEOUT_S = 10.0
END_SESSION_TIMEOUT_S = 5.0
BACKSTOP_MARGIN_S = 5.0  # the client gives up this long after the runner would have


class HttpAgent(TurnProtocolAgent):
    def __init__(self, url: str, max_connections: int = most_in_flight(DEFAULT_JOBS), timeout: float | None = None,
                 headers: dict[str, str] | None = None):
        self.url = url
        self.headers = dict(headers or {})  # `--header`: sent with every request, never recorded
        self.description = url
        self.max_connections = max(1, max_connections)
        self.timeout = timeout
        # Made now, when an HTTP agent is chosen (importing httpx and building its TLS
        # context take a noticeable time), so the first turn's time limit does not pay
        # for it. Its connections are opened later, inside the run's event loop.
        self._client: Any = self._new_client()

    def _new_client(self) -> Any:
        import httpx

        read = None if self.timeout is None else self.timeout + BACKSTOP_MARGIN_S
        return httpx.AsyncClient(
            timeout=httpx.Timeout(read, connect=CONNECT_TIMEOUT_S),
            limits=httpx.Limits(max_connections=self.max_connections, max_keepalive_connections=self.max_connections),
            headers={"user-agent": "evalkit", **self.headers},
            event_hooks={"request": [send_turn_trace]},  # run --otel: the turn's trace
        )

    def _http(self) -> Any:
        if self._client is None:  # closed by an earlier run; start afresh
            self._client = self._new_client()
        return self._client

    async def send(self, turn: Turn, where: str) -> Any:
        import httpx

        try:
            response = await self._http().post(self.url, json=turn.to_json())
        except httpx.TimeoutException:
            raise AgentError(f"{where}: no reply from {self.url} (HTTP client timeout)") from None
        except httpx.ConnectError as error:
            raise AgentError(f"{where}: cannot connect to {self.url}: {error_reason(error)}") from None
        except httpx.HTTPError as error:
            raise AgentError(f"{where}: request to {self.url} failed: {error_reason(error)}") from None
        body = response.content
        if response.status_code in OVERLOAD_STATUSES:  # too much at once: the run backs off and retries the case
            raise AgentOverloaded(f"{where}: {self.url} answered HTTP {response.status_code}: {snippet(body)}",
                                  retry_after=parse_retry_after(response.headers.get("retry-after")))
        if not response.is_success:
            raise AgentError(f"{where}: {self.url} answered HTTP {response.status_code}: {snippet(body)}")
        try:
            return json.loads(body)
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise AgentError(f"{where}: {self.url} answered with a body that is not JSON: {snippet(body)}") from None

    async def check_ready(self) -> None:
        """Something must listen at the URL's host and port (a connection, no request): else exit 2, one message."""
        from urllib.parse import urlsplit

        parts = urlsplit(self.url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(parts.hostname, port), CONNECT_TIMEOUT_S)
        except (OSError, asyncio.TimeoutError) as error:
            why = "no answer" if isinstance(error, asyncio.TimeoutError) else (
                os.strerror(error.errno) if error.errno and error.errno > 0 else error.strerror or str(error))
            raise AgentLoadError(self.url, f"nothing answers at {parts.hostname}:{port} ({why}); "
                                 "start the agent's server first, or fix the URL") from None
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()

    async def end_session(self, session_id: str) -> None:
        try:
            await self._http().post(
                self.url,
                json={"type": "end_session", "session_id": session_id},
                timeout=END_SESSION_TIMEOUT_S,
            )
        except asyncio.CancelledError:
            raise
        except Exception:  # the endpoint may not care about end_session at all
            pass

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()


# `Type: message` of a transport error (also the ADK server adapter's).
def error_reason(error: Exception) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
