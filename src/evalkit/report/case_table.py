"""The case table of the console report, fitted to the terminal's width.

Criterion names are long (`tool_trajectory_avg_score`) and a narrow terminal would cut
them and the case ids with "…". The table tries, in order, until one fits: full
headers; headers broken in two at an underscore; numbered headers with a legend below;
and, for many criteria, one block per case. Case ids wrap, never lose characters
(docs/ci.md, "Reading the console report").

The table is printed a hundred rows at a time (report/chunked_table.py): memory stays the
same however many cases a run has. The cases are read twice, once to measure the columns and
once to print them, and never held in a list: they may be built one by one as they are read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from rich import box
from rich.console import Console, Group
from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

from evalkit.report.chunked_table import CHUNK_ROWS, fitted_widths, print_in_chunks, table_width
from evalkit.schema.results import CaseResult, CriterionResult, Status

# A case id column narrower than this is hard to read; below it, blocks are used instead.
_MIN_ID_WIDTH = 20

CellText = Callable[[CriterionResult | None], Text]
StatusText = Callable[[CaseResult], Text]


def print_case_table(cases: Sequence[CaseResult], columns: list[str], console: Console,
                     cell: CellText, status: StatusText) -> None:
    """Print the table (or blocks) that shows every case's status and gating criteria within `console.width`."""
    edged = console.is_terminal  # a terminal gets a box with edges; logs and pipes a lighter one
    cell_widths, id_width = _measure_rows(cases, columns, console, cell, status)
    for headers, legend in (
        ([Text(name) for name in columns], None),
        ([Text(split_in_two(name)) for name in columns], None),
        ([Text(f"#{index}") for index in range(1, len(columns) + 1)], _legend(columns)),
    ):
        # A column is as wide as its widest cell, header included: rich's measure of the whole table.
        content = [max(width, _measure(header))
                   for width, header in zip(cell_widths, [Text("case"), Text("status"), *headers])]
        if table_width(content, edged=edged) - id_width + min(id_width, _MIN_ID_WIDTH) <= console.width:
            widths = fitted_widths(content, 0, console.width, edged=edged)  # long ids wrap
            print_in_chunks(console, partial(_table, headers, widths, edged),
                            (_row(case, columns, cell, status) for case in cases), after=legend)
            return
    _print_blocks(cases, columns, console, cell, status)


def case_id(case: CaseResult) -> str:
    return f"{case.eval_set_id}/{case.eval_id}"


def split_in_two(name: str) -> str:
    """`tool_trajectory_avg_score` → `tool_trajectory_` / `avg_score`: at the underscore nearest the middle."""
    cuts = [index + 1 for index, char in enumerate(name) if char == "_" and 0 < index < len(name) - 1]
    if not cuts:
        return name
    cut = min(cuts, key=lambda index: max(index, len(name) - index))
    return f"{name[:cut]}\n{name[cut:]}"


def _row(case: CaseResult, columns: list[str], cell: CellText, status: StatusText) -> list[Text]:
    by_name = {c.name: c for c in case.criteria}
    return [Text(case_id(case)), status(case), *(cell(by_name.get(name)) for name in columns)]


def _measure(text: Text) -> int:
    """The width rich measures for `text` in an unbounded table cell: its widest line, in cells.

    rich's own `Measurement.get` says the same, at ten times the cost: at 100,000 cases the
    measuring pass took seconds (docs/performance.md, "Memory").
    """
    return max((cell_len(line) for line in text.plain.splitlines()), default=0)


def _measure_rows(cases: Sequence[CaseResult], columns: list[str], console: Console,
                  cell: CellText, status: StatusText) -> tuple[list[int], int]:
    """The widest cell of each column (headers aside), and the longest case id in characters (4 without cases)."""
    widths = [0] * (len(columns) + 2)
    id_width: int | None = None
    for case in cases:
        row = _row(case, columns, cell, status)
        widths = [max(width, _measure(text)) for width, text in zip(widths, row)]
        id_width = max(id_width or 0, len(row[0].plain))
    return widths, 4 if id_width is None else id_width


def _table(headers: list[Text], widths: list[int], edged: bool, show_header: bool) -> Table:
    """An empty table with every column's width fixed, so that the chunks line up."""
    table = Table(box=box.ROUNDED if edged else box.SIMPLE, show_edge=edged, pad_edge=False, show_header=show_header)
    table.add_column("case", overflow="fold", width=widths[0])
    table.add_column("status", no_wrap=True, width=widths[1])
    for header, width in zip(headers, widths[2:]):
        table.add_column(header, justify="right", no_wrap=True, width=width)  # Text: names from files are never markup
    return table


def _legend(columns: list[str]) -> Text:
    return Text("\n".join(f"#{index} {name}" for index, name in enumerate(columns, start=1)), style="dim")


def _print_blocks(cases: Sequence[CaseResult], columns: list[str], console: Console,
                  cell: CellText, status: StatusText) -> None:
    width = max((len(name) for name in columns), default=0)
    lines: list[Text] = []
    for case in cases:
        lines.append(Text.assemble(Text(case_id(case), style="bold"), "  ", status(case)))
        by_name = {c.name: c for c in case.criteria}
        for name in columns:
            criterion = by_name.get(name)
            if criterion is not None and criterion.status is not Status.INFORMATIONAL:
                lines.append(Text.assemble("    ", Text(name.ljust(width)), "  ", cell(criterion)))
        if len(lines) >= CHUNK_ROWS:  # one print per few hundred lines: rich holds a print's segments to its end
            console.print(Group(*lines))
            lines = []
    if lines:
        console.print(Group(*lines))
