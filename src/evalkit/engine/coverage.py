"""A run's coverage inputs: the agent's inventory, asked for once after the cases, and the gate.

The inventory is the union of what the agent's adapter knows (an in-process ADK agent's
tree), or else, for any other agent, what the `tools/list` answers recorded by `evalkit
mcp` in the run's cassette folder declare, and what the eval sets' configs declare
(`coverage`); none of these: no inventory, so no coverage object. An ADK agent's tree
already holds its MCP toolsets (through `evalkit mcp` or not), and the folder's MCP
cassettes may be other agents': they are not added to it. The gate is `min_coverage` (`--min-coverage`), else
the strictest `min_coverage` of the configs (docs/coverage.md). A gate that no run could
pass (an agent that never declares its tools, and no other source) is refused before the run.
"""

from __future__ import annotations

import logging
from pathlib import Path

from evalkit.agents.base import Agent
from evalkit.agents.registry import agent_kind
from evalkit.errors import InputError, Problem, SettingError
from evalkit.loading.plan import Plan
from evalkit.schema.coverage import Inventory
from evalkit.settings import RunSettings

_log = logging.getLogger("evalkit")


def declared_inventory(plan: Plan) -> Inventory | None:
    """What the configs of the plan's eval sets declare under `coverage` (None: nothing)."""
    inventory: Inventory | None = None
    seen: set[int] = set()
    for planned in plan.sets:
        declaration = planned.config.coverage
        if declaration is None or id(declaration) in seen:
            continue
        seen.add(id(declaration))
        inventory = declaration.inventory() if inventory is None else inventory.plus(declaration.inventory())
    return inventory


def recorded_mcp_inventory(cassettes: Path | None) -> Inventory | None:
    """The tools of the MCP servers `evalkit mcp` recorded in the cassette folder (None: no listing there)."""
    if cassettes is None or not (cassettes / "mcp").is_dir():
        return None
    from evalkit.cassettes.mcp_cassette import recorded_tools

    tools = recorded_tools(cassettes, lambda problem: _log.warning("coverage: %s; its tools are left out", problem))
    return None if tools is None else Inventory(tools=dict(tools))


async def run_inventory(agent: Agent, plan: Plan, cassettes: Path | None = None) -> Inventory | None:
    """The agent's own inventory (else the recorded MCP listings of `cassettes`) joined with the configs'."""
    return await agent_inventory(agent, declared_inventory(plan), cassettes)


async def agent_inventory(agent: Agent, declared: Inventory | None, cassettes: Path | None = None) -> Inventory | None:
    """The agent's own inventory (else the recorded MCP listings of `cassettes`) joined with `declared`
    (a config's `coverage`): what a run's coverage and `evalkit generate` aim at."""
    try:
        own = await agent.inventory()
    except Exception as error:  # coverage is a report: a failed listing must not fail the run
        _log.warning("coverage: the agent's tools could not be listed (%s: %s)", type(error).__name__, error)
        own = None
    if own is None:
        own = recorded_mcp_inventory(cassettes)
    if own is None or declared is None:
        return own or declared
    return own.plus(declared)


def gate_ratio(settings: RunSettings, plan: Plan) -> float | None:
    """`min_coverage` of the settings, else the highest of the configs' (None: no gate)."""
    if settings.min_coverage is not None:
        return settings.min_coverage
    given = [planned.config.min_coverage for planned in plan.sets if planned.config.min_coverage is not None]
    return max(given) if given else None


def refuse_a_gate_without_inventory(settings: RunSettings, plan: Plan, spec: str | None) -> None:
    """Before the run: a coverage gate is an error (exit 2) when the agent's kind never
    declares its tools (a process, a server, recorded turns, a plug-in kind that does not say
    it does), no config declares them and the run has no cassette folder for `evalkit mcp`
    listings. An agent loaded from Python may be an ADK agent, whose kind is known only once loaded."""
    ratio = gate_ratio(settings, plan)
    if ratio is None or not spec or settings.cassettes is not None or declared_inventory(plan) is not None:
        return
    kind = agent_kind(spec)
    if kind is None or kind.declares_tools:
        return
    reason = (f"evalkit cannot know the tools of the agent {spec.strip()!r}, so no run can reach this coverage; "
              "declare them under \"coverage\" in the config (docs/coverage.md), or run with {cassettes} DIR where "
              "`evalkit mcp` records the agent's MCP servers, or drop the coverage gate")
    if settings.min_coverage is not None:
        raise SettingError("min_coverage", settings.min_coverage, reason, mentions=("cassettes",))
    config = next(str(planned.config_file or planned.file) for planned in plan.sets if planned.config.min_coverage is not None)
    raise InputError(Problem(config, "min_coverage", reason.replace("{cassettes}", "--cassettes")))
