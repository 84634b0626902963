"""The stand-in's MCP session with the server it stands in for, held so that its failure ends only itself.

The `mcp` SDK runs a client connection in task groups: when the server dies in the middle
of a call, the connection's tasks fail (the SSE stream ends, the session's DELETE finds no
one), and a task group that held the connection together with the stand-in's own serving
would take the stand-in down with it (a traceback, exit 4, every later call lost). Here the
connection lives in a task of its own: the call in flight is answered with an error by the
stand-in (evalkit.cassettes.mcp_standin), the link notes the failure, and the next call
connects again, or is told the server is still not answering.

Results are bounded, not cut at the SDK's 1 MB: one server-sent event of the server's may
hold up to `RELAY_LIMIT` bytes (a larger one fails that call with the limit named).
"""

from __future__ import annotations

import os
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from evalkit.cassettes.mcp_cassette import command_text
from evalkit.errors import UsageError
from evalkit.foundation.redaction import mask_secrets_in

CONNECT_TIMEOUT_S = 30.0  # the real server's start and MCP handshake, when recording
RELAY_LIMIT = 64 * 1024 * 1024  # bytes of one server-sent event from the server: one tool result, bounded


@dataclass(frozen=True)
class RealServer:
    """The MCP server stood in for: a stdio command, or a streamable-HTTP server's URL."""

    command: tuple[str, ...] = ()
    url: str | None = None

    @property
    def shown(self) -> str:
        """Where it is, for people (and the cassette's `server`): the URL, or the command without folders."""
        return str(mask_secrets_in(self.url)) if self.url is not None else command_text(self.command)

    def cassette_name(self) -> str:
        """The default name of its cassette: the URL's host and path, or the command's words without folders."""
        if self.url is not None:
            parts = urlsplit(self.url)
            return "-".join(p for p in (parts.hostname or "", *parts.path.split("/")) if p) or "server"
        return command_text(self.command).replace(" ", "-") or "server"


class UpstreamLink:
    """The real server's initialised `mcp.ClientSession`, opened (again) on demand in `group`'s own task."""

    def __init__(self, real: RealServer, mode: str, group: Any):
        self.real = real
        self.mode = mode
        self.group = group  # an anyio task group that outlives every call
        self._session: Any = None
        self._close: Any = None  # set to end the task that holds the connection
        self.failed: BaseException | None = None  # why the last connection ended or never opened

    async def session(self) -> Any:
        """The open session; connects when there is none (UsageError when the server does not answer)."""
        if self._session is None:
            import anyio

            self.failed = None
            self._close = anyio.Event()
            await self.group.start(self._hold)
            if self._session is None:
                raise self._not_answering(self.failed)
        return self._session

    def close(self) -> None:
        """End the connection; the next call connects again (after a call the connection failed)."""
        self._session = None
        if self._close is not None:
            self._close.set()

    async def _hold(self, *, task_status: Any) -> None:
        """Open the connection, hand its session over, and keep it until closed or until it fails."""
        started = False
        try:
            async with AsyncExitStack() as stack:
                self._session = await self._open(stack)
                started = True
                task_status.started()
                await self._close.wait()
        except Exception as error:  # the connection failed: it alone ends (the SDK's groups wrap the cause)
            self.failed = error
        finally:
            self._session = None
            if not started:
                task_status.started()

    async def _open(self, stack: AsyncExitStack) -> Any:
        import anyio
        from mcp import ClientSession, StdioServerParameters, stdio_client
        from mcp.client.streamable_http import streamable_http_client

        if self.real.url is not None:
            read, write = await stack.enter_async_context(
                streamable_http_client(self.real.url, max_sse_event_size=RELAY_LIMIT))
        else:
            parameters = StdioServerParameters(command=self.real.command[0], args=list(self.real.command[1:]),
                                               env=dict(os.environ))
            read, write = await stack.enter_async_context(stdio_client(parameters))
        session = await stack.enter_async_context(ClientSession(read, write))
        with anyio.fail_after(CONNECT_TIMEOUT_S):
            await session.initialize()
        return session

    def _not_answering(self, error: BaseException | None) -> UsageError:
        why = reason(error) if error is not None else "no reason given"
        if self.real.url is not None:
            return UsageError(f"evalkit mcp ({self.mode}): the MCP server at {self.real.shown} did not answer "
                              f"({why}); start it, or check --url")
        return UsageError(f"evalkit mcp ({self.mode}): the MCP server {' '.join(self.real.command)!r} did not "
                          f"start or answer ({why}); check the command after `--`")


def reason(error: BaseException) -> str:
    """What went wrong, from inside the SDK's task groups' exception groups."""
    inner = getattr(error, "exceptions", None)
    if inner:
        return reason(inner[0])
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
