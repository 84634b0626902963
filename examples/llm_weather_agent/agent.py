"""A model-driven ADK agent: a Gemini `LlmAgent` that decides itself when to call its tools.

Run offline from the committed cassettes (no key, no network):

    evalkit run evalsets/llm_weather --cassettes evalsets/cassettes

Needs the `adk` extra (`pip install -e ".[adk]"`). See docs/cassettes.md.
"""

from __future__ import annotations

from google.adk.agents import LlmAgent

FORECASTS = {
    "paris": {"today": ("sunny", 24), "tomorrow": ("cloudy", 19)},
    "london": {"today": ("rainy", 16), "tomorrow": ("rainy", 14)},
    "tokyo": {"today": ("cloudy", 21), "tomorrow": ("sunny", 25)},
    "rome": {"today": ("sunny", 28), "tomorrow": ("sunny", 30)},
}


def get_weather(city: str) -> dict:
    """Returns today's weather in a city: condition and temperature in °C."""
    known = FORECASTS.get(city.lower())
    if known is None:
        return {"status": "error", "error": f"no weather data for {city}"}
    condition, temperature = known["today"]
    return {"status": "ok", "city": city, "condition": condition, "temperature_c": temperature}


def get_forecast(city: str, day: str) -> dict:
    """Returns the forecast for a city on a day ("today" or "tomorrow")."""
    known = FORECASTS.get(city.lower())
    if known is None or day not in known:
        return {"status": "error", "error": f"no forecast for {city} on {day}"}
    condition, temperature = known[day]
    return {"status": "ok", "city": city, "day": day, "condition": condition, "temperature_c": temperature}


root_agent = LlmAgent(
    name="llm_weather_agent",
    model="gemini-2.5-flash",
    description="Answers questions about the weather in a city.",
    instruction=(
        "You answer questions about the weather. For today's weather call get_weather; for "
        "another day call get_forecast. Answer in one sentence with the condition and the "
        "temperature in °C. If the user names no city, ask which city they mean."
    ),
    tools=[get_weather, get_forecast],
)
