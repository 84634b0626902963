"""Write and read the result file (`--json`), atomically: never a half-written file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from evalkit.errors import InputError, Problem, UsageError
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


def read_result(path: Path) -> RunResult:
    from pydantic import ValidationError

    from evalkit.loading.documents import read_document

    data = read_document(path)
    try:
        return RunResult.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(Problem(str(path), where, f"not an evalkit result file: {first['msg']}")) from None
