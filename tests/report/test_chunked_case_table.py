"""The case table printed in chunks is the table rich prints whole, byte for byte, and its memory stays flat.

The reference below is the whole-table rendering built from rich directly: one Table with a row
per case, measured to choose the layout and printed in one piece.
"""

from __future__ import annotations

import io
import tracemalloc
from collections.abc import Callable

import pytest
from rich import box
from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from evalkit.report.case_table import case_id, print_case_table, split_in_two
from evalkit.report.chunked_table import CHUNK_ROWS, print_in_chunks
from evalkit.report.console import _cell, _status, gating_criterion_names
from evalkit.schema.results import CaseResult, CriterionResult, Status


def _reference(cases: list[CaseResult], columns: list[str], console: Console) -> tuple[str, RenderableType]:
    """The layout and renderable of the whole table, chosen by measuring it whole."""
    id_width = max((len(case_id(c)) for c in cases), default=4)
    for layout, headers, legend in (
        ("full", [Text(name) for name in columns], None),
        ("split", [Text(split_in_two(name)) for name in columns], None),
        ("numbered", [Text(f"#{index}") for index in range(1, len(columns) + 1)],
         Text("\n".join(f"#{index} {name}" for index, name in enumerate(columns, start=1)), style="dim")),
    ):
        plain = not console.is_terminal
        table = Table(box=box.SIMPLE if plain else box.ROUNDED, show_edge=not plain, pad_edge=False)
        table.add_column("case", overflow="fold")
        table.add_column("status", no_wrap=True)
        for header in headers:
            table.add_column(header, justify="right", no_wrap=True)
        for case in cases:
            by_name = {c.name: c for c in case.criteria}
            table.add_row(Text(case_id(case)), _status(case), *(_cell(by_name.get(name)) for name in columns))
        needed = Measurement.get(console, console.options.update_width(100_000), table).maximum
        if needed - id_width + min(id_width, 20) <= console.width:
            return layout, table if legend is None else Group(table, legend)
    width = max((len(name) for name in columns), default=0)
    lines: list[Text] = []
    for case in cases:
        lines.append(Text.assemble(Text(case_id(case), style="bold"), "  ", _status(case)))
        by_name = {c.name: c for c in case.criteria}
        for name in columns:
            criterion = by_name.get(name)
            if criterion is not None and criterion.status is not Status.INFORMATIONAL:
                lines.append(Text.assemble("    ", Text(name.ljust(width)), "  ", _cell(criterion)))
    return "blocks", Group(*lines)


def _case(index: int, names: list[str]) -> CaseResult:
    """Passed cases with ids of every length, some long enough to fold; a failed, an error, a spaced id."""
    eval_id = f"case-{index:05d}"
    if index % 7 == 3:
        eval_id = f"a_rather_long_case_identifier_that_folds_{index}" * (1 + index % 3)
    if index == CHUNK_ROWS - 1:
        eval_id = "a case whose id has spaces and goes on for quite a while"
    if index % 11 == 5:
        return CaseResult(eval_set_id="weather", eval_id=eval_id, status=Status.ERROR,
                          error=f"case {eval_id!r}, turn 1: the agent raised RuntimeError: backend down")
    failed = index % 13 == 4
    criteria = [CriterionResult(name=name, threshold=0.8, score=0.5 if failed and position == 0 else 1.0,
                                status=Status.FAILED if failed and position == 0 else Status.PASSED)
                for position, name in enumerate(names) if not (index % 17 == 2 and position == 1)]
    criteria.append(CriterionResult(name="tool_call_count_v1", score=2.0, status=Status.INFORMATIONAL))
    return CaseResult(eval_set_id="weather", eval_id=eval_id, status=Status.FAILED if failed else Status.PASSED,
                      criteria=criteria)


CRITERIA = {
    "three": ["tool_trajectory_avg_score", "response_match_score", "final_response_match_v2"],
    "long": ["tool_trajectory_avg_score", "response_match_score"],
    "many": ["tool_trajectory_avg_score", "response_match_score", "final_response_match_v2",
             "rubric_based_final_response_quality_v1", "hallucinations_v1", "safety_v1"],
}
_CASES = {kind: [_case(index, names) for index in range(3 * CHUNK_ROWS + 50)] for kind, names in CRITERIA.items()}


def _console(out: io.StringIO | io.TextIOBase, width: int, terminal: bool) -> Console:
    return Console(file=out, width=width, force_terminal=terminal, color_system="truecolor" if terminal else None,
                   no_color=not terminal, highlight=False)


