"""A progress line that fits its terminal: fields are dropped, the least useful first, until it does.

The fields in the order they are given up when the width runs short: the label, the
cases-in-flight level, the rate, the bar, the passed/failed/errors counts, the ETA,
the elapsed time; done/total always stays. So an 80-column terminal keeps one line
with done/total, the counts, elapsed and ETA, instead of a line that wraps and redraws.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.measure import Measurement
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

BAR_WIDTH = 20


def run_progress(console: Console) -> Progress:
    """The bar of `evalkit run`, with its fields by how useful they are (most useful first)."""
    label = TextColumn("[bold]evaluating")
    bar = BarColumn(bar_width=BAR_WIDTH)
    done = MofNCompleteColumn()
    counts = TextColumn("[green]{task.fields[passed]} passed[/] [red]{task.fields[failed]} failed[/] "
                        "[magenta]{task.fields[errors]} errors[/]")
    elapsed = TimeElapsedColumn()
    eta: list[ProgressColumn] = [TextColumn("ETA"), TimeRemainingColumn()]
    rate = TextColumn("{task.fields[rate]}")
    jobs = TextColumn("{task.fields[jobs]}")
    shown: list[ProgressColumn] = [label, bar, done, counts, elapsed, *eta, rate, jobs]
    by_use: list[list[ProgressColumn]] = [[done], [elapsed], eta, [counts], [bar], [rate], [jobs], [label]]
    return FittingProgress(shown, by_use, console=console, transient=True)


class FittingProgress(Progress):
    """A Progress whose line keeps only the fields that fit the console's width."""

    def __init__(self, shown: list[ProgressColumn], by_use: list[list[ProgressColumn]], **options: object):
        self.shown = shown
        self.by_use = by_use
        super().__init__(*shown, **options)  # type: ignore[arg-type]

    def make_tasks_table(self, tasks: Iterable[Task]) -> Table:
        tasks = list(tasks)
        if not tasks:  # nothing to fit yet (and, while Progress is being made, no console to ask)
            return super().make_tasks_table(tasks)
        every = self.columns
        self.columns = tuple(self.fitting(tasks))
        try:
            return super().make_tasks_table(tasks)
        finally:
            self.columns = every

    def fitting(self, tasks: list[Task]) -> list[ProgressColumn]:
        """The fields that fit, most useful first, shown in their usual order."""
        console = self.console
        room = console.width
        kept: set[int] = set()
        for group in self.by_use:
            width = sum(self._width(column, tasks) + 1 for column in group)  # a space between fields
            if width > room and kept:
                continue  # a narrower, less useful group may still fit
            room -= width
            kept.update(id(column) for column in group)
        return [column for column in self.shown if id(column) in kept]

    def _width(self, column: ProgressColumn, tasks: list[Task]) -> int:
        if isinstance(column, BarColumn):
            return column.bar_width or BAR_WIDTH
        console = self.console
        return max((Measurement.get(console, console.options, column(task)).maximum for task in tasks), default=0)
