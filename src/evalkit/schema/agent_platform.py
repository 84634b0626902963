"""The Agent Platform `EvaluationDataset` that agents-cli reads and writes (`*-dataset.json`).

Field for field the SDK's `EvaluationDataset` / `EvalCase` / `AgentData` types as far as
evalkit reads them (docs/agent-platform.md): snake_case or camelCase keys as the SDK
takes them; a case keeps unknown keys (the SDK's cases allow extra fields, which custom
metrics read), the nested models reject them, as the SDK's do.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from evalkit.schema.base import OpenModel, StrictModel
from evalkit.schema.content import Content


class ResponseCandidate(StrictModel):
    response: Content | None = None


class PlatformEvent(StrictModel):
    """One event of a turn: authored by `user`, an agent's id, or a tool."""

    author: str | None = None
    content: Content | None = None
    event_time: Any = None
    state_delta: dict[str, Any] | None = None
    active_tools: list[Any] | None = None


class ConversationTurn(StrictModel):
    turn_index: int | None = None
    turn_id: str | None = None
    events: list[PlatformEvent] | None = None


class AgentData(StrictModel):
    agents: dict[str, Any] | None = Field(default=None, description="agent id → its config (instruction, tools, ...)")
    turns: list[ConversationTurn] | None = None


class PlatformCase(OpenModel):
    eval_case_id: str | None = None
    prompt: Content | None = None
    responses: list[ResponseCandidate] | None = None
    reference: ResponseCandidate | None = None
    context: str | Content | None = None
    rubric_groups: dict[str, Any] | None = None
    agent_data: AgentData | None = None
    system_instruction: Content | None = None
    conversation_history: list[Any] | None = None

    def events(self) -> list[PlatformEvent]:
        """Every event of `agent_data`, turn after turn."""
        turns = self.agent_data.turns if self.agent_data is not None else None
        return [event for turn in turns or () for event in turn.events or ()]


USER_AUTHOR = "user"
