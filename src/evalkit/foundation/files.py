"""Writing files atomically: a reader sees the old file or the new one, never half of one."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from evalkit.errors import Problem, UsageError
from evalkit.foundation.redaction import mask_secrets


def write_text_atomically(path: Path, text: str) -> None:
    write_pieces_atomically(path, (text,))


def write_pieces_atomically(path: Path, pieces: Iterable[str]) -> None:
    if _is_special_file(path):
        _write_through(path, pieces)
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as error:
        raise UsageError(Problem(str(path), "", cannot_write(error))) from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            _write_masked(out, pieces)
        os.chmod(temp, 0o644)  # mkstemp makes files owner-only; reports are meant to be shared
        os.replace(temp, path)
    except OSError as error:
        Path(temp).unlink(missing_ok=True)
        raise UsageError(Problem(str(path), "", cannot_write(error))) from None
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def cannot_write(error: OSError) -> str:
    """Why a file could not be written, and what to do: the one wording of a write that failed."""
    return f"cannot write here: {error.strerror or error}; free some space there, or choose another place"


def _is_special_file(path: Path) -> bool:
    """A device, a pipe or a socket (also behind a link): `--json /dev/stdout`, `--junit /dev/null`.

    Renaming a temporary file over one of these would put a regular file where the device
    was (as root, /dev/null itself), so such a target is written straight through instead.
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _write_through(path: Path, pieces: Iterable[str]) -> None:
    try:
        with open(path, "w", encoding="utf-8") as out:
            _write_masked(out, pieces)
    except OSError as error:
        raise UsageError(Problem(str(path), "", cannot_write(error))) from None


def _write_masked(out: TextIO, pieces: Iterable[str]) -> None:
    for piece in pieces:
        out.write(mask_secrets(piece))  # no file evalkit writes carries a secret
