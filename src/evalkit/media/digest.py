"""The content hash media is known by: in cassettes, the run's media folder and the judge cache."""

from __future__ import annotations

import hashlib


def content_hash(data: bytes) -> str:
    """The sha256 of `data`, as 64 lowercase hex digits."""
    return hashlib.sha256(data).hexdigest()
