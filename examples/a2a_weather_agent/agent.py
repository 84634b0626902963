"""The weather agent as an ADK `LlmAgent`, with a small offline model so the example runs anywhere.

ADK's LLM flow runs for real: the model asks for `get_weather`, ADK calls the tool and
gives the model its result. For a real model, write `model="gemini-2.5-flash"` instead of
`OfflineWeatherModel()`. `server.py` serves it over A2A.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

FORECASTS = {
    "paris": {"condition": "sunny", "temperature_c": 24},
    "london": {"condition": "rainy", "temperature_c": 16},
    "tokyo": {"condition": "cloudy", "temperature_c": 21},
    "rome": {"condition": "sunny", "temperature_c": 28},
}


def get_weather(city: str) -> dict:
    """Returns today's weather in a city: condition and temperature in °C."""
    return {"city": city, **FORECASTS.get(city.lower(), {"condition": "unknown", "temperature_c": None})}


def find_city(text: str) -> str | None:
    return next((city.title() for city in FORECASTS if re.search(rf"\b{city}\b", text, re.IGNORECASE)), None)


class OfflineWeatherModel(BaseLlm):
    """Calls get_weather for the latest city the conversation names, then answers with its result."""

    model: str = "offline-weather-model"

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False
                                     ) -> AsyncGenerator[LlmResponse, None]:
        last = llm_request.contents[-1]
        result = next((p.function_response.response for p in last.parts or [] if p.function_response), None)
        if result is not None:
            part = types.Part(text=f"It is {result['condition']} in {result['city']} today, {result['temperature_c']}°C.")
        else:
            texts = ["".join(p.text or "" for p in c.parts or []) for c in llm_request.contents if c.role == "user"]
            city = next((find_city(text) for text in reversed(texts) if find_city(text)), None)
            part = (types.Part(function_call=types.FunctionCall(name="get_weather", args={"city": city})) if city
                    else types.Part(text="Which city would you like the weather for?"))
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


root_agent = LlmAgent(
    name="weather_agent",
    model=OfflineWeatherModel(),
    description="Answers questions about the weather in a city.",
    instruction="You answer questions about the weather; call get_weather for the city asked about.",
    tools=[get_weather],
)
