"""Write the result file (`--json`) and reports, atomically: never a half-written file."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from evalkit.errors import Problem, UsageError
from evalkit.schema.results import CaseResult, RunResult


def write_text_atomically(path: Path, text: str) -> None:
    write_pieces_atomically(path, (text,))


def write_pieces_atomically(path: Path, pieces: Iterable[str]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as error:
        raise UsageError(Problem(str(path), "", f"cannot write here: {error.strerror or error}")) from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            for piece in pieces:
                out.write(piece)
        os.chmod(temp, 0o644)  # mkstemp makes files owner-only; reports are meant to be shared
        os.replace(temp, path)
    except OSError as error:
        Path(temp).unlink(missing_ok=True)
        raise UsageError(Problem(str(path), "", f"cannot write here: {error.strerror or error}")) from None
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_result(result: RunResult, path: Path, cases: Iterable[CaseResult] | None = None) -> None:
    """The result file; `cases`, when given, replaces `result.cases` and is streamed one case at a time."""
    if cases is None:
        write_text_atomically(path, result.model_dump_json(indent=2) + "\n")
        return
    head, tail = result.model_copy(update={"cases": []}).model_dump_json(indent=2).split('"cases": []', 1)

    def pieces() -> Iterator[str]:
        yield head + '"cases": ['
        separator = "\n    "
        for case in cases:
            yield separator + case.model_dump_json(indent=2).replace("\n", "\n    ")
            separator = ",\n    "
        yield ("]" if separator == "\n    " else "\n  ]") + tail + "\n"

    write_pieces_atomically(path, pieces())
