"""What a judge said, in a line or two: the "why" of an LLM-judged verdict.

Judged criteria keep their judges' raw replies (`judge_replies`) and what they read from
them (rubric verdicts with rationales, hallucination labels per sentence). A person
wants the reasons behind a failing verdict, not the raw JSON: this picks them out, for
the console's failure lines and the viewer's "Why it failed".
"""

from __future__ import annotations

import json
import re
from typing import Any

_REASON_KEYS = ("reasoning", "rationale", "explanation", "reason")
_MAX_CHARS = 400  # one reason; the full replies stay in the result file
_MAX_REASONS = 3
_VOTES_AGAINST = frozenset({"invalid", "unsafe"})  # a failing verdict is explained by the replies that voted so
_GOOD_LABELS = frozenset({"supported", "not_applicable"})
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def judge_reasoning(details: dict[str, Any]) -> list[str]:
    """The judge's reasons recorded in one turn's (or a criterion's) details; [] when there are none."""
    if not isinstance(details, dict):
        return []
    reasons = _rubric_reasons(details) or _sentence_reasons(details) or _reply_reasons(details)
    return [_short(reason) for reason in dict.fromkeys(reasons)][:_MAX_REASONS]


def _rubric_reasons(details: dict[str, Any]) -> list[str]:
    """Rubrics the judge said no to, each with its rationale."""
    reasons = []
    for verdict in details.get("rubric_scores") or ():
        if isinstance(verdict, dict) and verdict.get("score") != 1.0 and verdict.get("rationale"):
            reasons.append(f"{verdict.get('rubric_id')}: {verdict['rationale']}")
    return reasons


def _sentence_reasons(details: dict[str, Any]) -> list[str]:
    """Sentences the hallucination judge did not find supported, with its label and rationale."""
    reasons = []
    for step in details.get("steps") or ():
        for block in (step.get("sentences") or ()) if isinstance(step, dict) else ():
            label = str(block.get("label") or "").strip().lower() if isinstance(block, dict) else ""
            if label and label not in _GOOD_LABELS:
                reasons.append(f"{block.get('sentence')!r} is {label}: {block.get('rationale') or ''}".rstrip(": "))
    return reasons


def _reply_reasons(details: dict[str, Any]) -> list[str]:
    """The reasoning field of each reply that is a JSON object (as the judges' prompts ask)."""
    replies, votes = list(details.get("judge_replies") or ()), details.get("votes")
    if isinstance(votes, list) and len(votes) == len(replies) and any(v in _VOTES_AGAINST for v in votes):
        replies = [reply for reply, vote in zip(replies, votes) if vote in _VOTES_AGAINST]
    return [reason for reply in replies if isinstance(reply, str) and (reason := reply_reason(reply))]


def reply_reason(reply: str) -> str | None:
    """The reason a judge's reply states in its JSON object (`reasoning`, `rationale`, …); None without one."""
    found = _JSON_OBJECT.search(reply)
    try:
        answer = json.loads(found.group(0)) if found else None
    except ValueError:
        return None
    if not isinstance(answer, dict):
        return None
    return next((answer[key] for key in _REASON_KEYS if isinstance(answer.get(key), str) and answer[key]), None)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_CHARS else text[: _MAX_CHARS - 1] + "…"
