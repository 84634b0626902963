"""The result file (`--json`): what a run scored, case by case.

Shape fixed by DESIGN.md ("The result file"). `actual` and `expected` are Invocations
in ADK's snake_case JSON, so `replay:` and other tools can read them back.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Status(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    NOT_EVALUATED = "not_evaluated"
    ERROR = "error"
    INFORMATIONAL = "informational"

    def __str__(self) -> str:
        return self.value


def gate(score: float | None, threshold: float) -> Status:
    """ADK's pass rule for every built-in criterion: `score >= threshold`."""
    if score is None:
        return Status.NOT_EVALUATED
    return Status.PASSED if score >= threshold else Status.FAILED


def case_status(criterion_statuses: list[Status]) -> Status:
    """ADK's case verdict (§2.0.4), with evalkit's `error` taking precedence.

    Failed if any criterion failed; else passed if any passed; else not evaluated.
    """
    if Status.ERROR in criterion_statuses:
        return Status.ERROR
    verdict = Status.NOT_EVALUATED
    for status in criterion_statuses:
        if status is Status.FAILED:
            return Status.FAILED
        if status is Status.PASSED:
            verdict = Status.PASSED
    return verdict


class ResultModel(BaseModel):
    model_config = ConfigDict(extra="allow", use_enum_values=False)


class InvocationScore(ResultModel):
    score: float | None = None
    status: Status
    details: dict[str, Any] = Field(default_factory=dict)


class CriterionResult(ResultModel):
    name: str
    threshold: float | None = None
    score: float | None = None
    status: Status
    invocations: list[InvocationScore] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None


class InvocationRecord(ResultModel):
    actual: dict[str, Any] | None = None
    expected: dict[str, Any] | None = None


class CaseResult(ResultModel):
    eval_set_id: str
    eval_id: str
    status: Status
    error: str | None = None
    criteria: list[CriterionResult] = Field(default_factory=list)
    invocations: list[InvocationRecord] = Field(default_factory=list)
    source_file: str | None = None
    session_id: str | None = None
    duration_s: float | None = None


class Summary(ResultModel):
    cases: int = 0
    passed: int = 0
    failed: int = 0
    not_evaluated: int = 0
    errors: int = 0

    @classmethod
    def of(cls, cases: list[CaseResult]) -> Summary:
        counts = {s: 0 for s in Status}
        for case in cases:
            counts[case.status] += 1
        return cls(
            cases=len(cases),
            passed=counts[Status.PASSED],
            failed=counts[Status.FAILED],
            not_evaluated=counts[Status.NOT_EVALUATED],
            errors=counts[Status.ERROR],
        )


class RunResult(ResultModel):
    evalkit_version: str
    started_at: str
    duration_s: float
    summary: Summary
    cases: list[CaseResult]
    interrupted: bool = False
    judge: dict[str, Any] | None = Field(default=None, description="judge calls, cache hits and tokens")
