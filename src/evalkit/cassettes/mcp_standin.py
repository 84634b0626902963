"""`evalkit mcp`: an MCP server that stands in for another, recording or replaying its tools.

An agent in any framework names `evalkit mcp --cassettes DIR -- COMMAND [ARGS...]` as its
MCP server command, or, for a streamable-HTTP server, points its MCP URL at the local
one `evalkit mcp --cassettes DIR --url URL` serves on 127.0.0.1 (evalkit.cassettes.mcp_http).
Built on the `mcp` SDK: evalkit serves MCP and, when recording, is itself an MCP client
of the real server (`RealServer`).

* record: connects to the real server (starts COMMAND), relays `tools/list` and every
  `tools/call`, and rewrites the cassette from scratch with what it saw;
* replay: answers from the cassette without contacting the real server; a call with no
  recording gets an MCP error naming it and the closest recorded call;
* auto: connects too, answers what is recorded and relays and adds the rest.

Calls are matched on tool name and arguments (evalkit.cassettes.recorded_calls); identical
calls get their recorded answers in order, and once those are used up they start over
(the agent run again against the same server). The cassette, `DIR/mcp/<name>.mcp.json`,
is written after every recorded answer, since the agent ends a stdio server by closing
its stdin:

    {"evalkit_mcp_cassette": 1, "server": "python weather_server.py",
     "tools": [{"name": ..., "description": ..., "inputSchema": {...}}, ...],
     "tool_calls": [{"tool": ..., "args": {...}, "response": {...the CallToolResult...}}, ...]}

`tools` is the `tools/list` answer's tools, as sent (the same shape as an ADK cassette's
`tool_listings[].tools`). See docs/cassettes.md, "MCP servers".
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from evalkit.cassettes.mcp_cassette import McpCassette, mcp_json
from evalkit.cassettes.mcp_upstream import RealServer, UpstreamLink, reason
from evalkit.cassettes.recorded_calls import RecordedCalls
from evalkit.cassettes.store import missed_in
from evalkit.errors import UsageError
from evalkit.foundation.redaction import mask_secrets_in

NO_RECORDING = -32001  # the JSON-RPC error code of a request with no recording (server-defined range)
UPSTREAM_FAILED = -32603  # JSON-RPC's internal error: the real server failed, it did not answer
# The mcp SDK's codes for a connection that closed and a request that timed out: the transport's
# failures, not the server's answers, so never recorded (replay would repeat a passing failure).
TRANSPORT_FAILURES = (-32000, -32001)


class McpStandIn:
    """The stand-in's answers to `tools/list` and `tools/call`, from the cassette or from COMMAND."""

    def __init__(self, cassette: McpCassette, mode: str, upstream: UpstreamLink | None = None):
        self.cassette = cassette
        self.mode = mode
        self.upstream = upstream  # the real server's session, connected on demand (record, auto)
        if mode == "record":
            cassette.start_recording()
        self.calls = RecordedCalls(cassette.tool_calls)

    async def list_tools(self, caller_port: int | None = None) -> list[dict[str, Any]]:
        if self.mode != "record" and self.cassette.tools is not None:
            return self.cassette.tools
        if self.upstream is None:
            raise await self._miss("no recorded tools/list answer", caller_port)
        result = await (await self._session()).list_tools()
        self.cassette.tools = mask_secrets_in([mcp_json(tool) for tool in result.tools])
        self.cassette.save()
        return self.cassette.tools or []

    async def call_tool(self, name: str, args: dict[str, Any], caller_port: int | None = None) -> dict[str, Any]:
        """The call's answer as a CallToolResult's JSON; raises `mcp.MCPError` for a failed or unrecorded call.
        `caller_port`: the requester's end of an HTTP connection (who to tell of a miss)."""
        from mcp import MCPError

        masked = mask_secrets_in(args)
        if self.mode != "record":
            call = self.calls.take(name, masked)
            if call is None and self.upstream is None and self.calls.start_over(name, masked):
                call = self.calls.take(name, masked)  # the agent playing its calls again
            if call is not None:
                if "error" in call:
                    raise MCPError(int(call["error"].get("code", -32603)), str(call["error"].get("message", "")))
                return call["response"]
        if self.upstream is None:
            shown = f"{name}({json.dumps(masked, sort_keys=True, ensure_ascii=False)})"
            raise await self._miss(f"no recorded tools/call matches {shown}: {self.calls.closest(name, masked)}",
                                   caller_port)
        session = await self._session()
        try:
            result = await session.call_tool(name, args)
        except MCPError as error:
            if error.code in TRANSPORT_FAILURES:  # the SDK's own words for a dead or silent server
                self._drop_upstream()
                raise self._upstream_failed(error) from None
            self._keep({"tool": name, "args": masked, "error": {"code": error.code, "message": error.message}})
            raise
        except Exception as error:  # the connection failed: no answer of the server's, nothing to replay
            self._drop_upstream()
            raise self._upstream_failed(error) from None
        response = mcp_json(result)
        self._keep({"tool": name, "args": masked, "response": mask_secrets_in(response)})
        return response

    async def _session(self) -> Any:
        """The real server's session; an MCP error for this call when it cannot be (re)connected."""
        from mcp import MCPError

        assert self.upstream is not None
        try:
            return await self.upstream.session()
        except UsageError as error:
            raise MCPError(UPSTREAM_FAILED, f"{error}; nothing was recorded for this call") from None

    def _drop_upstream(self) -> None:
        if self.upstream is not None:
            self.upstream.close()  # a dead connection: the next call connects again

    def _upstream_failed(self, error: BaseException) -> Exception:
        from mcp import MCPError

        return MCPError(UPSTREAM_FAILED, f"evalkit mcp ({self.mode}): the MCP server stood in for failed before it "
                                         f"answered ({reason(error)}); nothing was recorded for this call: check "
                                         "the server, then call again")

    def _keep(self, call: dict[str, Any]) -> None:
        self.calls.add(call)
        self.cassette.save([call])

    async def _miss(self, what: str, caller_port: int | None) -> Exception:
        """The MCP error for a request with no recording, once the run that made it knows (a run
        among this process's ancestors: evalkit.cassettes.mcp_misses), so that its case is `error`
        even when the agent swallows the error."""
        import anyio
        from mcp import MCPError

        from evalkit.cassettes.mcp_misses import tell_the_run

        where = missed_in(self.cassette.path, self.cassette.exists)
        text = (f"evalkit mcp (replay): {what} ({where}); if the agent's calls or the server's tools changed, "
                "re-record with --cassette-mode record (or auto)")
        await anyio.to_thread.run_sync(tell_the_run, text, caller_port)
        return MCPError(NO_RECORDING, text)


