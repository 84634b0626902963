"""Base64 as eval sets, genai and agents write it: either alphabet, padded or not."""

from __future__ import annotations

import base64
import binascii


def decode_base64(text: str) -> bytes | None:
    """The bytes of base64 `text` (standard or URL-safe alphabet, padding optional, whitespace ignored);
    None when it is not base64."""
    # '-' and '_' (URL-safe) become '+' and '/', then the padding is made whole.
    cleaned = "".join(text.split()).replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(cleaned + "=" * (-len(cleaned) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
