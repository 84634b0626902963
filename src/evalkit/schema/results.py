"""The result file (`--json`): what a run scored, case by case.

A stable contract (docs/architecture.md, "Contracts"): fields are only added. `actual` and `expected` are Invocations
in ADK's snake_case JSON, so `replay:` and other tools can read them back.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Any

from typing import ClassVar

from pydantic import Field

from evalkit.schema.budget_use import BudgetUse
from evalkit.schema.case_extras import Exercised, SimulationEnd, ToolCallSource, UnmatchedToolCall
from evalkit.schema.comparison import ComparisonRecord
from evalkit.schema.coverage import Coverage
from evalkit.schema.result_model import ResultModel, SparseModel
from evalkit.schema.run_figures import AutoRepeat, CassettesUse, Concurrency, QuarantineUse, RunLatency
from evalkit.schema.verdict import RunVerdict


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
    """ADK's case verdict (docs/adk-parity.md, "Case verdicts"), with evalkit's `error` (docs/ci.md, "Case status").

    Failed if any criterion failed: the verdict is known, even when another criterion
    errored. Else error if any errored; else passed if any passed or every one is
    informational; else not evaluated.
    """
    if Status.FAILED in criterion_statuses:
        return Status.FAILED
    if Status.ERROR in criterion_statuses:
        return Status.ERROR
    # Criteria that only report (agents-cli metrics without a threshold) do not hold a case back.
    informational_only = bool(criterion_statuses) and all(s is Status.INFORMATIONAL for s in criterion_statuses)
    return Status.PASSED if Status.PASSED in criterion_statuses or informational_only else Status.NOT_EVALUATED


def has_errors(case: CaseResult) -> bool:
    """The case, or one of its criteria, ended in `error` (a failed case may hold one)."""
    return case.status is Status.ERROR or any(c.status is Status.ERROR for c in case.criteria)


class ScoreSpread(ResultModel):
    """A criterion over the repeated runs of a case (`--repeat N`)."""

    runs: int
    scored: int = Field(description="runs that gave a number")
    passed: int
    mean: float | None = None
    stdev: float | None = Field(default=None, description="population standard deviation")
    min: float | None = None
    max: float | None = None


class RepeatStats(ResultModel):
    """A case over its repeated runs (`--repeat N`)."""

    runs: int
    passed: int
    failed: int = 0
    errors: int = 0
    required: int = Field(description="passing runs the case needs to pass")
    pass_rate: float
    pass_at_k: dict[int, float] = Field(default_factory=dict, description="k → chance that at least one of k runs passes")
    pass_hat_k: dict[int, float] = Field(default_factory=dict, description="k → chance that all of k runs pass")
    flaky: bool = Field(description="the runs did not all end with the same status")
    pass_rate_ci: list[float] | None = Field(
        default=None, min_length=2, max_length=2,
        description="95% Wilson interval of the pass rate, [low, high] (docs/repeats.md)")
    stability: str | None = Field(default=None, description="stable_pass, flaky or stable_fail")
    # With `--repeat auto` only (engine/repeats.py adds them as extra fields, so other runs'
    # files are unchanged): `pass_rate_unbiased`, the pass rate estimated without the bias of
    # stopping early, and `pass_rate_ci_exact`, its exact 95% interval given the stopping rule.


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
    error_detail: str | None = Field(default=None, description="the traceback of a criterion that raised")
    spread: ScoreSpread | None = None


class InvocationRecord(ResultModel):
    actual: dict[str, Any] | None = None
    expected: dict[str, Any] | None = None


class CaseResult(ResultModel):
    eval_set_id: str
    eval_id: str
    status: Status
    error: str | None = None
    error_detail: str | None = Field(default=None, description="the traceback, or a worker's last stderr lines")
    reason: str | None = Field(default=None, description="why a not_evaluated case was not scored, and what to add")
    criteria: list[CriterionResult] = Field(default_factory=list)
    invocations: list[InvocationRecord] = Field(default_factory=list)
    source_file: str | None = None
    session_id: str | None = None
    duration_s: float | None = None
    simulation: SimulationEnd | None = Field(default=None, description="how a simulated conversation ended")
    unmatched_tool_calls: list[UnmatchedToolCall] | None = Field(
        default=None, description="calls to a faked tool that no tool_mocks entry matched: {invocation_index, name, args}")
    # Open: the agent's own session state, whatever JSON it keeps (final_session_state compares it).
    final_state: dict[str, Any] | None = Field(
        default=None, description="the session state the agent left, when it reports one")
    tool_calls: list[ToolCallSource] | None = Field(
        default=None, description="where each tool call's answer came from, in call order: {invocation_index, name, "
        "source}, source one of recorded, replayed, mocked, live (in-process ADK agents)")
    repeat: RepeatStats | None = None
    runs: list[CaseResult] | None = Field(default=None, description="each repeated run, in the order they finished")
    quarantined: bool | None = Field(
        default=None, description="true: listed in --quarantine and in force; reported, but not in the exit code")
    exercised: Exercised | None = Field(
        default=None, description="what the agent's adapter saw the case use: {tools, arguments, agents} "
                                  "(ADK agents; docs/coverage.md)")


class Summary(ResultModel):
    cases: int = 0
    passed: int = 0
    failed: int = 0
    not_evaluated: int = 0
    errors: int = 0
    flaky: int = 0
    quarantined: int = Field(default=0, description="cases held out of the exit code by --quarantine")
    cost: float | None = Field(default=None, description="the cases' cost_v1 added up, in the price table's currency")
    planned: int | None = Field(default=None, description="the cases the run set out to run; more than `cases` "
                                "when it was interrupted")
    run_pass_rate: float | None = Field(default=None, description="with --repeat: the share of all runs that passed")
    run_pass_rate_ci: list[float] | None = Field(
        default=None, description="with --repeat: the 95% Wilson interval of run_pass_rate, [low, high]")

    @classmethod
    def of(cls, cases: Sequence[CaseResult], planned: int | None = None) -> Summary:
        counts = dict.fromkeys(Status, 0)
        for case in cases:
            counts[case.status] += 1
        return cls(
            cases=len(cases),
            passed=counts[Status.PASSED],
            failed=counts[Status.FAILED],
            not_evaluated=counts[Status.NOT_EVALUATED],
            errors=counts[Status.ERROR],
            flaky=sum(1 for case in cases if case.repeat is not None and case.repeat.flaky),
            quarantined=sum(1 for case in cases if case.quarantined),
            cost=total_cost(cases),
            planned=planned,
            **run_pass_rate(cases),
        )

    @property
    def never_ran(self) -> int:
        """Planned cases with no result (an interrupted run's)."""
        return max(0, (self.planned or 0) - self.cases)


def run_pass_rate(cases: Sequence[CaseResult]) -> dict[str, Any]:
    """With repeated runs: the share of all runs that passed, and its 95% Wilson interval."""
    repeats = [case.repeat for case in cases if case.repeat is not None]
    runs = sum(r.runs for r in repeats)
    if not runs:
        return {}
    from evalkit.stats.interval import wilson_interval

    passed = sum(r.passed for r in repeats)
    low, high = wilson_interval(passed, runs)
    return {"run_pass_rate": round(passed / runs, 4), "run_pass_rate_ci": [round(low, 4), round(high, 4)]}


# The criterion whose scores reports add up into a run's cost (criteria/extended/cost.py).
COST_CRITERION = "cost_v1"


def total_cost(cases: Sequence[CaseResult]) -> float | None:
    """What the cases' model tokens cost by `cost_v1` (None when no case was priced)."""
    costs = [c.score for case in cases for c in case.criteria if c.name == COST_CRITERION and c.score is not None]
    return round(sum(costs), 10) if costs else None


class GitInfo(ResultModel):
    """The repository state a run was made on (docs/viewer.md)."""

    commit: str
    branch: str | None = Field(default=None, description="None when HEAD was detached")


class JudgeStatistics(ResultModel):
    """What the judges of one run did and cost (the result file's `judge`).

    `requests` counts judge questions; `cache_hits` of them were answered from disk;
    `calls` counts attempts sent to a model (retries included); `retries` the attempts
    after a failed one; `failures` the requests that failed for good.
    """

    requests: int = 0
    calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    failures: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    no_verdict: int = Field(default=0, description="judged turns whose replies held no readable verdict (each an error)")
    concurrency: dict[str, Any] | None = Field(default=None, description="judge calls in flight, per endpoint")

    def to_dict(self) -> dict[str, int]:
        """The counts alone."""
        return {name: getattr(self, name) for name in _JUDGE_COUNTS}

    def plus(self, other: JudgeStatistics) -> JudgeStatistics:
        """Two runs' statistics added up (shards merged); the first's concurrency kept."""
        counts = {name: getattr(self, name) + getattr(other, name) for name in _JUDGE_COUNTS}
        return JudgeStatistics(**counts, no_verdict=self.no_verdict + other.no_verdict,
                               concurrency=self.concurrency or other.concurrency)


_JUDGE_COUNTS = ("requests", "calls", "cache_hits", "retries", "failures", "input_tokens", "output_tokens")


class RunResult(SparseModel):
    # No inventory, no coverage object: the key is left out rather than written as null.
    omitted_when_none: ClassVar[frozenset[str]] = frozenset({"coverage", "verdict", "budget"})

    evalkit_version: str
    started_at: str
    duration_s: float
    summary: Summary
    cases: list[CaseResult]
    interrupted: bool = False
    judge: JudgeStatistics | None = Field(default=None, description="judge calls, cache hits and tokens")
    latency: RunLatency | None = Field(
        default=None, description="progress counts, turn latency percentiles and per-tool figures")
    repeat: int = Field(default=1, description="runs per case (--repeat)")
    pass_rate: float | None = Field(default=None, description="share of runs a case needs to pass (--pass-rate)")
    confidence: float | None = Field(
        default=None, description="--confidence: a case passes when its Wilson interval's low end reaches pass_rate")
    repeat_auto: AutoRepeat | None = Field(
        default=None, description="--repeat auto: max_repeat, agreeing_runs, rule, required_passes, same_as_repeat, "
                                  "agent_runs, runs_saved (repeat is the cap; docs/repeats.md)")
    shard: str | None = Field(default=None, description="K/N when this run was one shard (--shard)")
    concurrency: Concurrency | None = Field(
        default=None, description="cases in flight (--jobs): mode, initial/peak/final level, overloads and back-offs")
    shards: list[str] | None = Field(default=None, description="the shards combined by `evalkit merge`")
    comparison: ComparisonRecord | None = Field(
        default=None, description="--baseline: what `evalkit compare --json` gives for the baseline and this run")
    quarantine: QuarantineUse | None = Field(
        default=None, description="--quarantine: the file, and the cases it held out (active), let back in (expired) "
                                  "or named without a case of the run (unknown)")
    git: GitInfo | None = Field(default=None, description="commit and branch of the repository the run was made in")
    agent: str | None = Field(default=None, description="the agent spec the run used (--agent or the config's)")
    cassettes: CassettesUse | None = Field(
        default=None, description="with --cassettes: the folder (absolute) and the mode the model calls came from")
    coverage: Coverage | None = Field(
        default=None, description="the tools and sub-agents the agent declares and which of them the run used "
                                  "(docs/coverage.md); absent when evalkit does not know the agent's tools")
    budget: BudgetUse | None = Field(
        default=None, description="--max-cost, --max-tokens, --max-model-calls (or the config's): the limits, what "
                                  "the agent and the judges spent, and the cases not started; absent without a budget")
    verdict: RunVerdict | None = Field(
        default=None, description="passed, or the gates it failed and why: the exit code's verdict (a shard's "
                                  "leaves coverage to the merge); absent from files of older versions")
