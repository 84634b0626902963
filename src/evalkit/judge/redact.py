"""Keep credentials out of every message built from a model library's errors.

Client libraries sometimes echo request details (headers, URLs with `?key=`) in
their exceptions. Anything we turn into a user-visible message goes through
`redact` first.
"""

from __future__ import annotations

from evalkit.foundation.redaction import SECRET_ENV_VARS, mask_secrets

__all__ = ["SECRET_ENV_VARS", "mask_secrets", "redact"]

# Messages we build are one line in a table cell; a whole HTML error page is noise.
_MAX_LENGTH = 300


def redact(text: str, *, max_length: int = _MAX_LENGTH) -> str:
    """`text` with known secret values masked (evalkit.foundation.redaction), on one line, shortened."""
    text = mask_secrets(text)
    text = " ".join(text.split())
    if len(text) > max_length:
        text = text[: max_length - 1] + "…"
    return text
