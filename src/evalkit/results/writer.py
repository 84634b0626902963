"""Write the result file (`--json`) and reports, atomically: never a half-written file."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from evalkit.foundation.files import write_pieces_atomically, write_text_atomically
from evalkit.results.record_views import result_file_pieces
from evalkit.schema.results import CaseResult, RunResult


def write_result(result: RunResult, path: Path, cases: Iterable[CaseResult] | None = None) -> None:
    """The result file; `cases`, when given, replaces `result.cases` and is streamed one case at a time."""
    if cases is None:
        write_text_atomically(path, result.model_dump_json(indent=2) + "\n")
        return
    write_pieces_atomically(path, result_file_pieces(result, cases))
