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


def closest_difference(now: dict[str, Any], recorded: list[dict[str, Any]]) -> str:
    """What differs between `now` and the most similar of the `recorded` normalised requests."""
    if not recorded:
        return "the cassette holds no recorded request for this case"
    ranked = sorted(
        (len(differences(candidate, now)), -_shared_prefix(candidate, now), index)
        for index, candidate in enumerate(recorded)
    )
    best = recorded[ranked[0][2]]
    found = differences(best, now)
    if not found:
        return "an identical request was recorded, but its recordings were all used up (the agent called the model more often than when recording)"
    path, before, after = found[0]
    more = f" (and {len(found) - 1} more difference{'s' if len(found) > 2 else ''})" if len(found) > 1 else ""
    return f"closest recorded request differs at {path}: recorded {_excerpt(before)} → now {_excerpt(after)}{more}"


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


def _excerpt(value: Any) -> str:
    if isinstance(value, _Missing):
        return "(absent)"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    text = text.replace("\n", "\\n")
    if len(text) > _EXCERPT:
        text = text[: _EXCERPT - 1] + "…"
    return repr(text) if isinstance(value, str) else text
