"""The eval set models: ADK 2.13's EvalSet JSON, field for field.

Key-spelling and unknown-key rules follow ADK model by model (see the base class of
each), so a file ADK accepts loads here and a file evalkit writes loads in ADK.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from evalkit.schema.base import LenientModel, OpenModel, StrictModel
from evalkit.schema.content import Content, FunctionCall, FunctionResponse, Part

BUILT_IN_PERSONAS = ("EXPERT", "NOVICE", "EVALUATOR")


class RubricContent(StrictModel):
    text_property: str | None = None


class Rubric(StrictModel):
    rubric_id: str
    rubric_content: RubricContent
    description: str | None = None
    type: str | None = None


class AgentDetails(StrictModel):
    name: str
    instructions: str = ""
    tool_declarations: list[Any] = Field(default_factory=list)


class AppDetails(StrictModel):
    agent_details: dict[str, AgentDetails] = Field(default_factory=dict)


class IntermediateData(StrictModel):
    """Form A: tool calls, tool responses and sub-agent texts listed directly."""

    tool_uses: list[FunctionCall] = Field(default_factory=list)
    tool_responses: list[FunctionResponse] = Field(default_factory=list)
    intermediate_responses: list[tuple[str, list[Part]]] = Field(default_factory=list)


class UsageMetadata(LenientModel):
    prompt_token_count: int | None = None
    candidates_token_count: int | None = None
    thoughts_token_count: int | None = None
    tool_use_prompt_token_count: int | None = None
    cached_content_token_count: int | None = None
    total_token_count: int | None = None


class InvocationEvent(LenientModel):
    author: str
    content: Content | None = None
    usage_metadata: UsageMetadata | None = None
    model_version: str | None = None
    grounding_metadata: Any = None


class InvocationEvents(StrictModel):
    """Form B: the events of a real run, as ADK records them."""

    invocation_events: list[InvocationEvent] = Field(default_factory=list)


class Invocation(StrictModel):
    """One turn: the user's message, and what the agent did and said."""

    invocation_id: str = ""
    user_content: Content
    final_response: Content | None = None
    # Form A is tried first, so `{}` is Form A, as in ADK.
    intermediate_data: IntermediateData | InvocationEvents | None = Field(
        default=None, union_mode="left_to_right"
    )
    creation_timestamp: float = 0.0
    duration: float | None = None
    model_duration: float | None = None
    tool_duration: float | None = None
    rubrics: list[Rubric] | None = None
    app_details: AppDetails | None = None


