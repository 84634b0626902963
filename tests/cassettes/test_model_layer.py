"""In-process ADK agents replay at ADK's model layer: no socket, the same cassettes, the same misses."""

from __future__ import annotations

import pytest

from evalkit.testing.fake_gemini import FOREIGN_ENVIRONMENT
from tests.conftest import ROOT


def replay_demo(monkeypatch, tmp_path, change_agent=None):
    pytest.importorskip("google.adk")
    from evalkit.agents.adk_agent import AdkAgent
    from evalkit.cassettes.session import CassetteRun
    from evalkit.foundation.aio import run_sync
    from evalkit.engine.evaluation import evaluate
    from evalkit.loading.plan import build_plan
    from evalkit.settings import RunSettings

    for name in (*FOREIGN_ENVIRONMENT, "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("EVALKIT_RUNS_DIR", str(tmp_path / "runs"))
    cassettes = CassetteRun(ROOT / "evalsets" / "cassettes", "replay").start()
    try:
        inner = AdkAgent.from_directory(ROOT / "examples" / "llm_weather_agent")
        if change_agent:
            change_agent(inner.root_agent)
        agent = cassettes.wrap(inner)
        plan = build_plan([str(ROOT / "evalsets" / "llm_weather")])
        result = run_sync(lambda: evaluate(plan, agent, RunSettings.of(jobs=2)))
    finally:
        cassettes.stop()
    return result, cassettes


def test_the_demo_agents_model_calls_are_answered_in_process(monkeypatch, tmp_path):
    result, cassettes = replay_demo(monkeypatch, tmp_path)
    assert [c.status.value for c in result.cases] == ["passed"] * 4
    replayed = cassettes.deck.stats["replayed"]
    assert replayed >= 8  # two model calls or more per case
    # Every one of them came through the in-process transport: none reached the proxy's socket.
    assert cassettes.in_process is not None and cassettes.in_process.transport.answered == replayed


def test_a_changed_instruction_is_the_same_miss_as_through_the_proxy(monkeypatch, tmp_path):
    def reword(agent):
        agent.instruction = "You are a terse weather bot. " + agent.instruction

    result, cassettes = replay_demo(monkeypatch, tmp_path, reword)
    assert {c.status.value for c in result.cases} == {"error"}
    paris = next(c for c in result.cases if c.eval_id == "paris_today")
    assert ("case 'paris_today' of llm_weather, turn 1: no recorded model call matches: closest recorded "
            "request differs at systemInstruction.parts[0].text") in paris.error
    assert "evalsets/cassettes/llm_weather/paris_today.cassette.json" in paris.error
    assert "re-record with --cassette-mode record" in paris.error
    assert cassettes.in_process.transport.answered == cassettes.deck.stats["missed"] > 0
