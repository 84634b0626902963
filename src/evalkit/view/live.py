"""Runs in progress: the progress files `evalkit run` keeps beside the history.

Each file is read incrementally: only the lines added since the last look are decoded.
A file whose run is gone (its process ended without removing it) is reported as stopped.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.engine.progress_file import LIVE_PATTERN
from evalkit.view.rows import UNSAFE_ID_CHARS, case_row, criterion_names, search_text, set_figures



@dataclass
class LiveRun:
    id: str
    path: Path
    header: dict[str, Any] = field(default_factory=dict)
    total: int = 0
    rows: list[dict[str, Any]] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    cases: list[dict[str, Any]] = field(default_factory=list)
    read_to: int = 0

    def summary(self) -> dict[str, Any]:
        counts = {"cases": len(self.rows), "passed": 0, "failed": 0, "not_evaluated": 0, "errors": 0}
        for row in self.rows:
            key = "errors" if row["status"] == "error" else row["status"]
            if key in counts:
                counts[key] += 1
        return counts

    def stopped(self) -> bool:
        pid = self.header.get("pid")
        if not isinstance(pid, int):
            return False
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except OSError:
            return False  # alive, under another user
        return False

    def listing(self) -> dict[str, Any]:
        return {"id": self.id, "started_at": self.header.get("started_at"), "summary": self.summary(),
                "eval_set_ids": self.header.get("eval_set_ids") or list(set_figures(self.rows)),
                "agent": self.header.get("agent"), "git": self.header.get("git"), "file": self.path.name,
                "live": True, "total": self.total, "stopped": self.stopped(), "sets": {}}

    def document(self) -> dict[str, Any]:
        """The run so far, in the result file's shape (cases without their turns)."""
        return {"started_at": self.header.get("started_at"), "summary": self.summary(), "cases": self.cases,
                "live": True, "total": self.total, "stopped": self.stopped(), "agent": self.header.get("agent")}

    def criterion_names(self) -> list[str]:
        return criterion_names(self.rows)


LIVE_ID_PREFIX = LIVE_PATTERN.split("*", 1)[0]  # a run in progress is named after its file: `live-…`
FINISHED_ID_PREFIX = "run-"  # … and once finished, the history's `run-<the same stamp>.json`


class LiveRuns:
    def __init__(self, folders: list[Path]):
        self.folders = folders
        self._runs: dict[Path, LiveRun] = {}
        self.finished: dict[str, dict[str, Any]] = {}  # id → first line, of runs seen live that have ended
        self._lock = threading.Lock()

    def runs(self) -> list[LiveRun]:
        with self._lock:
            found = [path for folder in self.folders if folder.is_dir() for path in sorted(folder.glob(LIVE_PATTERN))]
            for path, run in self._runs.items():
                if path not in found and run.header:
                    self.finished[run.id] = run.header  # the run ended: its result is in the history now
            self._runs = {path: self._runs.get(path) or LiveRun(id=UNSAFE_ID_CHARS.sub("_", path.stem), path=path)
                          for path in found}
            return [run for run in self._runs.values() if _read_new_lines(run)]

    def run(self, run_id: str) -> LiveRun | None:
        return next((run for run in self.runs() if run.id == run_id), None)


def _read_new_lines(run: LiveRun) -> bool:
    """Take in what was appended since the last read; False when the file is gone or unreadable."""
    try:
        with run.path.open("rb") as handle:
            handle.seek(run.read_to)
            data = handle.read()
    except OSError:
        return False
    complete = data[: data.rfind(b"\n") + 1]  # a line being written is read next time
    run.read_to += len(complete)
    for line in complete.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if not isinstance(item, dict):
            continue
        if not run.header and "case" not in item:
            run.header = item
            run.total = int(item.get("total") or 0)
        elif isinstance(item.get("case"), dict):
            case = item["case"]
            run.total = int(item.get("total") or run.total)
            run.rows.append(case_row(len(run.rows), case))
            run.texts.append(search_text(case))
            run.cases.append(case)
    return bool(run.header)
