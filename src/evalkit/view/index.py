"""The result files the viewer was given, each read once and kept as rows.

The viewer serves only these files: a run is named by an id made from its file name,
and a request names ids, never paths. A file is scanned the first time it is listed
and again only when it changes (size or modification time); its cases stay on disk
until one is opened. A large file is read in the background: its run is listed and its
first rows are served while the rest is read (`complete` says when it is done).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.view.rows import UNSAFE_ID_CHARS, case_row, criterion_names, search_text, set_figures
from evalkit.view.scan import NotAResultFile, read_case, scan

_LIST_FIELDS = ("started_at", "summary", "duration_s", "evalkit_version", "interrupted", "repeat", "git",
                "agent", "shard", "shards", "verdict")
_READ_IN_BACKGROUND_BYTES = 4_000_000  # smaller files are read before the listing answers (a few ms each)
_CASE_WAIT_S = 60.0  # opening a case of a file still being read waits for its byte ranges


@dataclass
class Run:
    id: str
    path: Path
    stamp: tuple[int, int]  # (size, mtime_ns) when scanned
    header: dict[str, Any] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)
    header_read: threading.Event = field(default_factory=threading.Event)  # summary and started_at: before the cases
    failure: str | None = None
    _figures: dict[str, dict[str, Any]] | None = None

    @property
    def complete(self) -> bool:
        return self.done.is_set()

    def snapshot(self) -> tuple[list[dict[str, Any]], list[str]]:
        """The rows read so far, with their search texts (a file still being read grows)."""
        count = min(len(self.rows), len(self.texts))
        return self.rows[:count], self.texts[:count]

    @property
    def figures(self) -> dict[str, dict[str, Any]]:
        if not self.complete:
            return set_figures(self.snapshot()[0])
        if self._figures is None:
            self._figures = set_figures(self.rows)
        return self._figures

    @property
    def eval_set_ids(self) -> list[str]:
        return list(self.figures)

    def listing(self) -> dict[str, Any]:
        """The run in `GET /api/runs`: the contract's fields, and what the runs page shows."""
        if not self.complete:  # a file still being read is listed whole or not at all: never a blank row
            self.header_read.wait(_CASE_WAIT_S)
        figures = self.figures
        item = {"id": self.id, "eval_set_ids": list(figures), "file": self.path.name, "sets": figures,
                "live": False, "complete": self.complete}
        item.update({key: self.header.get(key) for key in _LIST_FIELDS})
        comparison = self.header.get("comparison")
        if isinstance(comparison, dict) and comparison.get("baseline_runs"):  # `--baseline history`: which runs
            item["baseline"] = {"base": comparison.get("base"), "runs": comparison["baseline_runs"]}
        return item

    def criterion_names(self) -> list[str]:
        return criterion_names(self.snapshot()[0])

    def case(self, index: int) -> dict[str, Any]:
        self.done.wait(_CASE_WAIT_S)
        return read_case(self.path, self.spans[index])

    def read(self) -> None:
        """Scan the file into this run (in whichever thread calls it); `done` is set however it ends."""
        def on_case(index: int, case: dict[str, Any]) -> None:
            self.header_read.set()
            self.texts.append(search_text(case))
            self.rows.append(case_row(index, case))

        try:
            self.spans = scan(self.path, on_case, self.header).spans
        except (OSError, NotAResultFile) as error:
            self.failure = str(error)
        finally:
            self.header_read.set()
            self.done.set()


class RunIndex:
    def __init__(self, sources: list[Path]):
        self.sources = sources
        self._runs: dict[Path, Run] = {}
        self._ids: dict[Path, str] = {}
        self._lock = threading.Lock()

    @property
    def skipped(self) -> dict[Path, str]:
        """Files that are not result files, and why."""
        return {path: run.failure for path, run in list(self._runs.items()) if run.failure}

    def files(self) -> list[Path]:
        """The result files among the sources now: given files, and `*.json` directly in given folders."""
        found: list[Path] = []
        for source in self.sources:
            if source.is_dir():
                found += sorted(p for p in source.glob("*.json") if p.is_file() and not p.name.startswith("."))
            elif source.is_file():
                found.append(source)
        return list(dict.fromkeys(found))

    def runs(self) -> list[Run]:
        """Every readable run, newest first (re-scanning the files that changed)."""
        files = self.files()
        for path in files:  # large files first: they are read in the background, while small ones are read here
            self._load(path, large_only=True)
        runs = [run for path in files if (run := self._load(path)) is not None]
        return sorted(runs, key=lambda run: (str(run.header.get("started_at") or ""), run.id), reverse=True)

    def run(self, run_id: str) -> Run | None:
        with self._lock:
            path = next((path for path, known in self._ids.items() if known == run_id), None)
        if path is not None and path in self.files():  # a run already seen: only its file is looked at
            return self._load(path)
        return next((run for run in self.runs() if run.id == run_id), None)

    def wait(self) -> list[Run]:
        """Every run, read to the end (for the static export)."""
        runs = self.runs()
        for run in runs:
            run.done.wait()
        return [run for run in runs if run.failure is None]

    def _load(self, path: Path, large_only: bool = False) -> Run | None:
        try:
            status = path.stat()
        except OSError:
            return None
        small = status.st_size < _READ_IN_BACKGROUND_BYTES
        if large_only and small:
            return None
        stamp = (status.st_size, status.st_mtime_ns)
        with self._lock:
            known = self._runs.get(path)
            fresh = known is None or (known.stamp != stamp and known.complete)
            if fresh:
                known = Run(id=self._id_for(path), path=path, stamp=stamp)
                self._runs[path] = known
        assert known is not None
        if fresh and small:
            known.read()
        elif fresh:
            threading.Thread(target=known.read, name=f"evalkit-view-read-{known.id}", daemon=True).start()
        elif small:
            known.done.wait(_CASE_WAIT_S)  # another request is reading it right now
        return None if known.failure else known

    def _id_for(self, path: Path) -> str:
        if path not in self._ids:
            base = UNSAFE_ID_CHARS.sub("_", path.stem).strip("._") or "run"
            taken = set(self._ids.values())
            candidate, number = base, 2
            while candidate in taken:
                candidate, number = f"{base}-{number}", number + 1
            self._ids[path] = candidate
        return self._ids[path]
