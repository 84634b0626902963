"""Write the result file (`--json`) and reports, atomically: never a half-written file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from evalkit.errors import Problem, UsageError
from evalkit.schema.results import RunResult


def write_text_atomically(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as error:
        raise UsageError(Problem(str(path), "", f"cannot write here: {error.strerror or error}")) from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temp, 0o644)  # mkstemp makes files owner-only; reports are meant to be shared
        os.replace(temp, path)
    except OSError as error:
        Path(temp).unlink(missing_ok=True)
        raise UsageError(Problem(str(path), "", f"cannot write here: {error.strerror or error}")) from None
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_result(result: RunResult, path: Path) -> None:
    write_text_atomically(path, result.model_dump_json(indent=2) + "\n")
