"""A finished run's verdict, as the exit code every front end gives (docs/ci.md, "Exit codes").

Decided by the results alone: the cases' statuses (a quarantined case is reported but
does not count), whether the run was interrupted, and a whole run's coverage gate. So
`evalkit run`, `evalkit merge` and a `--processes` worker judge a run the same way; what
a command adds on top (a baseline's regressions, a storage problem) is the command's.
"""

from __future__ import annotations

from evalkit.errors import ExitCode
from evalkit.results.quarantine import counted
from evalkit.schema.results import RunResult, Status, has_errors


def exit_code(result: RunResult) -> int:
    """The exit code of a finished run: interrupted, errors, all passed, or something failed."""
    if result.interrupted:
        return ExitCode.INTERRUPTED
    if any(case.quarantined for case in result.cases):
        return _exit_code_without_quarantined(result)
    # An error outranks a failure: a failed case may hold a criterion that errored.
    if result.summary.errors or any(has_errors(case) for case in result.cases):
        return ExitCode.RUN_ERROR
    if result.summary.cases and result.summary.passed == result.summary.cases:
        return ExitCode.FAILED if coverage_gate_fails(result) else ExitCode.OK
    return ExitCode.FAILED


def coverage_gate_fails(result: RunResult) -> bool:
    """Below its `min_coverage`; a shard's coverage is a part, so only a whole run (or a merge) is gated."""
    return result.shard is None and result.coverage is not None and result.coverage.fails_gate


def _exit_code_without_quarantined(result: RunResult) -> int:
    """Quarantined cases ran and are reported, but only the others decide (evalkit.results.quarantine)."""
    kept = counted(result.cases)
    if any(case.status is Status.ERROR or has_errors(case) for case in kept):
        return ExitCode.RUN_ERROR
    passed = all(case.status is Status.PASSED for case in kept) and not coverage_gate_fails(result)
    return ExitCode.OK if passed else ExitCode.FAILED
