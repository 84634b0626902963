"""`evalkit mcp` as a real subprocess between the `mcp` SDK's client and a real stdio MCP server.

Recorded once; then replayed with the server's script gone (the same command line could
not start it): the same answers, and the server's log stays empty.
"""

from __future__ import annotations

import json
import os
import shutil
import sys

import pytest

from tests.cassettes.tools_support import (CALLS, EXAMPLE, log_lines, mcp_agent_spec, session_answers, stand_in,
                                          write_mcp_evalset)

pytest.importorskip("mcp")


def answers(parameters, calls=CALLS):
    from mcp import stdio_client

    return session_answers(lambda: stdio_client(parameters), calls)


def test_record_then_replay_without_the_server(tmp_path):
    shutil.copy(EXAMPLE / "weather_server.py", tmp_path / "weather_server.py")
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


def test_an_agent_in_another_framework_replays_its_suite_through_evalkit_mcp(tmp_path):
    """A `cmd:` agent that is an MCP client names `evalkit mcp -- SERVER` as its server: record, then replay."""
    from tests.in_process import invoke_evalkit

    shutil.copy(EXAMPLE / "weather_server.py", tmp_path / "weather_server.py")
    write_mcp_evalset(tmp_path)
    agent = mcp_agent_spec()

    def run(mode: str):
        server = stand_in(tmp_path, mode, "--name", "weather")
        env = {"WEATHER_MCP_COMMAND": json.dumps([server.command, *server.args]),
               "PYTHONPATH": os.pathsep.join(sys.path)}
        result_file = tmp_path / f"{mode}.json"
        completed = invoke_evalkit("run", str(tmp_path / "mcp.evalset.json"), "--config", str(tmp_path / "test_config.json"),
                                   "--agent", agent, "--json", str(result_file), cwd=tmp_path, env=env)
        assert result_file.exists(), completed.stderr
        result = json.loads(result_file.read_text())
        assert all(case["status"] != "error" for case in result["cases"]), [c["error"] for c in result["cases"]]
        return completed.returncode, [(c["eval_id"], c["status"], [(k["name"], k["score"]) for k in c["criteria"]
                                                                       if k["name"] != "invocation_duration_v1"],
                                       [i["actual"] for i in c["invocations"]]) for c in result["cases"]]

    def without_timings(outcome):
        code, cases = outcome
        return code, [(i, s, k, [{key: value for key, value in turn.items()
                                  if key not in ("creation_timestamp", "duration", "invocation_id")} for turn in turns])
                      for i, s, k, turns in cases]

    recorded = run("record")
    assert recorded[0] == 1  # Lima's forecast is not what the eval set expects
    assert [status for _, status, _, _ in recorded[1]] == ["passed", "passed", "failed"]
    log = tmp_path / "server.log"
    assert len(log_lines(log)) == 3
    log.unlink()
    (tmp_path / "weather_server.py").rename(tmp_path / "moved_away.py")

    replayed = run("replay")
    assert without_timings(replayed) == without_timings(recorded)
    assert not log.exists()
