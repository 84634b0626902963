"""The inventory of an in-process ADK agent: every tool and sub-agent of its tree.

The walk starts at the root agent and visits every agent once: an `LlmAgent`'s tools,
resolved as ADK resolves them for the model (plain functions become function tools,
toolsets such as `McpToolset` list their tools, with their prefix), each `AgentTool`
and the agent it wraps, and every agent's `sub_agents` (workflow agents' children
included). Tools are named as the model sees them, with the parameter names of their
declarations; the agents are every agent of the tree but the root.

Listing an MCP toolset's tools talks to its server, which is why the run asks for the
inventory once, after its cases (when the toolsets are still open), and only then.

google-adk is imported only inside these functions.
"""

from __future__ import annotations

import logging
from typing import Any

from evalkit.schema.coverage import Inventory


async def agent_tree_inventory(root: Any) -> Inventory:
    inventory = Inventory()
    seen: set[int] = set()
    await _visit(root, inventory, seen, is_root=True)
    return inventory


async def _visit(agent: Any, inventory: Inventory, seen: set[int], *, is_root: bool) -> None:
    from google.adk.tools.agent_tool import AgentTool

    if id(agent) in seen:
        return
    seen.add(id(agent))
    name = getattr(agent, "name", None)
    if not is_root and isinstance(name, str) and name not in inventory.agents:
        inventory.agents.append(name)
    for tool in await _tools_of(agent):
        inventory.tools.setdefault(tool.name, parameter_names(tool))
        if isinstance(tool, AgentTool):
            await _visit(tool.agent, inventory, seen, is_root=False)
    for sub_agent in getattr(agent, "sub_agents", None) or ():
        await _visit(sub_agent, inventory, seen, is_root=False)


async def _tools_of(agent: Any) -> list[Any]:
    """The agent's tools as its model is offered them (an agent without `tools` has none)."""
    canonical_tools = getattr(agent, "canonical_tools", None)
    if canonical_tools is None or not getattr(agent, "tools", None):
        return []
    try:
        return list(await canonical_tools())
    except Exception as error:  # a toolset whose server cannot start: the rest still counts
        logging.getLogger("evalkit").warning(
            "coverage: listing the tools of agent %r failed (%s: %s); its tools are left out",
            getattr(agent, "name", "?"), type(error).__name__, error)
        return []


def parameter_names(tool: Any) -> list[str] | None:
    """The parameter names of the tool's declaration (function signature, MCP input schema), None if it has none."""
    try:
        declaration = tool._get_declaration()  # ADK's own way to a tool's FunctionDeclaration
    except Exception:
        return None
    if declaration is None:
        return None
    schema = getattr(declaration, "parameters_json_schema", None)
    if isinstance(schema, dict):
        return list((schema.get("properties") or {}).keys())
    parameters = getattr(declaration, "parameters", None)
    properties = getattr(parameters, "properties", None)
    return list(properties or {})
