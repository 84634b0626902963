"""The case table of the console report, fitted to the terminal's width.

Criterion names are long (`tool_trajectory_avg_score`) and a narrow terminal would cut
them and the case ids with "…". The table tries, in order, until one fits: full
headers; headers broken in two at an underscore; numbered headers with a legend below;
and, for many criteria, one block per case. Case ids wrap, never lose characters
(docs/ci.md, "Reading the console report").
"""

from __future__ import annotations

from collections.abc import Callable

from rich import box
from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from evalkit.schema.results import CaseResult, CriterionResult, Status

# A case id column narrower than this is hard to read; below it, blocks are used instead.
_MIN_ID_WIDTH = 20
_UNBOUNDED = 100_000  # measure what a table wants, not what the console would squeeze it into


def case_table(cases: list[CaseResult], columns: list[str], console: Console,
               cell: Callable[[CriterionResult | None], Text], status: Callable[[CaseResult], Text]) -> RenderableType:
    """The table (or blocks) that shows every case's status and gating criteria within `console.width`."""
    plain = not console.is_terminal
    id_width = max((len(case_id(c)) for c in cases), default=4)
    for headers, legend in (
        ([Text(name) for name in columns], None),
        ([Text(split_in_two(name)) for name in columns], None),
        ([Text(f"#{index}") for index in range(1, len(columns) + 1)], _legend(columns)),
    ):
        table = _table(cases, columns, headers, plain, cell, status)
        needed = Measurement.get(console, console.options.update_width(_UNBOUNDED), table).maximum
        if needed - id_width + min(id_width, _MIN_ID_WIDTH) <= console.width:  # long ids may wrap
            return table if legend is None else Group(table, legend)
    return _blocks(cases, columns, cell, status)


def case_id(case: CaseResult) -> str:
    return f"{case.eval_set_id}/{case.eval_id}"


def split_in_two(name: str) -> str:
    """`tool_trajectory_avg_score` → `tool_trajectory_` / `avg_score`: at the underscore nearest the middle."""
    cuts = [index + 1 for index, char in enumerate(name) if char == "_" and 0 < index < len(name) - 1]
    if not cuts:
        return name
    cut = min(cuts, key=lambda index: max(index, len(name) - index))
    return f"{name[:cut]}\n{name[cut:]}"


def _table(cases: list[CaseResult], columns: list[str], headers: list[Text], plain: bool,
           cell: Callable[[CriterionResult | None], Text], status: Callable[[CaseResult], Text]) -> Table:
    table = Table(box=box.SIMPLE if plain else box.ROUNDED, show_edge=not plain, pad_edge=False)
    table.add_column("case", overflow="fold")
    table.add_column("status", no_wrap=True)
    for header in headers:
        table.add_column(header, justify="right", no_wrap=True)  # Text: names from files are never markup
    for case in cases:
        by_name = {c.name: c for c in case.criteria}
        table.add_row(Text(case_id(case)), status(case), *(cell(by_name.get(name)) for name in columns))
    return table


def _legend(columns: list[str]) -> Text:
    return Text("\n".join(f"#{index} {name}" for index, name in enumerate(columns, start=1)), style="dim")


def _blocks(cases: list[CaseResult], columns: list[str], cell: Callable[[CriterionResult | None], Text],
            status: Callable[[CaseResult], Text]) -> Group:
    width = max((len(name) for name in columns), default=0)
    lines: list[Text] = []
    for case in cases:
        lines.append(Text.assemble(Text(case_id(case), style="bold"), "  ", status(case)))
        by_name = {c.name: c for c in case.criteria}
        for name in columns:
            criterion = by_name.get(name)
            if criterion is not None and criterion.status is not Status.INFORMATIONAL:
                lines.append(Text.assemble("    ", Text(name.ljust(width)), "  ", cell(criterion)))
    return Group(*lines)
