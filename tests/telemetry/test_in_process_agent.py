"""`run --otel` with an agent in evalkit's own process: a pydantic-ai agent instrumented through the
global tracer provider, which the run installs; each turn runs inside its own trace.

The run with `--otel` is a real process: the global tracer provider, once set, stays for the
rest of a process, and other tests set their own."""

from __future__ import annotations

import json

import pytest

from evalkit.testing import FakeOpenAI
from tests.fixtures.otel_frameworks import script
from tests.conftest import run_evalkit
from tests.in_process import invoke_evalkit
from tests.telemetry.weather_cases import otel_calls, weather_case, write_evalset

pytest.importorskip("pydantic_ai", reason="pydantic-ai is a test extra (pip install -e '.[dev]')")


def test_an_in_process_agents_tool_calls_come_from_its_spans(tmp_path):
    evalset = write_evalset(tmp_path, [weather_case("paris_then_oslo", ("Paris", "Oslo"))])
    out = tmp_path / "out.json"
    with FakeOpenAI() as fake:
        fake.responder(script.respond)
        result = run_evalkit("run", str(evalset), "--agent", "tests/fixtures/otel_live/inprocess_agent.py:agent",
                             "--otel", "--json", str(out), env={"OPENAI_BASE_URL": fake.base_url},
                             timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "otel: receiving on http://127.0.0.1:" in result.stderr
    case = json.loads(out.read_text())["cases"][0]
    assert otel_calls(case) == [[("get_weather", {"city": "Paris"}, "otel")], [("get_weather", {"city": "Oslo"}, "otel")]]
    events = case["invocations"][0]["actual"]["intermediate_data"]["invocation_events"]
    assert {event["author"] for event in events} == {"weather_agent"}
    usage = [event for event in events if "usage_metadata" in event]
    assert usage and all(event["model_version"] == script.MODEL for event in usage)
    # The turn matched by its own trace: no note about guessing by time.
    assert "matched by time" not in result.stderr


def test_without_otel_the_same_agent_reports_no_call(tmp_path, monkeypatch):
    evalset = write_evalset(tmp_path, [weather_case("paris", ("Paris",))])
    out = tmp_path / "out.json"
    with FakeOpenAI() as fake:
        fake.responder(script.respond)
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        result = invoke_evalkit("run", str(evalset), "--agent", "tests/fixtures/otel_live/inprocess_agent.py:agent",
                                "--json", str(out))
    assert result.returncode == 1, result.stdout + result.stderr
    assert otel_calls(json.loads(out.read_text())["cases"][0]) == [[]]
