"""`run --otel` against real frameworks with their own instrumentation, on the scripted model of
tests/fixtures/otel_frameworks/script.py: none of these agents reports a tool call in its
replies, and each case's calls must come from its own spans (several cases in flight at once).

- an HTTP agent service (pydantic-ai under opentelemetry-instrumentation-asgi): matched by trace id;
- an A2A server (a2a-sdk's, running pydantic-ai) that starts its own traces and records the A2A
  context as its conversation: matched by conversation id;
- a `cmd:` LangGraph agent instrumented by OpenInference that continues the turn line's traceparent.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.testing import FakeOpenAI
from tests.agents.adk_server_fixture import environment_with, free_port, serving
from tests.conftest import ROOT, stop_process
from tests.fixtures.otel_frameworks import script
from tests.in_process import invoke_evalkit
from tests.telemetry.weather_cases import otel_calls, weather_case, write_evalset

pytest.importorskip("pydantic_ai", reason="pydantic-ai is a test extra (pip install -e '.[dev]')")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http", reason="the OTLP exporter is a test extra")

FIXTURES = ROOT / "tests" / "fixtures" / "otel_live"
START_TIMEOUT_S = 180.0  # a framework's imports take many seconds on a busy 2-core machine


@pytest.fixture
def model():
    with FakeOpenAI() as fake:
        fake.responder(script.respond)
        yield fake


def _serve(script_name: str, port: int, otel_port: int, model: FakeOpenAI, ready_path: str, log: Path):
    env = environment_with({"PYTHONPATH": str(ROOT), "OPENAI_BASE_URL": model.base_url,
                            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"http://127.0.0.1:{otel_port}/v1/traces",
                            "OTEL_BSP_SCHEDULE_DELAY": "100"})
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, str(FIXTURES / script_name), str(port)], cwd=ROOT, env=env,
                                   stdout=out, stderr=subprocess.STDOUT)
    if serving(f"http://127.0.0.1:{port}", process, log, script_name, START_TIMEOUT_S, ready_path=ready_path):
        return process
    stop_process(process)
    raise RuntimeError(f"{script_name} did not start: {log.read_text()[-2000:]}")


def _cases() -> list[dict]:
    """Cases asking in different orders, so a case given another's spans would show the wrong city."""
    return [weather_case(f"case{n}", ("Paris", "Oslo") if n % 2 else ("Oslo", "Paris")) for n in range(6)]


def _expected_calls(case: dict) -> list[list[tuple[str, dict, str]]]:
    first = "Paris" if int(case["eval_id"][-1]) % 2 else "Oslo"
    second = "Oslo" if first == "Paris" else "Paris"
    return [[("get_weather", {"city": first}, "otel")], [("get_weather", {"city": second}, "otel")]]


def _run(tmp_path: Path, agent: str, *options: str) -> tuple[subprocess.CompletedProcess, list[dict]]:
    evalset = write_evalset(tmp_path, _cases())
    out = tmp_path / "out.json"
    result = invoke_evalkit("run", str(evalset), "--agent", agent, "--otel", "--jobs", "4", "--json", str(out),
                            *options)
    cases = json.loads(out.read_text())["cases"] if out.exists() else []
    return result, cases


@pytest.mark.parametrize(("script_name", "ready_path", "agent"), [
    # pydantic-ai under opentelemetry-instrumentation-asgi: continues each turn's traceparent.
    ("http_service.py", "/", "http://127.0.0.1:{port}/"),
    # a2a-sdk's server starts traces of its own and records the A2A context as its conversation.
    ("a2a_service.py", "/.well-known/agent-card.json", "a2a:http://127.0.0.1:{port}"),
], ids=["http-asgi-traceparent", "a2a-own-traces-by-conversation"])
def test_a_served_agents_own_spans_give_each_cases_calls(tmp_path, model, script_name, ready_path, agent):
    port, otel_port = free_port(), free_port()
    server = _serve(script_name, port, otel_port, model, ready_path, tmp_path / "server.log")
    try:
        result, cases = _run(tmp_path, agent.format(port=port), "--otel-port", str(otel_port))
    finally:
        stop_process(server)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"otel: receiving on http://127.0.0.1:{otel_port}/v1/traces" in result.stderr
    assert {case["eval_id"]: otel_calls(case) for case in cases} == \
        {case["eval_id"]: _expected_calls(case) for case in cases}
    # The servers' own spans (request handling, the a2a-sdk's queues) are neither guessed nor noted.
    assert "matched by time" not in result.stderr and "matched no turn" not in result.stderr
    assert "run with --otel" not in result.stderr  # the advice for a run without it


def test_a_cmd_langgraph_agent_with_openinference_continues_the_turn_lines_trace(tmp_path, model, monkeypatch):
    pytest.importorskip("langgraph", reason="LangGraph is a test extra (pip install -e '.[dev]')")
    pytest.importorskip("openinference.instrumentation.langchain", reason="OpenInference is a test extra")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setenv("OPENAI_BASE_URL", model.base_url)
    result, cases = _run(tmp_path, f"cmd:{sys.executable} {FIXTURES / 'langgraph_cmd.py'}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert {case["eval_id"]: otel_calls(case) for case in cases} == \
        {case["eval_id"]: _expected_calls(case) for case in cases}
    events = cases[0]["invocations"][0]["actual"]["intermediate_data"]["invocation_events"]
    assert any(event.get("model_version", "").startswith(script.MODEL) for event in events)
