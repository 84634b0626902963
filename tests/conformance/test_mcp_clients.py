"""`evalkit mcp` in front of the MCP clients of other frameworks, over stdio and streamable HTTP:
the `mcp` SDK's ClientSession, the OpenAI Agents SDK (an Agent on the scripted model) and
LangGraph (ToolNode over langchain-mcp-adapters, in an environment of its own: it needs an
older mcp). ADK's McpToolset is in test_mcp_adk.py.

Each is a `cmd:` agent (tests/fixtures/mcp/client_agent.py) that swallows a failed tool call,
as these frameworks do, and starts `evalkit mcp` without passing its environment on. The
real server is mcp-server-time, recorded once. A replay that asks for a zone never recorded
must still make that case `error` (exit 3), naming the call and the closest recording, while
the recorded case, run beside it in another worker process (--jobs 2), passes.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from evalkit.testing import FakeOpenAI, Reply, function_call  # noqa: E402

from tests.conftest import FIXTURES, run_evalkit, stop_process  # noqa: E402
from tests.conformance.side_venvs import side_python  # noqa: E402
from tests.in_process import invoke_evalkit  # noqa: E402

AGENT = FIXTURES / "mcp" / "client_agent.py"
TIME_SERVER = shutil.which("mcp-server-time") or str(Path(sys.executable).with_name("mcp-server-time"))


def time_case(case_id: str, zone: str) -> dict:
    return {"eval_id": case_id, "conversation": [{
        "user_content": {"role": "user", "parts": [{"text": f"What is the time in {zone}?"}]},
        "intermediate_data": {"tool_uses": [{"name": "get_current_time", "args": {"timezone": zone}}]}}]}


def write_suite(folder: Path, cases: list[dict]) -> Path:
    (folder / "config.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0}}))
    path = folder / "time.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "time", "eval_cases": cases}))
    return path


def stand_in(cassettes: Path, mode: str, http: bool) -> list[str]:
    command = [sys.executable, "-m", "evalkit", "mcp", "--cassettes", str(cassettes), "--cassette-mode", mode,
               "--name", "time"]
    return [*command, "--url", "http://127.0.0.1:9/mcp"] if http else [*command, "--", TIME_SERVER]


def run(folder: Path, python: str, client: str, command: list[str], cases: list[dict], model: FakeOpenAI):
    suite = write_suite(folder, cases)
    agent = f"cmd:{shlex.quote(python)} {shlex.quote(str(AGENT))} {client} {shlex.quote(json.dumps(command))}"
    done = invoke_evalkit("run", str(suite), "--config", str(folder / "config.json"), "--agent", agent,
                          "--jobs", "2", "--timeout", "120", "--json", str(folder / "result.json"), cwd=folder,
                          env={"OPENAI_BASE_URL": model.base_url, "OPENAI_API_KEY": "fake"})
    assert (folder / "result.json").exists(), done.stderr
    return done, {c["eval_id"]: c for c in json.loads((folder / "result.json").read_text())["cases"]}


def tool_answer_or_call(prompt: str, body: dict):
    """The scripted model of the OpenAI Agents SDK agent: call the tool, then say what it returned."""
    last = (body.get("messages") or [{}])[-1]
    if last.get("role") == "tool":
        return str(last.get("content"))
    zone = prompt.rsplit("time in ", 1)[-1].rstrip("?").strip()
    return Reply(function_call("get_current_time", timezone=zone))


@pytest.fixture(scope="module")
def model():
    with FakeOpenAI(default_reply="?") as fake:
        fake.responder(tool_answer_or_call)
        yield fake


@pytest.fixture(scope="module")
def recorded(tmp_path_factory, model):
    """The cassette of mcp-server-time, recorded once through the mcp SDK's client."""
    if not Path(TIME_SERVER).exists():
        pytest.skip("mcp-server-time is not installed (the dev extra installs it)")
    folder = tmp_path_factory.mktemp("record")
    done, cases = run(folder, sys.executable, "mcp", stand_in(folder / "cassettes", "record", http=False),
                      [time_case("paris", "Europe/Paris")], model)
    assert done.returncode == 0, done.stderr
    assert "Europe/Paris" in json.dumps(cases["paris"]["invocations"][0]["actual"]["final_response"])
    return folder / "cassettes"


MATRIX = [(client, transport) for client in ("mcp", "openai-agents", "langgraph") for transport in ("stdio", "http")]


