"""Writing a run's report files: the result file, JUnit XML, Markdown, HTML, the GitHub step summary.

`evalkit run`, `evalkit merge` and `evalkit report` all write through here, so a report
rendered later is byte for byte the one the run would have written.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from evalkit.schema.results import CaseResult, RunResult


def write_reports(result: RunResult, *, json_out: Path | None = None, junit: Path | None = None,
                  markdown: Path | None = None, html: Path | None = None,
                  full_cases: Callable[[], Iterable[CaseResult]] | None = None) -> None:
    """Every output a run was asked for, then the GitHub step summary when in GitHub Actions.

    `full_cases`, for a run whose `result` holds slim cases, reads every case back in
    full: the result file streams them, and the HTML report, which shows every turn,
    gets them all at once. JUnit and Markdown need only what the slim copies keep
    (evalkit.results.record), so they are written from those.
    """
    from evalkit.results.writer import write_result

    if json_out:
        write_result(result, json_out, cases=full_cases() if full_cases else None)
    write_report_files(result, junit=junit, markdown=markdown)
    if html:
        whole = result.model_copy(update={"cases": list(full_cases())}) if full_cases is not None else result
        write_report_files(whole, html=html)
    append_github_step_summary(result)


def write_report_files(result: RunResult, *, html: Path | None = None, junit: Path | None = None,
                       markdown: Path | None = None) -> None:
    from evalkit.foundation.files import write_run_file

    if junit:
        from evalkit.report.junit import render_junit

        write_run_file(junit, render_junit(result))
    if markdown:
        from evalkit.report.markdown import render_markdown

        write_run_file(markdown, render_markdown(result))
    if html:
        from evalkit.report.html import render_html

        write_run_file(html, render_html(result))


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
