"""Eval sets of weather questions whose expected turns name the tool calls, for the `--otel` tests."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fixtures.otel_frameworks import script

CITIES = ("Paris", "Oslo")


def weather_case(eval_id: str, cities: tuple[str, ...]) -> dict:
    turns = []
    for city in cities:
        asked = f"weather in {city}" if not turns else f"and in {city}?"
        turns.append({
            "user_content": {"role": "user", "parts": [{"text": asked}]},
            "final_response": {"role": "model", "parts": [{"text": f"It is {script.WEATHER[city]} in {city}."}]},
            "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": city}}]},
        })
    return {"eval_id": eval_id, "conversation": turns}


def write_evalset(folder: Path, cases: list[dict], name: str = "weather") -> Path:
    path = folder / f"{name}.evalset.json"
    path.write_text(json.dumps({"eval_set_id": name, "eval_cases": cases}), encoding="utf-8")
    return path


def otel_calls(case: dict) -> list[list[tuple[str, dict, str | None]]]:
    """Per turn: each tool call in the case's actual turns, as (name, args, source)."""
    found = []
    for record in case["invocations"]:
        events = ((record.get("actual") or {}).get("intermediate_data") or {}).get("invocation_events") or []
        found.append([(part["function_call"]["name"], part["function_call"].get("args"), part["function_call"].get("source"))
                      for event in events for part in (event.get("content") or {}).get("parts") or []
                      if "function_call" in part])
    return found
