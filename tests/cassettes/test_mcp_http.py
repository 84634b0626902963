"""`evalkit mcp --url` as a real subprocess in front of a real streamable-HTTP MCP server (the `mcp` SDK's).

Recorded once through the stand-in; then replayed with the real server stopped: the same
answers, and the server's log stays empty. A changed argument gets the explained miss,
and a `cmd:` agent that is an MCP client (the SDK's streamable-HTTP client) is evaluated
end to end through it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.cassettes.tools_support import (CALLS, log_lines, mcp_agent_spec, session_answers, write_mcp_evalset)
from tests.conftest import ROOT
from tests.in_process import invoke_evalkit

pytest.importorskip("mcp")

SERVER = ROOT / "tests" / "fixtures" / "mcp" / "http_weather_server.py"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


@contextmanager
def announced(argv: list[str], stops_with: int = signal.SIGTERM) -> Iterator[str]:
    """A process that prints a URL as its first line: yields it; `stops_with` ends the process, which must
    then exit 0 without a traceback."""
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), process.communicate(timeout=60)[1]
        yield url
    finally:
        process.send_signal(stops_with)
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 0 and "Traceback" not in stderr, stderr


def real_server(log: Path):
    return announced([sys.executable, str(SERVER), str(log)], signal.SIGINT)


def stand_in(folder: Path, mode: str, url: str, *extra: str):
    return announced([sys.executable, "-m", "evalkit", "mcp", "--cassettes", str(folder), "--cassette-mode", mode,
                      "--url", url, *extra])


def answers(url: str, calls=CALLS):
    from mcp.client.streamable_http import streamable_http_client

    return session_answers(lambda: streamable_http_client(url), calls)


def test_record_then_replay_with_the_server_stopped(tmp_path):
    log, cassettes = tmp_path / "server.log", tmp_path / "cassettes"
    with real_server(log) as upstream, stand_in(cassettes, "record", upstream) as local:
        assert local != upstream
        recorded = answers(local)
    assert [line["tool"] for line in log_lines(log)] == ["get_forecast", "station_status", "get_forecast", "get_forecast"]
    assert recorded[0] == ["get_forecast", "station_status"]
    assert recorded[1][0]["content"][0]["text"] == "Paris: sunny for 2 day(s)"

    # Named by the URL's host and path (its port changes from run to run).
    cassette_file = cassettes / "mcp" / "127.0.0.1-mcp.mcp.json"
    cassette = json.loads(cassette_file.read_text())
    assert cassette["server"] == upstream
    assert [(c["tool"], c["args"]) for c in cassette["tool_calls"]] == [
        ("get_forecast", {"city": "Paris", "days": 2}), ("station_status", {}),
        ("get_forecast", {"city": "Paris", "days": 2}), ("get_forecast", {"city": "Oslo", "days": 3})]

    log.unlink()
    with stand_in(cassettes, "replay", upstream, "--port", "0") as local:  # nothing listens at `upstream` now
        assert answers(local) == recorded
        _, [missed] = answers(local, [("get_forecast", {"city": "Oslo", "days": 4})])
    assert missed["error"].startswith(
        'evalkit mcp (replay): no recorded tools/call matches get_forecast({"city": "Oslo", "days": 4}): '
        "closest recorded tool call differs at args.days: recorded 3 → now 4")
    assert str(cassette_file) in missed["error"]
    assert not log.exists()


def test_a_cmd_agent_that_is_an_mcp_client_is_evaluated_through_it(tmp_path):
    """The example's agent with $WEATHER_MCP_URL: recorded through the stand-in, replayed with the server stopped."""
    write_mcp_evalset(tmp_path)
    log, cassettes = tmp_path / "server.log", tmp_path / "cassettes"

    def run(local: str, name: str) -> tuple[int, list]:
        out = tmp_path / f"{name}.json"
        done = invoke_evalkit("run", str(tmp_path / "mcp.evalset.json"), "--config", str(tmp_path / "test_config.json"),
                              "--agent", mcp_agent_spec(), "--json", str(out), cwd=tmp_path,
                              env={"WEATHER_MCP_URL": local})
        assert out.exists(), done.stdout + done.stderr
        cases = json.loads(out.read_text())["cases"]
        return done.returncode, [(c["eval_id"], c["status"], c.get("error"),
                                  [i["actual"]["final_response"] for i in c["invocations"]],
                                  [(k["name"], k["score"]) for k in c["criteria"] if k["name"] != "invocation_duration_v1"])
                                 for c in cases]

    with real_server(log) as upstream, stand_in(cassettes, "record", upstream, "--name", "weather") as local:
        recorded = run(local, "recorded")
    assert recorded[0] == 1  # Lima's forecast is not what the eval set expects
    assert [status for _, status, *_ in recorded[1]] == ["passed", "passed", "failed"]
    assert len(log_lines(log)) == 3
    log.unlink()

    with stand_in(cassettes, "replay", upstream, "--name", "weather") as local:
        assert run(local, "replayed") == recorded
    assert not log.exists()