@pytest.mark.parametrize(("client", "transport"), MATRIX, ids=[f"{c}-{t}" for c, t in MATRIX])
def test_a_replay_miss_is_the_error_of_the_case_that_made_it(recorded, model, client, transport, tmp_path):
    python = side_python("langgraph") if client == "langgraph" else sys.executable
    cassettes = tmp_path / "cassettes"
    shutil.copytree(recorded, cassettes)
    command = stand_in(cassettes, "replay", http=transport == "http")

    done, cases = run(tmp_path, python, client, command,
                      [time_case("paris", "Europe/Paris"), time_case("tokyo", "Asia/Tokyo")], model)

    assert done.returncode == 3, done.stderr
    assert cases["paris"]["status"] == "passed", cases["paris"]["error"]
    error = cases["tokyo"]["error"] or ""
    assert cases["tokyo"]["status"] == "error"
    assert error.startswith("case 'tokyo', turn 1: evalkit mcp (replay): no recorded tools/call matches "
                            'get_current_time({"timezone": "Asia/Tokyo"})'), error
    assert "closest recorded tool call differs at args.timezone" in error and "time.mcp.json" in error


ADK_AGENT = '''
import json, os
from google.adk.agents import LlmAgent
from google.adk.tools.mcp_tool import McpToolset, StdioConnectionParams, StreamableHTTPConnectionParams
from mcp import StdioServerParameters

command = json.loads(os.environ["TIME_STAND_IN"])
if os.environ.get("TIME_STAND_IN_URL"):
    connection = StreamableHTTPConnectionParams(url=os.environ["TIME_STAND_IN_URL"], timeout=30)
else:
    connection = StdioConnectionParams(server_params=StdioServerParameters(command=command[0], args=command[1:]),
                                       timeout=30)
root_agent = LlmAgent(name="time_agent", model="gemini-2.0-flash", instruction="Tell the time.",
                      tools=[McpToolset(connection_params=connection)])
'''


def gemini_tool_answer_or_call(prompt: str, body: dict):
    """The ADK agent's scripted Gemini: call the tool, then say what it returned."""
    parts = ((body.get("contents") or [{}])[-1].get("parts") or [{}])
    answered = [p["functionResponse"] for p in parts if "functionResponse" in p]
    if answered:
        return json.dumps(answered[0].get("response"))
    zone = prompt.rsplit("time in ", 1)[-1].split("?")[0].strip()
    return Reply(function_call("get_current_time", timezone=zone))


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_adks_mcp_toolset_in_evalkits_own_process(recorded, transport, tmp_path):
    """ADK's McpToolset runs in the run's own process: the stand-in is its child (stdio), or, over HTTP,
    one the test started, no relative of the run's: it finds the run through the process at the other
    end of the request's connection. One turn at a time (--jobs 1): a miss goes to every turn in
    flight in the agent's process, and here that is the run's."""
    pytest.importorskip("google.adk")
    import subprocess

    from evalkit.testing import FakeGemini

    agent = tmp_path / "time_agent"
    agent.mkdir()
    (agent / "__init__.py").write_text("from . import agent\n")
    (agent / "agent.py").write_text(ADK_AGENT)
    cassettes = tmp_path / "cassettes"
    shutil.copytree(recorded, cassettes)
    command = stand_in(cassettes, "replay", http=transport == "http")
    suite = write_suite(tmp_path, [time_case("paris", "Europe/Paris"), time_case("tokyo", "Asia/Tokyo")])
    env = {"TIME_STAND_IN": json.dumps(command), "TIME_STAND_IN_URL": ""}
    http = subprocess.Popen(command, stdout=subprocess.PIPE) if transport == "http" else None
    try:
        if http is not None:
            env["TIME_STAND_IN_URL"] = http.stdout.readline().decode().strip()
        with FakeGemini() as fake:
            fake.responder(gemini_tool_answer_or_call)
            env.update({key: value or "" for key, value in fake.environment("fake-key").items()})
            # A process of its own: the SDK's stdio client hands the server the process's real stderr.
            done = run_evalkit("run", str(suite), "--config", str(tmp_path / "config.json"), "--agent", str(agent),
                               "--jobs", "1", "--json", str(tmp_path / "result.json"), cwd=tmp_path, env=env)
    finally:
        if http is not None:
            stop_process(http)  # killed if it does not stop within the grace, never left running
    cases = {c["eval_id"]: c for c in json.loads((tmp_path / "result.json").read_text())["cases"]}
    assert done.returncode == 3, done.stderr
    assert cases["paris"]["status"] == "passed", cases["paris"]["error"]
    assert (cases["tokyo"]["error"] or "").startswith(
        "case 'tokyo', turn 1: evalkit mcp (replay): no recorded tools/call matches "
        'get_current_time({"timezone": "Asia/Tokyo"})'), cases["tokyo"]["error"]
