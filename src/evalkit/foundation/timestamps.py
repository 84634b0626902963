"""ISO 8601 times as result files and users write them, read alike on every supported Python."""

from __future__ import annotations

from datetime import datetime


def parse_iso_datetime(text: str) -> datetime:
    """`datetime.fromisoformat`, also for a `Z` (UTC) suffix, which Python 3.10's rejects; ValueError if not a time."""
    return datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
