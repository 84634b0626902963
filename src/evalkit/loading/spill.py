"""Packed eval cases kept on disk, so a plan's memory does not grow with its cases' size.

A 100,000-case plan held about 40 MB of packed case data (0.4 KB a case) for the whole
run, though each case is read back only when it is checked and when it runs. The data
goes to one temporary file per process instead, which the operating system deletes
when it is closed, and a case keeps only where its bytes are (docs/performance.md,
"Memory").

Writes and reads name their place (`os.pwrite`, `os.pread`) and nothing is buffered: a
forked worker (`--processes`) shares the file, and with it the file position, with its
parent, and a buffer copied into the child would be written twice.
"""

from __future__ import annotations

import errno
import os
import tempfile
import threading
from typing import IO

from evalkit.errors import Problem, UsageError


class Spill:
    """An append-only file of byte strings, read back by place: `put` then `get`."""

    def __init__(self) -> None:
        try:
            self._file: IO[bytes] = tempfile.TemporaryFile(prefix="evalkit-plan-", buffering=0)  # noqa: SIM115
        except OSError as error:
            raise _no_room(error) from None
        self._size = 0
        self._lock = threading.Lock()  # for the end of the file, and for the position where there is no pread

    def put(self, data: bytes) -> tuple[int, int]:
        """Append `data`; return (offset, length) for `get`."""
        with self._lock:
            offset = self._size
            try:
                if _POSITIONED:
                    if os.pwrite(self._file.fileno(), data, offset) != len(data):  # only when the disk is full
                        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                else:
                    self._file.seek(offset)
                    self._file.write(data)
            except OSError as error:
                raise _no_room(error) from None
            self._size += len(data)
            return offset, len(data)

    def get(self, offset: int, length: int) -> bytes:
        if _POSITIONED:  # names its own place: no lock, no shared position
            return os.pread(self._file.fileno(), length, offset)
        with self._lock:
            self._file.seek(offset)  # no fork without pread (Windows): the position is this process's own
            return self._file.read(length)


def _no_room(error: OSError) -> UsageError:
    """Before the run: the plan's cases have no room in TMPDIR (exit 2, the place named)."""
    return UsageError(Problem(tempfile.gettempdir(), "", f"cannot hold the plan's cases ({error.strerror or error}); "
                              "free some space there, or set TMPDIR to a folder with room"))


_POSITIONED = hasattr(os, "pread") and hasattr(os, "pwrite")
_spill: Spill | None = None


def process_spill() -> Spill:
    """This process's spill, made on first use (a forked worker that loads cases makes its own)."""
    global _spill
    if _spill is None:
        _spill = Spill()
    return _spill


def _forget_the_parents() -> None:
    global _spill
    _spill = None  # its cases still read the parent's file; new ones go to a file of the child's


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_the_parents)
