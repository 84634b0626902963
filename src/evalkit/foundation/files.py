"""Writing files atomically: a reader sees the old file or the new one, never half of one.

Two writers, by whose the file is:

- `write_user_file`: a file the user owns and edits (an eval set written by `accept`,
  `import` or `generate`, a labels file, a config). Its text is written byte for byte:
  masking a token-shaped string in an expected answer would change a case nobody asked
  to change.
- `write_run_file`: what evalkit writes about runs (result files, reports, the history,
  cassettes, comparisons, exports). Every piece is masked (foundation/redaction.py), with
  the run's `Redaction` when the writer has one.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from evalkit.errors import Problem, UsageError
from evalkit.foundation.redaction import EVERY_WRITER, Redaction


def write_user_file(path: Path, text: str | Iterable[str]) -> None:
    """A file the user owns (an eval set, labels, a config): its text as given, byte for byte."""
    _write_atomically(path, (text,) if isinstance(text, str) else text)


def write_run_file(path: Path, text: str | Iterable[str], redaction: Redaction = EVERY_WRITER) -> None:
    """A file about runs (a result, a report, the history, a cassette): every piece masked by `redaction`."""
    pieces = (text,) if isinstance(text, str) else text
    _write_atomically(path, (redaction.mask(piece) for piece in pieces))


def _write_atomically(path: Path, pieces: Iterable[str]) -> None:
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
            out.writelines(pieces)
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
            out.writelines(pieces)
    except OSError as error:
        raise UsageError(Problem(str(path), "", cannot_write(error))) from None

