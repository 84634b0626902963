"""EvalConfig: which criteria to score, with thresholds and options (ADK's test_config.json).

`criteria` values stay raw here; `evalkit.criteria.configure` checks each one against its
criterion's own options model, so a misspelt option is reported with its place.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from evalkit.schema.base import StrictModel
from evalkit.schema.coverage import CoverageDeclaration

DEFAULT_CRITERIA: dict[str, float] = {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}


class CodeConfig(StrictModel):
    name: str = Field(description="Dotted path of the metric function, e.g. my_pkg.metrics.my_metric")


class CustomMetricConfig(StrictModel):
    code_config: CodeConfig
    metric_info: dict[str, Any] | None = None
    description: str = ""


class EvalConfig(StrictModel):
    """ADK's EvalConfig. Unlike ADK, unknown top-level keys are an error, not ignored."""

    criteria: dict[str, Any] = Field(
        default_factory=dict,
        description="Criterion name -> threshold (number) or an object with 'threshold' and options",
    )
    custom_metrics: dict[str, CustomMetricConfig] | None = None
    user_simulator_config: dict[str, Any] | None = None
    live_model_config: dict[str, Any] | None = None
    agent: str | None = Field(default=None, description="Agent spec used when --agent is not given")
    coverage: CoverageDeclaration | None = Field(
        default=None, description="The agent's tools and sub-agents, for coverage when evalkit cannot list them")
    min_coverage: float | None = Field(
        default=None, ge=0, le=1, description="Fail the run when fewer than this share of the tools were called")
    # The run's budgets, as `--max-cost`, `--max-tokens`, `--max-model-calls` (the flags win; evalkit extensions).
    max_cost: float | None = Field(
        default=None, gt=0, description="Start no new case once the run has spent this many US dollars "
                                        "(priced by cost_v1's prices)")
    max_tokens: int | None = Field(
        default=None, ge=1, description="Start no new case once the run's agent and judges have used this many tokens")
    max_model_calls: int | None = Field(
        default=None, ge=1, description="Start no new case once the run's agent and judges have made this many "
                                        "model calls")
