"""Real media files made with the standard library: a PNG image, a WAV recording.

Each is a complete, valid file (a PNG decoder shows the image, a player plays the sound),
not only the first bytes a sniffer reads.
"""

from __future__ import annotations

import hashlib
import io
import struct
import wave
import zlib


def png_bytes(width: int = 2, height: int = 2, rgb: tuple[int, int, int] = (200, 30, 30), padding: int = 0) -> bytes:
    """A solid-colour RGB PNG; `padding` bytes of random-looking pixels make it larger on disk."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    if padding:  # pixels that do not compress: a square image of about `padding` bytes
        side = max(2, int((padding / 3) ** 0.5))
        width = height = side
        seed = hashlib.sha256(b"evalkit").digest()
        noise = b"".join(hashlib.sha256(seed + i.to_bytes(4, "big")).digest() for i in range(side * side * 3 // 32 + 1))
        rows = b"".join(b"\x00" + noise[y * side * 3:(y + 1) * side * 3] for y in range(side))
    else:
        rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b"")


def wav_bytes(frames: int = 800) -> bytes:
    """A short mono 8 kHz WAV recording."""
    out = io.BytesIO()
    with wave.open(out, "wb") as recording:
        recording.setnchannels(1)
        recording.setsampwidth(2)
        recording.setframerate(8000)
        recording.writeframes(b"".join(struct.pack("<h", (i * 37) % 2000 - 1000) for i in range(frames)))
    return out.getvalue()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# First bytes of each format as its own tools write them (headers from the formats' specifications).
HEADS = {  # by usual type
    "image/png": png_bytes(),
    "image/jpeg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01",
    "image/gif": b"GIF89a\x01\x00\x01\x00",
    "image/webp": b"RIFF\x24\x00\x00\x00WEBPVP8 ",
    "image/heic": b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00",
    "application/pdf": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3",
    "audio/wav": wav_bytes(),
    "audio/mpeg": b"ID3\x04\x00\x00\x00\x00\x00\x00",
    "audio/ogg": b"OggS\x00\x02\x00\x00",
    "audio/flac": b"fLaC\x00\x00\x00\x22",
    "video/mp4": b"\x00\x00\x00\x20ftypisom\x00\x00\x02\x00",
    "video/webm": b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81",
}
