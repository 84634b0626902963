"""The Customer Engagement Suite (Conversational Agents) `Evaluation` resource, as JSON.

An evaluation holds either a `golden` conversation (turns of steps: user input, forced
agent transfers, and expectations to check) or a `scenario` for a simulated user.
Keys are camelCase as CES writes them (snake_case is accepted too). The parts a person
writes by hand reject unknown keys, so a typo is reported instead of silently dropped;
the parts CES fills in itself (results, metrics, timestamps) are ignored.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

ExtraToolCallBehavior = Literal["EXTRA_TOOL_CALL_BEHAVIOR_UNSPECIFIED", "FAIL", "ALLOW"]
ComparisonType = Literal["COMPARISON_TYPE_UNSPECIFIED", "EQUALS", "CONTAINS", "SEMANTIC_SIMILARITY"]
MetricBehavior = Literal["HALLUCINATION_METRIC_BEHAVIOR_UNSPECIFIED", "DISABLED", "ENABLED"]


class _Written(BaseModel):
    """A part of the file a person writes: unknown keys are errors."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class _Lenient(BaseModel):
    """A part CES also fills in with output-only fields: unknown keys are ignored."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


def last_segment(resource: str) -> str:
    """`projects/p/locations/l/apps/a/tools/get_weather` → `get_weather`."""
    return resource.rstrip("/").rsplit("/", 1)[-1]


class ToolsetTool(_Lenient):
    toolset: str = ""
    tool_id: str = ""


class _ToolReference(_Lenient):
    """How CES names a tool: a tool resource, or a tool of a toolset; `displayName` is output-only."""

    tool: str | None = None
    toolset_tool: ToolsetTool | None = None
    display_name: str | None = None
    id: str | None = None

    @property
    def tool_name(self) -> str:
        """The function name an agent calls: the display name, else the last segment of the resource."""
        if self.display_name:
            return self.display_name
        if self.tool:
            return last_segment(self.tool)
        if self.toolset_tool is not None and self.toolset_tool.tool_id:
            return self.toolset_tool.tool_id
        return ""


class ToolCall(_ToolReference):
    args: dict[str, Any] = Field(default_factory=dict)


class ToolResponse(_ToolReference):
    response: dict[str, Any] = Field(default_factory=dict)


class AgentTransfer(_Lenient):
    target_agent: str = ""
    display_name: str | None = None

    @property
    def agent_name(self) -> str:
        return self.display_name or last_segment(self.target_agent)


class Chunk(_Lenient):
    text: str | None = None
    transcript: str | None = None
    tool_call: ToolCall | None = None
    tool_response: ToolResponse | None = None
    agent_transfer: AgentTransfer | None = None
    updated_variables: dict[str, Any] | None = None
    payload: dict[str, Any] | None = None


class Message(_Lenient):
    role: str | None = None
    chunks: list[Chunk] = Field(default_factory=list)

    def text(self) -> str:
        """The message's words: text chunks (or transcripts of audio ones), newline-joined."""
        return "\n".join(c.text if c.text is not None else c.transcript or "" for c in self.chunks
                         if c.text or c.transcript)


class ToolResponses(_Written):
    tool_responses: list[ToolResponse] = Field(default_factory=list)


class SessionInput(_Written):
    text: str | None = None
    dtmf: str | None = None
    audio: str | None = None
    image: dict[str, Any] | None = None
    blob: dict[str, Any] | None = None
    event: dict[str, Any] | None = None
    tool_responses: ToolResponses | None = None
    variables: dict[str, Any] | None = None
    will_continue: bool | None = None


class ExpectationThresholds(_Written):
    tool_invocation_parameter_correctness_threshold: float | None = None


class TurnThresholds(_Written):
    semantic_similarity_success_threshold: int | None = Field(default=None, ge=0, le=4)
    overall_tool_invocation_correctness_threshold: float | None = Field(default=None, ge=0, le=1)
    semantic_similarity_channel: str | None = None


class ToolMatchingSettings(_Written):
    extra_tool_call_behavior: ExtraToolCallBehavior | None = None


class GoldenThresholds(_Written):
    turn_level_metrics_thresholds: TurnThresholds | None = None
    expectation_level_metrics_thresholds: ExpectationThresholds | None = None
    tool_matching_settings: ToolMatchingSettings | None = None


