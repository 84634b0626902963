"""Coverage: what the agent can do (its inventory) and which of it the eval suite exercised.

Three shapes live here, all plain data:
- `CoverageDeclaration`, the config's `"coverage": {"tools": [...], "agents": [...]}`, the
  inventory of an agent evalkit cannot look inside (docs/coverage.md);
- `Inventory`, the tools (with their parameter names, where known) and sub-agents an
  agent declares, from whichever source knew them;
- `Coverage`, the result file's `coverage` object.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import Field, field_validator

from evalkit.schema.base import StrictModel
from evalkit.schema.result_model import ResultModel


class DeclaredTool(StrictModel):
    """A tool named in the config with its parameters, so argument coverage knows them."""

    name: str = Field(min_length=1)
    parameters: list[str] | None = Field(default=None, description="the tool's parameter names")


class CoverageDeclaration(StrictModel):
    """The config's `coverage` key: the tools and sub-agents of an agent evalkit cannot walk."""

    tools: list[DeclaredTool] = Field(default_factory=list, description="tool names, or {name, parameters}")
    agents: list[str] = Field(default_factory=list, description="the agent's sub-agents, by name")

    @field_validator("tools", mode="before")
    @classmethod
    def _names_are_tools(cls, value: Any) -> Any:
        """A bare name is a tool whose parameters are not declared."""
        if isinstance(value, list):
            return [{"name": item, "parameters": None} if isinstance(item, str) else item for item in value]
        return value

    def inventory(self) -> Inventory:
        tools: dict[str, list[str] | None] = {}
        for tool in self.tools:
            tools[tool.name] = None if tool.parameters is None else list(tool.parameters)
        return Inventory(tools=tools, agents=list(dict.fromkeys(self.agents)))


@dataclass
class Inventory:
    """What an agent declares: tool name → parameter names (None: not known), and sub-agent names."""

    tools: dict[str, list[str] | None] = field(default_factory=dict)
    agents: list[str] = field(default_factory=list)

    def plus(self, other: Inventory) -> Inventory:
        """Both inventories at once; a tool's parameters are the union of what each source knew."""
        tools = dict(self.tools)
        for name, parameters in other.tools.items():
            known = tools.get(name)
            if parameters is None:
                tools.setdefault(name, None)
            else:
                tools[name] = list(dict.fromkeys([*(known or []), *parameters]))
        return Inventory(tools=tools, agents=list(dict.fromkeys([*self.agents, *other.agents])))


class ToolCoverage(ResultModel):
    declared: list[str] = Field(default_factory=list)
    called: dict[str, int] = Field(default_factory=dict, description="declared tool → calls, over every case and run")
    never_called: list[str] = Field(default_factory=list)
    unknown: list[str] = Field(default_factory=list,
                               description="tools the expected turns name that the agent does not declare")
    ratio: float | None = Field(default=None, description="called ÷ declared tools (None when none is declared)")


class AgentCoverage(ResultModel):
    declared: list[str] = Field(default_factory=list)
    called: dict[str, int] = Field(default_factory=dict, description="sub-agent → times it ran")
    never_called: list[str] = Field(default_factory=list)


class Coverage(ResultModel):
    """The result file's `coverage` (docs/coverage.md)."""

    tools: ToolCoverage = Field(default_factory=ToolCoverage)
    agents: AgentCoverage = Field(default_factory=AgentCoverage)
    arguments: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="tool → parameter → calls that gave it")
    min_ratio: float | None = Field(default=None, description="--min-coverage (or the config's min_coverage)")
