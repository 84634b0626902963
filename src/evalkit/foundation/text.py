"""Text from outside made safe to store and to show.

Python strings may hold lone surrogates (`"\\ud800"`, from a JSON `\\ud800` escape or a
reply decoded with `surrogateescape`), which no UTF-8 file can hold: writing one fails.
`escape_surrogates` turns each into the six characters of its JSON escape, so the
record keeps a visible trace of it and every writer can encode it. `shorten` cuts
long text for a terminal line; files keep it whole.
"""

from __future__ import annotations

import re
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # a valid pair is one code point in a Python str


def escape_surrogates(value: Any) -> Any:
    """`value` (a string, or lists and dicts of them) with each lone surrogate written as `\\udXXX`."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", value)
    if isinstance(value, dict):
        return {escape_surrogates(key): escape_surrogates(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [escape_surrogates(item) for item in value]
    return value


def shorten(text: str, limit: int) -> str:
    """`text` cut to about `limit` characters for a terminal, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"
