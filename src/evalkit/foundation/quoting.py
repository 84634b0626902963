"""Untrusted text fenced off in a prompt: the judge's and the user simulator's.

Text that came from the agent or the eval set goes between `<<<BEGIN NAME>>>` and
`<<<END NAME>>>` markers; a marker inside the content is defanged, so the content cannot
close its own block early.
"""

from __future__ import annotations

_MARKER_OPENING = "<<<"
# What an opening marker inside quoted content becomes: still readable, no longer a marker.
_DEFANGED_OPENING = "<< <"


def quote(name: str, text: str | None) -> str:
    """`text` as a delimited data block called `name` (e.g. "AGENT RESPONSE")."""
    body = (text or "").replace(_MARKER_OPENING, _DEFANGED_OPENING)
    return f"<<<BEGIN {name}>>>\n{body}\n<<<END {name}>>>"
