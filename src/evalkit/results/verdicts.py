"""The verdict of a case run several times (`--repeat`): one rule for the run and for reading results back."""

from __future__ import annotations

from evalkit.schema.results import Status


def combined_status(statuses: list[Status], required: int) -> Status:
    """Passed with enough passing runs; error when errored runs could still have made it."""
    passed = statuses.count(Status.PASSED)
    errors = statuses.count(Status.ERROR)
    if passed >= required:
        return Status.PASSED
    if errors and passed + errors >= required:
        return Status.ERROR
    if Status.FAILED in statuses:
        return Status.FAILED
    if statuses and all(s is Status.INFORMATIONAL for s in statuses):
        return Status.INFORMATIONAL
    if errors:
        return Status.ERROR
    return Status.NOT_EVALUATED
