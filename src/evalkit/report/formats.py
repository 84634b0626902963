"""Report formats by name: one `Registry`, like criteria and agent kinds (docs/extending.md).

`evalkit run --report NAME=PATH` (repeatable; `--junit FILE`, `--markdown FILE` and
`--html FILE` are its short forms), `rescore`, `merge` and `evalkit report` write any
format found here: the built-in ones, one registered in-process
(`evalkit.extend.REPORTS.register`), or an installed package's entry point in the group
`evalkit.reports`. A format is a `ReportFormat`: a function from the finished run (its
`verdict` included) to the file's text. Nothing here imports a writer until it is used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from evalkit.foundation.registry import Registry
from evalkit.schema.results import RunResult


@dataclass(frozen=True)
class ReportFormat:
    """One report format: `render` turns a finished run into the file's text.

    `every_case`: the run's cases in full (every turn), as the HTML report shows them;
    without it, a long run's slim copies (statuses, scores, failures) are enough and
    memory stays flat (evalkit.results.record)."""

    render: Callable[[RunResult], str]
    every_case: bool = False


REPORTS: Registry[ReportFormat] = Registry(
    "report format", "evalkit.reports",
    built_in={"junit": "evalkit.report.junit:JUNIT", "markdown": "evalkit.report.markdown:MARKDOWN",
              "html": "evalkit.report.html:HTML"},
    accepts=lambda entry: isinstance(entry, ReportFormat), wanted="an evalkit.extend.ReportFormat")
