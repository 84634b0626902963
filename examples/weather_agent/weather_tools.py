"""The weather agent's tool and helpers, shared by the agent and its regressed variant."""

from __future__ import annotations

import re

FORECASTS = {
    "paris": {"condition": "sunny", "temperature_c": 24},
    "london": {"condition": "rainy", "temperature_c": 16},
    "tokyo": {"condition": "cloudy", "temperature_c": 21},
    "rome": {"condition": "sunny", "temperature_c": 28},
}


def get_weather(city: str) -> dict:
    """The agent's tool: today's forecast for a city."""
    return FORECASTS.get(city.lower(), {"condition": "unknown", "temperature_c": None})


def find_city(text: str) -> str | None:
    for city in FORECASTS:
        if re.search(rf"\b{city}\b", text, re.IGNORECASE):
            return city.title()
    return None
