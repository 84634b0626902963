"""What the result file records of a case besides its scores and turns: how a simulated
conversation ended, the tool calls' sources, unmatched tool calls and what the case exercised.

Each is what the run wrote as a plain object before it had a model: the same keys in the
same order. A tool call's `args` stay open: they are the agent's own arguments, any JSON.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from evalkit.schema.result_model import ResultModel


class SimulationEnd(ResultModel):
    """How a simulated conversation ended (scenario cases)."""

    ended_by: str = Field(description="stop_signal, turn_limit or replayed")
    simulator_calls: int = Field(default=0, description="user messages asked for, the starting prompt included")


class UnmatchedToolCall(ResultModel):
    """A call to a faked tool that no `tool_mocks` entry matched."""

    invocation_index: int
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class ToolCallSource(ResultModel):
    """Where one tool call's answer came from: recorded, replayed, mocked or live."""

    invocation_index: int | None = Field(default=None, description="the turn (0-based); not kept in a slim copy")
    name: str
    source: str


class Exercised(ResultModel):
    """What the agent's adapter saw a case use (docs/coverage.md)."""

    tools: dict[str, int] = Field(default_factory=dict, description="tool → calls")
    arguments: dict[str, dict[str, int]] = Field(default_factory=dict, description="tool → argument → calls giving it")
    agents: dict[str, int] = Field(default_factory=dict, description="agent → runs")