# The layout the whole table takes for each criteria set, width and mode (terminal, plain):
# between them, every layout in both modes.
LAYOUTS = {
    ("three", 40): ("blocks", "blocks"), ("three", 80): ("numbered", "split"),
    ("three", 120): ("full", "full"), ("three", 200): ("full", "full"),
    ("long", 40): ("blocks", "blocks"), ("long", 80): ("split", "full"),
    ("long", 120): ("full", "full"), ("long", 200): ("full", "full"),
    ("many", 40): ("blocks", "blocks"), ("many", 80): ("blocks", "blocks"),
    ("many", 120): ("numbered", "numbered"), ("many", 200): ("full", "full"),
}


def test_the_widths_below_reach_every_layout_in_both_modes() -> None:
    for mode in (0, 1):
        assert {layouts[mode] for layouts in LAYOUTS.values()} == {"full", "split", "numbered", "blocks"}


@pytest.mark.parametrize("terminal", [True, False], ids=["terminal", "plain"])
@pytest.mark.parametrize(("kind", "width"), list(LAYOUTS))
def test_chunked_table_is_the_whole_table_byte_for_byte(kind: str, width: int, terminal: bool) -> None:
    cases = _CASES[kind]
    columns = gating_criterion_names(cases)
    expected, actual = io.StringIO(), io.StringIO()
    layout, whole = _reference(cases, columns, _console(expected, width, terminal))
    assert layout == LAYOUTS[kind, width][0 if terminal else 1]
    _console(expected, width, terminal).print(whole)
    print_case_table(cases, columns, _console(actual, width, terminal), _cell, _status)
    assert actual.getvalue() == expected.getvalue(), f"the {layout} layout differs"
    assert len(expected.getvalue().splitlines()) > 2 * CHUNK_ROWS  # more than two chunks


@pytest.mark.parametrize("rows", [0, 1, 4, 5])
@pytest.mark.parametrize("terminal", [True, False], ids=["terminal", "plain"])
def test_chunks_of_two_rows_join_into_one_table(rows: int, terminal: bool) -> None:
    """Exact multiples of the chunk, a last chunk of one row, and a table with no rows (the header alone)."""
    def new_table(show_header: bool = True) -> Table:
        table = Table(box=box.ROUNDED if terminal else box.SIMPLE, show_edge=terminal, show_header=show_header)
        table.add_column("name", width=6, overflow="fold")
        table.add_column("n", width=3, justify="right")
        return table

    data = [[Text(f"row {index} wraps"), Text(str(index))] for index in range(rows)]
    whole = new_table()
    for row in data:
        whole.add_row(*row)
    expected, actual = io.StringIO(), io.StringIO()
    _console(expected, 30, terminal).print(whole, Text("after"))
    print_in_chunks(_console(actual, 30, terminal), new_table, data, after=Text("after"), chunk_rows=2)
    assert actual.getvalue() == expected.getvalue()


class _Discard(io.TextIOBase):
    """A terminal-less sink: what is printed costs nothing to keep."""

    def write(self, text: str) -> int:
        return len(text)

    def writable(self) -> bool:
        return True


def _peak(print_table: Callable[[Console], None]) -> int:
    tracemalloc.start()
    try:
        print_table(_console(_Discard(), 120, terminal=False))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_table_does_not_hold_every_row() -> None:
    """Twenty chunks of cases: the whole table holds them all at once, the chunked one a chunk at a time.

    (Under tracemalloc rich renders a few hundred rows a second: more cases would slow the suite
    without saying more; the benchmark in docs/performance.md measures a real run.)
    """
    names = CRITERIA["long"]
    cases = [_case(index, names) for index in range(20 * CHUNK_ROWS)]
    columns = gating_criterion_names(cases)
    for print_once in (_print_whole(cases[:3], columns), _print_chunked(cases[:3], columns)):
        print_once(_console(_Discard(), 120, terminal=False))  # first use: rich's imports and tables, not rows
    whole = _peak(_print_whole(cases, columns))
    chunked = _peak(_print_chunked(cases, columns))
    assert chunked < whole / 4, (chunked, whole)
    assert chunked < 2_500_000, chunked


def _print_whole(cases: list[CaseResult], columns: list[str]) -> Callable[[Console], None]:
    return lambda console: console.print(_reference(cases, columns, console)[1])


def _print_chunked(cases: list[CaseResult], columns: list[str]) -> Callable[[Console], None]:
    return lambda console: print_case_table(cases, columns, console, _cell, _status)
