"""A `--processes` worker's result, as lines: the run's header, then one finished case a line.

The parent folds each worker's cases into its own run one at a time, so its memory
stays flat in the number of cases. Reading a worker's result file whole held every
case in full (about 40 KB each of pretty-printed JSON, and more as models): a 20,000
case run with two processes peaked at 842 MB (docs/performance.md, "Memory").
Internal to a run: users' result files are written by evalkit.results.writer.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from evalkit.foundation.files import write_pieces_atomically
from evalkit.schema.results import CaseResult, RunResult


def write_shard_lines(result: RunResult, cases: Iterable[CaseResult], path: Path) -> None:
    """`result` without its cases on the first line, then `cases`, each on a line of its own."""
    def lines() -> Iterator[str]:
        yield result.model_copy(update={"cases": []}).model_dump_json() + "\n"
        for case in cases:
            yield case.model_dump_json() + "\n"  # JSON escapes every newline inside a string

    write_pieces_atomically(path, lines())


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
