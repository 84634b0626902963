"""What a `cmd:` worker said on stderr: its last lines, and the one that explains a failure.

A worker that dies at start usually ends with a line that explains nothing: Node.js
prints `Node.js v20.…` after `Error: Cannot find module …`, Java and Python print
stack frames after or before the error. The explaining line is the last one that
names an error; the whole tail still goes to the case's `error_detail`.
"""

from __future__ import annotations

import re
from collections import deque

TAIL_LINES = 20
LINE_CHARS = 1000

# `Error: …`, `ModuleNotFoundError: …`, `java.lang.IllegalStateException: …`, `error: …`, `panic: …`
_ERROR_LINE = re.compile(r"^\s*(?:[\w.$]*(?:Error|Exception)\b|error\b|fatal\b|panic\b)", re.IGNORECASE)
_STACK_FRAME = re.compile(r"^\s*(?:at\s|File\s\"|\.\.\.\s\d+\smore|Caused by:)")


class StderrTail:
    """The last lines a worker wrote on stderr."""

    def __init__(self, size: int = TAIL_LINES):
        self._lines: deque[str] = deque(maxlen=size)

    def add(self, line: str) -> None:
        self._lines.append(line[:LINE_CHARS])

    def text(self) -> str | None:
        return "\n".join(self._lines) or None

    def explaining_line(self) -> str | None:
        """The last line naming an error, else the last line."""
        for line in reversed(self._lines):
            if _ERROR_LINE.match(line) and not _STACK_FRAME.match(line):
                return line.strip()
        return self._lines[-1] if self._lines else None
