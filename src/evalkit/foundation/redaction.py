"""The one redaction: secrets masked in every file and page evalkit writes.

Masked: the password of any URL (`http://user:PASS@host/` → `http://user:[redacted]@host/`),
the values of the API-key variables (`SECRET_ENV_VARS`), `key=` query parameters and
bearer tokens, and any value registered with `add_secret` (the values of `--header`
options, say): a feature that takes a secret registers its value once, and every
writer masks it from then on. The case store masks each finished case as it is stored,
and the atomic file writer masks every piece it writes, so a file cannot carry a
secret that came in through a path nobody thought of.
"""

from __future__ import annotations

import os
import re
from typing import Any

#: Environment variables whose values must never be written.
SECRET_ENV_VARS = ("GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY")
MASK = "[redacted]"
# Shorter values would mask ordinary words; real keys and tokens are long.
_SHORTEST_SECRET = 6

# Each pattern with a literal it cannot match without (lower case), so text without it costs one search.
# Lengths are bounded: no pattern scans a long run of letters from every position (quadratic).
# No pattern takes a backslash: masking JSON text must never eat an escape and break the document.
_PATTERNS = (
    # user:password@ in a URL of any scheme; the password stops where a URL's authority would.
    ("://", re.compile(r"(?i)(\b[a-z][a-z0-9+.-]{0,31}://[^\s/?#@:\"'<>\\]{0,256}:)[^\s/?#@\"'<>\\]{1,256}(?=@)")),
    ("key=", re.compile(r"(?i)([?&]key=)[^&\s'\"<>\\]+")),
    ("bearer", re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+")),
    ("x-goog-api-key", re.compile(r"(?i)(x-goog-api-key['\"]?\s*[:=]\s*['\"]?)[^'\"\s,}\\]+")),
)
_registered: set[str] = set()
# secret_values() runs for every stored case and every piece written: its list is kept until
# a value is registered or an API-key variable changes.
_known: tuple[tuple[str, ...], list[str]] | None = None


def add_secret(value: str) -> None:
    """Mask `value` in everything written from now on in this process (header values, tokens)."""
    global _known
    value = value.strip()
    if len(value) >= _SHORTEST_SECRET:
        _registered.add(value)
        _known = None


def secret_values() -> list[str]:
    """The values to mask now: the API-key variables' and the registered ones, longest first."""
    global _known
    from_env = tuple(os.environ.get(name, "").strip() for name in SECRET_ENV_VARS)
    if _known is None or _known[0] != from_env:
        values = set(from_env) | _registered
        _known = (from_env, sorted((v for v in values if len(v) >= _SHORTEST_SECRET), key=len, reverse=True))
    return _known[1]


def mask_secrets(text: str) -> str:
    """`text` with every secret masked and nothing else changed."""
    for secret in secret_values():
        if secret in text:
            text = text.replace(secret, MASK)
    lowered = text.lower()
    for literal, pattern in _PATTERNS:
        if literal in lowered:
            text = pattern.sub(lambda m: m.group(1) + MASK, text)
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
