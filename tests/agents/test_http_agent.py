"""`http://` agents against a real HTTP server on 127.0.0.1: replies, faults, pooling, the CLI."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from evalkit.agents.base import SessionSpec
from evalkit.agents.http_agent import HttpAgent
from evalkit.agents.registry import load_agent
from evalkit.settings import RunSettings
from evalkit.errors import AgentError
from evalkit.schema.content import Content
from evalkit.schema.evalset import EvalCase
from evalkit.schema.views import final_text, tool_calls
from tests.conftest import FIXTURES, ROOT
from tests.in_process import invoke_evalkit

WEATHER_SET = str(FIXTURES / "agents" / "weather.evalset.json")
FORECAST = {"Paris": ("sunny", "rainy"), "Oslo": ("snowy", "cloudy"), "Lima": ("foggy", "sunny")}


class WeatherServer(ThreadingHTTPServer):
    """The weather agent of the JSON-lines tests, over HTTP, with fault triggers in the text.

    "crash" → HTTP 500 with a long body, "garbage" → a 200 whose body is not JSON,
    "slow" → no answer until the test ends.
    """

    daemon_threads = True
    block_on_close = False

    def __init__(self):
        super().__init__(("127.0.0.1", 0), WeatherHandler)
        self.memory: dict[str, str] = {}
        self.ended: list[str] = []
        self.client_ports: set[int] = set()
        self.headers_seen: list[dict[str, str]] = []
        self.release = threading.Event()
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/agent"

    def answer(self, request: dict) -> tuple[int, bytes]:
        if request["type"] == "end_session":
            with self.lock:
                self.ended.append(request["session_id"])
                self.memory.pop(request["session_id"], None)
            return 204, b""
        text, session = request["user_text"], request["session_id"]
        if "crash" in text:
            return 500, b"Internal Server Error: the forecast database is on fire. " + b"x" * 1000
        if "garbage" in text:
            return 200, b"<html>surprise</html>"
        if "slow" in text:
            self.release.wait(10)
            return 200, b'{"final_response": "too late"}'
        state = {**request["state"], "turns": request["state"].get("turns", 0) + 1}
        city = next((c for c in FORECAST if c in text), None)
        if city is not None:
            with self.lock:
                self.memory[session] = city
            reply = {"tool_calls": [{"name": "get_weather", "args": {"city": city, "day": "today"}}],
                     "tool_responses": [{"name": "get_weather", "response": {"weather": FORECAST[city][0]}}],
                     "final_response": f"It is {FORECAST[city][0]} in {city}.", "state": state}
        elif session in self.memory:
            city = self.memory[session]
            reply = {"tool_calls": [{"name": "get_weather", "args": {"city": city, "day": "tomorrow"}}],
                     "final_response": f"Tomorrow it will be {FORECAST[city][1]} in {city} (turn {state['turns']}).",
                     "state": state}
        else:
            reply = {"final_response": "Which city do you mean?", "state": state}
        return 200, json.dumps(reply).encode()


class WeatherHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so connection reuse is visible
    disable_nagle_algorithm = True  # headers and body go out as separate writes
    server: WeatherServer

    def do_POST(self) -> None:
        with self.server.lock:
            self.server.client_ports.add(self.client_address[1])
            self.server.headers_seen.append(dict(self.headers))
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        status, body = self.server.answer(request)
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
            pass

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def server():
    weather = WeatherServer()
    thread = threading.Thread(target=weather.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield weather
    weather.release.set()
    weather.shutdown()
    weather.server_close()


def _case(eval_id: str, texts: list[str]) -> EvalCase:
    return EvalCase.model_validate(
        {"eval_id": eval_id, "conversation": [{"user_content": {"role": "user", "parts": [{"text": t}]}} for t in texts]}
    )


async def converse(agent, eval_id: str, texts: list[str]):
    spec = SessionSpec(case=_case(eval_id, texts), session_id=f"s-{eval_id}")
    session = await agent.open_session(spec)
    try:
        return [await session.run_turn(Content.of_text(t, role="user"), i) for i, t in enumerate(texts)]
    finally:
        await session.close()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def test_two_turns_with_tools_session_memory_and_end_session(server):
    agent = HttpAgent(server.url, max_connections=2)
    try:
        first, second = await converse(agent, "paris", ["What is the weather in Paris?", "And tomorrow?"])
    finally:
        await agent.aclose()
    assert [(c.name, c.args) for c in tool_calls(first)] == [("get_weather", {"city": "Paris", "day": "today"})]
    assert final_text(first) == "It is sunny in Paris."
    assert [(c.name, c.args) for c in tool_calls(second)] == [("get_weather", {"city": "Paris", "day": "tomorrow"})]
    assert final_text(second) == "Tomorrow it will be rainy in Paris (turn 2)."
    assert server.ended == ["s-paris"]


async def test_concurrent_sessions_reuse_a_bounded_set_of_connections(server):
    agent = HttpAgent(server.url, max_connections=3)
    cities = list(FORECAST) * 8
    try:
        conversations = await asyncio.gather(
            *(converse(agent, f"c{i}", [f"Weather in {city}?", "And tomorrow?"]) for i, city in enumerate(cities))
        )
    finally:
        await agent.aclose()
    assert [final_text(turns[1]) for turns in conversations] == [
        f"Tomorrow it will be {FORECAST[city][1]} in {city} (turn 2)." for city in cities
    ]
    # 24 sessions × 3 requests went over at most 3 connections.
    assert 1 <= len(server.client_ports) <= 3
    assert len(server.ended) == len(cities)


async def test_http_faults_are_one_line_errors_and_other_sessions_keep_working(server):
    agent = HttpAgent(server.url, max_connections=4)
    try:
        crash, garbage, *good = await asyncio.gather(
            converse(agent, "crash", ["Paris?", "crash now"]),
            converse(agent, "garbage", ["garbage please"]),
            *(converse(agent, f"ok{i}", ["Oslo?", "And tomorrow?"]) for i in range(4)),
            return_exceptions=True,
        )
    finally:
        await agent.aclose()
    assert isinstance(crash, AgentError) and isinstance(garbage, AgentError)
    expected_body = "Internal Server Error: the forecast database is on fire. " + "x" * 142 + "…"
    assert str(crash) == f"case 'crash', turn 2: {server.url} answered HTTP 500: {expected_body!r}"
    assert str(garbage) == (
        f"case 'garbage', turn 1: {server.url} answered with a body that is not JSON: '<html>surprise</html>'"
    )
    assert all(final_text(turns[1]) == "Tomorrow it will be cloudy in Oslo (turn 2)." for turns in good)


async def test_a_slow_server_is_cut_off_by_the_turn_timeout_and_the_client_stays_usable(server):
    agent = HttpAgent(server.url, max_connections=2, timeout=0.2)
    try:
        spec = SessionSpec(case=_case("slow", ["slow"]), session_id="s-slow")
        session = await agent.open_session(spec)
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(session.run_turn(Content.of_text("slow", role="user"), 0), 0.2)
        await session.close()
        (after,) = await converse(agent, "after", ["Lima?"])
    finally:
        await agent.aclose()
    assert final_text(after) == "It is foggy in Lima."


async def test_an_unreachable_url_is_an_error_naming_it_and_end_session_failures_are_ignored():
    url = f"http://127.0.0.1:{_closed_port()}/agent"
    agent = HttpAgent(url)
    try:
        with pytest.raises(AgentError) as failure:
            await converse(agent, "nobody", ["hello"])  # close() also posts end_session, and must not raise
    finally:
        await agent.aclose()
    assert str(failure.value).startswith(f"case 'nobody', turn 1: cannot connect to {url}: ConnectError")
    assert "\n" not in str(failure.value)


def test_http_spec_builds_a_pooled_client_and_only_http_agents_load_httpx():
    agent = load_agent("http://127.0.0.1:9/agent", RunSettings(jobs=6, timeout=12.0))
    assert isinstance(agent, HttpAgent)
    assert (agent.url, agent.max_connections, agent.timeout) == ("http://127.0.0.1:9/agent", 6, 12.0)
    probe = (
        "import sys, evalkit.agents.registry as s; s.load_agent('cmd:node x.js'); print('httpx' in sys.modules); "
        "s.load_agent('http://127.0.0.1:9/'); print('httpx' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60)
    # Loaded with the HTTP agent, before any turn runs, so no turn's time limit pays for it.
    assert done.stdout.split() == ["False", "True"], done.stderr


def test_cli_scores_the_http_agent_and_marks_only_the_500_case_error(server, tmp_path):
    out = tmp_path / "result.json"
    done = invoke_evalkit("run", WEATHER_SET, "--agent", server.url, "--jobs", "4", "--json", str(out))
    assert done.returncode == 3, done.stderr
    result = json.loads(out.read_text())
    assert {k: result["summary"][k] for k in ("cases", "passed", "failed", "errors")} == {
        "cases": 5, "passed": 3, "failed": 1, "errors": 1}
    cases = {c["eval_id"]: c for c in result["cases"]}
    for name in ("paris", "oslo", "lima"):
        scores = {c["name"]: c["score"] for c in cases[name]["criteria"]}
        assert cases[name]["status"] == "passed"
        assert scores["tool_trajectory_avg_score"] == 1.0 and scores["response_match_score"] == 1.0
    assert cases["wrong_day"]["status"] == "failed"
    error = cases["crashes"]["error"]
    assert cases["crashes"]["status"] == "error"
    assert error.startswith(f"case 'crashes', turn 2: {server.url} answered HTTP 500: 'Internal Server Error")
    assert "\n" not in error and len(error) < 300
    assert sorted(server.ended) == sorted(c["session_id"] for c in result["cases"])
    assert "Traceback" not in done.stdout + done.stderr


def test_cli_marks_slow_and_garbage_http_cases_error_within_the_timeout(server, tmp_path):
    evalset = tmp_path / "faults.evalset.json"
    cases = [
        {"eval_id": name, "conversation": [
            {"user_content": {"role": "user", "parts": [{"text": text}]},
             "final_response": {"role": "model", "parts": [{"text": reply}]}}]}
        for name, text, reply in [("paris", "Paris?", "It is sunny in Paris."), ("slow", "slow", "x"),
                                  ("garbage", "garbage", "x"), ("lima", "Lima?", "It is foggy in Lima.")]
    ]
    evalset.write_text(json.dumps({"eval_set_id": "faults", "eval_cases": cases}))
    out = tmp_path / "result.json"
    done = invoke_evalkit("run", str(evalset), "--agent", server.url, "--config", str(FIXTURES / "rouge_only.config.json"),
                          "--timeout", "1", "--json", str(out))
    assert done.returncode == 3, done.stderr
    by_id = {c["eval_id"]: c for c in json.loads(out.read_text())["cases"]}
    assert {k: v["status"] for k, v in by_id.items()} == {
        "paris": "passed", "slow": "error", "garbage": "error", "lima": "passed"}, {k: v["error"] for k, v in by_id.items()}
    assert by_id["slow"]["error"] == "case 'slow', turn 1: no reply within 1 s (per-turn timeout)"
    assert "answered with a body that is not JSON" in by_id["garbage"]["error"]
