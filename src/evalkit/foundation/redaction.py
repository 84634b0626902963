"""The one redaction: secrets masked in what evalkit writes about runs.

Masked: the password of any URL (`http://user:PASS@host/` → `http://user:[redacted]@host/`),
the values of the API-key variables (`SECRET_ENV_VARS`), `key=` query parameters and
bearer tokens, and the secrets one run was given (the values of its `--header` options):
a `Redaction` holds them for that run, so nothing a run was given outlives it in the
process. The case store masks each finished case as it is stored with its run's
`Redaction`, and the writer of run files (results, reports, history, cassettes: see
`foundation/files.py`) masks every piece it writes again. Files a user owns (eval sets,
labels, configs) are never masked: their text is the user's.
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


class Redaction:
    """What one run masks: what every writer masks (`mask_secrets`) and the secrets the run was given."""

    def __init__(self, given: tuple[str, ...] = ()):
        self._given = frozenset(value.strip() for value in given if len(value.strip()) >= _SHORTEST_SECRET)
        # `secrets()` runs for every stored case and every piece written: its list is kept until
        # an API-key variable changes.
        self._known: tuple[tuple[str, ...], list[str]] | None = None

    def secrets(self) -> list[str]:
        """The values to mask now: the API-key variables' and the run's own, longest first."""
        from_env = tuple(os.environ.get(name, "").strip() for name in SECRET_ENV_VARS)
        if self._known is None or self._known[0] != from_env:
            values = set(from_env) | self._given
            self._known = (from_env, sorted((v for v in values if len(v) >= _SHORTEST_SECRET), key=len, reverse=True))
        return self._known[1]

    def mask(self, text: str) -> str:
        """`text` with every secret masked and nothing else changed."""
        for secret in self.secrets():
            if secret in text:
                text = text.replace(secret, MASK)
        lowered = text.lower()
        for literal, pattern in _PATTERNS:
            if literal in lowered:
                text = pattern.sub(lambda m: m.group(1) + MASK, text)
        return text

    def mask_in(self, value: Any) -> Any:
        """A JSON value with every string masked on its own: in JSON text an escaped quote could hide the end of a secret."""
        if isinstance(value, str):
            return self.mask(value)
        if isinstance(value, list):
            return [self.mask_in(item) for item in value]
        if isinstance(value, dict):
            return {key: self.mask_in(item) for key, item in value.items()}
        return value


# What is masked outside any run (compare, calibrate, the viewer): no secrets given, the rest as ever.
EVERY_WRITER = Redaction()


def mask_secrets(text: str) -> str:
    """`text` with what every writer masks masked (the API-key variables' values and the patterns)."""
    return EVERY_WRITER.mask(text)


def mask_secrets_in(value: Any) -> Any:
    """`mask_secrets` of every string of a JSON value."""
    return EVERY_WRITER.mask_in(value)