class UserBehavior(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str
    description: str = ""
    behavior_instructions: list[str] = Field(default_factory=list)
    violation_rubrics: list[str] = Field(default_factory=list)


class UserPersona(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str
    description: str = ""
    behaviors: list[UserBehavior] = Field(default_factory=list)


class ConversationScenario(StrictModel):
    starting_prompt: str
    conversation_plan: str
    user_persona: UserPersona | str | None = None

    @field_validator("user_persona")
    @classmethod
    def _known_persona_id(cls, value: UserPersona | str | None) -> UserPersona | str | None:
        if isinstance(value, str) and value not in BUILT_IN_PERSONAS:
            raise ValueError(
                f"unknown persona id {value!r}; built-in personas are "
                + ", ".join(BUILT_IN_PERSONAS)
                + " (or give a full persona object)"
            )
        return value


class ToolMock(StrictModel):
    """evalkit's extension: what a tool must return during the run (docs/evalsets.md, "Tool fakes")."""

    name: str
    args: dict[str, Any] | None = Field(
        default=None, description="answer only calls whose arguments include these (a subset); any call when absent")
    response: Any = Field(default=None, description="what the tool returns (every matching call)")
    responses: list[Any] | None = Field(
        default=None, min_length=1, description="what successive matching calls return; the last one repeats")
    error: str | None = Field(default=None, description="the tool fails with this message instead of returning")
    invocation_index: int | None = Field(
        default=None, ge=0, description="only this turn (0-based); every turn when absent")
    latency_ms: float | None = Field(default=None, ge=0, description="answer each matching call this much later")
    fail_rate: float | None = Field(
        default=None, ge=0, le=1, description="this share of matching calls fail (with `error`, else a stock message), "
        "chosen by a generator seeded with `seed`; the others get the response, or the tool itself when none is given")
    seed: int = Field(default=0, description="seeds `fail_rate`: the same seed fails the same calls")

    @model_validator(mode="after")
    def _one_outcome(self) -> ToolMock:
        answers = [key for key in ("response", "responses") if key in self.model_fields_set]
        # With `fail_rate`, `error` is what the failing calls get, beside the others' response.
        given = answers if self.fail_rate is not None else [*answers, *(["error"] if "error" in self.model_fields_set else [])]
        if len(given) > 1:
            raise ValueError(f"give one of 'response', 'responses' and 'error', not {' and '.join(map(repr, given))}")
        return self

    @property
    def passes_through(self) -> bool:
        """Whether the calls it does not fail go on to the tool: it only delays or fails them."""
        answers = {"response", "responses"} & self.model_fields_set
        return not answers and ("error" not in self.model_fields_set or self.fail_rate is not None)


class OptionalToolCall(StrictModel):
    """evalkit's extension: an expected tool call the agent may leave out (docs/criteria.md)."""

    name: str = Field(description="tool name; every expected call of this tool is optional")
    invocation_index: int | None = Field(default=None, description="only in this turn (0-based); every turn when absent")


class SessionInput(OpenModel):
    app_name: str
    user_id: str
    session_id: str | None = None
    state: dict[str, Any] = Field(default_factory=dict)


class RecordedAnswers(StrictModel):
    """evalkit's extension: the agent's answers a case already holds, graded as they stand
    when no agent is given (an Agent Platform case's `responses` or its `agent_data` ending
    with the agent's message; docs/agent-platform.md)."""

    source: Literal["responses", "agent_data"] = Field(
        description="where the answers came from: `responses`, or an `agent_data` that ends with the agent's message")
    turns: list[Invocation] = Field(description="the agent's answer to each turn of `conversation`")


class EvalCase(OpenModel):
    eval_id: str
    conversation: list[Invocation] | None = None
    conversation_scenario: ConversationScenario | None = None
    session_input: SessionInput | None = None
    rubrics: list[Rubric] | None = None
    final_session_state: dict[str, Any] | None = Field(default_factory=dict)
    creation_timestamp: float = 0.0
    tool_mocks: list[ToolMock] | None = None
    optional_tool_calls: list[OptionalToolCall] | None = None
    prior_events: list[InvocationEvent] | None = Field(
        default=None, description="evalkit's extension: the conversation before the first turn (user, agent and "
        "tool events), which the agent receives as its session so far instead of playing it again")
    recorded_answers: RecordedAnswers | None = Field(
        default=None, description="evalkit's extension: the agent's answers this case already holds")
    agent_platform: dict[str, Any] | None = Field(
        default=None, description="evalkit's extension: an Agent Platform case's own fields that no other field "
        "holds (context, rubric_groups, agent_data.agents, ...), kept for its metrics and for export")

    @model_validator(mode="after")
    def _exactly_one_of_conversation_or_scenario(self) -> EvalCase:
        if (self.conversation is None) == (self.conversation_scenario is None):
            which = "both" if self.conversation is not None else "neither"
            raise ValueError(
                f"an eval case needs exactly one of 'conversation' and "
                f"'conversation_scenario' (this one has {which})"
            )
        return self

    @property
    def is_scenario(self) -> bool:
        return self.conversation_scenario is not None

    @property
    def answered_by(self) -> str | None:
        """Where the answers this case already holds came from, or None when the agent must answer."""
        return self.recorded_answers.source if self.recorded_answers is not None else None


class EvalSet(BaseModel):
    """The file's top level. snake_case keys only, unknown keys ignored (as ADK)."""

    model_config = ConfigDict(extra="ignore")
    eval_set_id: str
    name: str | None = None
    description: str | None = None
    eval_cases: list[EvalCase]
    creation_timestamp: float = 0.0
    # True when the file gave no id and evalkit derived it from the file name (legacy lists).
    _id_from_file_name: bool = PrivateAttr(default=False)
