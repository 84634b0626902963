"""What a file is, from its first bytes: a small table of magic numbers (standard library only).

Why a table of our own rather than Pillow, `filetype` or `puremagic` (docs/dependencies.md):
the question asked is not "what is this file" but "is it what the case says it is", and a
container answers to several declared types (an MP4 file is `video/mp4` or `audio/mp4`, a WAV
file `audio/wav` or `audio/x-wav`), which those libraries' one-answer lookups do not model.
Pillow knows images only. The formats that models take are few; each is one line below.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable

HEAD_BYTES = 64  # the most any signature below reads


@dataclass(frozen=True)
class MediaKind:
    name: str  # what a person calls it ("a PNG image")
    mime_types: tuple[str, ...]  # the usual types this content answers to (lowercase), the one to name first;
    # a declared alias counts as its usual type (ALIASES)
    matches: Callable[[bytes], bool]


def _starts(*prefixes: bytes) -> Callable[[bytes], bool]:
    return lambda head: head.startswith(prefixes)


def _riff(form: bytes) -> Callable[[bytes], bool]:
    return lambda head: head[:4] == b"RIFF" and head[8:12] == form


def _iff(form: bytes) -> Callable[[bytes], bool]:
    return lambda head: head[:4] == b"FORM" and head[8:12] == form


def _iso_brand(*brands: bytes) -> Callable[[bytes], bool]:
    """An ISO base media file (MP4, QuickTime, HEIF, 3GP): `ftyp` at byte 4, then its major brand."""
    return lambda head: head[4:8] == b"ftyp" and head[8:12] in brands


def _mpeg_audio(head: bytes) -> bool:
    if head.startswith(b"ID3"):
        return True
    # A frame header: 11 sync bits, then layer bits that are not 00 (00 is ADTS, AAC's).
    return len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0 and head[1] & 0x06 != 0


def _adts(head: bytes) -> bool:
    return len(head) >= 2 and head[0] == 0xFF and head[1] & 0xF6 == 0xF0


def _types(*names: str) -> tuple[str, ...]:
    return names


_HEIF_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1")
_AVIF_BRANDS = (b"avif", b"avis")
_QUICKTIME_BRANDS = (b"qt  ",)
_3GP_BRANDS = (b"3gp4", b"3gp5", b"3gp6", b"3g2a")
_M4A_BRANDS = (b"M4A ", b"M4B ")
_MP4_BRANDS = (b"isom", b"iso2", b"iso4", b"iso5", b"iso6", b"mp41", b"mp42", b"avc1", b"dash", b"MSNV", b"M4V ",
               b"mmp4", b"f4v ")

KINDS: tuple[MediaKind, ...] = (
    MediaKind("a PNG image", _types("image/png", "image/apng"), _starts(b"\x89PNG\r\n\x1a\n")),
    MediaKind("a JPEG image", _types("image/jpeg"), _starts(b"\xff\xd8\xff")),
    MediaKind("a GIF image", _types("image/gif"), _starts(b"GIF87a", b"GIF89a")),
    MediaKind("a WebP image", _types("image/webp"), _riff(b"WEBP")),
    MediaKind("a HEIF image", _types("image/heic", "image/heif", "image/heic-sequence", "image/heif-sequence"),
              _iso_brand(*_HEIF_BRANDS)),
    MediaKind("an AVIF image", _types("image/avif"), _iso_brand(*_AVIF_BRANDS)),
    MediaKind("a BMP image", _types("image/bmp"), lambda head: head[:2] == b"BM" and head[6:10] == b"\x00\x00\x00\x00"),
    MediaKind("a TIFF image", _types("image/tiff"), _starts(b"II*\x00", b"MM\x00*")),
    MediaKind("a PDF document", _types("application/pdf"), _starts(b"%PDF-")),
    MediaKind("a WAV recording", _types("audio/wav"), _riff(b"WAVE")),
    MediaKind("an AIFF recording", _types("audio/aiff"), lambda head: _iff(b"AIFF")(head) or _iff(b"AIFC")(head)),
    MediaKind("a FLAC recording", _types("audio/flac"), _starts(b"fLaC")),
    MediaKind("an Ogg stream", _types("audio/ogg", "video/ogg", "application/ogg"), _starts(b"OggS")),
    MediaKind("an MP3 recording", _types("audio/mpeg"), _mpeg_audio),
    MediaKind("an AAC recording", _types("audio/aac"), _adts),
    MediaKind("an M4A recording", _types("audio/mp4", "audio/aac"), _iso_brand(*_M4A_BRANDS)),
    MediaKind("an MP4 file", _types("video/mp4", "audio/mp4", "application/mp4"), _iso_brand(*_MP4_BRANDS)),
    MediaKind("a QuickTime video", _types("video/quicktime"), _iso_brand(*_QUICKTIME_BRANDS)),
    MediaKind("a 3GP file", _types("video/3gpp", "audio/3gpp", "video/3gpp2", "audio/3gpp2"), _iso_brand(*_3GP_BRANDS)),
    MediaKind("a WebM or Matroska file", _types("video/webm", "audio/webm", "video/x-matroska", "audio/x-matroska"),
              _starts(b"\x1a\x45\xdf\xa3")),
    MediaKind("an AVI video", _types("video/x-msvideo"), _riff(b"AVI ")),
)

# Other names people and tools give a type, each with the usual name it stands for. The one
# table of aliases: the check above, the pages that show media (results/media_folder.py) and
# the judges (judge/) all look a declared type up here first, so an alias is accepted, shown
# and sent alike everywhere. Each alias names its own usual type, never a kind's first one:
# containers hold audio or video (`audio/webm` is not `video/webm`).
ALIASES: dict[str, str] = {
    "image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg",
    "image/x-ms-bmp": "image/bmp",
    "audio/x-wav": "audio/wav", "audio/wave": "audio/wav", "audio/vnd.wave": "audio/wav",
    "audio/x-aiff": "audio/aiff",
    "audio/x-flac": "audio/flac",
    "audio/vorbis": "audio/ogg", "audio/opus": "audio/ogg",
    "audio/mp3": "audio/mpeg", "audio/mpeg3": "audio/mpeg", "audio/x-mpeg-3": "audio/mpeg",
    "audio/x-aac": "audio/aac", "audio/aacp": "audio/aac",
    "audio/m4a": "audio/mp4", "audio/x-m4a": "audio/mp4",
    "video/mov": "video/quicktime",
    "video/avi": "video/x-msvideo",
}

# Text has no magic number: a declared text type is checked by its bytes reading as UTF-8.
TEXT_TYPES = frozenset({"text/plain", "text/csv", "text/markdown", "text/html", "text/xml", "text/css",
                        "text/javascript", "text/x-python", "text/rtf", "application/json", "application/xml"})


def sniffed_kind(head: bytes) -> MediaKind | None:
    """The kind of content `head` (a file's first bytes) starts, or None when the table has none."""
    return next((kind for kind in KINDS if kind.matches(head)), None)


def declared_type(mime_type: str) -> str:
    """A MIME type as compared: lowercase, parameters (`; charset=...`) dropped."""
    return mime_type.split(";", 1)[0].strip().lower()


def usual_type(mime_type: str) -> str:
    """The usual name of a declared type (`audio/x-wav` → `audio/wav`), lowercase, parameters dropped;
    a type with no alias as it is declared."""
    declared = declared_type(mime_type)
    return ALIASES.get(declared, declared)


def media_type_problem(declared: str, data: bytes) -> str | None:
    """None when `data` (a file's bytes, or at least its first HEAD_BYTES) is of the declared type,
    else what is wrong and what to do, in a few words."""
    wanted = usual_type(declared)
    if wanted in TEXT_TYPES:
        return None if _is_text(data) else (f"is declared {declared} but is not UTF-8 text; give its real mime_type "
                                            "or convert it to UTF-8")
    kind = sniffed_kind(data[:HEAD_BYTES])
    if kind is None:
        return (f"is declared {declared}, but evalkit cannot recognise its type from its first bytes; give a "
                f"file of a supported type (images, audio, video, PDF: docs/media.md)")
    if wanted not in kind.mime_types:
        return (f"is declared {declared} but its first bytes are {kind.name} ({kind.mime_types[0]}); "
                "correct its mime_type or the file")
    return None


def _is_text(data: bytes) -> bool:
    if b"\x00" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
