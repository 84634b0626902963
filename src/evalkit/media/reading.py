"""Media files read once per process and hashed once, shared by every case that names them.

A 5 MB image that a hundred cases show is one `bytes` object: `validate`'s check reads and
hashes it, and each case's parts then point at the same bytes (docs/performance.md, "Media").
Files stay while the files read fit in `budget_bytes`; past it the least recently used are
let go and read again when asked for, so many distinct large files never pile up in memory.
A file changed on disk (size or modification time) is read again.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from evalkit.media.digest import content_hash

DEFAULT_BUDGET_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class MediaFile:
    path: Path
    data: bytes
    sha256: str

    @property
    def size(self) -> int:
        return len(self.data)


class MediaFiles:
    """Files by path, read and hashed once while they fit in the budget; `reads` and `hashes` count."""

    def __init__(self, budget_bytes: int = DEFAULT_BUDGET_BYTES):
        self.budget_bytes = budget_bytes
        self.reads = 0
        self.hashes = 0
        self._kept: OrderedDict[tuple[str, int, int], MediaFile] = OrderedDict()
        self._kept_bytes = 0
        self._lock = threading.Lock()

    def read(self, path: Path) -> MediaFile:
        """The file's bytes and hash; raises OSError as `open` does (missing, unreadable, a folder)."""
        key = _key(path)
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
                return found
        data = path.read_bytes()
        media = MediaFile(path, data, content_hash(data))
        with self._lock:
            self.reads += 1
            self.hashes += 1
            self._keep(key, media)
        return media

    def _keep(self, key: tuple[str, int, int], media: MediaFile) -> None:
        if key in self._kept or media.size > self.budget_bytes:
            return
        self._kept[key] = media
        self._kept_bytes += media.size
        while self._kept_bytes > self.budget_bytes:
            _, dropped = self._kept.popitem(last=False)
            self._kept_bytes -= dropped.size


def _key(path: Path) -> tuple[str, int, int]:
    status = os.stat(path)
    return os.path.realpath(path), status.st_size, status.st_mtime_ns


_PROCESS_FILES = MediaFiles()


def media_files() -> MediaFiles:
    """The process's media files: what `validate`'s check read, a case's run finds there."""
    return _PROCESS_FILES
