"""The result file's `comparison` (`--baseline`): what `evalkit compare --json` gives for the baseline and this run.

The shape `compare/diff.py`'s `Comparison.to_dict()` writes; `--significance` adds its
tests (each regressed or improved case's, the overall one and the criteria's), which are
left out without it.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from evalkit.schema.result_model import ResultModel, SparseModel


class CriterionChange(ResultModel):
    name: str
    base_score: float | None = None
    new_score: float | None = None
    base_status: str | None = None
    new_status: str | None = None
    threshold: float | None = None
    kind: str = "unchanged"


class CaseChange(SparseModel):
    omitted_when_none: ClassVar[frozenset[str]] = frozenset(
        {"p_value", "p_adjusted", "significant", "test", "base_passed", "base_runs", "new_passed", "new_runs"})

    eval_set_id: str
    eval_id: str
    base_status: str | None = None
    new_status: str | None = None
    kind: str = "unchanged"
    criteria: list[CriterionChange] = Field(default_factory=list)
    # With --significance, on a regressed or improved case: the test of its pass counts.
    p_value: float | None = None
    p_adjusted: float | None = None
    significant: bool | None = None
    test: str | None = None
    base_passed: int | None = None
    base_runs: int | None = None
    new_passed: int | None = None
    new_runs: int | None = None


class ChangeCounts(ResultModel):
    regressed: int = 0
    improved: int = 0
    changed: int = 0
    added: int = 0
    removed: int = 0
    unchanged: int = 0


class OverallTest(ResultModel):
    test: str
    p_value: float
    p_adjusted: float
    regressed: int
    improved: int
    significant: bool
    base_runs: int = 0
    new_runs: int = 0
    family: int = 1
    detectable_drop: float | None = Field(default=None, description="the drop caught 80% of the time")


class CriterionTest(ResultModel):
    name: str
    test: str
    cases: int
    base_mean: float
    new_mean: float
    p_worse: float
    p_better: float
    p_adjusted: float
    significant: bool


class ComparisonRecord(SparseModel):
    omitted_when_none: ClassVar[frozenset[str]] = frozenset(
        {"baseline_runs", "significance", "overall", "criteria_tests", "gate_scores"})

    base: str
    new: str
    tolerance: float
    cases: list[CaseChange] = Field(default_factory=list)
    baseline_runs: list[str] | None = Field(default=None, description="--baseline history: the runs pooled")
    summary: ChangeCounts = Field(default_factory=ChangeCounts)
    significance: float | None = Field(default=None, description="--significance: the level")
    overall: OverallTest | None = None
    criteria_tests: list[CriterionTest] | None = None
    gate_scores: bool | None = None
