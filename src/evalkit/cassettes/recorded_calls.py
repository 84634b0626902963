"""Recorded tool calls, matched on the tool's name and canonical arguments, then on their order.

Both kinds of tool recordings use it: an in-process ADK agent's (evalkit.cassettes.tool_calls)
and the MCP stand-in's (evalkit.cassettes.mcp_standin). A call is
`{"tool", "args", "response"}` or, when it failed, `{"tool", "args", "error"}`. Identical
calls are answered by their recordings in the order they were made; a call with none is
explained by its first difference from the closest recorded call (evalkit.cassettes.matching,
as for model calls).
"""

from __future__ import annotations

from typing import Any

from evalkit.cassettes.matching import closest_difference, request_key


def call_key(name: str, args: dict[str, Any]) -> str:
    """Tool name and canonical arguments: key order and number spelling do not matter."""
    return request_key("tool", {"tool": name, "args": args})


class RecordedCalls:
    def __init__(self, calls: list[dict[str, Any]]):
        self.calls = calls  # kept as given: calls added here are added to the caller's list
        self._keys = [call_key(call["tool"], call["args"]) for call in calls]
        self._used: set[int] = set()

    def take(self, name: str, args: dict[str, Any]) -> dict[str, Any] | None:
        """The first unused recording of this call (now used), or None."""
        key = call_key(name, args)
        index = next((i for i, k in enumerate(self._keys) if k == key and i not in self._used), None)
        if index is None:
            return None
        self._used.add(index)
        return self.calls[index]

    def start_over(self, name: str, args: dict[str, Any]) -> bool:
        """Make this call's recordings unused again; False when it has none."""
        key = call_key(name, args)
        again = {i for i, k in enumerate(self._keys) if k == key}
        self._used -= again
        return bool(again)

    def add(self, call: dict[str, Any]) -> int:
        """Append a recording made now (used: it does not answer the call that made it); its index."""
        self.calls.append(call)
        self._keys.append(call_key(call["tool"], call["args"]))
        self._used.add(len(self.calls) - 1)
        return len(self.calls) - 1

    def replace(self, index: int, call: dict[str, Any]) -> None:
        self.calls[index] = call
        self._keys[index] = call_key(call["tool"], call["args"])

    def closest(self, name: str, args: dict[str, Any]) -> str:
        """How this call differs from the most similar recorded one."""
        recorded = [{"tool": call["tool"], "args": call["args"]} for call in self.calls]
        return closest_difference({"tool": name, "args": args}, recorded, noun="tool call", called="made this call")
