"""Tool fakes (`tool_mocks` entries matching on arguments, sequences, errors) in every adapter.

The ADK agent is a real `LlmAgent` with a real tool and a scripted model, run through
ADK's Runner; the turn-protocol agent is a real `cmd:` process reading `tool_fakes`.
"""

from __future__ import annotations

import json
import shlex
import sys
from typing import Any

import pytest

from evalkit.agents.base import SessionSpec
from evalkit.agents.registry import load_agent
from evalkit.schema.evalset import EvalCase
from evalkit.schema.tool_mocks import CaseToolFakes, FakeAnswer, args_include, tool_mocks_for
from evalkit.schema.views import tool_responses
from tests.conftest import FIXTURES
from tests.in_process import invoke_evalkit

FAKING_AGENT = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(FIXTURES / 'agents' / 'faked_tools_agent.py'))}"
ADK_AGENT = str(FIXTURES / "adk_agents" / "llm_tool_agent")


def make_case(*texts: str, mocks: list[dict[str, Any]]) -> EvalCase:
    turns = [{"user_content": {"role": "user", "parts": [{"text": t}]}} for t in texts]
    return EvalCase.model_validate({"eval_id": "c", "conversation": turns, "tool_mocks": mocks})


async def play(agent, case: EvalCase):
    session = await agent.open_session(SessionSpec.for_case(case, "s-fakes"))
    try:
        turns = [await session.run_turn(t.user_content, i) for i, t in enumerate(case.conversation or [])]
        return turns, session.unmatched_tool_calls()
    finally:
        await session.close()


# --- matching rules ---------------------------------------------------------------------


def test_args_match_as_a_subset_with_nested_objects():
    assert args_include({}, {"city": "Paris"})
    assert args_include({"city": "Paris"}, {"city": "Paris", "units": "c"})
    assert not args_include({"city": "Paris"}, {"city": "Rome"})
    assert not args_include({"city": "Paris"}, {})
    assert args_include({"where": {"city": "Paris"}}, {"where": {"city": "Paris", "zip": "75"}})
    assert not args_include({"tags": ["a"]}, {"tags": ["a", "b"]})  # lists compare whole


def test_first_matching_entry_answers_turn_specific_first_and_sequences_repeat_their_last():
    case = make_case("a", "b", mocks=[
        {"name": "get_weather", "args": {"city": "Paris"}, "responses": [{"c": 1}, {"c": 2}]},
        {"name": "get_weather", "response": {"c": "any"}},
        {"name": "get_weather", "args": {"city": "Paris"}, "error": "down", "invocation_index": 1},
    ])
    fakes = CaseToolFakes.of(case)
    paris = {"city": "Paris", "units": "c"}
    assert fakes.answer("get_weather", paris, 0) == FakeAnswer({"c": 1})
    assert fakes.answer("get_weather", {"city": "Rome"}, 0) == FakeAnswer({"c": "any"})
    assert fakes.answer("get_weather", paris, 0) == FakeAnswer({"c": 2})
    assert fakes.answer("get_weather", paris, 0) == FakeAnswer({"c": 2})
    assert fakes.answer("get_weather", paris, 1) == FakeAnswer(error="down")
    assert fakes.answer("get_time", {}, 0) is None  # not faked: the real tool runs, nothing noted
    assert fakes.unmatched == []


def test_a_call_no_entry_of_its_turn_matches_is_noted():
    case = make_case("a", "b", mocks=[{"name": "get_weather", "args": {"city": "Paris"}, "response": 1,
                                       "invocation_index": 0}])
    fakes = CaseToolFakes.of(case)
    assert fakes.answer("get_weather", {"city": "Rome"}, 0) is None
    assert fakes.answer("get_weather", {"city": "Rome"}, 1) is None  # no entry for turn 1: not faked there
    assert fakes.unmatched == [{"invocation_index": 0, "name": "get_weather", "args": {"city": "Rome"}}]


def test_wire_entries_carry_what_is_left_of_each_sequence():
    case = make_case("a", "b", mocks=[
        {"name": "get_weather", "args": {"city": "Paris"}, "responses": ["one", "two", "three"]},
        {"name": "get_weather", "error": "down", "invocation_index": 1},
        {"name": "get_time", "response": "09:00"},
    ])
    fakes = CaseToolFakes.of(case)
    assert fakes.wire_entries(0) == [
        {"name": "get_weather", "args": {"city": "Paris"}, "responses": ["one", "two", "three"]},
        {"name": "get_time", "args": {}, "responses": ["09:00"]},
    ]
    fakes.answer("get_weather", {"city": "Paris"}, 0)
    fakes.answer("get_weather", {"city": "Paris"}, 0)
    assert fakes.wire_entries(1)[:2] == [
        {"name": "get_weather", "args": {}, "error": "down"},
        {"name": "get_weather", "args": {"city": "Paris"}, "responses": ["three"]},
    ]
    # The older view keeps to entries without args or error: what agents got before.
    assert fakes.simple_mocks(1) == {"get_time": "09:00"}
    assert tool_mocks_for(case, 0) == {"get_time": "09:00"}


