"""`adk-server:URL/APP` against a real `adk api_server` process, compared with the in-process adapter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("google.adk")

from evalkit.agents.adk_server import parse_events, parse_spec  # noqa: E402
from evalkit.api import run_evals  # noqa: E402
from evalkit.errors import AgentError, AgentLoadError  # noqa: E402
from evalkit.schema.adk_session import AdkEvent  # noqa: E402
from evalkit.testing import FakeGemini  # noqa: E402

from tests.agents.adk_server_fixture import free_port, start_adk_server, stop_adk_server  # noqa: E402
from tests.conftest import FIXTURES  # noqa: E402
from tests.in_process import invoke_evalkit  # noqa: E402

AGENTS = FIXTURES / "adk_agents"
CAPITAL_QUESTION = "What is the capital of France?"
CAPITAL_ANSWER = "Paris is the capital of France."


@pytest.fixture(scope="module")
def gemini():
    with FakeGemini(default_reply="I only know capitals.") as fake:
        fake.when(CAPITAL_QUESTION).reply(CAPITAL_ANSWER)
        with pytest.MonkeyPatch.context() as patch:  # the in-process runs in this process use it too
            for name, value in fake.environment().items():
                patch.delenv(name, raising=False) if value is None else patch.setenv(name, value)
            yield fake


@pytest.fixture(scope="module")
def server(gemini, tmp_path_factory):
    started = start_adk_server(tmp_path_factory.mktemp("adk_server"), gemini.environment())
    yield started
    stop_adk_server(started)


def turn(text: str, answer: str | None = None, tools: list | None = None) -> dict:
    invocation: dict[str, Any] = {"user_content": {"role": "user", "parts": [{"text": text}]}}
    if answer is not None:
        invocation["final_response"] = {"role": "model", "parts": [{"text": answer}]}
    invocation["intermediate_data"] = {"tool_uses": tools or []}
    return invocation


def write_set(folder: Path, set_id: str, cases: list[dict]) -> Path:
    path = folder / f"{set_id}.evalset.json"
    path.write_text(json.dumps({"eval_set_id": set_id, "eval_cases": cases}))
    return path


PARITY_SETS = {
    "table_agent": [
        {"eval_id": "paris", "conversation": [turn("weather in paris", "It is sunny in Paris.",
                                                   [{"name": "get_weather", "args": {"city": "Paris"}}])]},
        {"eval_id": "wrong_city", "conversation": [turn("weather in paris", "It is sunny in Paris.",
                                                        [{"name": "get_weather", "args": {"city": "Rome"}}])]},
        {"eval_id": "greeting_from_state", "session_input": {"app_name": "table_agent", "user_id": "ada", "state": {"user_name": "Ada"}},
         "conversation": [turn("greet me", "Howdy, Ada!")]},
        {"eval_id": "two_turns", "conversation": [turn("two answers", "Second answer."), turn("what now?", "I do not know.")]},
        {"eval_id": "wrong_answer", "conversation": [turn("two answers", "First answer only, nothing else at all.")]},
    ],
    "llm_tool_agent": [
        {"eval_id": "tool_then_answer", "conversation": [turn("weather in Paris", "The weather in Paris is rainy.",
                                                              [{"name": "get_weather", "args": {"city": "Paris"}}])]},
        {"eval_id": "missing_tool", "conversation": [turn("hello", "Ask me about the weather.",
                                                          [{"name": "get_weather", "args": {"city": "Oslo"}}])]},
    ],
    "gemini_agent": [
        {"eval_id": "capital", "conversation": [turn(CAPITAL_QUESTION, CAPITAL_ANSWER)]},
        {"eval_id": "other", "conversation": [turn("What is the capital of Peru?", "Lima is the capital of Peru.")]},
    ],
}


def verdicts(result) -> dict[str, tuple]:
    """Per case: its status and, per criterion that gates, its status and score."""
    return {
        case.eval_id: (case.status, {c.name: (c.status, c.score) for c in case.criteria if c.status != "informational"})
        for case in result.cases
    }


def tool_calls_and_answers(result) -> dict[str, list]:
    def view(actual: dict) -> tuple:
        events = (actual.get("intermediate_data") or {}).get("invocation_events") or []
        calls = [(p["function_call"]["name"], p["function_call"].get("args"))
                 for e in events for p in (e.get("content") or {}).get("parts") or [] if p.get("function_call")]
        responses = [p["function_response"].get("response")
                     for e in events for p in (e.get("content") or {}).get("parts") or [] if p.get("function_response")]
        authors = [e["author"] for e in events]
        return calls, responses, authors, actual.get("final_response")

    return {case.eval_id: [view(i.actual) for i in case.invocations] for case in result.cases}


@pytest.mark.parametrize("app", sorted(PARITY_SETS))
def test_verdicts_equal_the_in_process_adapters_case_for_case(server, app, tmp_path):
    evalset = write_set(tmp_path, app, PARITY_SETS[app])

    served = run_evals(evalset, agent=server.spec(app), jobs=4)
    in_process = run_evals(evalset, agent=str(AGENTS / app), jobs=4)

    assert verdicts(served) == verdicts(in_process)
    assert tool_calls_and_answers(served) == tool_calls_and_answers(in_process)
    statuses = {status for status, _ in verdicts(served).values()}
    assert statuses == {"passed", "failed"}, verdicts(served)  # the set tells both verdicts apart


def test_session_input_state_and_user_reach_the_served_agent(server, tmp_path):
    evalset = write_set(tmp_path, "state", [
        {"eval_id": "greet", "session_input": {"app_name": "table_agent", "user_id": "grace", "state": {"user_name": "Grace"}},
         "conversation": [turn("greet me", "Howdy, Grace!"), turn("who am i")]},
    ])

    result = run_evals(evalset, agent=server.spec("table_agent"))

    (case,) = result.cases
    greeting, identity = (i.actual["final_response"]["parts"][0]["text"] for i in case.invocations)
    assert greeting == "Howdy, Grace!"
    app, user, session_id = identity.split("/")
    assert (app, user) == ("table_agent", "grace")
    assert session_id == case.session_id and session_id.startswith("evalkit-")


def test_sessions_are_deleted_unless_kept(server, tmp_path):
    evalset = write_set(tmp_path, "keep", [
        {"eval_id": "k", "session_input": {"app_name": "table_agent", "user_id": "keeper"},
         "conversation": [turn("who am i")]},
    ])

    def sessions() -> list[str]:
        listed = httpx.get(f"{server.url}/apps/table_agent/users/keeper/sessions").json()
        return [s["id"] for s in listed]

    run_evals(evalset, agent=server.spec("table_agent"))
    assert sessions() == []

    kept = run_evals(evalset, agent=server.spec("table_agent", "?keep_sessions=1"))
    (session_id,) = sessions()
    answer = kept.cases[0].invocations[0].actual["final_response"]["parts"][0]["text"]
    assert answer.endswith("/" + session_id)
    stored = httpx.get(f"{server.url}/apps/table_agent/users/keeper/sessions/{session_id}").json()
    assert [e["author"] for e in stored["events"]] == ["user", "table_agent"]


def test_app_details_name_the_agents_that_answered(server, tmp_path):
    evalset = write_set(tmp_path, "details", PARITY_SETS["llm_tool_agent"][:1])

    result = run_evals(evalset, agent=server.spec("llm_tool_agent"))

    details = result.cases[0].invocations[0].actual["app_details"]["agent_details"]
    assert list(details) == ["weather_assistant"]
    assert details["weather_assistant"]["instructions"] == "You answer questions about the weather."
    declared = details["weather_assistant"]["tool_declarations"][0]
    assert declared["functionDeclarations"][0]["name"] == "get_weather"


def test_the_sse_transport_gives_the_same_invocations(server, tmp_path):
    evalset = write_set(tmp_path, "sse", PARITY_SETS["table_agent"])

    over_sse = run_evals(evalset, agent=server.spec("table_agent", "?transport=sse"))
    over_run = run_evals(evalset, agent=server.spec("table_agent"))

    assert verdicts(over_sse) == verdicts(over_run)
    assert tool_calls_and_answers(over_sse) == tool_calls_and_answers(over_run)


def test_json_events_agree_with_adks_own_event_on_final_responses(server):
    from google.adk.events import Event

    created = httpx.post(f"{server.url}/apps/llm_tool_agent/users/u/sessions", json={}).json()
    raw = httpx.post(f"{server.url}/run", json={
        "appName": "llm_tool_agent", "userId": "u", "sessionId": created["id"],
        "newMessage": {"role": "user", "parts": [{"text": "weather in Rome"}]}}).json()

    ours = [AdkEvent.model_validate(e).is_final_response() for e in raw]
    adks = [Event.model_validate(e).is_final_response() for e in raw]
    assert ours == adks == [False, False, True]


# --- failures -------------------------------------------------------------------------------


def test_an_unreachable_server_is_exit_2_before_any_case_runs(tmp_path):
    evalset = write_set(tmp_path, "down", PARITY_SETS["table_agent"][:1])
    port = free_port()  # nothing listens there

    done = invoke_evalkit("run", str(evalset), "--agent", f"adk-server:http://127.0.0.1:{port}/table_agent",
                          "--json", str(tmp_path / "r.json"), cwd=tmp_path)

    assert done.returncode == 2, done.stderr
    assert f"cannot reach the ADK server at http://127.0.0.1:{port}" in done.stderr
    assert "adk api_server" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "r.json").exists()


def test_an_unknown_app_lists_the_servers_apps(server, tmp_path):
    evalset = write_set(tmp_path, "unknown", PARITY_SETS["table_agent"][:1])

    done = invoke_evalkit("run", str(evalset), "--agent", server.spec("no_such_app"), cwd=tmp_path)

    assert done.returncode == 2, done.stderr
    assert "has no app 'no_such_app'" in done.stderr
    assert "gemini_agent, llm_tool_agent, table_agent" in done.stderr


@pytest.mark.parametrize("options, detail", [
    ("", "answered HTTP 500 to POST /run"),
    ("?transport=sse", "the agent failed on the ADK server: RuntimeError: the table agent blew up"),
])
def test_an_agent_failing_on_the_server_is_that_cases_error(server, tmp_path, options, detail):
    evalset = write_set(tmp_path, "errors", [
        PARITY_SETS["table_agent"][0],
        {"eval_id": "explodes", "conversation": [turn("explode", "Nothing.")]},
    ])
    out = tmp_path / "result.json"

    done = invoke_evalkit("run", str(evalset), "--agent", server.spec("table_agent", options), "--json", str(out),
                          "--quiet", cwd=tmp_path)

    assert done.returncode == 3, done.stderr
    cases = {c["eval_id"]: c for c in json.loads(out.read_text())["cases"]}
    assert cases["paris"]["status"] == "passed"
    assert cases["explodes"]["status"] == "error"
    assert detail in cases["explodes"]["error"]
    assert "case 'explodes', turn 1" in cases["explodes"]["error"]


def test_a_turn_past_the_timeout_is_that_cases_error(server, tmp_path):
    evalset = write_set(tmp_path, "slow", [{"eval_id": "hangs", "conversation": [turn("hang", "never")]}])

    result = run_evals(evalset, agent=server.spec("table_agent"), timeout=0.5)

    (case,) = result.cases
    assert case.status == "error"
    assert "no reply within 0.5 s (per-turn timeout)" in case.error


def test_malformed_events_name_the_event_and_the_field():
    with pytest.raises(AgentError, match=r"case 'c', turn 1: the ADK server sent a malformed event: events\[1\]\.content"):
        parse_events([{"author": "a"}, {"author": "a", "content": {"parts": [{"bogus": 1}]}}], "case 'c', turn 1")
    with pytest.raises(AgentError, match="not a list of events"):
        parse_events({"detail": "nope"}, "case 'c', turn 1")


@pytest.mark.parametrize("spec, message", [
    ("http://127.0.0.1:8000", "name the app"),
    ("ftp://host/app", "expected adk-server:http"),
    ("http://h/app?transport=ws", "transport=ws is not one of run, sse"),
    ("http://h/app?colour=red", "unknown option colour"),
])
def test_bad_specs_are_load_errors(spec, message):
    with pytest.raises(AgentLoadError, match=message):
        parse_spec(spec)


def test_spec_keeps_a_path_prefix_in_the_base_url():
    parsed = parse_spec("http://localhost:8080/api/my_agent?keep_sessions=1&transport=sse")
    assert (parsed.base_url, parsed.app, parsed.keep_sessions, parsed.run_route) == (
        "http://localhost:8080/api", "my_agent", True, "/run_sse")
