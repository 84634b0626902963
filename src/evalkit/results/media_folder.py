"""A run's media, kept by content hash beside its history (`.evalkit/media/SHA256`).

A case's turns may hold images and sounds (`inline_data` parts, base64 in JSON). A run's
records keep them by reference only: as a case enters the records, each `inline_data`
holding data is written once to the media folder, named by its sha256, and replaced by
`{"mime_type", "sha256", "size"}`. So result files, the history and the temporary case
store hold no base64 blobs, and the viewer and the HTML report find the bytes by hash
(docs/media.md, "Seeing media").

Which types a page may show, and as what, is decided here, once, for the viewer and the
report: a MIME type comes from a file someone wrote, so it is only ever looked up (as its
usual type) in `SHOWN_TYPES`, never sent to a browser as it is (no `text/html`, no SVG).
"""

from __future__ import annotations

import base64
import re
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalkit.media.blob_store import keep_blob, read_blob
from evalkit.media.encoding import decode_base64
from evalkit.media.sniff import usual_type
from evalkit.schema.results import CaseResult

# What a page shows, by usual type (an alias is looked up as its usual type: media/sniff.py's
# ALIASES), and as which element; it is served as that usual type.
SHOWN_TYPES: dict[str, str] = {
    "image/png": "img", "image/jpeg": "img", "image/gif": "img", "image/webp": "img",
    "audio/wav": "audio", "audio/mpeg": "audio", "audio/ogg": "audio", "audio/webm": "audio", "audio/flac": "audio",
    "audio/aac": "audio",
    "video/mp4": "video", "video/webm": "video",
}
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_EXTENSION = re.compile(r"^[a-z0-9]{1,10}$")
# How much base64 text a run's media folder remembers as already kept (64 MiB: a dozen large photos).
_MEMORY_CHARS = 64 * 1024 * 1024


def shown_as(mime_type: Any) -> tuple[str, str] | None:
    """(element, served type) for a declared type a page may show; None for any other."""
    if not isinstance(mime_type, str):
        return None
    usual = usual_type(mime_type)
    element = SHOWN_TYPES.get(usual)
    return None if element is None else (element, usual)


def as_shown(node: Any) -> Any:
    """A copy of a recorded JSON tree (a case) whose media references say how a page offers them, by `shown_as`:
    `show_as` the element ("img", "audio", "video") for a type the page shows, else null, with `file_name`, the
    name a download of it takes. The viewer and its export draw media from this alone, so both offer a medium
    the same way, and a type the page does not show (`image/heic`) as a file to download, never a broken image."""
    if isinstance(node, list):
        return [as_shown(item) for item in node]
    if not isinstance(node, dict):
        return node
    copy = {key: as_shown(value) for key, value in node.items()}
    blob = node.get("inline_data")
    if isinstance(blob, dict) and is_sha256(blob.get("sha256")):
        shown = shown_as(blob.get("mime_type"))
        copy["inline_data"] = {**blob, "show_as": None if shown is None else shown[0],
                               "file_name": f"{blob['sha256'][:16]}.{_extension(blob.get('mime_type'))}"}
    return copy


def _extension(mime_type: Any) -> str:
    """A file name's extension for a declared type: its subtype when that is a plain word (`heic`, `pdf`), else `bin`."""
    subtype = usual_type(mime_type).partition("/")[2].removeprefix("x-") if isinstance(mime_type, str) else ""
    return subtype if _EXTENSION.match(subtype) else "bin"


def is_sha256(text: Any) -> bool:
    return isinstance(text, str) and _SHA256.match(text) is not None


@dataclass(frozen=True)
class MediaRef:
    """A media part as a record keeps it: its declared type, hash and size."""

    mime_type: str
    sha256: str
    size: int | None


def media_refs(content: Any) -> Iterator[MediaRef]:
    """The media a recorded Content (JSON) refers to, in order; parts that hold no reference are left out."""
    parts = content.get("parts") if isinstance(content, dict) else None
    for part in parts if isinstance(parts, list) else ():
        blob = part.get("inline_data") if isinstance(part, dict) else None
        if isinstance(blob, dict) and is_sha256(blob.get("sha256")):
            size = blob.get("size")
            yield MediaRef(str(blob.get("mime_type") or ""), blob["sha256"], size if isinstance(size, int) else None)


def hashes_in(node: Any) -> Iterator[str]:
    """Every media hash a recorded JSON tree (a case, a turn) refers to, in order, repeats included."""
    if isinstance(node, dict):
        blob = node.get("inline_data")
        if isinstance(blob, dict) and is_sha256(blob.get("sha256")):
            yield blob["sha256"]
        for value in node.values():
            yield from hashes_in(value)
    elif isinstance(node, list):
        for item in node:
            yield from hashes_in(item)


