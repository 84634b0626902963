"""A run in progress, published for `evalkit view` as its cases finish.

`evalkit run` writes `live-<time>-<token>.jsonl` into the run history's folder: a first
line describing the run, then one line per finished case (the case's status and its
criteria's scores, the shape of a case in the result file without its turns), flushed
as each case finishes. The file is removed when the run ends; the finished run is then
in the history. A file whose process is gone (a run killed hard) is shown as stopped
(docs/viewer.md, "Live").
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from evalkit.foundation.redaction import mask_secrets
from evalkit.results.record_views import progress_row

if TYPE_CHECKING:
    from evalkit.schema.results import CaseResult

LIVE_PATTERN = "live-*.jsonl"


class ProgressFile:
    def __init__(self, path: Path, handle: IO[str]):
        self.path = path
        self._handle = handle

    @classmethod
    def start(cls, folder: Path, header: dict[str, Any], stamp: str | None = None) -> ProgressFile | None:
        """Open the file and write its first line; None when it cannot be written (never fails a run).

        `stamp` (`history.run_stamp()`) also names the run's file in the history, `run-<stamp>.json`."""
        from evalkit.results.history import run_stamp
        from evalkit.foundation.state_folder import make_folder

        path = folder / f"live-{stamp or run_stamp()}.jsonl"
        try:
            make_folder(folder)
            handle = path.open("w", encoding="utf-8")
            handle.write(mask_secrets(json.dumps({**header, "pid": os.getpid()})) + "\n")
            handle.flush()
        except OSError:
            return None
        return cls(path, handle)

    def add(self, case: CaseResult, total: int) -> None:
        """One finished case: what its row in the viewer shows."""
        try:
            self._handle.write(mask_secrets(json.dumps({"total": total, "case": progress_row(case)})) + "\n")
            self._handle.flush()
        except (OSError, ValueError):
            pass  # a full disk must not stop the run; the viewer shows what arrived

    def close(self) -> None:
        try:
            self._handle.close()
        finally:
            self.path.unlink(missing_ok=True)
