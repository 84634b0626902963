"""The ADK adapter, with real ADK agents (no LLM) run through ADK's real Runner."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

import pytest

pytest.importorskip("google.adk")

from evalkit.agents.adk_agent import AdkAgent  # noqa: E402
from evalkit.agents.base import SessionSpec  # noqa: E402
from evalkit.agents.registry import load_agent  # noqa: E402
from evalkit.errors import AgentError, AgentLoadError  # noqa: E402
from evalkit.schema.content import Content  # noqa: E402
from evalkit.schema.evalset import AppDetails, EvalCase, Invocation  # noqa: E402
from evalkit.schema.views import tool_calls, tool_responses  # noqa: E402

from tests.conftest import FIXTURES, ROOT  # noqa: E402
from tests.in_process import invoke_evalkit  # noqa: E402

AGENTS = FIXTURES / "adk_agents"


def make_case(*texts: str, **extra: Any) -> EvalCase:
    turns = [{"user_content": {"role": "user", "parts": [{"text": t}]}} for t in texts]
    return EvalCase.model_validate({"eval_id": "c", "conversation": turns, **extra})


async def play(agent: AdkAgent, case: EvalCase, session_id: str = "evalkit-test") -> list[Invocation]:
    session = await agent.open_session(SessionSpec.for_case(case, session_id))
    try:
        return [await session.run_turn(turn.user_content, i) for i, turn in enumerate(case.conversation or [])]
    finally:
        await session.close()


def events_of(invocation: Invocation) -> list[dict]:
    return invocation.model_dump(mode="json", exclude_none=True)["intermediate_data"]["invocation_events"]


@pytest.fixture(scope="module")
def table_agent() -> AdkAgent:
    return AdkAgent.from_directory(AGENTS / "table_agent")


@pytest.fixture(scope="module")
def llm_agent() -> AdkAgent:
    return AdkAgent.from_directory(AGENTS / "llm_tool_agent")


# --- one turn → one Form B invocation ---------------------------------------------------


async def test_turn_becomes_a_form_b_invocation_with_adk_grouping(table_agent):
    (invocation,) = await play(table_agent, make_case("weather in paris"))

    assert invocation.user_content.text() == "weather in paris"
    assert invocation.final_response == Content.of_text("It is sunny in Paris.")
    assert invocation.invocation_id.startswith("e-")  # ADK's own invocation id
    assert events_of(invocation) == [
        {"author": "helper", "content": {"role": "model", "parts": [{"text": "Let me check."}]}},
        {"author": "table_agent", "content": {"role": "model", "parts": [
            {"function_call": {"id": "c1", "name": "get_weather", "args": {"city": "Paris"}}}]}},
        {"author": "table_agent", "content": {"role": "user", "parts": [
            {"function_response": {"id": "c1", "name": "get_weather", "response": {"condition": "sunny"}}}]}},
        {"author": "table_agent"},  # the final answer, kept without its text
    ]
    assert [(c.name, c.args) for c in tool_calls(invocation)] == [("get_weather", {"city": "Paris"})]
    assert [r.response for r in tool_responses(invocation)] == [{"condition": "sunny"}]
    # No model and no tool ran, but every duration is measured.
    assert invocation.duration is not None and invocation.duration >= 0
    assert (invocation.model_duration, invocation.tool_duration) == (0.0, 0.0)
    assert invocation.app_details == AppDetails(agent_details={})


async def test_last_final_response_wins_and_earlier_answers_stay_as_events(table_agent):
    (invocation,) = await play(table_agent, make_case("two answers"))

    assert invocation.final_response == Content.of_text("Second answer.")
    assert events_of(invocation) == [
        {"author": "table_agent", "content": {"role": "model", "parts": [{"text": "First answer."}]}},
        {"author": "table_agent"},
    ]


async def test_a_turn_without_events_has_no_final_response(table_agent):
    (invocation,) = await play(table_agent, make_case("silent"))

    assert invocation.final_response is None
    assert events_of(invocation) == []
    assert invocation.duration is not None


# --- sessions -------------------------------------------------------------------------------


async def test_session_input_sets_app_user_id_and_state_and_dotenv_is_loaded(table_agent):
    case = make_case(
        "who am i", "greet me",
        session_input={"app_name": "weather_app", "user_id": "ada", "session_id": "s-42", "state": {"user_name": "Ada"}},
    )
    who, greeting = await play(table_agent, case)

    assert who.final_response.text() == "weather_app/ada/s-42"
    assert greeting.final_response.text() == "Howdy, Ada!"  # "Howdy" comes from the folder's .env


async def test_without_session_input_adk_defaults_are_used(table_agent):
    who, greeting = await play(table_agent, make_case("who am i", "greet me"), session_id="evalkit-abc")

    assert who.final_response.text() == "EvaluationGenerator/test_user_id/evalkit-abc"
    assert greeting.final_response.text() == "Howdy, stranger!"


async def test_concurrent_sessions_of_one_agent_are_isolated(table_agent):
    names = [f"user{i}" for i in range(20)]
    cases = [make_case("greet me", session_input={"app_name": "a", "user_id": n, "state": {"user_name": n}}) for n in names]

    results = await asyncio.gather(*(play(table_agent, case, session_id="same-id") for case in cases))

    assert [r[0].final_response.text() for r in results] == [f"Howdy, {n}!" for n in names]


# --- a real LLM flow (scripted model, real tool) --------------------------------------------


async def test_llm_agent_records_tool_use_usage_app_details_and_durations(llm_agent):
    (invocation,) = await play(llm_agent, make_case("weather in Paris"))

    assert [(c.name, c.args) for c in tool_calls(invocation)] == [("get_weather", {"city": "Paris"})]
    assert [r.response for r in tool_responses(invocation)] == [{"city": "Paris", "condition": "rainy"}]
    assert invocation.final_response.text() == "The weather in Paris is rainy."
    events = events_of(invocation)
    assert [e.get("usage_metadata") for e in events] == [
        {"prompt_token_count": 100, "candidates_token_count": 10}, None, {"prompt_token_count": 100, "candidates_token_count": 10}
    ]
    assert [e.get("model_version") for e in events] == ["scripted-model-1", None, "scripted-model-1"]
    assert "content" not in events[-1]  # the final answer's event keeps only usage and version

    details = invocation.app_details.agent_details["weather_assistant"]
    assert "You answer questions about the weather." in details.instructions
    declared = [d["name"] for tool in details.tool_declarations for d in tool["function_declarations"]]
    assert declared == ["get_weather"]

    # Like `adk eval`, model requests without retry options get 7 attempts.
    assert llm_agent.root_agent.model.retry_attempts_seen[-2:] == [7, 7]

    # Two model calls of 20 ms and one tool call of 30 ms (see the fixture).
    assert invocation.model_duration >= 0.04
    assert invocation.tool_duration >= 0.03
    assert invocation.duration >= invocation.model_duration + invocation.tool_duration


async def test_tool_mocks_replace_the_tool_for_their_turn_only(llm_agent):
    case = make_case(
        "weather in Paris", "weather in Oslo", "weather in Rome",
        tool_mocks=[
            {"name": "get_weather", "response": {"city": "Oslo", "condition": "snowy"}, "invocation_index": 1},
            {"name": "get_weather", "response": "closed for maintenance", "invocation_index": 2},
        ],
    )
    ran_for = llm_agent.root_agent.tools[0].__globals__["cities_asked"]  # the fixture's tool records its calls
    already = len(ran_for)
    real, mocked, wrapped = await play(llm_agent, case)

    assert real.final_response.text() == "The weather in Paris is rainy."
    assert mocked.final_response.text() == "The weather in Oslo is snowy."
    assert [r.response for r in tool_responses(mocked)] == [{"city": "Oslo", "condition": "snowy"}]
    assert ran_for[already:] == ["Paris"]  # the tool body ran for the first turn only, not for the mocked ones
    assert [r.response for r in tool_responses(wrapped)] == [{"result": "closed for maintenance"}]


def test_overlapping_model_and_tool_time_is_counted_once():
    from evalkit.agents.adk_turn_plugin import TurnRecord, union_seconds

    assert union_seconds([(0.0, 2.0), (1.0, 3.0), (5.0, 6.0)]) == 4.0
    # An agent used as a tool: its model call (1-2 s) runs inside the tool call (0-3 s).
    record = TurnRecord(model_intervals=[(1.0, 2.0)], tool_intervals=[(0.0, 3.0)])
    assert (record.model_seconds(), record.tool_seconds()) == (1.0, 2.0)


# --- failures -------------------------------------------------------------------------------


async def test_an_agent_exception_is_a_one_line_agent_error(table_agent):
    with pytest.raises(AgentError) as raised:
        await play(table_agent, make_case("greet me", "explode"))

    assert str(raised.value) == "case 'c', turn 2: the agent raised RuntimeError: the table agent blew up"


async def test_a_hanging_turn_can_be_cancelled_and_the_session_closed(table_agent):
    case = make_case("hang")
    session = await table_agent.open_session(SessionSpec.for_case(case, "hang-session"))

    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(session.run_turn(case.conversation[0].user_content, 0), 0.2)
    await session.close()


@pytest.mark.parametrize(
    "folder, message",
    [
        ("missing_folder", "no such folder"),
        ("no_root", "agent.py defines none of `app` (an App), `root_agent` or `get_agent_async`"),
        ("broken_import", "importing the agent failed: RuntimeError: SERVICE_URL is not set"),
    ],
)
def test_unloadable_folders_are_agent_load_errors(folder, message):
    with pytest.raises(AgentLoadError) as raised:
        AdkAgent.from_directory(AGENTS / folder)

    assert raised.value.worded_as("--agent") == f"--agent {AGENTS / folder}: {message}"


def test_a_folder_without_init_is_not_an_agent_folder(tmp_path):
    (tmp_path / "agent.py").write_text("root_agent = None\n")

    with pytest.raises(AgentLoadError, match=r"not an ADK agent folder \(no __init__.py\)"):
        AdkAgent.from_directory(tmp_path)


def test_missing_google_adk_names_the_extra_to_install(tmp_path):
    evalset = tmp_path / "one.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "one", "eval_cases": [
        {"eval_id": "c", "conversation": [{"user_content": {"role": "user", "parts": [{"text": "hi"}]}}]}]}))
    # `sys.modules[name] = None` makes the import fail as if google-adk were not installed.
    script = (
        "import sys; sys.modules['google.adk'] = None\n"
        "from evalkit.cli import main\n"
        f"sys.argv = ['evalkit', 'run', {str(evalset)!r}, '--agent', {str(AGENTS / 'table_agent')!r}]\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path)

    assert done.returncode == 2
    assert 'pip install "google-adk>=2.13,<3"' in done.stderr
    assert 'pip install -e ".[adk]"' in done.stderr
    assert "Traceback" not in done.stderr


# --- other ways to name an ADK agent --------------------------------------------------------


async def test_an_app_folder_runs_with_the_apps_plugins():
    agent = AdkAgent.from_directory(AGENTS / "app_agent")
    (invocation,) = await play(agent, make_case("hello"))

    assert invocation.final_response.text() == "Answered by the app plugin."


async def test_a_folder_with_get_agent_async_is_built_by_awaiting_it():
    agent = AdkAgent.from_directory(AGENTS / "factory_agent")
    (invocation,) = await play(agent, make_case("hello"))

    assert invocation.final_response.text() == "built by a factory"


async def test_module_attr_spec_of_a_base_agent_uses_the_adk_adapter():
    agent = load_agent(f"{AGENTS / 'table_agent' / 'agent.py'}:root_agent")
    assert isinstance(agent, AdkAgent)

    (invocation,) = await play(agent, make_case("weather in paris"))
    assert invocation.final_response.text() == "It is sunny in Paris."


# --- parity with ADK's own inference --------------------------------------------------------


def _comparable(invocation: dict) -> dict:
    """An invocation without what differs from run to run: ids, timestamps, durations."""
    drop = {"invocation_id", "creation_timestamp", "duration", "model_duration", "tool_duration"}
    kept = {k: v for k, v in invocation.items() if k not in drop}
    ids: dict[str, str] = {}

    def renumber(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: (ids.setdefault(v, f"id-{len(ids)}") if k == "id" else renumber(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [renumber(v) for v in value]
        return value

    return renumber(kept)


@pytest.mark.parametrize(
    "folder, texts",
    [
        ("table_agent", ["weather in paris", "two answers", "greet me", "what now?"]),
        ("llm_tool_agent", ["weather in Paris", "hello"]),
        ("app_agent", ["hello"]),
    ],
)
async def test_invocations_match_adks_own_inference(folder, texts, monkeypatch):
    generator = pytest.importorskip("google.adk.evaluation.evaluation_generator")
    from google.adk.evaluation.eval_set import EvalSet as AdkEvalSet

    case = make_case(*texts, session_input={"app_name": folder, "user_id": "u", "state": {"user_name": "Ada"}})
    ours_agent = AdkAgent.from_directory(AGENTS / folder)  # first, so both runs see the folder's .env
    monkeypatch.chdir(ROOT)  # ADK imports the agent as a package from the current folder
    adk_set = AdkEvalSet.model_validate({"eval_set_id": "parity", "eval_cases": [case.model_dump(mode="json", exclude_none=True)]})
    (adk_case,) = await generator.EvaluationGenerator.generate_responses(
        adk_set, f"tests.fixtures.adk_agents.{folder}", repeat_num=1
    )
    theirs = [_comparable(i.model_dump(mode="json", exclude_none=True)) for i in adk_case.responses[0]]

    ours = [_comparable(i.model_dump(mode="json", exclude_none=True)) for i in await play(ours_agent, case)]

    assert ours == theirs


# --- end to end through the command line ----------------------------------------------------


def test_cli_runs_an_adk_agent_folder_and_scores_it(tmp_path):
    def turn(text: str, answer: str, tools: list) -> dict:
        return {"user_content": {"role": "user", "parts": [{"text": text}]},
                "final_response": {"role": "model", "parts": [{"text": answer}]},
                "intermediate_data": {"tool_uses": tools}}

    paris = [{"name": "get_weather", "args": {"city": "Paris"}}]
    evalset = tmp_path / "table.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "table", "eval_cases": [
        {"eval_id": "paris", "conversation": [turn("weather in paris", "It is sunny in Paris.", paris)]},
        {"eval_id": "wrong_city", "conversation": [
            turn("weather in paris", "It is sunny in Paris.", [{"name": "get_weather", "args": {"city": "Rome"}}])]},
        {"eval_id": "explodes", "conversation": [turn("explode", "Nothing.", [])]},
    ]}))
    out = tmp_path / "result.json"

    done = invoke_evalkit("run", str(evalset), "--agent", str(AGENTS / "table_agent"), "--json", str(out), "--quiet", cwd=tmp_path)

    assert done.returncode == 3, done.stderr  # one case could not be scored
    cases = {c["eval_id"]: c for c in json.loads(out.read_text())["cases"]}
    scores = {name: {k["name"]: k["score"] for k in c["criteria"]} for name, c in cases.items()}
    assert cases["paris"]["status"] == "passed"
    assert scores["paris"]["tool_trajectory_avg_score"] == scores["paris"]["response_match_score"] == 1.0
    # The efficiency metrics have their data: one tool call, no model call, a measured duration.
    assert scores["paris"]["tool_call_count_v1"] == 1.0
    assert scores["paris"]["inference_call_count_v1"] == 0.0
    assert scores["paris"]["invocation_duration_v1"] >= 0
    assert cases["wrong_city"]["status"] == "failed"
    assert scores["wrong_city"]["tool_trajectory_avg_score"] == 0.0
    assert cases["explodes"]["status"] == "error"
    assert cases["explodes"]["error"] == "case 'explodes', turn 1: the agent raised RuntimeError: the table agent blew up"
    actual = cases["paris"]["invocations"][0]["actual"]
    assert actual["intermediate_data"]["invocation_events"][1]["content"]["parts"][0]["function_call"]["name"] == "get_weather"
    assert actual["duration"] >= 0

    selected = invoke_evalkit("run", f"{evalset}:paris", "--agent", str(AGENTS / "table_agent"), "--quiet", cwd=tmp_path)
    assert selected.returncode == 0, selected.stderr
