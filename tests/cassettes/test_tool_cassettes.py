"""An ADK agent's tool calls and MCP listing recorded once, then replayed with no tool able to run.

Real parts throughout: ADK's Runner and McpToolset, the `mcp` SDK's stdio server
(tests/fixtures/mcp/weather_server.py) as a real subprocess, google-genai against the fake
Gemini server. The tools leave a line in a log for every call they serve.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.testing import FakeGemini
from evalkit.testing.fake_gemini import FOREIGN_ENVIRONMENT
from tests.cassettes.tools_support import log_lines, model_reply, write_tool_agent, write_tool_evalset
from tests.in_process import invoke_evalkit

pytest.importorskip("google.adk")
pytest.importorskip("mcp")
# Imported here, not first inside `invoke_evalkit`: McpToolset's default `errlog` is the
# `sys.stderr` of that moment, and the MCP server's stderr must be a real file.
pytest.importorskip("google.adk.tools.mcp_tool")


def run(tmp_path: Path, agent: str, mode: str, env: dict[str, str], *extra: str):
    result_file = tmp_path / f"result-{mode}-{len(list(tmp_path.glob('result-*')))}.json"
    completed = invoke_evalkit(
        "run", str(tmp_path / "tools.evalset.json"), "--config", str(tmp_path / "test_config.json"),
        "--agent", agent, "--cassettes", str(tmp_path / "cassettes"), "--cassette-mode", mode,
        "--json", str(result_file), *extra, cwd=tmp_path, env=env,
    )
    return completed, (json.loads(result_file.read_text()) if result_file.exists() else None)


def verdicts(result: dict) -> dict:
    return {case["eval_id"]: (case["status"], [(c["name"], c.get("score")) for c in case["criteria"]
                                               if c["name"] != "invocation_duration_v1"])
            for case in result["cases"]}


def turns(result: dict) -> dict:
    """Each case's actual turns without what a replay changes (timings, ids)."""
    def without_ids(value):
        if isinstance(value, dict):
            return {k: without_ids(v) for k, v in value.items() if k != "id"}
        return [without_ids(v) for v in value] if isinstance(value, list) else value

    def events(invocation: dict) -> list:
        return [(e["author"], without_ids(e.get("content"))) for e in invocation["intermediate_data"]["invocation_events"]]
    return {case["eval_id"]: [(i["actual"]["final_response"], events(i["actual"])) for i in case["invocations"]]
            for case in result["cases"]}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("tools")
    write_tool_evalset(tmp_path)
    agent = write_tool_agent(tmp_path)
    log = tmp_path / "tools.log"
    with FakeGemini() as fake:
        fake.responder(model_reply)
        env = dict.fromkeys(FOREIGN_ENVIRONMENT, "")
        env.update(GOOGLE_API_KEY="SECRET-KEY-0123456789", GOOGLE_GEMINI_BASE_URL=fake.base_url,
                   TOOL_LOG=str(log), TOOLS_BROKEN="", MCP_SERVER_COMMAND="")
        completed, result = run(tmp_path, agent, "record", env)
    assert result is not None, completed.stderr
    return tmp_path, agent, env, completed, result


def test_record_then_replay_runs_no_tool(recorded):
    tmp_path, agent, env, completed, result = recorded
    assert completed.returncode == 0, completed.stdout + completed.stderr
    log = tmp_path / "tools.log"
    assert sorted(line["tool"] for line in log_lines(log)) == ["get_forecast", "get_forecast", "get_weather", "get_weather"]
    cassette = json.loads((tmp_path / "cassettes" / "tools" / "paris.cassette.json").read_text())
    assert [(c["tool"], c["args"]) for c in cassette["tool_calls"]] == [
        ("get_weather", {"city": "Paris"}), ("get_forecast", {"city": "Paris", "days": 2})]
    assert cassette["tool_calls"][0]["response"] == {"city": "Paris", "condition": "sunny"}
    [listing] = cassette["tool_listings"]
    assert listing["toolset"] == "weather_agent.tools[1]"
    assert sorted(tool["name"] for tool in listing["tools"]) == ["get_forecast", "station_status"]
    assert "inputSchema" in listing["tools"][0]
    assert "SECRET-KEY" not in json.dumps(cassette)
    assert [c["source"] for case in result["cases"] for c in case["tool_calls"]] == ["recorded"] * 4
    assert "tool calls: 4 recorded" in completed.stdout
    log.unlink()

    replayed_process, replayed = run(tmp_path, agent, "replay", broken(env, tmp_path))
    assert replayed is not None, replayed_process.stderr
    assert replayed_process.returncode == 0, replayed_process.stdout + replayed_process.stderr
    assert not log.exists()
    assert verdicts(replayed) == verdicts(result)
    assert turns(replayed) == turns(result)
    assert [c["source"] for case in replayed["cases"] for c in case["tool_calls"]] == ["replayed"] * 4
    assert "tool calls: 4 replayed" in replayed_process.stdout


