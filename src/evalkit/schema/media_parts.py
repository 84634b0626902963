"""The media of a turn: the `inline_data` parts of its user content and of its answer, as bytes.

`inline_data` stays loose JSON in `schema/content.py` (genai writes it as `{"mime_type",
"data"}` with `data` in base64, URL-safe from google-genai's own dumps, standard from most
other writers; `mimeType` from camelCase files; bytes when built in Python). Here it becomes
a `MediaPart` once, for whoever shows the media to a judge or keeps them for the viewer.

A media part that cannot be read as bytes here (no type, data that is not base64, a
`file_data` part that names a file rather than holding it) is `MediaNotReadable` naming its
place: a judge shown the rest would give a verdict without it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from evalkit.errors import EvalkitError, ExitCode
from evalkit.media.digest import content_hash
from evalkit.media.encoding import decode_base64
from evalkit.schema.content import Content, Part
from evalkit.schema.evalset import Invocation


@dataclass(frozen=True)
class MediaPart:
    """An image, a sound, a document...: its declared type and its bytes."""

    mime_type: str
    data: bytes = field(repr=False)

    @cached_property
    def sha256(self) -> str:
        """The content hash media are keyed and stored by (the judge cache, `.evalkit/media/`)."""
        return content_hash(self.data)


class MediaNotReadable(EvalkitError):
    """A judge cannot be shown one of a turn's media (`judge openai/NAME cannot read application/pdf`).

    Not a judge failure: the criterion asking is `not_evaluated` with this reason, never
    judged on the text alone.
    """

    exit_code = ExitCode.RUN_ERROR


def inline_media(part: Part, where: str = "a part") -> MediaPart | None:
    """The part's media as a MediaPart; None when it holds none; MediaNotReadable (naming `where`) if unreadable."""
    if part.file_data is not None and (part.inline_data is None or _field(part.inline_data, "data") is None):
        # A loaded case's file_data part holds its file's bytes in inline_data (loading/media_parts.py).
        uri = _field(part.file_data, "file_uri", "fileUri")
        raise MediaNotReadable(f"{where}: the file_data part {uri!r} is not held in the turn; give it as inline_data")
    blob = part.inline_data
    if blob is None:
        return None
    mime_type = _field(blob, "mime_type", "mimeType")
    if not isinstance(mime_type, str) or "/" not in mime_type:
        raise MediaNotReadable(f"{where}: inline_data has no mime_type")
    data = _field(blob, "data")
    if data is None and _field(blob, "sha256"):
        raise MediaNotReadable(f"{where}: the record holds the medium's hash only, and its bytes were not found "
                               "in the runs' media folder (.evalkit/media)")
    raw = _bytes(data)
    if raw is None:
        raise MediaNotReadable(f"{where}: inline_data.data is not base64")
    return MediaPart(mime_type.strip().lower(), raw)


def content_media(content: Content | None, where: str = "content") -> Iterator[MediaPart]:
    """The media parts of a Content, in order."""
    for index, part in enumerate((content.parts or ()) if content is not None else ()):
        media = inline_media(part, f"{where}.parts[{index}]")
        if media is not None:
            yield media


def turn_media(invocation: Invocation) -> tuple[MediaPart, ...]:
    """What the user sent in a turn, then what the agent answered with."""
    return (*content_media(invocation.user_content, "user_content"),
            *content_media(invocation.final_response, "final_response"))


def conversation_media(invocations: Iterable[Invocation]) -> tuple[MediaPart, ...]:
    """Every turn's media, turn after turn."""
    return tuple(media for invocation in invocations for media in turn_media(invocation))


def _field(blob: Any, *names: str) -> Any:
    for name in names:
        value = blob.get(name) if isinstance(blob, dict) else getattr(blob, name, None)
        if value is not None:
            return value
    return None


def _bytes(data: Any) -> bytes | None:
    if isinstance(data, (bytes, bytearray)):
        return bytes(data)
    return decode_base64(data) if isinstance(data, str) else None
