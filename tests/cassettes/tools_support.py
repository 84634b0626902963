"""An ADK agent with a function tool and an MCP toolset, its eval set, and its scripted model."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from collections.abc import Callable
from typing import Any

from evalkit.testing import function_call
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "mcp"
EXAMPLE = ROOT / "examples" / "mcp_weather_agent"  # its MCP server logs each call to a file it is given
CITIES = {"Paris": "sunny", "London": "rainy"}


def write_tool_agent(folder: Path) -> str:
    """The agent folder: tests/fixtures/mcp's agent and the example's MCP server, side by side."""
    agent = folder / "tool_agent"
    agent.mkdir(exist_ok=True)
    (agent / "__init__.py").write_text("from . import agent\n")
    shutil.copy(FIXTURES / "adk_agent.py", agent / "agent.py")
    shutil.copy(EXAMPLE / "weather_server.py", agent / "weather_server.py")
    return str(agent)


def _texts(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [t for key, item in value.items() for t in ([item] if key == "text" and isinstance(item, str)
                                                             else _texts(item))]
    if isinstance(value, list):
        return [t for item in value for t in _texts(item)]
    return []


def model_reply(prompt: str, body: dict[str, Any]):
    """get_weather first, then the MCP server's get_forecast, then both results in one sentence."""
    contents = body.get("contents") or []
    answered = {part["functionResponse"]["name"]: part["functionResponse"]["response"]
                for content in contents for part in content.get("parts") or [] if "functionResponse" in part}
    user = " ".join(p.get("text", "") for c in contents if c.get("role") == "user" for p in c.get("parts") or [])
    cities = re.findall(r"weather in (\w+)", user)
    if not cities:
        return f"You said: {user}"
    city = cities[-1]
    if "get_weather" not in answered:
        return function_call("get_weather", city=city)
    if "get_forecast" not in answered:
        return function_call("get_forecast", city=city, days=2)
    today = answered["get_weather"].get("condition", answered["get_weather"].get("error", "?"))
    return f"Today {today}. {' '.join(_texts(answered['get_forecast']))}"


def write_tool_evalset(folder: Path) -> Path:
    cases = [{"eval_id": city.lower(), "conversation": [{
        "user_content": {"role": "user", "parts": [{"text": f"What is the weather in {city}?"}]},
        "final_response": {"role": "model", "parts": [{"text": f"Today {condition}. {city}: {condition} for 2 day(s)"}]},
        "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": city}},
                                            {"name": "get_forecast", "args": {"city": city, "days": 2}}]},
    }]} for city, condition in CITIES.items()]
    path = folder / "tools.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "tools", "eval_cases": cases}, indent=1))
    (folder / "test_config.json").write_text(json.dumps(
        {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.9}}))
    return path


MCP_CITIES = {"Paris": "sunny", "Oslo": "snowy", "Lima": "sunny"}  # Lima's forecast: unknown, so that case fails


def write_mcp_evalset(folder: Path, config: dict[str, Any] | None = None) -> Path:
    """The suite of examples/mcp_weather_agent's agent: each case asks for a city's forecast (get_forecast)."""
    cases = [{"eval_id": city.lower(), "conversation": [{
        "user_content": {"role": "user", "parts": [{"text": f"What is the weather in {city}?"}]},
        "final_response": {"role": "model", "parts": [{"text": f"{city}: {condition} for 2 day(s)"}]},
        "intermediate_data": {"tool_uses": [{"name": "get_forecast", "args": {"city": city, "days": 2}}]}}]}
        for city, condition in MCP_CITIES.items()]
    path = folder / "mcp.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "mcp", "eval_cases": cases}))
    (folder / "test_config.json").write_text(json.dumps(
        {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.9}, **(config or {})}))
    return path


def stand_in(tmp_path: Path, mode: str, *extra: str):
    """`evalkit mcp` standing in for the example's weather server (a copy in `tmp_path`, logging to server.log)."""
    import os
    import sys

    from mcp import StdioServerParameters

    server = tmp_path / "weather_server.py"
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "evalkit", "mcp", "--cassettes", str(tmp_path / "cassettes"), "--cassette-mode", mode, *extra,
              "--", sys.executable, str(server), str(tmp_path / "server.log")],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, cwd=str(tmp_path))


def mcp_agent_spec() -> str:
    """examples/mcp_weather_agent's `cmd:` agent, an MCP client (its server command: $WEATHER_MCP_COMMAND)."""
    import shlex
    import sys

    return f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(EXAMPLE / 'agent.py'))}"


CALLS = [("get_forecast", {"city": "Paris", "days": 2}), ("station_status", {}),
         ("get_forecast", {"city": "Paris", "days": 2}), ("get_forecast", {"days": 3, "city": "Oslo"})]


def session_answers(transport: Callable[[], Any], calls=CALLS) -> tuple[list[str], list[dict]]:
    """What an MCP client sees through `transport()` (the SDK's stdio or streamable-HTTP client): the
    listed tools' names, then each call's result (or its error)."""
    import asyncio

    from mcp import ClientSession, MCPError

    async def talk() -> tuple[list[str], list[dict]]:
        async with transport() as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            answers = []
            for name, args in calls:
                try:
                    result = await session.call_tool(name, args)
                    answers.append(result.model_dump(mode="json", by_alias=True, exclude_none=True))
                except MCPError as error:
                    answers.append({"error": error.message})
            return [tool.name for tool in listed.tools], answers

    return asyncio.run(asyncio.wait_for(talk(), timeout=120))


def log_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
