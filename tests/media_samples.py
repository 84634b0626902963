"""Small real media files built with the standard library: a PNG any browser decodes, a WAV it plays."""

from __future__ import annotations

import base64
import io
import struct
import wave
import zlib


def tiny_png(width: int = 3, height: int = 2, rgb: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    """An RGB PNG of one colour (`rgb` changes its bytes, so two images can differ only in colour)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def tiny_wav(seconds: float = 0.25, rate: int = 8000) -> bytes:
    """A mono 16-bit WAV of a square wave."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        frames = int(seconds * rate)
        out.writeframes(b"".join(struct.pack("<h", 8000 if (i // 20) % 2 else -8000) for i in range(frames)))
    return buffer.getvalue()


def tiny_pdf() -> bytes:
    return b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def inline_part(mime_type: str, data: bytes) -> dict:
    """An `inline_data` part as an eval set holds it (standard base64)."""
    return {"inline_data": {"mime_type": mime_type, "data": base64.b64encode(data).decode("ascii")}}
