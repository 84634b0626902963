"""Coverage of an agent behind `evalkit mcp`: the tools the server listed when it was recorded.

The example's `cmd:` agent is an MCP client that only ever calls `get_forecast`; its server
also offers `station_status`. Recorded through `evalkit mcp` into the run's cassette folder,
the listing is the inventory (merged with the config's `coverage`), in the recording run and
in the replay alike.
"""

from __future__ import annotations

import json
import os
import shutil
import sys

import pytest

from tests.cassettes.tools_support import EXAMPLE, log_lines, mcp_agent_spec, stand_in, write_mcp_evalset
from tests.in_process import invoke_evalkit

pytest.importorskip("mcp")

# Three cases, each one get_forecast(city, days); `book` is declared by the config only.
EXPECTED = {
    "tools": {"declared": ["book", "get_forecast", "station_status"], "called": {"get_forecast": 3},
              "never_called": ["book", "station_status"], "unknown": [], "ratio": 0.3333},
    "agents": {"declared": [], "called": {}, "never_called": []},
    "arguments": {"book": {"day": 0}, "get_forecast": {"city": 3, "days": 3}, "station_status": {}},
    "min_ratio": None,
}


def run(tmp_path, mode: str, *extra: str):
    server = stand_in(tmp_path, mode, "--name", "weather")
    env = {"WEATHER_MCP_COMMAND": json.dumps([server.command, *server.args]), "PYTHONPATH": os.pathsep.join(sys.path)}
    result_file = tmp_path / f"{mode}.json"
    done = invoke_evalkit("run", str(tmp_path / "mcp.evalset.json"), "--config", str(tmp_path / "test_config.json"),
                          "--agent", mcp_agent_spec(), "--cassettes", str(tmp_path / "cassettes"),
                          "--cassette-mode", mode, "--json", str(result_file), *extra, cwd=tmp_path, env=env)
    assert result_file.exists(), done.stdout + done.stderr
    return done, json.loads(result_file.read_text())


def test_the_recorded_listing_of_an_mcp_server_is_the_inventory(tmp_path):
    shutil.copy(EXAMPLE / "weather_server.py", tmp_path / "weather_server.py")
    write_mcp_evalset(tmp_path, {"coverage": {"tools": ["get_forecast", {"name": "book", "parameters": ["day"]}]}})
    (tmp_path / "cassettes").mkdir()

    recorded, result = run(tmp_path, "record")
    assert [c["status"] for c in result["cases"]] == ["passed", "passed", "failed"], recorded.stderr
    assert result["coverage"] == EXPECTED
    assert "tools: 1 of 3 called; never: book, station_status" in recorded.stdout.splitlines()
    assert len(log_lines(tmp_path / "server.log")) == 3

    (tmp_path / "server.log").unlink()
    (tmp_path / "weather_server.py").rename(tmp_path / "moved_away.py")  # the server can no longer start
    replayed, result = run(tmp_path, "replay", "--min-coverage", "0.5")
    assert result["coverage"] == {**EXPECTED, "min_ratio": 0.5}
    assert "tool coverage 0.3333 is below the minimum 0.5; never called: book, station_status" in replayed.stderr
    assert not (tmp_path / "server.log").exists()


def test_without_the_cassette_folder_the_listing_is_not_used(tmp_path):
    """The same agent without `--cassettes` on the run: only the config's tools are known."""
    shutil.copy(EXAMPLE / "weather_server.py", tmp_path / "weather_server.py")
    write_mcp_evalset(tmp_path, {"coverage": {"tools": ["get_forecast"]}})
    server = stand_in(tmp_path, "record", "--name", "weather")
    env = {"WEATHER_MCP_COMMAND": json.dumps([server.command, *server.args]), "PYTHONPATH": os.pathsep.join(sys.path)}
    done = invoke_evalkit("run", str(tmp_path / "mcp.evalset.json"), "--config", str(tmp_path / "test_config.json"),
                          "--agent", mcp_agent_spec(), "--json", str(tmp_path / "r.json"), cwd=tmp_path, env=env)
    assert (tmp_path / "cassettes" / "mcp" / "weather.mcp.json").is_file(), done.stderr
    assert json.loads((tmp_path / "r.json").read_text())["coverage"]["tools"]["declared"] == ["get_forecast"]
