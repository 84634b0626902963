"""Write the result file (`--json`) and reports, atomically: never a half-written file."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from evalkit.foundation.files import write_run_file
from evalkit.results.record_views import result_file_pieces
from evalkit.schema.results import CaseResult, RunResult


def write_result(result: RunResult, path: Path, cases: Iterable[CaseResult] | None = None) -> None:
    """The result file; `cases`, when given, replaces `result.cases` and is streamed one case at a time."""
    if cases is None:
        write_run_file(path, result.model_dump_json(indent=2) + "\n")
        return
    write_run_file(path, result_file_pieces(result, cases))