def broken(env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """The function tool raises, and the MCP server's interpreter does not exist."""
    return {**env, "TOOLS_BROKEN": "1", "MCP_SERVER_COMMAND": str(tmp_path / "no-such-python")}


def replay_edited(recorded, file: Path, edit, *, tools_broken: bool = True):
    """A replay with the JSON `file` changed by `edit`; the file is put back afterwards."""
    tmp_path, agent, env, _, _ = recorded
    kept = file.read_text()
    data = json.loads(kept)
    edit(data)
    file.write_text(json.dumps(data))
    try:
        return run(tmp_path, agent, "replay", broken(env, tmp_path) if tools_broken else env)
    finally:
        file.write_text(kept)


def test_a_changed_argument_is_an_explained_miss(recorded):
    tmp_path = recorded[0]
    cassette_file = tmp_path / "cassettes" / "tools" / "london.cassette.json"

    def ask_for_5_days(cassette):  # the agent now asks for 2 days, not the 5 recorded
        cassette["tool_calls"][1]["args"]["days"] = 5

    completed, result = replay_edited(recorded, cassette_file, ask_for_5_days)
    assert completed.returncode == 3, completed.stdout
    london = next(case for case in result["cases"] if case["eval_id"] == "london")
    assert london["status"] == "error"
    assert london["error"].startswith(
        "case 'london' of tools, turn 1: no recorded tool call matches get_forecast({\"city\": \"London\", \"days\": 2}): "
        "closest recorded tool call differs at args.days: recorded 5 → now 2")
    assert str(cassette_file) in london["error"] and "--cassette-mode record" in london["error"]
    assert next(case for case in result["cases"] if case["eval_id"] == "paris")["status"] == "passed"
    assert not (tmp_path / "tools.log").exists()


def test_a_mock_in_the_eval_set_wins_over_the_recording(recorded):
    def mock_get_weather(evalset):  # with the very answer recorded, so the model's recorded calls still match
        evalset["eval_cases"][0]["tool_mocks"] = [
            {"name": "get_weather", "response": {"city": "Paris", "condition": "sunny"}}]

    completed, result = replay_edited(recorded, recorded[0] / "tools.evalset.json", mock_get_weather)
    assert completed.returncode == 0, completed.stdout
    paris = next(case for case in result["cases"] if case["eval_id"] == "paris")
    assert [(c["name"], c["source"]) for c in paris["tool_calls"]] == [("get_weather", "mocked"),
                                                                          ("get_forecast", "replayed")]
    assert "tool calls: 3 replayed, 1 mocked" in completed.stdout


def test_a_cassette_recorded_before_tools_were_replays_its_model_calls_and_runs_its_tools(recorded):
    tmp_path, result = recorded[0], recorded[4]

    def as_before_tool_recording(cassette):
        del cassette["tool_calls"], cassette["tool_listings"]

    try:
        completed, replayed = replay_edited(recorded, tmp_path / "cassettes" / "tools" / "paris.cassette.json",
                                            as_before_tool_recording, tools_broken=False)
    finally:
        (tmp_path / "tools.log").unlink(missing_ok=True)
    assert completed.returncode == 0, completed.stdout
    assert verdicts(replayed) == verdicts(result)
    paris = next(case for case in replayed["cases"] if case["eval_id"] == "paris")
    assert [c["source"] for c in paris["tool_calls"]] == ["live", "live"]
    assert "tool calls: 2 replayed, 2 live" in completed.stdout
    assert "! 2 tool calls ran live in a replay run (get_forecast, get_weather)" in completed.stdout


def test_the_module_a_run_looks_for_is_where_adk_defines_mcp_toolset():
    """A run swaps MCP toolsets only when ADK's McpToolset module is loaded: if ADK moved it, this says so."""
    from google.adk.tools.mcp_tool import McpToolset

    from evalkit.cassettes.session import MCP_TOOLSET_MODULE

    assert McpToolset.__module__ == MCP_TOOLSET_MODULE
