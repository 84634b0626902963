"""Text edits shared by the JSON and YAML editors: non-overlapping spans, applied in one pass.

Each edit replaces `text[begin:end]`; edits of different cases never overlap, so any
subset of them applies to the original text, and the result is parsed once and
compared with the data the edits were meant to produce.
"""

from __future__ import annotations

import copy
from typing import Any

Edit = tuple[int, int, str]  # begin, end, replacement
Target = tuple[list[str | int], dict[str, Any]]  # path of a mapping, the members to set in it


class EditError(ValueError):
    """The document does not have the shape the edit expects (message names the place)."""


def apply_edits(text: str, edits: list[Edit]) -> str:
    pieces: list[str] = []
    position = len(text)
    for begin, end, replacement in sorted(edits, reverse=True):
        pieces.append(text[end:position])
        pieces.append(replacement)
        position = begin
    pieces.append(text[:position])
    return "".join(reversed(pieces))


def check_edited(before: Any, after: Any, targets: list[Target]) -> None:
    """Raise EditError unless `after` is `before` with every target's members set."""
    intended = copy.deepcopy(before)
    for path, values in targets:
        mapping = intended
        for step in path:
            mapping = mapping[step]
        mapping.update(values)
    if after != intended:
        raise EditError("the edited document does not hold the intended data")
