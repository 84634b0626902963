"""One writer at a time for a file that several processes may update (read, merge, write).

The lock is taken on the folder that holds the file, not on the file: an atomic write
replaces the file (a new inode), so a lock on the old one would guard nothing, and a
lock file beside it would be litter in the user's repository. `flock` on a folder works
on Linux and macOS; where there is no `fcntl` (Windows) the update is not locked.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def updating(path: Path) -> Iterator[None]:
    """Hold the lock for `path`'s folder while the body reads, merges and writes `path`."""
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks of this kind
        yield
        return
    folder = path.parent if str(path.parent) else Path(".")
    folder.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock
