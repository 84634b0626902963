"""Mocked tool responses declared in an eval case (an evalkit extension key).

An eval case may carry `tool_mocks`: a list of `{"name": tool, "response": value}`
entries, each optionally limited to one turn with `"invocation_index": i` (0-based).
Agents receive the mocks of the current turn as `tool_mocks` (tool name -> response)
and return them instead of calling the real tool; the ADK adapter applies them itself.
ADK keeps unknown eval-case keys, so such a file still loads in ADK.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from evalkit.schema.evalset import EvalCase


class ToolMock(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    response: Any = None
    invocation_index: int | None = None


def declared_mocks(case: EvalCase) -> list[ToolMock]:
    raw = (case.model_extra or {}).get("tool_mocks") or []
    return [m if isinstance(m, ToolMock) else ToolMock.model_validate(m) for m in raw]


def tool_mocks_for(case: EvalCase, index: int) -> dict[str, Any]:
    """Tool name -> mocked response for turn `index` (turn-specific entries win)."""
    mocks: dict[str, Any] = {}
    for mock in declared_mocks(case):
        if mock.invocation_index is None:
            mocks.setdefault(mock.name, mock.response)
    for mock in declared_mocks(case):
        if mock.invocation_index == index:
            mocks[mock.name] = mock.response
    return mocks
