"""Keep credentials out of every message built from a model library's errors.

Client libraries sometimes echo request details (headers, URLs with `?key=`) in
their exceptions. Anything we turn into a user-visible message goes through
`redact` first.
"""

from __future__ import annotations

import os
import re
from typing import Any

#: Environment variables whose values must never be shown.
SECRET_ENV_VARS = ("GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY")

_MASK = "[redacted]"
# `key=...` in query strings and `Bearer ...` in echoed headers, whatever the key is.
_KEY_PATTERNS = (
    re.compile(r"(?i)([?&]key=)[^&\s'\"]+"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+"),
    re.compile(r"(?i)(x-goog-api-key['\"]?\s*[:=]\s*['\"]?)[^'\"\s,}]+"),
)
# Messages we build are one line in a table cell; a whole HTML error page is noise.
_MAX_LENGTH = 300


def redact(text: str, *, max_length: int = _MAX_LENGTH) -> str:
    """`text` with known secret values masked, on one line, shortened."""
    text = mask_secrets(text)
    text = " ".join(text.split())
    if len(text) > max_length:
        text = text[: max_length - 1] + "…"
    return text


def mask_secrets(text: str) -> str:
    """`text` with known secret values masked and nothing else changed (imported content keeps its layout)."""
    for name in SECRET_ENV_VARS:
        secret = os.environ.get(name, "").strip()
        # Very short values would mask ordinary words; real keys are long.
        if len(secret) >= 6:
            text = text.replace(secret, _MASK)
    for pattern in _KEY_PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + _MASK, text)
    return text


def mask_secrets_in(value: Any) -> Any:
    """A JSON value with every string masked on its own: in JSON text an escaped quote could hide the end of a secret."""
    if isinstance(value, str):
        return mask_secrets(value)
    if isinstance(value, list):
        return [mask_secrets_in(item) for item in value]
    if isinstance(value, dict):
        return {key: mask_secrets_in(item) for key, item in value.items()}
    return value
