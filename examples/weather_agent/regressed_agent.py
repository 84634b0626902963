"""The weather agent after a bad change: it sends lower-case city names to its tool,
and its answers lost the temperature. The demo eval set catches both."""

from __future__ import annotations

from weather_tools import find_city, get_weather


def weather_agent(turn) -> dict:
    city = find_city(turn.user_text)
    if city is None:
        return {"final_response": "Which city would you like the weather for?"}
    forecast = get_weather(city)
    return {
        "final_response": f"Looks {forecast['condition']} in {city}.",
        "tool_calls": [{"name": "get_weather", "args": {"city": city.lower()}}],
        "tool_responses": [{"name": "get_weather", "response": forecast}],
    }
