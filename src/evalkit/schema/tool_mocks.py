"""Mocked tool responses declared in an eval case (an evalkit extension key).

An eval case may carry `tool_mocks`: a list of `{"name": tool, "response": value}`
entries, each optionally limited to one turn with `"invocation_index": i` (0-based).
Agents receive the mocks of the current turn as `tool_mocks` (tool name -> response)
and return them instead of calling the real tool; the ADK adapter applies them itself.
ADK keeps unknown eval-case keys, so such a file still loads in ADK.
"""

from __future__ import annotations

from typing import Any

from evalkit.schema.evalset import EvalCase


def tool_mocks_for(case: EvalCase, index: int) -> dict[str, Any]:
    """Tool name -> mocked response for turn `index` (turn-specific entries win)."""
    every_turn = {m.name: m.response for m in reversed(case.tool_mocks or ()) if m.invocation_index is None}
    this_turn = {m.name: m.response for m in case.tool_mocks or () if m.invocation_index == index}
    return {**every_turn, **this_turn}
