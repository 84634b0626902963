"""`evalkit mcp`: a stdio MCP server that stands in for another, recording or replaying its tools.

An agent in any framework names `evalkit mcp --cassettes DIR -- COMMAND [ARGS...]` as its
MCP server command. Built on the `mcp` SDK: evalkit serves MCP on its stdin/stdout and,
when recording, is itself an MCP client of COMMAND.

* record: starts COMMAND, relays `tools/list` and every `tools/call`, and rewrites the
  cassette from scratch with what it saw;
* replay: answers from the cassette without starting COMMAND; a call with no recording
  gets an MCP error naming it and the closest recorded call;
* auto: starts COMMAND too, answers what is recorded and relays and adds the rest.

Calls are matched on tool name and arguments (evalkit.cassettes.recorded_calls); identical
calls get their recorded answers in order, and once those are used up they start over
(the agent run again against the same server). The cassette, `DIR/mcp/<name>.mcp.json`,
is written after every recorded answer, since the agent ends the server by closing its
stdin:

    {"evalkit_mcp_cassette": 1, "server": "python weather_server.py",
     "tools": [{"name": ..., "description": ..., "inputSchema": {...}}, ...],
     "tool_calls": [{"tool": ..., "args": {...}, "response": {...the CallToolResult...}}, ...]}

`tools` is the `tools/list` answer's tools, as sent (the same shape as an ADK cassette's
`tool_listings[].tools`). See docs/cassettes.md, "MCP servers".
"""

from __future__ import annotations

import json
import os
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from evalkit.cassettes.mcp_cassette import McpCassette, command_text, mcp_json
from evalkit.cassettes.recorded_calls import RecordedCalls
from evalkit.cassettes.store import missed_in
from evalkit.errors import UsageError
from evalkit.judge.redact import mask_secrets_in

NO_RECORDING = -32001  # the JSON-RPC error code of a request with no recording (server-defined range)


def cassette_name(command: list[str]) -> str:
    """The default name of a server's cassette: its command line's words, without their folders."""
    return command_text(command).replace(" ", "-") or "server"


class McpStandIn:
    """The stand-in's answers to `tools/list` and `tools/call`, from the cassette or from COMMAND."""

    def __init__(self, cassette: McpCassette, mode: str, upstream: Any = None):
        self.cassette = cassette
        self.mode = mode
        self.upstream = upstream  # an initialised `mcp.ClientSession` of COMMAND (record, auto)
        if mode == "record":
            cassette.start_recording()
        self.calls = RecordedCalls(cassette.tool_calls)

    async def list_tools(self) -> list[dict[str, Any]]:
        if self.mode != "record" and self.cassette.tools is not None:
            return self.cassette.tools
        if self.upstream is None:
            raise self._miss("no recorded tools/list answer")
        result = await self.upstream.list_tools()
        self.cassette.tools = mask_secrets_in([mcp_json(tool) for tool in result.tools])
        self.cassette.save()
        return self.cassette.tools or []

    async def call_tool(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """The call's answer as a CallToolResult's JSON; raises `mcp.MCPError` for a failed or unrecorded call."""
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
            raise self._miss(f"no recorded tools/call matches {shown}: {self.calls.closest(name, masked)}")
        try:
            result = await self.upstream.call_tool(name, args)
        except MCPError as error:
            self._keep({"tool": name, "args": masked, "error": {"code": error.code, "message": error.message}})
            raise
        response = mcp_json(result)
        self._keep({"tool": name, "args": masked, "response": mask_secrets_in(response)})
        return response

    def _keep(self, call: dict[str, Any]) -> None:
        self.calls.add(call)
        self.cassette.save([call])

    def _miss(self, what: str) -> Exception:
        from mcp import MCPError

        where = missed_in(self.cassette.path, self.cassette.exists)
        return MCPError(NO_RECORDING, f"evalkit mcp (replay): {what} ({where}); if the agent's calls or the server's "
                                      "tools changed, re-record with --cassette-mode record (or auto)")


async def serve(folder: Path, mode: str, command: list[str], name: str) -> None:
    """Serve MCP on stdin/stdout until the client closes it."""
    cassette = McpCassette.load(folder, name, command_text(command))
    try:
        await _serve(cassette, mode, command)
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


async def _serve(cassette: McpCassette, mode: str, command: list[str]) -> None:
    import mcp.types as types
    from mcp import ClientSession, StdioServerParameters, stdio_client, stdio_server
    from mcp.server.lowlevel import Server

    async with AsyncExitStack() as stack:
        upstream = None
        if mode != "replay":
            # Opened here, in the task that closes it: the SDK's connections live in task groups.
            parameters = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
            try:
                read, write = await stack.enter_async_context(stdio_client(parameters))
                upstream = await stack.enter_async_context(ClientSession(read, write))
                await upstream.initialize()
            except Exception as error:
                raise UsageError(f"evalkit mcp ({mode}): the MCP server {' '.join(command)!r} did not start or "
                                 f"answer ({type(error).__name__}: {error}); check the command after `--`") from None
        stand_in = McpStandIn(cassette, mode, upstream)

        async def on_list_tools(context: Any, params: Any) -> types.ListToolsResult:
            return types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in await stand_in.list_tools()])

        async def on_call_tool(context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
            answer = await stand_in.call_tool(params.name, dict(params.arguments or {}))
            return types.CallToolResult.model_validate(answer)

        server: Server[Any] = Server("evalkit-mcp", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
