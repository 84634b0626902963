"""The result file's `verdict`: whether the run passed its gates, and if not, which failed and why.

Written by the one decider (evalkit.results.run_verdict) before any report is written, so
the console, the result file, JUnit, Markdown, HTML and the viewer all tell the verdict the
exit code gives (docs/ci.md, "Exit codes").
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from evalkit.schema.result_model import ResultModel

# The gates a run can fail: its cases (thresholds, errors, nothing ran), an interruption,
# the coverage minimum, regressions against a baseline, and the run's budget (--max-cost, ...).
GateName = Literal["cases", "errors", "interrupted", "coverage", "regressions", "budget"]


class GateFailure(ResultModel):
    gate: GateName
    message: str


class RunVerdict(ResultModel):
    passed: bool = Field(description="true when the run's exit code was 0 (every gate passed)")
    failures: list[GateFailure] = Field(default_factory=list, description="each gate the run failed, and why")
    min_coverage: float | None = Field(
        default=None, description="the run's coverage minimum (--min-coverage or the configs'); a shard's is "
                                     "applied when the shards are merged")

    def reasons(self) -> list[str]:
        return [failure.message for failure in self.failures]
