"""The `ces` extension key of an eval case: what `evalkit import ces` keeps from a CES evaluation.

ADK's eval case has no place for CES expectations (tool responses to check, transfers,
notes to report by), so the importer stores them, turn by turn, under the case's `ces`
key, together with any threshold overrides; ADK keeps unknown eval-case keys, so the
file still loads there. The CES criteria read it back with `ces_data(case)`.

    "ces": {
      "evaluation": "projects/…/evaluations/checkout",          # where it came from
      "thresholds": {…EvaluationMetricsThresholds…},             # only when it differs from the config
      "turns": [{"expectations": [{…GoldenExpectation…}], "thresholds": {…}}],
      "scenario_expectations": [{…ScenarioExpectation…}]
    }
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from evalkit.schema.ces import GoldenExpectation, MetricsThresholds, ScenarioExpectation, TurnThresholds
from evalkit.schema.evalset import EvalCase

EXTENSION_KEY = "ces"


class CesTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    expectations: list[GoldenExpectation] = Field(default_factory=list)
    thresholds: TurnThresholds | None = None


class CesCaseData(BaseModel):
    model_config = ConfigDict(extra="forbid")
    evaluation: str | None = None
    thresholds: MetricsThresholds | None = None
    turns: list[CesTurn] = Field(default_factory=list)
    scenario_expectations: list[ScenarioExpectation] = Field(default_factory=list)

    def turn(self, index: int) -> CesTurn:
        return self.turns[index] if index < len(self.turns) else CesTurn()

    # ---- threshold overrides: expectation > turn > evaluation > the criterion's own ----

    def parameter_threshold(self, default: float, expectation: GoldenExpectation | None = None) -> float:
        own = expectation.expectation_level_metrics_thresholds_override if expectation else None
        if own is not None and own.tool_invocation_parameter_correctness_threshold is not None:
            return own.tool_invocation_parameter_correctness_threshold
        golden = self.thresholds.golden_evaluation_metrics_thresholds if self.thresholds else None
        level = golden.expectation_level_metrics_thresholds if golden else None
        if level is not None and level.tool_invocation_parameter_correctness_threshold is not None:
            return level.tool_invocation_parameter_correctness_threshold
        return default

    def turn_threshold(self, index: int, field: str, default: float) -> float:
        own = self.turn(index).thresholds
        if own is not None and getattr(own, field) is not None:
            return float(getattr(own, field))
        golden = self.thresholds.golden_evaluation_metrics_thresholds if self.thresholds else None
        level = golden.turn_level_metrics_thresholds if golden else None
        if level is not None and getattr(level, field) is not None:
            return float(getattr(level, field))
        return default

    def extra_tool_call_behavior(self, default: str) -> str:
        golden = self.thresholds.golden_evaluation_metrics_thresholds if self.thresholds else None
        settings = golden.tool_matching_settings if golden else None
        if settings is not None and settings.extra_tool_call_behavior in ("FAIL", "ALLOW"):
            return settings.extra_tool_call_behavior
        return default


def ces_data(case: EvalCase) -> CesCaseData:
    """The case's CES expectations (empty when the case was not imported from CES)."""
    raw: Any = (case.model_extra or {}).get(EXTENSION_KEY)
    if raw is None:
        return CesCaseData()
    if isinstance(raw, CesCaseData):
        return raw
    return CesCaseData.model_validate(raw)
