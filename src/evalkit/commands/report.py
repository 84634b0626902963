"""`evalkit report RESULT.json`: render a saved result as HTML, JUnit XML or Markdown.

The files are written by `evalkit.report.writing`, as `evalkit run` writes them, so a
report rendered later is byte for byte the one the run would have written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evalkit.report.writing import write_report_files


@dataclass
class ReportRequest:
    result_file: Path
    html: Path | None = None
    junit: Path | None = None
    markdown: Path | None = None


def report_command(request: ReportRequest) -> int:
    """Write each asked-for report; with none asked for, print the console table instead."""
    from evalkit.results.reader import read_result

    result = read_result(request.result_file)
    if not (request.html or request.junit or request.markdown):
        from evalkit.report.console import make_console, render

        render(result, make_console())
        return 0
    write_report_files(result, html=request.html, junit=request.junit, markdown=request.markdown)
    return 0
