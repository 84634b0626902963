"""Agent Platform datasets (`*-dataset.json`, agents-cli's eval data) read by `run` and `validate`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from evalkit.loading.evalsets import load_evalset
from evalkit.loading.plan import build_plan
from evalkit.schema.content import content_text
from tests.conftest import FIXTURES
from tests.in_process import invoke_evalkit

HERE = FIXTURES / "agent_platform"
TRAVEL = HERE / "project" / "tests" / "eval" / "datasets" / "travel-dataset.json"


def test_shape_a_and_shape_b_cases_become_eval_cases():
    evalset = load_evalset(TRAVEL)
    assert evalset.eval_set_id == "travel"
    hello, capital, dates = evalset.eval_cases
    assert [hello.eval_id, capital.eval_id, dates.eval_id] == ["hello", "capital", "dates"]
    assert content_text(hello.conversation[0].user_content) == "Hi there, what do you do?"
    assert hello.conversation[0].final_response is None and hello.recorded_answers is None
    assert content_text(capital.conversation[0].final_response) == "Rome is the capital of Italy."
    assert capital.agent_platform["context"] == "Italy's capital is Rome."
    assert capital.agent_platform["ticket"] == "T-17"  # extra fields stay for custom metrics and export
    assert "facts" in capital.agent_platform["rubric_groups"]
    # Shape B: the last user event is the turn; every event before it, across turns, is history.
    assert content_text(dates.conversation[0].user_content) == "On the 3rd of May."
    assert [(e.author, content_text(e.content)) for e in dates.prior_events] == [
        ("user", "I want to go to Lisbon."), ("planner", "When do you leave?")]
    assert dates.agent_platform["agents"]["planner"]["instruction"] == "Plan trips."


def test_a_folder_finds_datasets_and_the_eval_set_id_is_the_stem_less_dataset(tmp_path):
    folder = tmp_path / "datasets"
    folder.mkdir()
    shutil.copy(TRAVEL, folder / "travel-dataset.json")
    plan = build_plan([str(folder)])
    assert [s.evalset.eval_set_id for s in plan.sets] == ["travel"]
    assert [c.eval_id for c in plan.sets[0].cases] == ["hello", "capital", "dates"]


def test_a_case_without_an_id_is_named_by_its_place(tmp_path):
    dataset = tmp_path / "x-dataset.json"
    dataset.write_text(json.dumps({"eval_cases": [{"prompt": {"role": "user", "parts": [{"text": "hi"}]}}]}))
    assert load_evalset(dataset).eval_cases[0].eval_id == "case_0"


def test_every_bad_case_is_named_by_file_place_and_id(tmp_path):
    dataset = tmp_path / "bad-dataset.json"
    dataset.write_text(json.dumps({"eval_cases": [
        {"eval_case_id": "empty"},
        {"eval_case_id": "typo", "prompt": {"role": "user", "partz": []}},
        {"eval_case_id": "no_user", "agent_data": {"turns": [{"events": [
            {"author": "bot", "content": {"parts": [{"text": "hello"}]}}]}]}},
        {"eval_case_id": "empty"},
        {"eval_case_id": "both", "prompt": {"parts": [{"text": "a"}]}, "agent_data": {"turns": [{"events": [
            {"author": "user", "content": {"parts": [{"text": "b"}]}}]}]}},
    ]}))
    done = invoke_evalkit("validate", str(dataset), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert f"evalkit: {dataset}: eval_cases[0] (empty): case 'empty' has neither `prompt` nor `agent_data`" in lines[0]
    assert f"{dataset}: eval_cases[1].prompt.partz: unknown key 'partz'" in done.stderr
    assert f"{dataset}: eval_cases[2] (no_user): case 'no_user' has no user message" in done.stderr
    assert f"{dataset}: eval_cases[3] (empty): duplicate eval_case_id 'empty'" in done.stderr
    assert f"{dataset}: eval_cases[4] (both): case 'both' has both `prompt` and user events" in done.stderr
    assert "Traceback" not in done.stderr


def answer_to_the_dates_case(tmp_path: Path, agent: str) -> str:
    """The agent's answer to the travel dataset's one-turn case `dates`, which has a history."""
    out = tmp_path / "r.json"
    done = invoke_evalkit("run", f"{TRAVEL}:dates", "--agent", agent, "--json", str(out), "--quiet", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    (case,) = json.loads(out.read_text())["cases"]
    (turn,) = case["invocations"]
    return content_text_of(turn["actual"]["final_response"])


def test_the_agent_answers_the_last_user_message_with_the_history_it_was_given(tmp_path):
    assert answer_to_the_dates_case(tmp_path, f"{HERE / 'history_agent.py'}:answer") == (
        "history: I want to go to Lisbon. -> When do you leave?; message: On the 3rd of May.")


def test_cases_holding_their_answers_are_graded_as_they_stand_without_an_agent(tmp_path):
    config = tmp_path / "match.json"
    config.write_text(json.dumps({"criteria": {"response_match_score": 0.8}}))
    out = tmp_path / "r.json"
    done = invoke_evalkit("run", str(HERE / "answered-dataset.json"), "--config", str(config), "--json", str(out),
                          "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    cases = {c["eval_id"]: c for c in json.loads(out.read_text())["cases"]}
    assert {name: c["status"] for name, c in cases.items()} == {"sum": "passed", "weather": "passed"}
    (weather,) = cases["weather"]["invocations"]
    events = weather["actual"]["intermediate_data"]["invocation_events"]
    assert next(part for e in events for part in e["content"]["parts"])["function_call"]["name"] == "get_weather"


def test_a_case_ending_with_the_agents_message_is_refused_with_an_agent(tmp_path):
    done = invoke_evalkit("run", str(HERE / "answered-dataset.json"), "--agent",
                          f"{HERE / 'history_agent.py'}:answer", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert f"{HERE / 'answered-dataset.json'}: case 'weather': its agent_data ends with the agent's message" \
        in done.stderr
    assert "'sum'" not in done.stderr  # a prompt with responses is answered again by the agent given


def content_text_of(content: dict | None) -> str:
    return "".join(part.get("text", "") for part in (content or {}).get("parts", []))


def test_an_adk_agent_gets_the_history_as_events_of_its_session(tmp_path):
    assert answer_to_the_dates_case(tmp_path, f"{HERE / 'adk_history_agent.py'}:root_agent") == (
        "user: I want to go to Lisbon. | planner: When do you leave?")
