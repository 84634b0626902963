"""The weather table behind the scripted agent, shared with the eval set generator.

Pure Python (no google-adk), so eval sets can be generated without installing ADK.
"""

from __future__ import annotations

import re

CONDITIONS = ("sunny", "cloudy", "rainy", "windy")
CITY_QUESTION = re.compile(r"weather in ([\w-]+)", re.IGNORECASE)


def weather_of(city: str) -> dict:
    """The same city always gets the same weather."""
    number = sum(city.encode())
    return {"condition": CONDITIONS[number % 4], "temp_c": 5 + number % 25}


def forecast_of(city: str) -> dict:
    return {"condition": CONDITIONS[(sum(city.encode()) + 1) % 4]}


def answer(message: str, last_city: str | None) -> tuple[str, dict, dict, str, str]:
    """(tool name, tool args, tool result, final text, city to remember) for one message.

    "... weather in CITY ..." asks for today's weather there; anything else asks for
    tomorrow's forecast in the city of the previous turn.
    """
    asked = CITY_QUESTION.search(message)
    if asked:
        city = asked.group(1)
        result = weather_of(city)
        return "get_weather", {"city": city}, result, f"It is {result['condition']} in {city}, {result['temp_c']} degrees.", city
    city = last_city or "nowhere"
    result = forecast_of(city)
    return "get_forecast", {"city": city, "day": "tomorrow"}, result, f"Tomorrow it will be {result['condition']} in {city}.", city
