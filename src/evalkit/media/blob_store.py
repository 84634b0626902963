"""A folder of blobs named by their sha256: each written once, read back checked.

A cassette's `media/` folder and a run's `.evalkit/media/` are such folders. A blob that is
already there is not written again (the same image in a hundred cases is one file), and a
blob is written to a temporary name first, so a reader never sees half of one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from evalkit.media.digest import content_hash


def blob_path(folder: Path, sha256: str) -> Path:
    return folder / sha256


def keep_blob(folder: Path, data: bytes, sha256: str | None = None, *, replace_present: bool = False) -> str:
    """Store `data` as `folder/SHA256` unless it is there already; its sha256 (given when known).

    A file of that name and size counts as there; with `replace_present` (a caller that found
    the file there damaged) it is written all the same."""
    sha256 = sha256 or content_hash(data)
    target = blob_path(folder, sha256)
    if not replace_present and target.is_file() and target.stat().st_size == len(data):
        return sha256
    folder.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{sha256[:16]}.", dir=folder)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temp, 0o644)  # mkstemp makes files owner-only; these are shared like the files beside them
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return sha256


def read_blob(folder: Path, sha256: str) -> bytes | None:
    """The blob named `sha256`, or None when it is missing or its bytes do not hash to its name."""
    try:
        data = blob_path(folder, sha256).read_bytes()
    except OSError:
        return None
    return data if content_hash(data) == sha256 else None
