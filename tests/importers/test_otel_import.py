"""`evalkit import otel`: traces made by real instrumentation become eval sets that pass against the same agent.

An ADK LlmAgent (with a sub-agent) runs through ADK's Runner, and a small google-genai
agent emits the GenAI semantic conventions itself; both talk to a local FakeGemini,
their spans go to an in-memory exporter and are written as the Collector writes them.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

pytest.importorskip("google.adk")
pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("opentelemetry.exporter.otlp.proto.common")

from evalkit.schema.evalset import Invocation
from evalkit.schema.views import authored_tool_calls, final_text, user_text
from evalkit.testing import FakeGemini
from tests.conftest import FIXTURES
from tests.in_process import invoke_evalkit
from tests.fixtures import traced_agents
from tests.importers import otel_support

AGENTS_FILE = FIXTURES / "traced_agents.py"
CONTENT_ON_SPANS = {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_ONLY"}
LEGACY_SCHEMA = {"ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN": "1"}  # content on ADK's legacy spans is on by default
# The legacy schema with the GenAI conventions opted in: content both on call_llm and on the generate_content inside it.
LEGACY_WITH_SEMCONV = {**LEGACY_SCHEMA, **CONTENT_ON_SPANS, "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental"}


@pytest.fixture(scope="module")
def gemini():
    with FakeGemini() as fake:
        fake.responder(traced_agents.respond)
        yield fake


@pytest.fixture
def genai_env(gemini, monkeypatch):
    for name, value in gemini.environment().items():
        monkeypatch.delenv(name, raising=False) if value is None else monkeypatch.setenv(name, value)
    return {k: v for k, v in gemini.environment().items() if v is not None}


def cases_of(path: Path) -> dict[str, list[Invocation]]:
    data = json.loads(path.read_text())
    return {case["eval_id"]: [Invocation.model_validate(t) for t in case["conversation"]] for case in data["eval_cases"]}


def run_against(evalsets: list[Path], agent: str, tmp_path: Path, env: dict) -> dict:
    result = tmp_path / "result.json"
    ran = invoke_evalkit("run", *map(str, evalsets), "--agent", agent, "--json", str(result), "--quiet", cwd=tmp_path, env=env)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return json.loads(result.read_text())


def assert_every_score_is_one(result: dict, count: int) -> None:
    assert (result["summary"]["cases"], result["summary"]["passed"]) == (count, count)
    for case in result["cases"]:
        scores = {c["name"]: c["score"] for c in case["criteria"]}
        assert (scores["tool_trajectory_avg_score"], scores["response_match_score"]) == (1.0, 1.0), case["eval_id"]


async def talk_in_every_schema(monkeypatch) -> dict[str, tuple[list, list[str]]]:
    """The same conversations, traced in ADK's default schema (GenAI conventions), its legacy one, and both."""
    exporter = otel_support.global_exporter()
    made = {}
    for schema, settings in (("semconv", CONTENT_ON_SPANS), ("legacy", LEGACY_SCHEMA), ("both", LEGACY_WITH_SEMCONV)):
        with monkeypatch.context() as patch:
            for name, value in settings.items():
                patch.setenv(name, value)
            exporter.clear()
            ids = await otel_support.run_adk_conversations(
                traced_agents.weather_desk, [["weather in Paris", "and the forecast for Oslo?"], ["hello"], ["hello"]])
            made[schema] = (list(exporter.get_finished_spans()), ids)
    return made


def test_adk_traces_in_each_schema_become_eval_sets_that_pass_against_the_same_agent(genai_env, monkeypatch, tmp_path):
    from evalkit.importers.otel.importer import import_otel

    made = asyncio.run(talk_in_every_schema(monkeypatch))
    semconv_file = otel_support.write_collector_file(made["semconv"][0], tmp_path / "semconv.jsonl")
    legacy_file = otel_support.write_collector_file(made["legacy"][0], tmp_path / "legacy.jsonl.gz", gzipped=True)
    semconv_out, legacy_out = tmp_path / "semconv.evalset.json", tmp_path / "legacy.evalset.json"

    done = invoke_evalkit("import", "otel", str(semconv_file), "--out", str(semconv_out), cwd=tmp_path)
    legacy = import_otel([legacy_file], legacy_out)
    both_out = tmp_path / "both.evalset.json"
    both = import_otel([otel_support.write_collector_file(made["both"][0], tmp_path / "both.jsonl")], both_out)

    assert done.returncode == 0, done.stdout + done.stderr
    weather, hello, _again = made["semconv"][1]
    assert f"wrote {semconv_out} (2 eval cases: {weather}, {hello})" in done.stdout
    assert "collapsed 1 duplicate conversations" in done.stdout
    assert (legacy.case_ids, legacy.duplicates) == (made["legacy"][1][:2], 1)
    assert (both.case_ids, both.duplicates) == (made["both"][1][:2], 1)
    for out, schema in ((semconv_out, "semconv"), (legacy_out, "legacy"), (both_out, "both")):
        weather, hello, _again = made[schema][1]
        cases = cases_of(out)
        first, second = cases[weather]
        assert [user_text(t) for t in cases[weather]] == ["weather in Paris", "and the forecast for Oslo?"]
        assert [(a, c.name, c.args) for a, c in authored_tool_calls(first)] == [
            ("weather_desk", "get_weather", {"city": "Paris"})]
        # The sub-agent's call is attributed to it, as in a run's trajectory.
        assert [(a, c.name, c.args) for a, c in authored_tool_calls(second)] == [
            ("weather_desk", "transfer_to_agent", {"agent_name": "forecaster"}),
            ("forecaster", "get_forecast", {"city": "Oslo"})]
        assert [final_text(t) for t in cases[weather]] == ["It is sunny in Paris.", "Tomorrow Oslo will be windy."]
        assert [final_text(t) for t in cases[hello]] == ["Hello! Ask me about the weather."]

    result = run_against([semconv_out, legacy_out], f"{AGENTS_FILE}:weather_desk", tmp_path, genai_env)
    assert_every_score_is_one(result, 4)


def test_genai_convention_traces_become_an_eval_set_that_passes_against_the_same_agent(genai_env, monkeypatch, tmp_path):
    provider, exporter = otel_support.local_provider("weather-bot")
    monkeypatch.setattr(traced_agents, "PROVIDER", provider)
    otel_support.run_bot_conversation("conv-oslo", ["weather in Oslo", "thanks; and the weather in Paris?"])
    otel_support.run_bot_conversation("conv-hi", ["hi there"])
    # One document for the whole file, pretty-printed: the other layout the importer reads.
    traces = tmp_path / "bot.json"
    traces.write_text(json.dumps(otel_support.otlp_document(exporter.get_finished_spans()), indent=2))
    out = tmp_path / "bot.evalset.json"

    done = invoke_evalkit("import", "otel", str(traces), "--out", str(out), cwd=tmp_path)

    assert done.returncode == 0, done.stdout + done.stderr
    cases = cases_of(out)
    assert list(cases) == ["conv-oslo", "conv-hi"]
    assert [[(a, c.name, c.args) for a, c in authored_tool_calls(t)] for t in cases["conv-oslo"]] == [
        [("weather_bot", "get_weather", {"city": "Oslo"})], [("weather_bot", "get_weather", {"city": "Paris"})]]
    assert [final_text(t) for t in cases["conv-oslo"]] == ["It is snowy in Oslo.", "It is sunny in Paris."]

    result = run_against([out], f"{AGENTS_FILE}:genai_weather_bot", tmp_path, genai_env)
    assert_every_score_is_one(result, 2)
