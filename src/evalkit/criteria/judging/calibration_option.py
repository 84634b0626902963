"""The `judge_model_options.calibration` option: which calibration file, and the κ it must show.

Only the option's shape lives here (the judge options import it); what it does is in
`calibration_gate.py`.
"""

from __future__ import annotations

from pydantic import Field

from evalkit.criteria.base import CriterionOptions


class CalibrationRequirement(CriterionOptions):
    file: str = Field(min_length=1, description="calibration file written by `evalkit calibrate --json`, "
                      "relative to the config's folder")
    min_kappa: float = Field(ge=-1.0, le=1.0, description="the least Cohen's κ with people's labels that lets "
                             "this criterion gate")
