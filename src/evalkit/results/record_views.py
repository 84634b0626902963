"""The forms a run takes outside memory, each made from the run's header and its cases.

The header is a `RunResult` whose cases are left out; the cases come one at a time (a
run's record reads them back from disk, results/record.py), so no form holds them all:

- the result file (`--json`, and each run kept in the history): the header pretty-printed,
  the cases streamed into its `cases` list, byte for byte what dumping the whole result gives;
- a `--processes` worker's (and a `--cluster` chunk's) shard lines: the header on the first line, then a case a line;
- the progress file's row of a finished case: what the viewer's table shows of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from evalkit.schema.results import CaseResult, RunResult


def result_file_pieces(header: RunResult, cases: Iterable[CaseResult]) -> Iterator[str]:
    """The result file of `header` holding `cases`, in pieces (its own `cases` are not read)."""
    head, tail = header.model_copy(update={"cases": []}).model_dump_json(indent=2).split('"cases": []', 1)
    yield head + '"cases": ['
    separator = "\n    "
    for case in cases:
        yield separator + case.model_dump_json(indent=2).replace("\n", "\n    ")
        separator = ",\n    "
    yield ("]" if separator == "\n    " else "\n  ]") + tail + "\n"


def shard_line_pieces(header: RunResult, cases: Iterable[CaseResult]) -> Iterator[str]:
    """`header` without its cases on the first line, then `cases`, each on a line of its own."""
    yield header.model_copy(update={"cases": []}).model_dump_json() + "\n"
    for case in cases:
        yield case.model_dump_json() + "\n"  # JSON escapes every newline inside a string


def write_shard_lines(header: RunResult, cases: Iterable[CaseResult], path: Path) -> None:
    from evalkit.foundation.files import write_run_file

    write_run_file(path, shard_line_pieces(header, cases))


def parse_shard_lines(text: str) -> tuple[RunResult, Iterator[CaseResult]]:
    """Shard lines held in memory (a `--cluster` chunk's result): the header, and the cases as they are iterated."""
    lines = iter(text.splitlines())
    header = RunResult.model_validate_json(next(lines))
    return header, (CaseResult.model_validate_json(line) for line in lines)


def read_shard_lines(path: Path) -> tuple[RunResult, Iterator[CaseResult]]:
    """The header, and the cases read as they are iterated (the file stays open until then)."""
    handle = path.open("rb")
    try:
        header = RunResult.model_validate_json(handle.readline())
    except BaseException:
        handle.close()
        raise

    def cases() -> Iterator[CaseResult]:
        with handle:
            for line in handle:
                yield CaseResult.model_validate_json(line)

    return header, cases()


_ROW_FIELDS = {"eval_set_id", "eval_id", "status", "error", "duration_s", "quarantined"}
_ROW_CRITERION_FIELDS = {"name", "score", "status", "threshold"}


def progress_row(case: CaseResult) -> dict[str, Any]:
    """A finished case in the progress file: its row in the viewer (no turns, no details)."""
    row = case.model_dump(mode="json", include=_ROW_FIELDS)
    row["criteria"] = [c.model_dump(mode="json", include=_ROW_CRITERION_FIELDS) for c in case.criteria]
    return row