def _caller_port(context: Any) -> int | None:
    """Over HTTP, the requester's port (its end of the connection); None on stdio."""
    client = getattr(getattr(context, "request", None), "client", None)
    port = getattr(client, "port", None)
    return port if isinstance(port, int) else None


async def serve(folder: Path, mode: str, real: RealServer, name: str, *, port: int = 0,
                on_ready: Callable[[str], None] | None = None) -> None:
    """Stand in for `real`: on stdin/stdout until the client closes it, or for a URL on
    127.0.0.1 (`on_ready` gets the local URL) until the process is told to stop."""
    cassette = McpCassette.load(folder, name, real.shown)
    try:
        await _serve(cassette, mode, real, port, on_ready)
    except Exception as error:  # the SDK's task groups wrap what failed inside them
        usage = _usage_error_in(error)
        if usage is None:
            raise
        raise usage from None


def _usage_error_in(error: BaseException) -> UsageError | None:
    if isinstance(error, UsageError):
        return error
    for inner in getattr(error, "exceptions", ()):
        found = _usage_error_in(inner)
        if found is not None:
            return found
    return None


async def _serve(cassette: McpCassette, mode: str, real: RealServer, port: int,
                 on_ready: Callable[[str], None] | None) -> None:
    import anyio
    import mcp.types as types
    from mcp import stdio_server
    from mcp.server.lowlevel import Server

    async with anyio.create_task_group() as group:
        upstream = None if mode == "replay" else UpstreamLink(real, mode, group)
        if upstream is not None:
            await upstream.session()  # the first connection is checked before serving: exit 2 when it fails
        stand_in = McpStandIn(cassette, mode, upstream)

        async def on_list_tools(context: Any, params: Any) -> types.ListToolsResult:
            listed = await stand_in.list_tools(_caller_port(context))
            return types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in listed])

        async def on_call_tool(context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
            answer = await stand_in.call_tool(params.name, dict(params.arguments or {}), _caller_port(context))
            return types.CallToolResult.model_validate(answer)

        server: Server[Any] = Server("evalkit-mcp", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
        try:
            if real.url is not None:
                from evalkit.cassettes.mcp_http import serve_streamable_http

                await serve_streamable_http(server, urlsplit(real.url).path or "/mcp", port,
                                            on_ready or (lambda url: None))
            else:
                async with stdio_server() as (read_stream, write_stream):
                    await server.run(read_stream, write_stream, server.create_initialization_options())
        finally:
            if upstream is not None:
                upstream.close()  # its task ends, and with it the task group
