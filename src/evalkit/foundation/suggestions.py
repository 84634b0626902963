"""The "did you mean" hint of every message about a misspelt name, in one place."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

DEFAULT_CUTOFF = 0.75  # how alike a name must be to be offered (difflib's ratio)


def closest(word: str, choices: Iterable[str], cutoff: float = DEFAULT_CUTOFF) -> str | None:
    """The choice `word` most likely meant: same letters in another case first, then spelling."""
    choices = list(dict.fromkeys(choices))
    for choice in choices:
        if choice.lower() == word.lower() and choice != word:
            return choice
    close = [c for c in difflib.get_close_matches(word, choices, n=2, cutoff=cutoff) if c != word]
    return close[0] if close else None


def did_you_mean(word: str, choices: Iterable[str], cutoff: float = DEFAULT_CUTOFF) -> str:
    """`; did you mean 'x'?`, or nothing."""
    match = closest(word, choices, cutoff)
    return f"; did you mean {match!r}?" if match else ""
