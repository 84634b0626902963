"""The result file's run-level figures: latency, cases in flight, `--repeat auto`'s rule,
the quarantine list, the cassettes and the baseline comparison (docs/architecture.md, "Contracts").

Each is what the run wrote as a plain object before it had a model: the same keys in the
same order, absent keys left out where they were left out.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from evalkit.schema.result_model import ResultModel, SparseModel


class LatencyStats(ResultModel):
    count: int = 0
    p50_s: float | None = None
    p90_s: float | None = None
    p99_s: float | None = None


class ToolFigures(ResultModel):
    tool: str
    calls: int = 0
    latency: LatencyStats = Field(default_factory=LatencyStats)
    passed: int = Field(default=0, description="expected calls of the tool that passed (CES criteria)")
    failed: int = 0


class ProgressCounts(ResultModel):
    total: int = 0
    completed: int = 0
    passed: int = 0
    failed: int = 0
    error: int = 0
    not_evaluated: int = 0


class RunLatency(ResultModel):
    """The result file's `latency`: progress counts, turn latency percentiles and per-tool figures."""

    progress: ProgressCounts = Field(default_factory=ProgressCounts)
    turn_latency: LatencyStats = Field(default_factory=LatencyStats)
    tools: list[ToolFigures] = Field(default_factory=list)


class Concurrency(ResultModel):
    """The result file's `concurrency` (`--jobs`): how many cases were in flight, and why."""

    mode: str = Field(default="auto", description="auto (adaptive) or fixed")
    initial: int = 0
    final: int = 0
    peak: int = 0
    peak_in_flight: int = 0
    raises: int = 0
    backoffs: int = 0
    saturated_windows: int = Field(default=0, description="windows in which the process was busy nearly all the time")
    overloads: int = Field(default=0, description="429/503/RESOURCE_EXHAUSTED signals seen")
    waited_for_retry_after_s: float = 0.0
    reruns: int = Field(default=0, description="cases run again after an overload")


class AutoRepeat(SparseModel):
    """The result file's `repeat_auto` (`--repeat auto`, docs/repeats.md): the stopping rule, and the runs it took.

    A run made of parts (`--processes`, `evalkit merge` of parts that do not all say)
    leaves out `agent_runs` and `runs_saved`, which only the parts knew."""

    omitted_when_none: ClassVar[frozenset[str]] = frozenset({"agent_runs", "runs_saved"})

    max_repeat: int | None = None
    agreeing_runs: int | None = None
    rule: str | None = None
    required_passes: int | None = None
    same_as_repeat: int | None = Field(default=None, description="the fixed number of runs that decides the same way")
    agent_runs: int | None = None
    runs_saved: int | None = None

    def rule_only(self) -> AutoRepeat:
        """The rule without the counts of runs."""
        return self.model_copy(update={"agent_runs": None, "runs_saved": None})


class QuarantineUse(ResultModel):
    """The result file's `quarantine`: the list's file, and what it did to this run's cases."""

    file: str
    active: list[str] = Field(default_factory=list, description="cases held out of the exit code")
    expired: list[str] = Field(default_factory=list, description="cases past their date, counted again")
    unknown: list[str] = Field(default_factory=list, description="entries naming no case of the run")


class CassettesUse(ResultModel):
    """The result file's `cassettes`: the folder (absolute) and the mode the model calls came from."""

    folder: str
    mode: str
