"""Coverage in the reports: a Markdown section, an HTML section with the tool × case matrix, JUnit properties.

Each shows the result file's `coverage` (docs/coverage.md): the console's lines, then
each declared tool with its calls and how often each of its parameters was given.
The HTML matrix reads the cases' own activity (evalkit.results.coverage), one row per
case and one column per declared tool, for the first `MATRIX_ROWS` cases.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from evalkit.report.html_markup import Html, el
from evalkit.results.coverage import case_activity, coverage_lines
from evalkit.schema.coverage import Coverage
from evalkit.schema.results import CaseResult

MATRIX_ROWS = 200


def argument_summary(coverage: Coverage, tool: str) -> str:
    """`city 3, units 0`: each parameter of the tool with the calls that gave it."""
    given = coverage.arguments.get(tool) or {}
    return ", ".join(f"{name} {count}" for name, count in given.items())


def tool_rows(coverage: Coverage) -> list[tuple[str, int, str]]:
    """(tool, calls, arguments) for every declared tool, the never-called first."""
    tools = coverage.tools
    ordered = [*tools.never_called, *(name for name in tools.declared if name in tools.called)]
    return [(name, tools.called.get(name, 0), argument_summary(coverage, name)) for name in ordered]


def markdown_coverage(coverage: Coverage, inline: Callable[[str], str]) -> list[str]:
    """The Markdown section; `inline` escapes a string for a table cell (report/markdown.py's)."""
    lines = ["", "#### Coverage", "", *(f"- {inline(line)}" for line in coverage_lines(coverage))]
    rows = tool_rows(coverage)
    if rows:
        lines += ["", "| tool | calls | arguments given (calls) |", "|---|---|---|"]
        lines += [f"| {inline(name)} | {calls} | {inline(arguments)} |" for name, calls, arguments in rows]
    return lines


def html_coverage(coverage: Coverage, cases: Iterable[CaseResult]) -> Html:
    lines = [el("li", line) for line in coverage_lines(coverage)]
    table = el("table",
               el("thead", el("tr", el("th", "tool"), el("th", "calls"), el("th", "arguments given (calls)"))),
               el("tbody", [el("tr", el("td", el("code", name)), el("td", str(calls), class_="num"),
                                    el("td", arguments), class_="never" if not calls else None)
                            for name, calls, arguments in tool_rows(coverage)]),
               class_="coverage-tools")
    return el("section", el("h2", "Coverage"), el("ul", lines, class_="coverage-lines"), table,
              _matrix(coverage, cases), class_="coverage", id="coverage")


def _matrix(coverage: Coverage, cases: Iterable[CaseResult]) -> Html | None:
    tools = coverage.tools.declared
    if not tools:
        return None
    rows = []
    for shown, case in enumerate(cases):
        if shown == MATRIX_ROWS:
            rows.append(el("tr", el("td", f"… the first {MATRIX_ROWS} cases are shown", colspan=len(tools) + 1)))
            break
        counts = case_activity(case).tools
        rows.append(el("tr", el("th", f"{case.eval_set_id}/{case.eval_id}", scope="row"),
                       [el("td", str(counts[name]) if counts.get(name) else "", class_="hit" if counts.get(name) else None)
                        for name in tools]))
    head = el("tr", el("th", "case"), [el("th", el("span", name), scope="col", class_="never" if name in
                                              coverage.tools.never_called else None) for name in tools])
    return el("details", el("summary", "Tool calls per case"),
              el("div", el("table", el("thead", head), el("tbody", rows), class_="coverage-matrix"), class_="scroll"))


def junit_properties(coverage: Coverage, minimum: float | None) -> list[tuple[str, str]]:
    """The suite properties; `minimum` is the one the run was gated on (its verdict's)."""
    tools, agents = coverage.tools, coverage.agents
    properties = [("coverage_ratio", "" if tools.ratio is None else f"{tools.ratio:g}"),
                  ("coverage_tools_declared", str(len(tools.declared))), ("coverage_tools_called", str(len(tools.called))),
                  ("coverage_tools_never_called", ", ".join(tools.never_called))]
    if agents.declared:
        properties += [("coverage_agents_declared", str(len(agents.declared))),
                       ("coverage_agents_called", str(len(agents.called))),
                       ("coverage_agents_never_called", ", ".join(agents.never_called))]
    if tools.unknown:
        properties.append(("coverage_tools_unknown", ", ".join(tools.unknown)))
    if minimum is not None:
        properties.append(("coverage_min_ratio", f"{minimum:g}"))
    return properties
