"""`a2a:URL` against ADK agents served by ADK's own `to_a2a` under uvicorn, compared with the
same agents run in-process: same verdicts, same tool calls, responses, authors and answers."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("google.adk")
pytest.importorskip("a2a.client")

from evalkit.api import run_evals  # noqa: E402
from evalkit.testing import FakeGemini, function_call  # noqa: E402

from tests.agents.a2a_fixture import A2A_FIXTURES, start_adk_a2a  # noqa: E402
from tests.agents.test_adk_server import tool_calls_and_answers, turn, verdicts, write_set  # noqa: E402
from tests.conftest import FIXTURES  # noqa: E402

TABLE_AGENT = FIXTURES / "adk_agents" / "table_agent"
GEMINI_TOOL_AGENT = A2A_FIXTURES / "gemini_tool_agent"


def weather_model(prompt: str, body: dict[str, Any]) -> Any:
    """The fake Gemini's script: a city in the user's last message → call get_weather; its result → answer."""
    last = (body.get("contents") or [{}])[-1]
    for part in last.get("parts") or ():
        if "functionResponse" in part:
            result = part["functionResponse"].get("response") or {}
            return f"It is {result.get('condition')} in {result.get('city')}."
    text = " ".join(p.get("text", "") for p in last.get("parts") or ())
    asked = re.search(r"(?:weather in|about) (\w+)", text)
    return function_call("get_weather", city=asked.group(1)) if asked else "Ask me about the weather."


@pytest.fixture(scope="module")
def gemini():
    with FakeGemini() as fake:
        fake.responder(weather_model)
        with pytest.MonkeyPatch.context() as patch:  # the in-process runs in this process use it too
            for name, value in fake.environment().items():
                patch.delenv(name, raising=False) if value is None else patch.setenv(name, value)
            yield fake


@pytest.fixture(scope="module")
def table_server(tmp_path_factory):
    # What the folder's .env says, which `evalkit --agent FOLDER` (like `adk`) loads and uvicorn does not.
    server = start_adk_a2a(TABLE_AGENT, tmp_path_factory.mktemp("a2a_table"), {"EVALKIT_TABLE_AGENT_GREETING": "Howdy"})
    yield server
    server.stop()


@pytest.fixture(scope="module")
def gemini_server(gemini, tmp_path_factory):
    server = start_adk_a2a(GEMINI_TOOL_AGENT, tmp_path_factory.mktemp("a2a_gemini"), gemini.environment())
    yield server
    server.stop()


TABLE_CASES = [
    {"eval_id": "paris", "conversation": [turn("weather in paris", "It is sunny in Paris.",
                                               [{"name": "get_weather", "args": {"city": "Paris"}}])]},
    {"eval_id": "wrong_city", "conversation": [turn("weather in paris", "It is sunny in Paris.",
                                                    [{"name": "get_weather", "args": {"city": "Rome"}}])]},
    {"eval_id": "greeting_from_state",
     "session_input": {"app_name": "table_agent", "user_id": "ada", "state": {"user_name": "Ada"}},
     "conversation": [turn("greet me", "Howdy, Ada!")]},
    {"eval_id": "three_turns", "conversation": [turn("two answers", "Second answer."),
                                                turn("weather in paris", "It is sunny in Paris.",
                                                     [{"name": "get_weather", "args": {"city": "Paris"}}]),
                                                turn("what now?", "I do not know.")]},
    {"eval_id": "wrong_answer", "conversation": [turn("two answers", "First answer only, nothing else at all.")]},
]

GEMINI_CASES = [
    {"eval_id": "two_cities", "conversation": [
        turn("What is the weather in Paris?", "It is sunny in Paris.", [{"name": "get_weather", "args": {"city": "Paris"}}]),
        turn("And what about Oslo?", "It is rainy in Oslo.", [{"name": "get_weather", "args": {"city": "Oslo"}}])]},
    {"eval_id": "wrong_tool_args", "conversation": [
        turn("What is the weather in Lima?", "It is rainy in Lima.", [{"name": "get_weather", "args": {"city": "Quito"}}])]},
    {"eval_id": "no_tool", "conversation": [turn("Hello there", "Ask me about the weather.")]},
]


@pytest.mark.parametrize("server, folder, cases", [("table_server", TABLE_AGENT, TABLE_CASES),
                                                   ("gemini_server", GEMINI_TOOL_AGENT, GEMINI_CASES)])
def test_the_served_agent_gives_the_in_process_verdicts_and_trajectories(request, server, folder, cases, tmp_path):
    evalset = write_set(tmp_path, folder.name, cases)

    served = run_evals(evalset, agent=request.getfixturevalue(server).spec, jobs=4)
    in_process = run_evals(evalset, agent=str(folder), jobs=4)

    assert verdicts(served) == verdicts(in_process)
    assert tool_calls_and_answers(served) == tool_calls_and_answers(in_process)
    assert {status for status, _ in verdicts(served).values()} == {"passed", "failed"}, verdicts(served)


def test_a_sub_agents_text_and_the_tool_calls_keep_their_authors(table_server, tmp_path):
    result = run_evals(write_set(tmp_path, "authors", TABLE_CASES[:1]), agent=table_server.spec)

    calls, responses, authors, _ = tool_calls_and_answers(result)["paris"][0]
    assert calls == [("get_weather", {"city": "Paris"})] and responses == [{"condition": "sunny"}]
    assert authors == ["helper", "table_agent", "table_agent", "table_agent"]  # "Let me check." is the helper's


def test_an_llm_agents_tool_calls_of_each_turn_are_its_own(gemini_server, tmp_path):
    result = run_evals(write_set(tmp_path, "turns", GEMINI_CASES[:1]), agent=gemini_server.spec)

    paris, oslo = tool_calls_and_answers(result)["two_cities"]
    assert paris[0] == [("get_weather", {"city": "Paris"})] and oslo[0] == [("get_weather", {"city": "Oslo"})]
    assert oslo[1] == [{"city": "Oslo", "condition": "rainy"}]
    assert result.cases[0].status == "passed"


def test_token_usage_comes_from_adks_event_metadata(gemini_server, tmp_path):
    evalset = write_set(tmp_path, "usage", GEMINI_CASES[:1])

    served = run_evals(evalset, agent=gemini_server.spec)
    in_process = run_evals(evalset, agent=str(GEMINI_TOOL_AGENT))

    def usage(result) -> list:
        return [[(e.get("usage_metadata") or {}).get("prompt_token_count")
                 for e in i.actual["intermediate_data"]["invocation_events"]] for i in result.cases[0].invocations]

    assert usage(served) == usage(in_process)
    assert any(count for turn_counts in usage(served) for count in turn_counts)


def test_all_turns_of_a_case_share_one_context_so_the_agent_remembers(table_server, tmp_path):
    evalset = write_set(tmp_path, "context", [
        {"eval_id": "state_kept", "session_input": {"app_name": "table_agent", "user_id": "u", "state": {"user_name": "Grace"}},
         "conversation": [turn("greet me", "Howdy, Grace!"), turn("greet me", "Howdy, Grace!")]},
    ])

    result = run_evals(evalset, agent=table_server.spec)

    (case,) = result.cases
    assert case.status == "passed", [i.actual.get("final_response") for i in case.invocations]