# --- the ADK adapter: real LlmAgent, real Runner ------------------------------------------


@pytest.fixture(scope="module")
def adk_agent():
    pytest.importorskip("google.adk")
    from evalkit.agents.adk_agent import AdkAgent

    return AdkAgent.from_directory(FIXTURES / "adk_agents" / "llm_tool_agent")


async def test_adk_agent_gets_answers_by_arguments_sequences_and_errors(adk_agent):
    case = make_case(
        "weather in Paris", "weather in Paris", "weather in Paris", "weather in Oslo", "weather in Rome",
        mocks=[
            {"name": "get_weather", "args": {"city": "Paris"}, "responses": [
                {"city": "Paris", "condition": "sunny"}, {"city": "Paris", "condition": "cloudy"}]},
            {"name": "get_weather", "args": {"city": "Oslo"}, "error": "weather service unavailable"},
        ],
    )
    turns, unmatched = await play(adk_agent, case)

    answers = [t.final_response.text() for t in turns]
    assert answers[:3] == [
        "The weather in Paris is sunny.", "The weather in Paris is cloudy.", "The weather in Paris is cloudy.",
    ]
    assert [r.response for r in tool_responses(turns[3])] == [{"error": "weather service unavailable"}]
    # Rome matches no entry: the real tool ran (its body answers "rainy") and the call is noted.
    assert answers[4] == "The weather in Rome is rainy."
    assert unmatched == [{"invocation_index": 4, "name": "get_weather", "args": {"city": "Rome"}}]


# --- turn-protocol agents: a real cmd: process --------------------------------------------


async def test_cmd_agent_receives_the_turns_entries_and_sequences_continue_across_turns():
    agent = load_agent(FAKING_AGENT)
    case = make_case(
        "weather in Paris, Paris", "weather in Paris, Oslo, Rome",
        mocks=[
            {"name": "get_weather", "args": {"city": "Paris"}, "responses": [
                {"condition": "sunny"}, {"condition": "cloudy"}, {"condition": "foggy"}]},
            {"name": "get_weather", "args": {"city": "Oslo"}, "error": "service unavailable"},
        ],
    )
    try:
        turns, unmatched = await play(agent, case)
    finally:
        await agent.aclose()

    assert [t.final_response.text() for t in turns] == [
        "Paris: sunny; Paris: cloudy",
        "Paris: foggy; Oslo: service unavailable; Rome: real",
    ]
    assert unmatched == [{"invocation_index": 1, "name": "get_weather", "args": {"city": "Rome"}}]


async def test_python_callable_sees_tool_fakes_and_tool_mocks_on_the_turn():
    from evalkit.agents.python_callable import CallableAgent

    seen = []
    agent = CallableAgent(lambda turn: seen.append((turn.tool_mocks, turn.tool_fakes)) or "ok", "seer")
    case = make_case("hi", mocks=[{"name": "lookup", "response": {"id": 1}},
                                  {"name": "lookup", "args": {"id": 2}, "error": "no such id"}])
    try:
        await play(agent, case)
    finally:
        await agent.aclose()
    assert seen == [({"lookup": {"id": 1}}, [
        {"name": "lookup", "args": {}, "responses": [{"id": 1}]},
        {"name": "lookup", "args": {"id": 2}, "error": "no such id"},
    ])]


# --- the CLI: malformed entries, and unmatched calls in the result file and console --------


@pytest.mark.parametrize("entry, message", [
    ({"name": "t", "response": 1, "error": "x"}, "give one of 'response', 'responses' and 'error'"),
    ({"name": "t", "responses": []}, "responses"),
    ({"name": "t", "args": ["city"]}, "args"),
    ({"name": "t", "response": 1, "invocation_index": -1}, "invocation_index"),
    ({"name": "t", "reponse": 1}, "reponse"),
    ({"name": "t", "fail_rate": 1.5}, "fail_rate"),
    ({"name": "t", "latency_ms": -1}, "latency_ms"),
])
def test_malformed_entries_are_input_errors_naming_the_place(tmp_path, entry, message):
    evalset = tmp_path / "fakes.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "fakes", "eval_cases": [{
        "eval_id": "one", "conversation": [{"user_content": {"role": "user", "parts": [{"text": "hi"}]}}],
        "tool_mocks": [{"name": "ok", "response": 1}, entry]}]}))

    done = invoke_evalkit("validate", str(evalset), cwd=tmp_path)

    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "fakes.evalset.json" in done.stderr and "eval_cases[0].tool_mocks[1]" in done.stderr
    assert message in done.stderr


