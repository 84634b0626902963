"""`evalkit report RESULT.json`: render a saved result as HTML, JUnit XML or Markdown.

Also home of `write_report_files`, which `evalkit run` uses for the same three outputs,
so a report rendered later is byte for byte the one the run would have written.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from evalkit.schema.results import RunResult


@dataclass
class ReportRequest:
    result_file: Path
    html: Path | None = None
    junit: Path | None = None
    markdown: Path | None = None


def report_command(request: ReportRequest) -> int:
    """Write each asked-for report; with none asked for, print the console table instead."""
    from evalkit.report.json_file import read_result

    result = read_result(request.result_file)
    if not (request.html or request.junit or request.markdown):
        from evalkit.commands.run import make_console
        from evalkit.report.console import render

        render(result, make_console())
        return 0
    write_report_files(result, html=request.html, junit=request.junit, markdown=request.markdown)
    return 0


def write_report_files(result: RunResult, *, html: Path | None = None, junit: Path | None = None,
                       markdown: Path | None = None) -> None:
    from evalkit.report.json_file import write_text_atomically

    if junit:
        from evalkit.report.junit import render_junit

        write_text_atomically(junit, render_junit(result))
    if markdown:
        from evalkit.report.markdown import render_markdown

        write_text_atomically(markdown, render_markdown(result))
    if html:
        from evalkit.report.html import render_html

        write_text_atomically(html, render_html(result))


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
