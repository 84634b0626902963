"""agents-cli's eval config (`eval_config.yaml` or `.json`): which metrics to run, custom metrics, and
evalkit's `thresholds` (docs/agent-platform.md).

Only the keys agents-cli reads are read; other top-level keys are let be, as agents-cli
lets them be. A custom metric entry rejects misspelt keys, as the SDK's metric types do.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from evalkit.schema.base import LenientModel, StrictModel


class PlatformMetric(StrictModel):
    name: str = Field(min_length=1)
    prompt_template: str | None = None
    custom_function: str | None = None
    custom_function_file: str | None = None
    remote_custom_function: str | None = None
    execution: Literal["local", "remote"] | None = Field(
        default=None, description="evalkit runs every function locally; `remote` is accepted and run here too")
    judge_model: str | None = None
    judge_model_sampling_count: int | None = Field(default=None, ge=1, le=32)
    judge_model_system_instruction: str | None = None
    judge_model_generation_config: dict[str, Any] | None = None
    metric_spec_parameters: dict[str, Any] | None = None
    rubric_group_name: str | None = None
    description: str | None = None

    @property
    def defines_own_body(self) -> bool:
        """A metric of its own, rather than parameters for the managed metric of its name."""
        return any(value is not None for value in (self.prompt_template, self.custom_function,
                                                   self.custom_function_file, self.remote_custom_function))


class PlatformConfig(LenientModel):
    metrics_to_run: list[str] = Field(default_factory=list)
    custom_metrics: list[PlatformMetric] = Field(default_factory=list)
    thresholds: dict[str, float] = Field(
        default_factory=dict, description="evalkit's: metric name → the score a case needs; a metric without one "
                                          "is reported, never gating")


PLATFORM_KEYS = ("metrics_to_run", "custom_metrics", "thresholds")
