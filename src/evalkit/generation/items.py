"""What generated cases aim at: the agent's inventory as items, and how much of it the cases target.

The items are coverage's (docs/coverage.md): each tool, each (tool, parameter) pair of a tool
whose parameters are known, each sub-agent. A proposal's `targets` name items; one naming
anything the inventory lacks is refused with the first such name's kind. Planned coverage is
the targeted items over all items, counted for each kind in the summary line.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from evalkit.schema.coverage import Inventory

UNKNOWN_TOOL = "unknown tool"
UNKNOWN_PARAMETER = "unknown parameter"
UNKNOWN_AGENT = "unknown agent"


@dataclass(frozen=True)
class Targets:
    """What one scenario means the agent to use: tools, parameters by tool, sub-agents (names, in order)."""

    tools: tuple[str, ...] = ()
    parameters: tuple[tuple[str, tuple[str, ...]], ...] = ()
    agents: tuple[str, ...] = ()

    def implied(self) -> Targets:
        """A parameter names its tool too: the tool must be called for the parameter to be given."""
        tools = tuple(dict.fromkeys([*self.tools, *(tool for tool, _ in self.parameters)]))
        return Targets(tools, self.parameters, self.agents)

    def as_json(self) -> dict[str, object]:
        return {"tools": list(self.tools), "parameters": {tool: list(names) for tool, names in self.parameters},
                "agents": list(self.agents)}


@dataclass
class PlannedReach:
    """The inventory's items and which of them the kept proposals target."""

    inventory: Inventory
    tools: set[str] = field(default_factory=set)
    parameters: set[tuple[str, str]] = field(default_factory=set)
    agents: set[str] = field(default_factory=set)

    @property
    def all_parameters(self) -> list[tuple[str, str]]:
        return [(tool, name) for tool, names in self.inventory.tools.items() for name in names or ()]

    @property
    def size(self) -> int:
        return len(self.inventory.tools) + len(self.all_parameters) + len(self.inventory.agents)

    @property
    def ratio(self) -> float:
        """Planned coverage: targeted items ÷ inventory items."""
        reached = len(self.tools) + len(self.parameters) + len(self.agents)
        return reached / self.size if self.size else 1.0

    def refusal(self, targets: Targets, mocked: Iterable[str] = ()) -> str | None:
        """Why `targets` cannot be aimed at (an item the inventory lacks; a `mocked` tool it lacks), or None."""
        tools = self.inventory.tools
        if any(tool not in tools for tool in [*targets.implied().tools, *mocked]):
            return UNKNOWN_TOOL
        for tool, names in targets.parameters:
            known = tools[tool]
            if known is not None and any(name not in known for name in names):
                return UNKNOWN_PARAMETER
        if any(agent not in self.inventory.agents for agent in targets.agents):
            return UNKNOWN_AGENT
        return None

    def add(self, targets: Targets) -> None:
        """Count a kept proposal's targets (already checked by `refusal`)."""
        self.tools.update(targets.tools)
        self.agents.update(targets.agents)
        for tool, names in targets.parameters:
            if self.inventory.tools[tool] is not None:  # a tool whose parameters are unknown has no parameter items
                self.parameters.update((tool, name) for name in names)

    def unreached(self) -> tuple[list[str], list[tuple[str, str]], list[str]]:
        """The items no kept proposal targets yet: tools, (tool, parameter) pairs, sub-agents, in inventory order."""
        return ([tool for tool in self.inventory.tools if tool not in self.tools],
                [pair for pair in self.all_parameters if pair not in self.parameters],
                [agent for agent in self.inventory.agents if agent not in self.agents])

    def describe(self) -> str:
        """`9 of 9 tools, 14 of 14 parameters, 1 of 2 sub-agents` (a kind the agent lacks is left out)."""
        counts = [(len(self.tools), len(self.inventory.tools), "tools"),
                  (len(self.parameters), len(self.all_parameters), "parameters"),
                  (len(self.agents), len(self.inventory.agents), "sub-agents")]
        return ", ".join(f"{done} of {total} {noun}" for done, total, noun in counts if total)
