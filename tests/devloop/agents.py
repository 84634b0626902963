"""Agents for the developer-loop tests, loadable in any process under any module name.

They reach the example weather agent by its file path rather than `import agent`, since
other tests load ADK agent folders whose package is also called `agent`.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from pathlib import Path

_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "weather_agent" / "agent.py"


def _load_example():
    if str(_EXAMPLE.parent) not in sys.path:
        sys.path.insert(0, str(_EXAMPLE.parent))  # the example imports its neighbour weather_tools
    spec = importlib.util.spec_from_file_location("_devloop_weather_example", _EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_weather = _load_example()
_lock = threading.Lock()
_calls: dict[str, int] = {}


def flaky_agent(turn):
    """Fails every second time it is asked about Paris: a counter per case makes this
    deterministic, so three runs of `paris` give exactly one bad answer in any order."""
    with _lock:
        count = _calls[turn.case_id] = _calls.get(turn.case_id, 0) + 1
    if turn.case_id == "paris" and count % 2 == 0:
        return {"final_response": "I could not say.", "tool_calls": [{"name": "get_weather", "args": {"city": "Paris"}}]}
    return _weather.weather_agent(turn)


def regressed_agent(turn):
    """Like examples/weather_agent/regressed_agent.py: lower-case cities for the tool, no temperature."""
    city = _weather.find_city(turn.user_text)
    if city is None:
        return {"final_response": "Which city would you like the weather for?"}
    forecast = _weather.get_weather(city)
    return {
        "final_response": f"Looks {forecast['condition']} in {city}.",
        "tool_calls": [{"name": "get_weather", "args": {"city": city.lower()}}],
        "tool_responses": [{"name": "get_weather", "response": forecast}],
    }
