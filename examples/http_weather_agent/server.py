"""A weather agent as an HTTP service (Python's standard library only), for `--agent http://...`.

    python examples/http_weather_agent/server.py --port 8080
    evalkit run examples/http_weather_agent --agent http://127.0.0.1:8080/

evalkit POSTs one JSON request per turn and reads the JSON reply (docs/agents.md, "HTTP
agents"); after a case it POSTs `{"type": "end_session", "session_id"}`. Cases arrive
at once, so the server is threaded and keeps each session's memory under its id.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FORECASTS = {
    "paris": {"condition": "sunny", "temperature_c": 24},
    "london": {"condition": "rainy", "temperature_c": 16},
    "tokyo": {"condition": "cloudy", "temperature_c": 21},
    "rome": {"condition": "sunny", "temperature_c": 28},
}
last_city: dict[str, str] = {}  # session_id -> the city the user asked about last
lock = threading.Lock()


def get_weather(city: str) -> dict[str, Any]:
    """The agent's tool: today's forecast for a city."""
    return FORECASTS.get(city.lower(), {"condition": "unknown", "temperature_c": None})


def find_city(text: str) -> str | None:
    return next((city.title() for city in FORECASTS if re.search(rf"\b{city}\b", text, re.IGNORECASE)), None)


def answer(turn: dict[str, Any]) -> dict[str, Any] | str:
    with lock:
        city = find_city(turn["user_text"]) or last_city.get(turn["session_id"])
        if city:
            last_city[turn["session_id"]] = city
    if city is None:
        return "Which city would you like the weather for?"  # a plain string: the final response, no tools
    mocks = turn.get("tool_mocks") or {}
    forecast = mocks["get_weather"] if "get_weather" in mocks else get_weather(city)
    return {
        "final_response": f"It is {forecast['condition']} in {city} today, {forecast['temperature_c']}°C.",
        "tool_calls": [{"name": "get_weather", "args": {"city": city}}],
        "tool_responses": [{"name": "get_weather", "response": forecast}],
    }


class TurnHandler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        if request.get("type") == "end_session":
            with lock:
                last_city.pop(request["session_id"], None)
            reply: Any = {}
        else:
            reply = answer(request)
        body = json.dumps(reply).encode("utf-8")  # a string reply is sent as a JSON string
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        print(f"{self.address_string()} {format % args}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    options = parser.parse_args()
    server = ThreadingHTTPServer((options.host, options.port), TurnHandler)
    print(f"weather agent on http://{options.host}:{server.server_address[1]}/", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
