"""Where a `file_uri` is on this machine: evalkit reads local files only, never the network."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

# A scheme is two letters or more: `C:\\photos\\a.png` is a Windows path, not a URI.
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):")


@dataclass(frozen=True)
class Unreadable:
    """A `file_uri` evalkit cannot read, and why."""

    reason: str


def local_path(file_uri: str, folder: Path) -> Path | Unreadable:
    """The file `file_uri` names: a relative path is taken from `folder` (the eval set's), a
    `file://` URI or an absolute path as it is; any other scheme is `Unreadable`."""
    found = _SCHEME.match(file_uri)
    if found is None:
        path = Path(file_uri)
        return path if path.is_absolute() else folder / path
    scheme = found.group(1).lower()
    if scheme == "file":
        parsed = urlparse(file_uri)
        if parsed.netloc not in ("", "localhost"):
            return Unreadable(f"a file:// URI on another host ({parsed.netloc}) cannot be read; copy the "
                              "file beside the eval set and give its relative path")
        path = Path(unquote(parsed.path))
        return path if path.is_absolute() else folder / path
    return Unreadable(f"evalkit cannot read {scheme}:// URIs (it fetches nothing over the network); "
                      "download the file beside the eval set and give its relative path as file_uri")
