"""ADK's Event and Session as JSON: what ADK's API server returns and its session stores hold.

ADK (Python, Java, Go) writes events in camelCase (`invocationId`, `functionCall`); its
session databases hold the same event as snake_case JSON. Both spellings are read, and
keys evalkit has no use for are dropped, so events of newer ADK versions still load.

`AdkEvent` answers the questions `evalkit.agents.adk_events` asks of ADK's own `Event`
(`is_final_response()`, `get_function_calls()`, ...), with ADK 2.13's rules, so events
that arrive as JSON become invocations through the same code as events from ADK's Runner.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from evalkit.schema.base import LenientModel
from evalkit.schema.content import Content, FunctionCall, FunctionResponse
from evalkit.schema.evalset import UsageMetadata


class AdkEventActions(LenientModel):
    state_delta: dict[str, Any] = Field(default_factory=dict)
    skip_summarization: bool | None = None


class AdkEvent(LenientModel):
    id: str | None = None
    invocation_id: str = ""
    author: str | None = None
    content: Content | None = None
    actions: AdkEventActions = Field(default_factory=AdkEventActions)
    long_running_tool_ids: list[str] | None = None
    partial: bool | None = None
    error_code: str | None = None
    error_message: str | None = None
    grounding_metadata: Any = None
    usage_metadata: UsageMetadata | None = None
    model_version: str | None = None
    timestamp: float | None = None

    def get_function_calls(self) -> list[FunctionCall]:
        return [p.function_call for p in self._parts() if p.function_call]

    def get_function_responses(self) -> list[FunctionResponse]:
        return [p.function_response for p in self._parts() if p.function_response]

    def has_trailing_code_execution_result(self) -> bool:
        parts = self._parts()
        return bool(parts) and parts[-1].code_execution_result is not None

    def is_final_response(self) -> bool:
        """ADK's `Event.is_final_response()` (events/event.py in ADK 2.13)."""
        if self.actions.skip_summarization or self.long_running_tool_ids:
            return True
        if self.error_code and not self.partial and not self.get_function_calls():
            return True
        return (
            not self.get_function_calls()
            and not self.get_function_responses()
            and not self.partial
            and not self.has_trailing_code_execution_result()
        )

    def _parts(self) -> list:
        return list(self.content.parts or ()) if self.content is not None else []


class AdkSession(LenientModel):
    """A session as ADK's session route returns it and `adk web` exports it."""

    id: str
    app_name: str
    user_id: str
    state: dict[str, Any] = Field(default_factory=dict)
    events: list[AdkEvent] = Field(default_factory=list)
    last_update_time: float | None = None
