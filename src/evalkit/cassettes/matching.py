"""Which recorded exchange answers a request, and, when none does, what differs.

A request is matched on its normalised content (`ModelProtocol.normalise`): two
requests with the same model, contents, system instruction, tools and generation
config have the same key. Identical requests within one case are answered in the
order they were recorded. When nothing matches, `closest_difference` names the first
thing that differs from the most similar recorded request, e.g.
`systemInstruction.parts[0].text: recorded 'You are terse.' → now 'You are chatty.'`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

_EXCERPT = 80
_BEFORE_DIFFERENCE = 24  # characters of agreeing text kept in view before the first difference


def request_key(protocol: str, normalised: dict[str, Any]) -> str:
    canonical = json.dumps([protocol, normalised], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def differences(recorded: Any, now: Any, where: str = "") -> list[tuple[str, Any, Any]]:
    """Every (path, recorded value, current value) that differs, outermost first."""
    if isinstance(recorded, dict) and isinstance(now, dict):
        found = []
        for key in sorted(set(recorded) | set(now), key=lambda k: (k not in recorded, str(k))):
            path = f"{where}.{key}" if where else str(key)
            found.extend(differences(recorded.get(key, _MISSING), now.get(key, _MISSING), path))
        return found
    if isinstance(recorded, list) and isinstance(now, list):
        found = []
        for index in range(max(len(recorded), len(now))):
            found.extend(differences(
                recorded[index] if index < len(recorded) else _MISSING,
                now[index] if index < len(now) else _MISSING,
                f"{where}[{index}]",
            ))
        return found
    return [] if recorded == now else [(where or "request", recorded, now)]


class _Missing:
    def __repr__(self) -> str:
        return "(absent)"


_MISSING = _Missing()


def closest_difference(now: dict[str, Any], recorded: list[dict[str, Any]], *, noun: str = "request",
                       called: str = "called the model") -> str:
    """What differs between `now` and the most similar of the `recorded` normalised requests.

    `noun` names what was recorded ("request" for model calls, "tool call" for tools) and
    `called` what the agent did more often than when recording.
    """
    if not recorded:
        return f"the cassette holds no recorded {noun} for this case"
    ranked = sorted(
        (len(differences(candidate, now)), -_shared_prefix(candidate, now), index)
        for index, candidate in enumerate(recorded)
    )
    best = recorded[ranked[0][2]]
    found = differences(best, now)
    if not found:
        return (f"an identical {noun} was recorded, but its recordings were all used up "
                f"(the agent {called} more often than when recording)")
    path, before, after = found[0]
    more = f" (and {len(found) - 1} more difference{'s' if len(found) > 2 else ''})" if len(found) > 1 else ""
    then, now_text = _excerpts(before, after)
    return f"closest recorded {noun} differs at {path}: recorded {then} → now {now_text}{more}"


def _shared_prefix(recorded: dict[str, Any], now: dict[str, Any]) -> int:
    """How many leading conversation entries agree: ties go to the request further along."""
    history_now = now.get("contents") or now.get("messages") or []
    history_then = recorded.get("contents") or recorded.get("messages") or []
    count = 0
    for a, b in zip(history_then, history_now):
        if a != b:
            break
        count += 1
    return count


def _excerpts(recorded: Any, now: Any) -> tuple[str, str]:
    """Both values as short excerpts, cut around where they first differ.

    Two long texts that agree for their first 80 characters would otherwise print as
    the same excerpt: both windows start a little before the first differing character.
    """
    texts = [_flat_text(recorded), _flat_text(now)]
    differs_at = next((i for i, (a, b) in enumerate(zip(*texts)) if a != b), min(map(len, texts)))
    start = max(0, differs_at - _BEFORE_DIFFERENCE) if max(map(len, texts)) > _EXCERPT else 0
    return _excerpt(recorded, texts[0], start), _excerpt(now, texts[1], start)


def _flat_text(value: Any) -> str:
    if isinstance(value, _Missing):
        return "(absent)"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text.replace("\n", "\\n")


def _excerpt(value: Any, text: str, start: int) -> str:
    if isinstance(value, _Missing):
        return "(absent)"
    window = text[start:]
    if start > 0:
        window = "…" + window[1:]
    if len(window) > _EXCERPT:
        window = window[: _EXCERPT - 1] + "…"
    return repr(window) if isinstance(value, str) else window
