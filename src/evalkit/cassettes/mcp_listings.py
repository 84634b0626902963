"""The tool listings of an in-process ADK agent's MCP toolsets, recorded and replayed: no server in replay.

An `McpToolset` starts (or connects to) its MCP server the first time the agent asks it
for its tools (`BaseToolset.get_tools`, ADK's public toolset interface), before any
tool is called. For a cassette run, each `McpToolset` in the agent tree is swapped,
in its agent's `tools` list, for a `RecordedMcpToolset` that stands in front of it:

* when recording (or in `auto`, for a listing not yet recorded) it asks the real toolset
  and keeps the MCP `Tool` objects of the answer (`McpTool.raw_mcp_tool`) in the case's
  cassette, under `tool_listings`;
* when replaying it builds ADK's own `McpTool`s from the recorded objects, so the agent
  declares the very same functions to the model, without starting the server. Their
  calls are answered by the recorded tool calls (evalkit.cassettes.tool_calls) before
  they could reach the server; in `auto` a call with no recording reaches it through
  a session manager of this toolset's own, opened only then.

A toolset is named by its agent and position (`weather_agent.tools[1]`), which stay the
same on every machine, unlike a server's command line. `detach` puts the real toolsets
back. Only public ADK names are used (the toolset's connection, auth and confirmation
settings, `McpTool`, `MCPSessionManager`).
"""

from __future__ import annotations

import json
from typing import Any

from google.adk.tools.base_toolset import BaseToolset
from google.adk.tools.mcp_tool.mcp_session_manager import MCPSessionManager
from google.adk.tools.mcp_tool.mcp_tool import McpTool
from google.adk.tools.mcp_tool.mcp_toolset import McpToolset

from evalkit.cassettes.mcp_cassette import command_text, mcp_json
from evalkit.cassettes.model_layer import agent_tree
from evalkit.cassettes.tool_calls import RUNNING_CASE


def server_text(connection: Any) -> str:
    """Where a toolset's server is, for people: its URL, or its command line without folders."""
    params = getattr(connection, "server_params", connection)
    url = getattr(params, "url", None)
    if url:
        return str(url)
    return command_text([str(getattr(params, "command", "") or ""), *map(str, getattr(params, "args", None) or ())])


class RecordedMcpToolset(BaseToolset):
    def __init__(self, inner: McpToolset, name: str, mode: str):
        # The prefix stays with this wrapper (ADK applies it to what get_tools returns); the
        # filter is the real toolset's, applied when it lists.
        super().__init__(tool_name_prefix=inner.tool_name_prefix)
        self.inner = inner
        self.name = name
        self.mode = mode
        self._last: list[dict[str, Any]] | None = None  # the listing a case last got, for asking outside cases
        self._own_session: MCPSessionManager | None = None
        self._built: dict[str, list[McpTool]] = {}  # a recorded listing (as JSON) → its tools, built once

    async def get_tools(self, readonly_context: Any = None) -> list[Any]:
        case = RUNNING_CASE.get()
        if case is None:  # outside a case (the coverage's inventory after the cases): what the cases got
            if self._last is not None:
                return self._replayed(self._last)
            return [] if self.mode == "replay" else await self.inner.get_tools(readonly_context)
        recorded = case.listing(self.name)
        if recorded is None:
            tools = await self.inner.get_tools(readonly_context)
            self._last = [mcp_json(t.raw_mcp_tool) for t in tools if isinstance(t, McpTool)]
            case.keep_listing(self.name, server_text(self.inner.connection_params), self._last)
            return tools
        self._last = recorded
        return self._replayed(recorded)

    def _replayed(self, recorded: list[dict[str, Any]]) -> list[McpTool]:
        key = json.dumps(recorded, sort_keys=True)
        built = self._built.get(key)
        if built is None:
            from mcp.types import Tool

            if self._own_session is None:  # connects only if a call has to reach the server (auto)
                self._own_session = MCPSessionManager(self.inner.connection_params, self.inner.errlog)
            built = self._built[key] = [
                McpTool(mcp_tool=Tool.model_validate(item), mcp_session_manager=self._own_session,
                        auth_scheme=self.inner.auth_scheme, auth_credential=self.inner.auth_credential,
                        require_confirmation=self.inner.require_confirmation,
                        header_provider=self.inner.header_provider)
                for item in recorded
            ]
        return built

    async def close(self) -> None:
        await self.inner.close()
        if self._own_session is not None:
            await self._own_session.close()


class RecordedListings:
    """The MCP toolsets of one agent tree, each behind a `RecordedMcpToolset` while a run uses them."""

    def __init__(self, root_agent: object, mode: str):
        self.root_agent = root_agent
        self.mode = mode
        self._swapped: list[tuple[list[Any], int, McpToolset]] = []  # (tools list, position, real toolset)

    def attach(self) -> None:
        for agent in agent_tree(self.root_agent):
            tools = getattr(agent, "tools", None)
            if not isinstance(tools, list):
                continue
            for position, tool in enumerate(tools):
                if isinstance(tool, McpToolset):
                    name = f"{getattr(agent, 'name', 'agent')}.tools[{position}]"
                    tools[position] = RecordedMcpToolset(tool, name, self.mode)
                    self._swapped.append((tools, position, tool))

    def detach(self) -> None:
        for tools, position, real in self._swapped:
            tools[position] = real
        self._swapped.clear()
