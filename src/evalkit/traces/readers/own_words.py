"""An agent's (or a trace root's) own input and output, as opposed to what its model calls were sent.

Frameworks wrap the user's text in words of their own before the model sees it
("New task:\\n…", "Current Task: …", DSPy's `[[ ## question ## ]]` fields) and some answer
through a tool (`final_answer`), so the model messages do not hold the user's text or the
answer as the user saw them. The agent span's own `input.value` / `output.value` (or a
framework's own input and output attributes) do. `said` keeps the texts of the input as
candidates; `turn_events.py` takes the one the first model call's user message holds.
"""

from __future__ import annotations

import re
from typing import Any

from evalkit.traces.readers.messages import parsed

MAX_CANDIDATES = 32  # texts kept from one input: enough for any real call's arguments, bounded on disk
# Where a framework's output object keeps its answer, most specific first.
ANSWER_KEYS = ("final_answer", "answer", "final_output", "output", "response", "result", "raw", "content", "text")
# Keys under which frameworks keep what the user asked (smolagents' task, DSPy's question, CrewAI's description).
ASKED_KEYS = ("task", "question", "query", "input", "prompt", "description", "message", "user_input", "request")
_REPR = re.compile(r"[A-Za-z_][\w.]*\(")  # `StopEvent(result=…)`, `Prediction(…)`: an object, not an answer


def said(value: Any) -> list[str] | None:
    """The texts of an agent's input: the whole text, or every text inside its JSON (three levels deep), those
    under a key that names what the user asked (`task`, `question`, `description`, …) first."""
    found = parsed(value)
    if found is None and isinstance(value, str):
        return [value] if value.strip() else None
    asked: list[str] = []
    other: list[str] = []
    _collect(found, asked, other, 3, False)
    return (asked + other)[:MAX_CANDIDATES] or None


def answer(value: Any) -> str | None:
    """The answer an agent returned: its text, or the text under an answer-like key of its JSON."""
    found = parsed(value)
    if found is None and isinstance(value, str):
        text = value.strip()
        return text if text and not _REPR.match(text) else None
    for _ in range(2):
        if isinstance(found, str):
            return found if found.strip() else None
        if not isinstance(found, dict):
            return None
        found = next((found[key] for key in ANSWER_KEYS if isinstance(found.get(key), (str, dict))), None)
    return found if isinstance(found, str) and found.strip() else None


def _collect(value: Any, asked: list[str], other: list[str], depth: int, named: bool) -> None:
    if len(asked) + len(other) >= MAX_CANDIDATES:
        return
    if isinstance(value, str):
        if value.strip():
            (asked if named else other).append(value)
    elif depth and isinstance(value, dict):
        for key, item in value.items():
            _collect(item, asked, other, depth - 1, str(key).lower() in ASKED_KEYS)
    elif depth and isinstance(value, list):
        for item in value:
            _collect(item, asked, other, depth - 1, named)


def chosen_user_text(candidates: list[str] | None, model_texts: list[str] | None) -> list[str] | None:
    """The user's text when the model's user message wraps one of the agent's input texts in other words:
    the first candidate (those under an asking key come first) that the message holds."""
    if not candidates or not model_texts:
        return None
    joined = "\n".join(model_texts).strip()
    inside = (c.strip() for c in candidates if c.strip() and c.strip() in joined and c.strip() != joined)
    first = next(inside, None)
    return [first] if first is not None else None
