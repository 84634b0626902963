"""A run's coverage inputs: the agent's inventory, asked for once after the cases, and the gate.

The inventory is the union of what the agent's adapter knows (an in-process ADK agent's
tree) and what the eval sets' configs declare (`coverage`); none of either: no
inventory, so no coverage object. The gate is `min_coverage` (`--min-coverage`), else
the strictest `min_coverage` of the configs (docs/coverage.md).
"""

from __future__ import annotations

import logging

from evalkit.agents.base import Agent
from evalkit.loading.plan import Plan
from evalkit.schema.coverage import Inventory
from evalkit.settings import RunSettings


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


async def run_inventory(agent: Agent, plan: Plan) -> Inventory | None:
    """The agent's own inventory joined with the configs' declarations."""
    try:
        own = await agent.inventory()
    except Exception as error:  # coverage is a report: a failed listing must not fail the run
        logging.getLogger("evalkit").warning("coverage: the agent's tools could not be listed (%s: %s)",
                                             type(error).__name__, error)
        own = None
    declared = declared_inventory(plan)
    if own is None or declared is None:
        return own or declared
    return own.plus(declared)


def gate_ratio(settings: RunSettings, plan: Plan) -> float | None:
    """`min_coverage` of the settings, else the highest of the configs' (None: no gate)."""
    if settings.min_coverage is not None:
        return settings.min_coverage
    given = [planned.config.min_coverage for planned in plan.sets if planned.config.min_coverage is not None]
    return max(given) if given else None