@pytest.mark.parametrize("agent", [ADK_AGENT, FAKING_AGENT], ids=["adk", "cmd"])
def test_unmatched_calls_are_in_the_result_file_and_on_the_console(tmp_path, agent):
    if agent == ADK_AGENT:
        pytest.importorskip("google.adk")
    evalset = tmp_path / "fakes.evalset.json"
    turn = {"user_content": {"role": "user", "parts": [{"text": "weather in Rome"}]}}
    evalset.write_text(json.dumps({"eval_set_id": "fakes", "eval_cases": [
        {"eval_id": "missed", "conversation": [turn],
         "tool_mocks": [{"name": "get_weather", "args": {"city": "Paris"}, "response": {"condition": "sunny"}}]},
        {"eval_id": "faked", "conversation": [turn],
         "tool_mocks": [{"name": "get_weather", "args": {"city": "Rome"}, "response": {"condition": "sunny"}}]},
    ]}))
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.0}}))

    done = invoke_evalkit("run", str(evalset), "--agent", agent, "--json", str(tmp_path / "r.json"), cwd=tmp_path)

    assert done.returncode == 0, done.stdout + done.stderr
    cases = {c["eval_id"]: c for c in json.loads((tmp_path / "r.json").read_text())["cases"]}
    assert cases["missed"]["unmatched_tool_calls"] == [
        {"invocation_index": 0, "name": "get_weather", "args": {"city": "Rome"}}]
    assert cases["faked"].get("unmatched_tool_calls") is None
    assert ("? fakes/missed: no tool_mocks entry matched turn 1 get_weather(city='Rome')" in done.stdout)
    assert "fakes/faked: no tool_mocks" not in done.stdout


def test_the_eval_set_json_schema_describes_the_new_entry_keys():
    from evalkit.loading.json_schema import json_schema

    properties = json_schema("evalset")["$defs"]["ToolMock"]["properties"]
    assert {"name", "args", "response", "responses", "error", "invocation_index", "latency_ms", "fail_rate",
            "seed"} <= set(properties)


# --- fault injection: latency_ms and a seeded fail_rate -------------------------------------


def test_fail_rate_fails_a_fixed_share_of_calls_for_a_seed():
    from evalkit.schema.tool_mocks import fails

    pattern = [fails(7, "get_weather", call, 0.3) for call in range(200)]
    assert pattern == [fails(7, "get_weather", call, 0.3) for call in range(200)]  # the same seed, the same calls
    assert pattern != [fails(8, "get_weather", call, 0.3) for call in range(200)]
    assert 40 <= sum(pattern) <= 80  # about 30% of 200
    assert not any(fails(7, "t", call, 0.0) for call in range(50)) and all(fails(7, "t", call, 1.0) for call in range(50))


def test_a_fault_entry_without_a_response_lets_the_calls_it_spares_through():
    case = make_case("a", mocks=[{"name": "get_weather", "fail_rate": 0.5, "seed": 3, "error": "flaky backend"},
                                 {"name": "get_time", "latency_ms": 20},
                                 {"name": "get_news", "fail_rate": 0.5, "seed": 3, "response": {"n": 1}}])
    fakes = CaseToolFakes.of(case)
    from evalkit.schema.tool_mocks import INJECTED_FAILURE, fails

    weather = [fakes.answer("get_weather", {}, 0) for _ in range(8)]
    assert weather == [FakeAnswer(error="flaky backend") if fails(3, "get_weather", i, 0.5) else
                       FakeAnswer(passes_through=True) for i in range(8)]
    assert fakes.answer("get_time", {}, 0) == FakeAnswer(passes_through=True, latency_ms=20)
    news = [fakes.answer("get_news", {}, 0) for _ in range(8)]
    assert news == [FakeAnswer(error=INJECTED_FAILURE) if fails(3, "get_news", i, 0.5) else FakeAnswer({"n": 1})
                    for i in range(8)]
    assert fakes.simple_mocks(0) == {}  # fault entries are not plain answers


async def test_adk_agent_gets_seeded_failures_and_latency(adk_agent):
    from evalkit.schema.tool_mocks import fails

    mocks = [{"name": "get_weather", "fail_rate": 0.5, "seed": 3, "error": "flaky backend", "latency_ms": 60}]
    case = make_case(*["weather in Paris"] * 6, mocks=mocks)
    first, _ = await play(adk_agent, case)
    again, _ = await play(adk_agent, case)

    expected = [{"error": "flaky backend"} if fails(3, "get_weather", i, 0.5) else {"city": "Paris", "condition": "rainy"}
                for i in range(6)]
    assert [tool_responses(t)[0].response for t in first] == expected  # spared calls ran the real tool
    assert [tool_responses(t)[0].response for t in again] == expected  # deterministic for the seed
    assert 0 < sum(fails(3, "get_weather", i, 0.5) for i in range(6)) < 6  # both kinds of answer were given
    assert all(t.tool_duration is not None and t.tool_duration >= 0.06 for t in first)
