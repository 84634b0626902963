"""`run --otel` with ADK agents, on ADK's own OpenTelemetry spans (google-genai against a local
FakeGemini answering with the weather script):

- `adk-server:`: a real `adk api_server` exporting through the exporter variables (ADK sets up
  its OTLP exporter from them); each turn's request carries its `traceparent`, and ADK's spans
  record the session as their conversation, so each trace is matched to its case's turn;
- an ADK agent in evalkit's process, through ADK's real Runner: its spans come through the
  global tracer provider, inside the turn's trace.

ADK reports its tool calls in its events, so the spans fill nothing in (a reply with a call
takes none from telemetry): what is checked is that every turn's spans arrived and matched
that turn (no note says otherwise, with four cases in flight) and that no call is doubled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.testing import FakeGemini
from tests.agents.adk_server_fixture import free_port, start_adk_server, stop_adk_server
from tests.conftest import ROOT, run_evalkit
from tests.fixtures.otel_frameworks import script
from tests.in_process import invoke_evalkit
from tests.telemetry.weather_cases import otel_calls, weather_case, write_evalset

pytest.importorskip("google.adk", reason="google-adk is a test extra (pip install -e '.[dev]')")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http", reason="the OTLP exporter is a test extra")

APPS = ROOT / "tests" / "fixtures" / "otel_live" / "adk_apps"
APP = "weather_agent"
CASES = 4
# What the run says when spans did not arrive, or arrived and matched no turn or only by guessing.
NOTES = ("no span arrived", "turns got no span", "matched no turn", "matched by time")


@pytest.fixture(scope="module")
def gemini():
    with FakeGemini() as fake:
        fake.responder(script.respond_gemini)
        yield fake


def _evalset(folder: Path) -> Path:
    return write_evalset(folder, [weather_case(f"case{n}", ("Paris", "Oslo") if n % 2 else ("Oslo", "Paris"))
                                  for n in range(CASES)])


def _check(returncode: int, stderr: str, out: Path) -> None:
    assert returncode == 0, stderr
    assert not [note for note in NOTES if note in stderr], stderr
    cases = json.loads(out.read_text())["cases"]
    assert len(cases) == CASES
    for case in cases:  # the calls ADK reported, once each, none taken from telemetry
        first, second = ("Paris", "Oslo") if int(case["eval_id"].removeprefix("case")) % 2 else ("Oslo", "Paris")
        assert otel_calls(case) == [[("get_weather", {"city": first}, None)], [("get_weather", {"city": second}, None)]]


def test_an_adk_api_servers_spans_are_matched_to_each_turn(tmp_path, gemini):
    otel_port = free_port()
    server = start_adk_server(tmp_path, {**gemini.environment(), "PYTHONPATH": str(ROOT),
                                         "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"http://127.0.0.1:{otel_port}/v1/traces",
                                         "OTEL_BSP_SCHEDULE_DELAY": "100"}, agents=(APP,), source=APPS)
    out = tmp_path / "out.json"
    try:
        result = invoke_evalkit("run", str(_evalset(tmp_path)), "--agent", server.spec(APP), "--otel",
                                "--otel-port", str(otel_port), "--jobs", "4", "--json", str(out))
    finally:
        stop_adk_server(server)
    assert f"otel: receiving on http://127.0.0.1:{otel_port}/v1/traces" in result.stderr
    _check(result.returncode, result.stdout + result.stderr, out)


def test_an_in_process_adk_agents_spans_come_through_the_global_provider(tmp_path, gemini):
    out = tmp_path / "out.json"
    environment = {name: value for name, value in gemini.environment().items() if value is not None}
    result = run_evalkit("run", str(_evalset(tmp_path)), "--agent", str(APPS / APP), "--otel", "--jobs", "4",
                         "--json", str(out), env={**environment, "PYTHONPATH": str(ROOT)}, timeout=240)
    _check(result.returncode, result.stdout + result.stderr, out)
