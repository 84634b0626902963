"""Output to a reader that went away (`evalkit run | head -1`) is dropped, not an error.

The command goes on and exits with its own code: a gate piped into `head` still
reports whether the cases passed, and Python prints no BrokenPipeError at exit.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO


class ClosedPipeTolerantStream:
    """Wraps stdout; the first broken pipe points the file descriptor at /dev/null."""

    def __init__(self, stream: TextIO):
        self._stream = stream
        self._gone = False

    def write(self, text: str) -> int:
        if not self._gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._drop()
        return len(text)

    def flush(self) -> None:
        if not self._gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._drop()

    def _drop(self) -> None:
        self._gone = True
        # Whatever is still buffered goes to /dev/null when Python flushes at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, self._stream.fileno())
        os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def tolerate_closed_stdout() -> None:
    if not isinstance(sys.stdout, ClosedPipeTolerantStream) and sys.stdout is not None:
        sys.stdout = ClosedPipeTolerantStream(sys.stdout)