@pytest.mark.parametrize(("arguments", "message"), [
    (["--url", "http://127.0.0.1:9/mcp", "--", "python", "server.py"], "give one of them"),
    ([], "name the MCP server's command after `--`, or its streamable-HTTP URL with --url"),
    (["--url", "ftp://127.0.0.1/mcp"], "--url ftp://127.0.0.1/mcp: not an http(s) URL"),
    (["--port", "8123", "--", "python", "server.py"], "--port 8123: only with --url"),
    (["--cassette-mode", "record", "--url", "http://127.0.0.1:9/mcp"],
     "evalkit mcp (record): the MCP server at http://127.0.0.1:9/mcp did not answer"),
])
def test_a_mistake_is_a_message_and_exit_2(tmp_path, arguments, message):
    completed = invoke_evalkit("mcp", "--cassettes", str(tmp_path / "cassettes"), *arguments, cwd=tmp_path)
    assert completed.returncode == 2, completed.stdout + completed.stderr
    assert message in completed.stderr and "Traceback" not in completed.stderr
    assert completed.stdout == ""  # no local URL was announced


def test_the_listener_answers_only_requests_that_name_its_own_address(tmp_path):
    """A page served from another local port (its Origin) or a rebound host name gets no session."""
    import httpx

    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    with stand_in(tmp_path / "cassettes", "replay", "http://127.0.0.1:9/mcp") as local:
        port = httpx.URL(local).port
        own = httpx.post(local, json=initialize, headers={**headers, "origin": f"http://127.0.0.1:{port}"})
        other_port = httpx.post(local, json=initialize, headers={**headers, "origin": f"http://localhost:{port + 1}"})
        rebound = httpx.post(local, json=initialize, headers={**headers, "host": "evil.example"})
    assert own.status_code == 200, own.text
    assert other_port.status_code in (400, 403, 421) and rebound.status_code in (400, 403, 421)


DYING = ROOT / "tests" / "fixtures" / "mcp" / "dying_http_server.py"


def test_an_upstream_that_dies_mid_call_fails_that_call_and_the_next_clearly_and_large_results_pass(tmp_path):
    """A real MCP server killed while a call is in flight: that call and the next get an error that says so, the
    stand-in keeps serving and stops cleanly (exit 0, no traceback), and nothing failed is recorded; a 2 MB result
    (past the SDK's 1 MB server-sent-event limit) is relayed and recorded whole."""
    import anyio
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    mark, cassettes = tmp_path / "hanging", tmp_path / "cassettes"
    upstream = subprocess.Popen([sys.executable, str(DYING), str(mark)], stdout=subprocess.PIPE, text=True, env=ENV)
    said: dict[str, object] = {}

    async def talk(local: str) -> None:
        async with streamable_http_client(local) as (read, write, *_), ClientSession(read, write) as session:
            await session.initialize()
            said["big"] = (await session.call_tool("big", {"megabytes": 2})).content[0].text

            async def kill_once_it_hangs() -> None:
                while not mark.exists():
                    await anyio.sleep(0.02)
                upstream.kill()

            async with anyio.create_task_group() as group:
                group.start_soon(kill_once_it_hangs)
                for tool, args in (("hang", {}), ("echo", {"text": "after"})):
                    try:
                        with anyio.fail_after(60):
                            await session.call_tool(tool, args)
                    except Exception as error:  # the MCP error the stand-in answered
                        said[tool] = str(error)

    try:
        url = upstream.stdout.readline().strip()
        with stand_in(cassettes, "record", url) as local:
            anyio.run(talk, local)
    finally:
        upstream.kill()
        upstream.wait()

    assert said["big"] == "x" * 2 * 1024 * 1024
    assert str(said["hang"]).startswith("evalkit mcp (record): the MCP server stood in for failed before it answered "
                                        "("), said
    assert str(said["hang"]).endswith("nothing was recorded for this call: check the server, then call again")
    assert str(said["echo"]).startswith(f"evalkit mcp (record): the MCP server at {url} did not answer ("), said
    assert str(said["echo"]).endswith("start it, or check --url; nothing was recorded for this call")
    recorded = json.loads((cassettes / "mcp" / "127.0.0.1-mcp.mcp.json").read_text())["tool_calls"]
    assert [(c["tool"], len(c["response"]["content"][0]["text"])) for c in recorded] == [("big", 2 * 1024 * 1024)]
