"""A finished run's verdict: the one decider of the exit code (docs/ci.md, "Exit codes").

`evalkit run`, `rescore`, `merge`, a `--processes` worker, the Python API and the pytest
plugin all judge a run here, from the results and the gates they were given: the cases'
statuses (a quarantined case is reported but does not count; `--gate regressions` leaves
failed thresholds out), an interruption, the coverage minimum of a whole run (a shard's
coverage is a part, gated when the shards are merged), a budget reached (`--max-cost`,
`--max-tokens`, `--max-model-calls`) and, when the finish step found them, regressions
against a baseline. The verdict, with each failed gate's reason, goes
into the result (`verdict`) before any report is written, so every report says what the
exit code says. What happens after the verdict (a full disk, a late signal) is the command's.
"""

from __future__ import annotations

from dataclasses import dataclass

from evalkit.errors import ExitCode
from evalkit.results.quarantine import counted
from evalkit.schema.coverage import Coverage
from evalkit.schema.results import RunResult, Status, has_errors
from evalkit.schema.verdict import GateFailure, RunVerdict


@dataclass(frozen=True)
class Verdict:
    """The exit code, and the record the reports show."""

    exit_code: int
    record: RunVerdict

    @property
    def passed(self) -> bool:
        return self.exit_code == ExitCode.OK


def decide(result: RunResult, *, min_coverage: float | None, count_cases: bool = True,
           regressions: str | None = None) -> Verdict:
    """The run's verdict. `min_coverage` is the coverage minimum of this run (None: no gate);
    `count_cases=False` is `--gate regressions` (failed thresholds alone pass, errors still fail);
    `regressions` is why the baseline comparison fails the gate (None: it does not)."""
    failures: list[GateFailure] = []
    code = ExitCode.OK
    if result.interrupted:
        failures.append(GateFailure(gate="interrupted", message="the run was interrupted before every case ran"))
        code = ExitCode.INTERRUPTED
    kept = counted(result.cases)
    # An error outranks a failure: a failed case may hold a criterion that errored.
    errored = [case.status is Status.ERROR or has_errors(case) for case in kept]
    if any(errored):
        failures.append(GateFailure(gate="errors", message=f"{_cases(sum(errored))} had an agent or judge error"))
        code = code or ExitCode.RUN_ERROR
    not_passed = sum(case.status is not Status.PASSED and not error for case, error in zip(kept, errored))
    if not result.summary.cases:
        failures.append(GateFailure(gate="cases", message="no eval case ran"))
    elif not_passed and count_cases:
        failures.append(GateFailure(gate="cases", message=f"{_cases(not_passed)} of {len(kept)} did not pass"))
    gated = min_coverage if result.shard is None and not result.interrupted else None
    coverage_problem = coverage_failure(result.coverage, gated)
    if coverage_problem is not None:
        failures.append(GateFailure(gate="coverage", message=coverage_problem))
    if regressions is not None:
        failures.append(GateFailure(gate="regressions", message=regressions))
    if result.budget is not None and result.budget.reached:
        failures.append(GateFailure(gate="budget", message=result.budget.reached_line()))
    if failures and code == ExitCode.OK:
        code = ExitCode.FAILED
    return Verdict(code, RunVerdict(passed=not failures, failures=failures, min_coverage=min_coverage))


def coverage_failure(coverage: Coverage | None, minimum: float | None) -> str | None:
    """Why coverage fails `minimum` (None: it passes, or there is no minimum). Also the pytest
    plugin's session gate, over the coverage of all its eval set files."""
    if minimum is None:
        return None
    if coverage is None:
        return (f"min_coverage {minimum:g}: evalkit does not know this agent's tools, so there is no coverage to "
                "gate on; list them under \"coverage\" in the config, or have `evalkit mcp` record its MCP servers "
                "into the run's --cassettes folder (docs/coverage.md), or drop --min-coverage")
    ratio = coverage.tools.ratio or 0.0
    if ratio >= minimum - 1e-12:
        return None
    never = ", ".join(coverage.tools.never_called) or "none"
    return (f"tool coverage {ratio:g} is below the minimum {minimum:g}; never called: {never}; "
            "add eval cases that call them, or lower --min-coverage (min_coverage in the config)")


def exit_code(result: RunResult) -> int:
    """The exit code of a run judged by its cases and its own coverage minimum (a `--processes` worker's)."""
    own = result.coverage.min_ratio if result.coverage is not None else None
    return decide(result, min_coverage=own).exit_code


def _cases(count: int) -> str:
    return f"{count} case{'' if count == 1 else 's'}"