class MetricsThresholds(_Written):
    golden_evaluation_metrics_thresholds: GoldenThresholds | None = None
    golden_hallucination_metric_behavior: MetricBehavior | None = None
    hallucination_metric_behavior: MetricBehavior | None = None
    scenario_hallucination_metric_behavior: MetricBehavior | None = None


class GoldenExpectation(_Written):
    """One checkable requirement of a golden turn; exactly one condition is set."""

    note: str | None = None
    tool_call: ToolCall | None = None
    tool_response: ToolResponse | None = None
    agent_response: Message | None = None
    agent_transfer: AgentTransfer | None = None
    updated_variables: dict[str, Any] | None = None
    mock_tool_response: ToolResponse | None = None
    no_tool_calls: bool | None = None
    comparison_type: ComparisonType | None = None
    skip_evaluation: bool | None = None
    expectation_level_metrics_thresholds_override: ExpectationThresholds | None = None
    agent_response_hallucination_metrics_config_override: dict[str, Any] | None = None
    agent_response_semantic_similarity_metrics_config_override: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _one_condition(self) -> GoldenExpectation:
        set_ = [name for name in CONDITIONS if getattr(self, name) is not None]
        if len(set_) != 1:
            found = ", ".join(to_camel(n) for n in set_) or "none"
            raise ValueError(
                "an expectation sets exactly one of " + ", ".join(to_camel(n) for n in CONDITIONS)
                + f" (found: {found})"
            )
        return self

    @property
    def kind(self) -> str:
        return next(name for name in CONDITIONS if getattr(self, name) is not None)

    @property
    def compared_by_meaning(self) -> bool:
        """An agentResponse judged by meaning (CES's default), not by EQUALS or CONTAINS."""
        return (self.agent_response is not None and not self.skip_evaluation
                and self.comparison_type in (None, "COMPARISON_TYPE_UNSPECIFIED", "SEMANTIC_SIMILARITY"))


CONDITIONS = ("tool_call", "tool_response", "agent_response", "agent_transfer", "updated_variables",
              "mock_tool_response", "no_tool_calls")


class Step(_Written):
    user_input: SessionInput | None = None
    agent_transfer: AgentTransfer | None = None
    expectation: GoldenExpectation | None = None

    @model_validator(mode="after")
    def _one_action(self) -> Step:
        set_ = [n for n in ("user_input", "agent_transfer", "expectation") if getattr(self, n) is not None]
        if len(set_) != 1:
            raise ValueError("a step sets exactly one of userInput, agentTransfer, expectation")
        return self


class GoldenTurn(_Written):
    steps: list[Step]
    root_span: dict[str, Any] | None = None
    hallucination_metric_behavior_override: MetricBehavior | None = None
    turn_level_metrics_thresholds_override: TurnThresholds | None = None


class Golden(_Written):
    turns: list[GoldenTurn] = Field(min_length=1)
    evaluation_expectations: list[str] = Field(default_factory=list)


class UserFact(_Written):
    name: str
    value: str


class ToolExpectation(_Written):
    expected_tool_call: ToolCall
    mock_tool_response: ToolResponse | None = None


class ScenarioExpectation(_Written):
    tool_expectation: ToolExpectation | None = None
    agent_response: Message | None = None


class Scenario(_Written):
    task: str
    user_facts: list[UserFact] = Field(default_factory=list)
    max_turns: int | None = Field(default=None, ge=1)
    rubrics: list[str] = Field(default_factory=list)
    scenario_expectations: list[ScenarioExpectation] = Field(default_factory=list)
    evaluation_expectations: list[str] = Field(default_factory=list)
    variable_overrides: dict[str, Any] | None = None
    task_completion_behavior: str | None = None
    user_goal_behavior: str | None = None


class Evaluation(_Lenient):
    """One CES evaluation: a golden conversation or a scenario, plus optional threshold overrides."""

    name: str | None = None
    display_name: str | None = None
    description: str | None = None
    tags: list[str] = Field(default_factory=list)
    golden: Golden | None = None
    scenario: Scenario | None = None
    evaluation_metrics_threshold_override: MetricsThresholds | None = None

    @model_validator(mode="after")
    def _golden_or_scenario(self) -> Evaluation:
        if (self.golden is None) == (self.scenario is None):
            raise ValueError("an evaluation has exactly one of 'golden' and 'scenario'")
        return self

    def identifier(self, fallback: str) -> str:
        if self.name:
            return last_segment(self.name)
        return self.display_name or fallback
