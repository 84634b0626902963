"""The replies the demo's cassettes were recorded with: a scripted stand-in for Gemini.

The committed cassettes in evalsets/cassettes/llm_weather were recorded against
`evalkit.testing.FakeGemini` answering with `reply()` below, not against the real
Gemini API: the replies are the ones a model would plausibly give (call the right tool,
then phrase its result), written by hand so that anyone can re-record them without a
key. To record against the real model instead, set GOOGLE_API_KEY and run
`evalkit run evalsets/llm_weather --cassettes evalsets/cassettes --cassette-mode record`.

    python examples/llm_weather_agent/scripted_gemini.py   # re-records the demo cassettes
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

CITIES = ("Paris", "London", "Tokyo", "Rome")


def reply(prompt: str, body: dict[str, Any]):
    """What the scripted model answers to one generateContent request."""
    from evalkit.testing import function_call

    contents = body.get("contents") or []
    last = contents[-1] if contents else {}
    results = [p["functionResponse"]["response"] for p in last.get("parts") or [] if "functionResponse" in p]
    if results:
        result = results[0]
        if result.get("status") != "ok":
            return f"Sorry, I could not find weather data for that city ({result.get('error')})."
        when = "tomorrow" if result.get("day") == "tomorrow" else "today"
        verb = "will be" if when == "tomorrow" else "is"
        return f"It {verb} {result['condition']} in {result['city']} {when}, {result['temperature_c']}°C."
    user_texts = [
        "".join(p.get("text", "") for p in c.get("parts") or [])
        for c in contents if c.get("role") == "user"
    ]
    latest = next((t for t in reversed(user_texts) if t), "")
    city = _city_in(latest) or next((c for t in reversed(user_texts) if (c := _city_in(t))), None)
    if city is None:
        return "Which city would you like the weather for?"
    if re.search(r"\btomorrow\b", latest, re.IGNORECASE):
        return function_call("get_forecast", city=city, day="tomorrow")
    return function_call("get_weather", city=city)


def _city_in(text: str) -> str | None:
    return next((c for c in CITIES if re.search(rf"\b{c}\b", text, re.IGNORECASE)), None)


def main() -> int:
    from evalkit.testing import FakeGemini

    root = Path(__file__).resolve().parents[2]
    with FakeGemini() as fake:
        fake.responder(reply)
        env = {**os.environ, "GOOGLE_GEMINI_BASE_URL": fake.base_url, "GOOGLE_API_KEY": "not-a-real-key"}
        for name in ("GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_ENTERPRISE"):
            env.pop(name, None)
        command = [sys.executable, "-m", "evalkit", "run", "evalsets/llm_weather",
                   "--cassettes", "evalsets/cassettes", "--cassette-mode", "record", "--jobs", "1"]
        return subprocess.run(command, cwd=root, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
