"""What an in-process agent's tool calls may be answered by besides the tool itself, and how each was answered.

The ADK adapter (adk_turn_plugin) asks, for every tool call, first the case's tool fakes
(`tool_mocks`), then a `ToolCallHook` when the run has one: the cassettes' (evalkit.cassettes.
tool_calls) answers recorded calls and keeps the outcome of calls that ran. Each call is
marked with where its answer came from (`SOURCES`), for the result file's `tool_calls`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

MOCKED, REPLAYED, RECORDED, LIVE = "mocked", "replayed", "recorded", "live"
SOURCES = (RECORDED, REPLAYED, MOCKED, LIVE)  # the order the console counts them in


@dataclass(frozen=True)
class RecordedAnswer:
    """A recorded call's outcome: its response, or the error it raised when `error` is set."""

    response: Any = None
    error: str | None = None


class ReplayedToolError(Exception):
    """A tool call that raised when it was recorded raises again, with the recorded message."""


class ToolCallHook(Protocol):
    def replay(self, name: str, args: dict[str, Any]) -> RecordedAnswer | None:
        """The recorded outcome of this call, or None to run the tool.

        Raises `AgentError` naming the call when it must not run (a replay miss).
        """

    def record(self, call_id: str, name: str, args: dict[str, Any], *, response: Any = None,
               error: str | None = None) -> bool:
        """Keep the outcome of a call that ran; True when it was recorded.

        A second outcome for the same `call_id` (an error the agent then handled) replaces the first.
        """
