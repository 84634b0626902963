"""Report paths (`--json`, `--junit`, `--markdown`, `--html`) checked before anything runs.

A report that cannot be written is found out in a second, not after a run of many
minutes; the message says why the path cannot work (docs/ci.md, "Reports"). The
folder is tried for real (a file created and removed in it): `os.access` says yes to
root for folders no one can write in, such as `/proc` and `/sys`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from evalkit.errors import Problem, UsageError


def check_output_paths(paths: dict[str, Path | None]) -> None:
    """Raise one UsageError naming every flag whose file cannot be written."""
    problems: list[Problem] = []
    seen: dict[Path, str] = {}
    for flag, path in paths.items():
        if path is None:
            continue
        reason = why_unwritable(Path(path))
        resolved = Path(os.path.abspath(path))
        if reason is None and resolved in seen:
            reason = f"{seen[resolved]} writes the same file; give each report its own path"
        seen.setdefault(resolved, flag)
        if reason:
            problems.append(Problem("", "", f"{flag} {path}: {reason}"))
    if problems:
        raise UsageError(problems)


def why_unwritable(path: Path) -> str | None:
    """Why `path` cannot become a file (its missing folders are created), or None."""
    if path.is_dir():
        return "is a folder; name the file to write"
    folder = Path(os.path.abspath(path)).parent
    while not folder.exists():
        if folder.is_symlink():
            return f"{folder} is a broken link; choose another path"
        folder = folder.parent
    if not folder.is_dir():
        return f"{folder} is a file, not a folder; choose a path inside a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"no permission to write in {folder}; choose a folder you can write to"
    return why_no_file_fits(folder)


def why_no_file_fits(folder: Path) -> str | None:
    """Create and remove a file in `folder`: why that failed, or None when it worked."""
    try:
        descriptor, probe = tempfile.mkstemp(prefix=".evalkit-probe-", dir=folder)
    except OSError as error:
        return f"cannot create a file in {folder} ({error.strerror or error}); choose a folder you can write to"
    os.close(descriptor)
    try:
        os.unlink(probe)
    except OSError:
        pass  # the file exists, so a report can be written there; a stray probe is harmless
    return None
