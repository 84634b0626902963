"""A small offline weather agent, written against evalkit's callable protocol.

It needs no model and no network: it reads the city from the user's message, calls
its `get_weather` tool (or the eval case's mock of it), and answers in a sentence.
It imports nothing from evalkit: any function taking a turn works.
"""

from __future__ import annotations

from weather_tools import find_city, get_weather


def weather_agent(turn) -> dict:
    city = find_city(turn.user_text)
    if city is None:
        return {"final_response": "Which city would you like the weather for?"}
    args = {"city": city}
    mocks = getattr(turn, "tool_mocks", None) or {}
    forecast = mocks["get_weather"] if "get_weather" in mocks else get_weather(city)
    turn.state["last_city"] = city
    answer = f"It is {forecast['condition']} in {city} today, {forecast['temperature_c']}°C."
    return {
        "final_response": answer,
        "tool_calls": [{"name": "get_weather", "args": args}],
        "tool_responses": [{"name": "get_weather", "response": forecast}],
    }
