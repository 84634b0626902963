"""A rich table printed a hundred rows at a time, looking exactly as if printed whole.

rich renders a table in one piece: every row's cells and segments stay in memory until the
print ends, so a table of every case grows with the run. Here the caller measures the
columns in one pass over the rows and fixes their widths (`fitted_widths`, the widths rich
would give the whole table); each chunk is then a table of its own with those widths, the
header on the first only, and the edges where chunks meet are dropped, so the lines join
into the one table rich would have drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import islice

from rich.console import Console, Group, RenderableType
from rich.segment import Segment, SegmentLines
from rich.table import Table

# Rows per print: enough that building a table per chunk costs nothing next to rendering
# its rows, few enough that one chunk's segments are a small, fixed amount of memory.
CHUNK_ROWS = 100


def border_width(columns: int, *, edged: bool) -> int:
    """Characters a boxed table spends on lines between columns and, with edges, on its sides."""
    return columns - 1 + (2 if edged else 0)


def padding_widths(columns: int) -> list[int]:
    """Each column's padding in a table with rich's default padding (one space each side) and `pad_edge=False`."""
    return [(0 if index == 0 else 1) + (0 if index == columns - 1 else 1) for index in range(columns)]


def table_width(content: Sequence[int], *, edged: bool) -> int:
    """The width of a table whose columns' cells are at most `content` wide: what rich measures for it."""
    return sum(content) + sum(padding_widths(len(content))) + border_width(len(content), edged=edged)


def fitted_widths(content: Sequence[int], folding: int, available: int, *, edged: bool) -> list[int]:
    """The content widths rich gives the columns of a table as wide as `content` within `available` characters.

    Only the column at `folding` may wrap (the others are `no_wrap`), so rich narrows it alone by
    what does not fit. The caller chooses a layout where that leaves it at least one character
    (below that rich would narrow every column, which a fixed width cannot follow).
    """
    widths = list(content)
    excess = table_width(widths, edged=edged) - available
    if excess > 0:
        widths[folding] = max(1, widths[folding] - excess)
    return widths


def print_in_chunks(console: Console, new_table: Callable[[bool], Table], rows: Iterable[Sequence[RenderableType]],
                    after: RenderableType | None = None, chunk_rows: int = CHUNK_ROWS) -> None:
    """Print `rows` as one table made by `new_table(show_header)`, each chunk with its own print, then `after`.

    `new_table` must fix every column's width, so that all chunks line up.
    """
    iterator = iter(rows)
    chunk = list(islice(iterator, chunk_rows))
    bottom: list[list[Segment]] = []
    first = True
    while first or chunk:  # the first chunk is printed even without rows: the header is drawn
        table = new_table(first)
        for row in chunk:
            table.add_row(*row)
        lines = console.render_lines(table, pad=False, new_lines=True)
        if table.box is not None and table.show_edge:
            # Where two chunks meet, the upper one's bottom edge and the lower one's top edge go:
            # the rows join as in one table. The bottom edge, the same for every chunk, ends the last.
            bottom = lines[-1:]
            lines = lines[:-1] if first else lines[1:-1]
        console.print(SegmentLines(lines))
        first = False
        chunk = list(islice(iterator, chunk_rows))
    if bottom or after is not None:
        console.print(Group(SegmentLines(bottom), *([] if after is None else [after])))
