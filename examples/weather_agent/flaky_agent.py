"""The weather agent on a bad day: every second time it is asked about Paris it answers
without the forecast, as a model sometimes does. docs/repeats.md runs it with
`--repeat 3`, which makes the flakiness visible (a per-case counter keeps it
reproducible: three runs of `paris` hold exactly one bad answer)."""

from __future__ import annotations

import threading

from agent import weather_agent as steady_agent

_lock = threading.Lock()
_asked: dict[str, int] = {}


def weather_agent(turn) -> dict:
    with _lock:
        count = _asked[turn.case_id] = _asked.get(turn.case_id, 0) + 1
    if turn.case_id == "paris" and count % 2 == 0:
        return {"final_response": "I could not say.", "tool_calls": [{"name": "get_weather", "args": {"city": "Paris"}}]}
    return steady_agent(turn)
