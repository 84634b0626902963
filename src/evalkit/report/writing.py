"""Writing a run's report files: the result file, every report format asked for, the GitHub step summary.

`evalkit run`, `rescore`, `merge` and `evalkit report` all write through here, so a report
rendered later is byte for byte the one the run would have written. Each format is a
registry entry (report/formats.py): what is asked for is a list of (format name, path).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from evalkit.schema.results import CaseResult, RunResult


def write_reports(result: RunResult, reports: Sequence[tuple[str, Path]] = (), *, json_out: Path | None = None,
                  full_cases: Callable[[], Iterable[CaseResult]] | None = None) -> None:
    """The result file and every report asked for, then the GitHub step summary when in GitHub Actions.

    `full_cases`, for a run whose `result` holds slim cases, reads every case back in
    full: the result file streams them, and a format that shows every turn (HTML) gets
    them all at once. The others need only what the slim copies keep (evalkit.results.record).
    """
    from evalkit.results.writer import write_result

    if json_out:
        write_result(result, json_out, cases=full_cases() if full_cases else None)
    write_report_files(result, reports, full_cases)
    append_github_step_summary(result)


def write_report_files(result: RunResult, reports: Sequence[tuple[str, Path]],
                       full_cases: Callable[[], Iterable[CaseResult]] | None = None) -> None:
    from evalkit.foundation.files import write_run_file
    from evalkit.report.formats import REPORTS

    whole: RunResult | None = None
    for name, path in reports:
        form = REPORTS.require(name)
        if form.every_case and full_cases is not None:
            whole = whole or result.model_copy(update={"cases": list(full_cases())})
        write_run_file(path, form.render(whole if form.every_case and whole is not None else result))


def append_github_step_summary(result: RunResult) -> None:
    """In GitHub Actions, add the Markdown summary to the job's page.

    A summary that cannot be written is worth a warning, not a failed run: the results
    and the exit code are already decided.
    """
    from evalkit.report.markdown import append_step_summary

    try:
        append_step_summary(result)
    except OSError as error:
        print(f"evalkit: warning: cannot append to GITHUB_STEP_SUMMARY: {error}", file=sys.stderr)
