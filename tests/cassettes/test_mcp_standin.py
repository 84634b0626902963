"""`evalkit mcp` as a real subprocess between the `mcp` SDK's client and a real stdio MCP server.

Recorded once; then replayed with the server's script gone (the same command line could
not start it): the same answers, and the server's log stays empty.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.cassettes.tools_support import FIXTURES, log_lines

pytest.importorskip("mcp")

CALLS = [("get_forecast", {"city": "Paris", "days": 2}), ("station_status", {}),
         ("get_forecast", {"city": "Paris", "days": 2}), ("get_forecast", {"days": 3, "city": "Oslo"})]


def stand_in(tmp_path: Path, mode: str, *extra: str):
    from mcp import StdioServerParameters

    server = tmp_path / "weather_server.py"
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "evalkit", "mcp", "--cassettes", str(tmp_path / "cassettes"), "--cassette-mode", mode, *extra,
              "--", sys.executable, str(server), str(tmp_path / "server.log")],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, cwd=str(tmp_path))


async def session_answers(parameters, calls) -> tuple[list[str], list[dict]]:
    """What an MCP client sees: the listed tools' names, then each call's result (or its error)."""
    from mcp import ClientSession, MCPError, stdio_client

    async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
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


def answers(parameters, calls=CALLS):
    return asyncio.run(asyncio.wait_for(session_answers(parameters, calls), timeout=120))


def test_record_then_replay_without_the_server(tmp_path):
    shutil.copy(FIXTURES / "weather_server.py", tmp_path / "weather_server.py")
    recorded = answers(stand_in(tmp_path, "record"))
    log = tmp_path / "server.log"
    assert [line["tool"] for line in log_lines(log)] == ["get_forecast", "station_status", "get_forecast", "get_forecast"]
    assert recorded[0] == ["get_forecast", "station_status"]
    assert recorded[1][0]["content"][0]["text"] == "Paris: sunny for 2 day(s)"

    [cassette_file] = (tmp_path / "cassettes" / "mcp").glob("*.mcp.json")
    cassette = json.loads(cassette_file.read_text())
    assert [tool["name"] for tool in cassette["tools"]] == ["get_forecast", "station_status"]
    assert [(c["tool"], c["args"]) for c in cassette["tool_calls"]] == [
        ("get_forecast", {"city": "Paris", "days": 2}), ("station_status", {}),
        ("get_forecast", {"city": "Paris", "days": 2}), ("get_forecast", {"city": "Oslo", "days": 3})]

    log.unlink()
    (tmp_path / "weather_server.py").rename(tmp_path / "moved_away.py")  # the command can no longer start
    assert answers(stand_in(tmp_path, "replay")) == recorded
    assert not log.exists()

    # A changed argument: an MCP error that names the call and what differs.
    _, [missed] = answers(stand_in(tmp_path, "replay"), [("get_forecast", {"city": "Oslo", "days": 4})])
    assert missed["error"].startswith(
        'evalkit mcp (replay): no recorded tools/call matches get_forecast({"city": "Oslo", "days": 4}): '
        "closest recorded tool call differs at args.days: recorded 3 → now 4")
    assert str(cassette_file) in missed["error"]
    assert not log.exists()


@pytest.mark.parametrize(("arguments", "message"), [
    (["--cassette-mode", "rewind", "--", "python", "server.py"], "--cassette-mode rewind: expected one of replay, record, auto"),
    ([], "evalkit mcp: name the MCP server's command after `--`"),
    (["--cassette-mode", "record", "--", sys.executable, "no_such_server.py"],
     "the MCP server '" + sys.executable + " no_such_server.py' did not start or answer"),
])
def test_a_mistake_is_a_message_and_exit_2(tmp_path, arguments, message):
    from tests.in_process import invoke_evalkit

    completed = invoke_evalkit("mcp", "--cassettes", str(tmp_path / "cassettes"), *arguments, cwd=tmp_path)
    assert completed.returncode == 2, completed.stderr
    assert message in completed.stderr and "Traceback" not in completed.stderr
