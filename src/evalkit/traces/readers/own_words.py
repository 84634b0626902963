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
ANSWER_KEYS = ("final_answer", "answer", "final_output", "output", "response", "result", "content", "text")
_REPR = re.compile(r"[A-Za-z_][\w.]*\(")  # `StopEvent(result=…)`, `Prediction(…)`: an object, not an answer


def said(value: Any) -> list[str] | None:
    """The texts of an agent's input: the whole text, or every text inside its JSON (three levels deep)."""
    found = parsed(value)
    if found is None and isinstance(value, str):
        return [value] if value.strip() else None
    texts: list[str] = []
    _collect(found, texts, 3)
    return texts or None


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


def _collect(value: Any, texts: list[str], depth: int) -> None:
    if len(texts) >= MAX_CANDIDATES:
        return
    if isinstance(value, str):
        if value.strip():
            texts.append(value)
    elif depth and isinstance(value, dict):
        for item in value.values():
            _collect(item, texts, depth - 1)
    elif depth and isinstance(value, list):
        for item in value:
            _collect(item, texts, depth - 1)


def chosen_user_text(candidates: list[str] | None, model_texts: list[str] | None) -> list[str] | None:
    """The user's text when the model's user message wraps one of the agent's input texts in other words."""
    if not candidates or not model_texts:
        return None
    joined = "\n".join(model_texts).strip()
    inside = [c.strip() for c in candidates if c.strip() and c.strip() in joined and c.strip() != joined]
    return [max(inside, key=len)] if inside else None