def with_media(node: Any, folders: list[Path]) -> Any:
    """A copy of a recorded JSON tree whose media references hold their bytes again (base64), where
    one of `folders` has them; `replay:` and `rescore` show the judge what the recorded run showed it."""
    if isinstance(node, list):
        return [with_media(item, folders) for item in node]
    if not isinstance(node, dict):
        return node
    blob = node.get("inline_data")
    copy = {key: with_media(value, folders) for key, value in node.items() if key != "inline_data"}
    if blob is not None:
        data = read_media_from(folders, str(blob.get("sha256"))) if isinstance(blob, dict) and "data" not in blob \
            else None
        copy["inline_data"] = blob if data is None else {
            "mime_type": blob.get("mime_type"), "data": base64.b64encode(data).decode("ascii")}
    return copy


def read_media(folder: Path, sha256: str) -> bytes | None:
    """The bytes kept under `sha256`; None when the name is not a hash or the folder lacks them."""
    return read_blob(folder, sha256) if is_sha256(sha256) else None


def media_folders_near(path: Path) -> list[Path]:
    """Where the runs at `path` (a result file, or a folder of them) keep their media: a run keeps
    them beside its history (`.evalkit/runs/` → `.evalkit/media/`), and a result file written with
    `--json` sits in the folder whose `.evalkit/media/` that is. Read by hash only, so a folder
    that is not such a one is harmless."""
    if path.is_dir():
        return [path.parent / "media", path / ".evalkit" / "media"]
    return [path.parent / ".evalkit" / "media", path.parent.parent / "media"]


def read_media_from(folders: list[Path], sha256: str) -> bytes | None:
    """The bytes kept under `sha256` in the first of `folders` that has them whole."""
    return next((data for data in (read_media(folder, sha256) for folder in folders) if data is not None), None)


def bring_medium(sha256: str, target: Path, folders: list[Path]) -> bool:
    """Have `target` hold the medium `sha256` whole: there already, or copied from the first of `folders`
    that has it (a damaged copy in `target` is written again); False when none has it."""
    if read_media(target, sha256) is not None:
        return True
    data = read_media_from(folders, sha256)
    if data is None:
        return False
    keep_blob(target, data, sha256, replace_present=True)
    return True


# Where a report looks for media besides this folder's own media folder: `evalkit report` of a
# result file kept elsewhere adds the folders beside that file (`media_also_in`), so that the
# report shows what the run showed, without every report format taking a path it has no use for.
_ALSO_IN: ContextVar[tuple[Path, ...]] = ContextVar("evalkit_media_also_in", default=())


@contextmanager
def media_also_in(folders: list[Path]) -> Iterator[None]:
    token = _ALSO_IN.set(tuple(folders))
    try:
        yield
    finally:
        _ALSO_IN.reset(token)


def report_media_folders(own: Path) -> list[Path]:
    """The folders a report reads media from: `own` (the run's), then any a caller added."""
    return list(dict.fromkeys([own, *_ALSO_IN.get()]))


class MediaFolder:
    """Where a run keeps its cases' media: `shelve` a case as it enters the records."""

    def __init__(self, folder: Path, memory_chars: int = _MEMORY_CHARS):
        self.folder = folder
        self.trouble: str | None = None  # why media could not be kept (they stay inline then)
        # Base64 texts already kept → (hash, size), newest last: the same image in many cases (and in a
        # case's expected and actual turns) is decoded, hashed and written once, not once per case.
        self._kept: OrderedDict[str, tuple[str, int]] = OrderedDict()
        self._kept_chars = 0
        self._memory_chars = memory_chars

    def shelve(self, case: CaseResult) -> CaseResult:
        """`case`, its turns' (and repeated runs') `inline_data` kept here and referred to by hash (changed in place)."""
        for record in case.invocations:
            for side in (record.actual, record.expected):
                self._shelve_tree(side)
        for run in case.runs or ():
            self.shelve(run)
        return case

    def _shelve_tree(self, node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "inline_data" and isinstance(value, dict) and isinstance(value.get("data"), str):
                    self._shelve_blob(value)
                else:
                    self._shelve_tree(value)
        elif isinstance(node, list):
            for item in node:
                self._shelve_tree(item)

    def _shelve_blob(self, blob: dict[str, Any]) -> None:
        text = blob["data"]
        kept = self._kept.get(text)
        if kept is None:
            data = decode_base64(text)
            if data is None:
                return  # not base64: left as it is, for whoever reads it to say so
            try:
                kept = keep_blob(self.folder, data), len(data)
            except OSError as error:
                self.trouble = f"{self.folder}: cannot keep a case's media ({error.strerror or error})"
                return  # kept inline rather than lost
            self._remember(text, kept)
        else:
            self._kept.move_to_end(text)
        del blob["data"]
        blob["sha256"], blob["size"] = kept

    def _remember(self, text: str, kept: tuple[str, int]) -> None:
        if len(text) > self._memory_chars:
            return
        self._kept[text] = kept
        self._kept_chars += len(text)
        while self._kept_chars > self._memory_chars:
            dropped, _ = self._kept.popitem(last=False)
            self._kept_chars -= len(dropped)
