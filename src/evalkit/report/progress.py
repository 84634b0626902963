"""A live progress bar on a terminal: cases done / total, passed, failed, errors, elapsed, ETA, rate."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console

from evalkit.engine.evaluation import RunProgress
from evalkit.report.progress_line import run_progress
from evalkit.schema.results import CaseResult, Status


@contextmanager
def live_progress(console: Console, run: RunProgress, enabled: bool) -> Iterator[None]:
    if not enabled:
        yield
        return
    counts = {Status.PASSED: 0, Status.FAILED: 0, Status.ERROR: 0, Status.NOT_EVALUATED: 0}
    bar = run_progress(console)  # fits the terminal's width (report/progress_line.py)
    task = bar.add_task("cases", total=None, passed=0, failed=0, errors=0, rate="", jobs="")

    def on_case(result: CaseResult) -> None:
        counts[result.status] = counts.get(result.status, 0) + 1
        elapsed = bar.tasks[task].elapsed or 0.0
        done = len(run.cases)
        bar.update(task, completed=done, total=run.total or None, passed=counts[Status.PASSED],
                   failed=counts[Status.FAILED] + counts[Status.NOT_EVALUATED], errors=counts[Status.ERROR],
                   rate=f"{done / elapsed:.1f} cases/s" if elapsed > 0 else "", jobs=_jobs(run))

    run.listeners.append(on_case)
    with bar:
        yield
    run.listeners.remove(on_case)


def _jobs(run: RunProgress) -> str:
    """The current level of cases in flight (it moves with `--jobs auto`)."""
    limit = run.limit
    if limit is None:
        return ""
    return f"{limit.level} jobs" + (" (auto)" if limit.adaptive else "")
