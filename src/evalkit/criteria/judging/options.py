"""`judge_model_options`: which judge model a criterion asks, and how often (docs/adk-parity.md, "Judge options").

Parsed as ADK parses its `JudgeModelOptions`: snake_case or camelCase keys, the same
defaults and bounds, and `judge_model_config` validated as a google-genai
`GenerateContentConfig`. Unlike ADK, a misspelt key is an input error when the config
is loaded rather than a silent NOT_EVALUATED at run time.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from evalkit.criteria.judging.calibration_option import CalibrationRequirement
from evalkit.criteria.base import CriterionOptions
from evalkit.schema.genai_config import checked_generate_content_config

DEFAULT_JUDGE_MODEL = "gemini-2.5-flash"


class JudgeModelOptions(CriterionOptions):
    judge_model: str = Field(
        default=DEFAULT_JUDGE_MODEL,
        min_length=1,
        description="judge model: a Gemini model name, or openai/<model> for an OpenAI-compatible server",
    )
    judge_model_config: dict[str, Any] | None = Field(
        default=None,
        description="google-genai GenerateContentConfig fields for the judge (temperature, thinking_config, ...)",
    )
    num_samples: int = Field(
        default=5, ge=1, description="how many times the judge is asked about each turn; the answers are voted on"
    )
    parallelism_limit: int = Field(
        default=1, ge=1, description="most judge calls of this criterion in flight at once, per eval case"
    )
    calibration: CalibrationRequirement | None = Field(
        default=None,
        description="gate only on a judge calibrated against people's labels: {file, min_kappa} "
        "(docs/criteria.md, \"Trusting a judge\")",
    )

    @field_validator("judge_model_config", mode="before")
    @classmethod
    def _a_generate_content_config(cls, value: Any) -> Any:
        if value is None:
            return None
        return checked_generate_content_config(value)

    def request_config(self) -> dict[str, Any] | None:
        """The config sent with every judge request (a copy: requests must not share it)."""
        return dict(self.judge_model_config) if self.judge_model_config is not None else None


def judge_options_field(description: str = "judge_model, judge_model_config, num_samples, parallelism_limit") -> Any:
    """The `judge_model_options` field of a judge criterion's options, with ADK's defaults."""
    return Field(default_factory=JudgeModelOptions, description=description)


class JudgedResponseOptions(CriterionOptions):
    """Options of the criteria that show a judge one answer per turn."""

    judge_model_options: JudgeModelOptions = judge_options_field()
    include_intermediate_responses_in_final: bool = Field(
        default=False, description="judge the agent's intermediate texts together with its final response"
    )
