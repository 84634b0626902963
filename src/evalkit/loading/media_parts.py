"""Media in a case's user messages: checked before a run, and read into bytes when the case runs.

`media_problems` is what `validate` (and `run`, before anything runs) says of each
`inline_data` and `file_data` part: a `file_uri` that names no file or one evalkit cannot read
(`gs://`, `https://`), a declared `mime_type` its bytes do not match, a type evalkit cannot
recognise, a file over the size limit. `resolve_media` is the seam with everything after
loading: every media part of the case's user messages then holds `inline_data` with the bytes
(a `file_data` part keeps its `file_uri` beside them), read once per process
(evalkit.media.reading) however many cases show the file, and checked again as the case
starts: a file changed since the check makes that case an error (`MediaChanged`), not the run.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from evalkit.errors import EvalkitError, ExitCode, Problem
from evalkit.media.locations import Unreadable, local_path
from evalkit.media.reading import MediaFile, media_files
from evalkit.media.sniff import media_type_problem
from evalkit.schema.content import Blob, Part
from evalkit.schema.evalset import EvalCase

_MIB = 1024 * 1024


@dataclass(frozen=True)
class MediaProblem(Problem):
    """A problem with a media part (an importer writes such a case and says what to fetch before running it)."""


@dataclass(frozen=True)
class MediaPart:
    """A media part of a case's user message, and where it is (`turn 1, user_content.parts[2]`)."""

    turn: int  # 0-based; worded 1-based
    index: int
    part: Part

    @property
    def where(self) -> str:
        return f"turn {self.turn + 1}, user_content.parts[{self.index}]"


def media_parts(case: EvalCase) -> Iterator[MediaPart]:
    for turn, invocation in enumerate(case.conversation or ()):
        for index, part in enumerate(invocation.user_content.parts or ()):
            if part.inline_data is not None or part.file_data is not None:
                yield MediaPart(turn, index, part)


def media_limit_bytes() -> int:
    """The most bytes one media part may hold: 20 MiB unless EVALKIT_MEDIA_MAX_MB says otherwise."""
    from evalkit.settings import Environment

    return int(Environment.read().media_max_mb * _MIB)


def media_problems(case: EvalCase, folder: Path, file: str, limit_bytes: int | None = None) -> list[Problem]:
    """Every problem with the case's media parts, each naming the eval set, the case and the part."""
    problems: list[Problem] = []
    for found in media_parts(case):
        if limit_bytes is None:
            limit_bytes = media_limit_bytes()
        where = f"eval case {case.eval_id!r}, {found.where}"
        problems += [MediaProblem(file, where, message) for message in _part_problems(found.part, folder, limit_bytes)]
    return problems


def _part_problems(part: Part, folder: Path, limit_bytes: int) -> list[str]:
    if part.file_data is not None:
        return _file_problems(part, folder, limit_bytes)
    blob = part.inline_data
    assert blob is not None  # a media part holds one or the other
    if not blob.mime_type:
        return ["inline_data has no mime_type; give the data's type, such as image/png (docs/media.md)"]
    if not blob.data:
        return ["inline_data has no data; give the file's bytes base64-encoded, or use file_data with a file_uri"]
    if len(blob.data) > limit_bytes:
        return [f"inline_data is {_mib(len(blob.data))}, over the {_mib(limit_bytes)} limit; make it smaller or "
                f"{_raise_the_limit()}"]
    wrong = media_type_problem(blob.mime_type, blob.data)
    return [f"inline_data {wrong}"] if wrong else []


def _file_problems(part: Part, folder: Path, limit_bytes: int) -> list[str]:
    checked = _checked_file(part, folder, limit_bytes)
    return checked if isinstance(checked, list) else []


def _checked_file(part: Part, folder: Path, limit_bytes: int) -> MediaFile | list[str]:
    """The `file_data` part's file, read (once per process) and checked; else what is wrong with it."""
    given = part.file_data
    assert given is not None
    if part.inline_data is not None:
        return ["holds both inline_data and file_data; keep one of them"]
    if not given.file_uri:
        return ["file_data has no file_uri; give the file's path, relative to the eval set's folder"]
    if not given.mime_type:
        return [f"file_data {given.file_uri!r} has no mime_type; give the file's type, such as image/png"]
    path = local_path(given.file_uri, folder)
    if isinstance(path, Unreadable):
        return [f"file_data.file_uri {given.file_uri!r}: {path.reason}"]
    try:
        size = path.stat().st_size
        if not path.is_file():
            return [f"file_data.file_uri {given.file_uri!r}: {path} is not a file; give the path of a file"]
    except OSError:
        return [f"file_data.file_uri {given.file_uri!r}: no such file ({path}); put the file there or correct "
                "the path (a relative path is read from the eval set's folder)"]
    if size > limit_bytes:
        return [f"file_data.file_uri {given.file_uri!r} is {_mib(size)}, over the {_mib(limit_bytes)} limit; "
                f"make it smaller or {_raise_the_limit()}"]
    try:
        media = media_files().read(path)
    except OSError as error:
        return [f"file_data.file_uri {given.file_uri!r}: cannot read {path}: {error.strerror or error}; "
                "make it readable"]
    wrong = media_type_problem(given.mime_type, media.data)
    return [f"file_data.file_uri {given.file_uri!r} {wrong}"] if wrong else media


def _raise_the_limit() -> str:
    from evalkit.settings import Environment

    return f"raise the limit with {Environment.variable('media_max_mb')}"


def _mib(size: int) -> str:
    return f"{size / _MIB:.1f} MiB" if size % _MIB else f"{size // _MIB} MiB"


class MediaChanged(EvalkitError):
    """A media file that passed the check before the run is gone or no longer fits when its case
    runs: that case's `error` (exit 3), the other cases run on."""

    exit_code = ExitCode.RUN_ERROR


def resolve_media(case: EvalCase, folder: Path, file: str = "") -> EvalCase:
    """The case with each `file_data` part's file read into its `inline_data` (in place; returned).

    Each file is checked again as the plan's check (`media_problems`) did before the run: a
    file deleted, emptied or rewritten since is `MediaChanged` naming `file` (the eval set),
    the case and the part. A file rewritten with another of its declared type is read as it is now.
    """
    limit_bytes: int | None = None
    for found in media_parts(case):
        given = found.part.file_data
        if given is None or found.part.inline_data is not None or not given.file_uri:
            continue
        limit_bytes = media_limit_bytes() if limit_bytes is None else limit_bytes
        checked = _checked_file(found.part, folder, limit_bytes)  # the check's read, unless the file changed
        if isinstance(checked, list):
            raise MediaChanged(str(Problem(file, f"eval case {case.eval_id!r}, {found.where}",
                                           f"{'; '.join(checked)}; it changed after evalkit checked it before "
                                           "the run: leave media files as they are while a run uses them, then "
                                           "run this case again")))
        found.part.inline_data = Blob.model_construct(mime_type=given.mime_type, data=checked.data)
    return case
