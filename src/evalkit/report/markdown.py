"""The Markdown summary (`--markdown`): a compact table fit for a pull-request comment.

A heading with the summary line, one row per case (status, then each gating
criterion's score against its threshold), the failures (and calls to faked tools that no
`tool_mocks` entry matched) folded in a `<details>` block, and the first error cases'
`error_detail` (traceback, worker stderr) each folded in its own. GitHub renders inline HTML in Markdown, so every string that comes from an eval
set or an agent is escaped for both Markdown tables and HTML before it goes in.

GitHub limits a comment to 65,536 characters: a run of more than `MAX_ROWS` cases lists
the cases that did not pass first and counts the rest instead of listing them, and the
failure text is cut at `MAX_FAILURE_CHARS`, each error detail at `MAX_DETAIL_CHARS`.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Mapping
from pathlib import Path

from evalkit.report.formats import ReportFormat
from evalkit.report.console import (
    failure_lines,
    flaky_lines,
    gating_criterion_names,
    quarantine_lines,
    summary_line,
    unmatched_tool_lines,
    verdict_line,
)
from evalkit.report.statistics import case_note, change_line, overall_line, tested_changes
from evalkit.schema.results import CaseResult, CriterionResult, RunResult, Status

_EDGE_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")

MAX_ROWS = 200
MAX_FAILURE_CHARS = 30_000
MAX_ERROR_DETAILS = 5  # tracebacks folded below the failures; the rest are in the JSON and HTML reports
MAX_DETAIL_CHARS = 4_000

STATUS_LABEL = {
    Status.PASSED: "✅ passed",
    Status.FAILED: "❌ failed",
    Status.ERROR: "💥 error",
    Status.NOT_EVALUATED: "⚪ not evaluated",
    Status.INFORMATIONAL: "ℹ️ informational",
}
_MARK = {Status.PASSED: "✅", Status.FAILED: "❌", Status.ERROR: "💥", Status.NOT_EVALUATED: "⚪", Status.INFORMATIONAL: ""}


def render_markdown(result: RunResult) -> str:
    columns = gating_criterion_names(result.cases)
    lines = [f"### evalkit: {_inline(summary_line(result))}", ""]
    verdict = verdict_line(result)
    if verdict is not None:
        lines += [f"**❌ {_inline(verdict)}**", ""]
    header = ["case", "status", *(_inline(name) for name in columns)]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    shown, hidden = _rows_to_show(result.cases)
    for case in shown:
        by_name = {c.name: c for c in case.criteria}
        note = case_note(case)
        cells = [_inline(f"{case.eval_set_id}/{case.eval_id}"), STATUS_LABEL[case.status] + (f" {note}" if note else ""),
                 *(_cell(by_name.get(name)) for name in columns)]
        lines.append("| " + " | ".join(cells) + " |")
    if hidden:
        passing = sum(case.status is Status.PASSED for case in hidden)
        which = "all passed" if passing == len(hidden) else f"{passing} of them passed"
        lines += ["", f"…and {len(hidden)} more cases, not listed ({which})."]
    notes = flaky_lines(result.cases) + quarantine_lines(result.cases)
    if notes:
        lines += ["", *(f"- {_inline(note)}" for note in notes)]
    lines += _comparison(result)
    if result.coverage is not None:
        from evalkit.report.coverage_report import markdown_coverage

        lines += markdown_coverage(result.coverage, _inline)
    failures = failure_lines(result.cases) + unmatched_tool_lines(result.cases)
    if failures:
        lines += ["", *_failure_block(failures)]
    details = [case for case in result.cases if case.error_detail]
    for case in details[:MAX_ERROR_DETAILS]:
        lines += ["", *_folded(f"Error detail: {case.eval_set_id}/{case.eval_id}", case.error_detail or "",
                               MAX_DETAIL_CHARS)]
    if len(details) > MAX_ERROR_DETAILS:
        lines += ["", f"…and {len(details) - MAX_ERROR_DETAILS} more error details, in the JSON and HTML reports."]
    return "\n".join(lines) + "\n"


def _comparison(result: RunResult) -> list[str]:
    """With `--baseline … --significance`: the overall test and each tested case's p-value."""
    overall = overall_line(result)
    if overall is None:
        return []
    return ["", f"**{_inline(overall)}**", "", *(f"- {_inline(change_line(c))}" for c in tested_changes(result))]


def append_step_summary(result: RunResult, environ: Mapping[str, str] | None = None) -> Path | None:
    """Append the summary to GitHub Actions' job summary when `GITHUB_STEP_SUMMARY` names one.

    Returns the file appended to, or None outside GitHub Actions. OSError propagates:
    the caller decides whether a missing summary is worth more than a warning.
    """
    target = (environ if environ is not None else os.environ).get("GITHUB_STEP_SUMMARY")
    if not target:
        return None
    path = Path(target)
    with path.open("a", encoding="utf-8") as out:
        out.write(render_markdown(result) + "\n")
    return path


def _rows_to_show(cases: list[CaseResult]) -> tuple[list[CaseResult], list[CaseResult]]:
    """The rows to list (problems first once the run is long) and the cases left out."""
    if len(cases) <= MAX_ROWS:
        return cases, []
    ordered = [c for c in cases if c.status is not Status.PASSED] + [c for c in cases if c.status is Status.PASSED]
    return ordered[:MAX_ROWS], ordered[MAX_ROWS:]


def _cell(criterion: CriterionResult | None) -> str:
    if criterion is None:
        return ""
    if criterion.status is Status.ERROR:
        return "💥 error"
    score = "n/a" if criterion.score is None else f"{criterion.score:.3f}"
    threshold = "" if criterion.threshold is None else f" / {criterion.threshold:g}"
    return f"{score}{threshold} {_MARK[criterion.status]}".strip()


def _failure_block(failures: list[str]) -> list[str]:
    return _folded(f"What did not pass ({len(failures)})", "\n".join(failures), MAX_FAILURE_CHARS)


def _folded(title: str, text: str, limit: int) -> list[str]:
    """`text` in a code block inside a closed `<details>` titled `title`, cut at `limit` characters."""
    if len(text) > limit:
        text = text[:limit] + "\n… (cut; the full list is in the HTML or JSON report)"
    # A code block shows the text as it is; it only needs a fence longer than any run
    # of backticks inside it, and HTML escaping is not applied inside it by GitHub.
    fence = "`" * max(3, _longest_backtick_run(text) + 1)
    return [
        "<details>",
        f"<summary>{html.escape(title, quote=False)}</summary>",
        "",
        fence + "text",
        text,
        fence,
        "",
        "</details>",
    ]


def _longest_backtick_run(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest


def _inline(text: str) -> str:
    """Text safe inside a table cell: no HTML, no cell breaks, no line breaks, no stray markup."""
    escaped = html.escape(text, quote=False).replace("\\", "\\\\").replace("|", "\\|")
    for char in "`*[]":
        escaped = escaped.replace(char, "\\" + char)
    # Only an underscore at a word's edge can start emphasis; inside snake_case it is text.
    escaped = _EDGE_UNDERSCORE.sub(r"\\_", escaped)
    return " ".join(escaped.split())


MARKDOWN = ReportFormat(render_markdown)  # registered by name in report/formats.py
