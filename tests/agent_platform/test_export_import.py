"""`evalkit export agent-platform` and `evalkit import agent-platform`: lossless for what both formats
hold, and every exported file accepted by the Agent Platform SDK's own `EvaluationDataset` types."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.loading.evalsets import load_evalset
from tests.conftest import FIXTURES
from tests.in_process import invoke_evalkit

HERE = FIXTURES / "agent_platform"
TRAVEL = HERE / "project" / "tests" / "eval" / "datasets" / "travel-dataset.json"


def sdk_dataset(path: Path):
    """The file read as agents-cli's `eval grade` reads it: the SDK's EvaluationDataset."""
    try:
        from agentplatform._genai.types.common import EvaluationDataset
    except ImportError as error:  # pragma: no cover - the dev extra installs it
        pytest.skip(f"the Agent Platform SDK (google-cloud-aiplatform) cannot be imported: {error}")
    return EvaluationDataset.model_validate_json(path.read_text())


def test_a_dataset_imported_and_exported_again_is_unchanged(tmp_path):
    done = invoke_evalkit("import", "agent-platform", str(TRAVEL), "--out", str(tmp_path / "travel.evalset.json"),
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"wrote {tmp_path / 'travel.evalset.json'} (3 eval cases)")
    done = invoke_evalkit("export", "agent-platform", str(tmp_path / "travel.evalset.json"), "--out",
                          str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    exported = tmp_path / "out" / "travel-dataset.json"
    assert json.loads(exported.read_text()) == json.loads(TRAVEL.read_text())
    assert len(sdk_dataset(exported).eval_cases) == 3


def test_an_adk_eval_set_goes_to_a_dataset_and_back_with_its_adk_only_fields(tmp_path):
    evalset = tmp_path / "trip.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "trip", "eval_cases": [{
        "eval_id": "weather",
        "session_input": {"app_name": "app", "user_id": "u1", "state": {"unit": "C"}},
        "final_session_state": {"unit": "C", "asked": True},
        "conversation": [
            {"invocation_id": "i1", "user_content": {"role": "user", "parts": [{"text": "Hi"}]},
             "final_response": {"role": "model", "parts": [{"text": "Hello!"}]}},
            {"invocation_id": "i2", "user_content": {"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
             "final_response": {"role": "model", "parts": [{"text": "Sunny."}]},
             "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "Oslo"}}],
                                   "tool_responses": [{"name": "get_weather", "response": {"sky": "sunny"}}],
                                   "intermediate_responses": []}},
        ]}]}))
    done = invoke_evalkit("export", "agent-platform", str(evalset), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    exported = tmp_path / "out" / "trip-dataset.json"
    (case,) = sdk_dataset(exported).eval_cases
    events = [event for turn in case.agent_data.turns for event in turn.events]
    # Shape B: the earlier turn is history, the last user message is what the agent answers.
    assert [(e.author, e.content.parts[0].text) for e in events] == [
        ("user", "Hi"), ("root_agent", "Hello!"), ("user", "Weather in Oslo?")]
    assert case.reference.response.parts[0].text == "Sunny."
    back = tmp_path / "back.evalset.json"
    assert invoke_evalkit("import", "agent-platform", str(exported), "--out", str(back), cwd=tmp_path).returncode == 0
    (original,), (again,) = load_evalset(evalset).eval_cases, load_evalset(back).eval_cases
    assert again.session_input == original.session_input
    assert again.final_session_state == original.final_session_state
    assert again.conversation[-1] == original.conversation[-1]  # expected tool calls and responses included
    assert [e.author for e in again.prior_events] == ["user", "root_agent"]


def test_a_run_exports_as_agents_cli_writes_traces(tmp_path):
    result = tmp_path / "r.json"
    done = invoke_evalkit("run", str(TRAVEL), "--agent", f"{HERE / 'history_agent.py'}:answer", "--json",
                          str(result), "--quiet", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    done = invoke_evalkit("export", "agent-platform", str(result), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    exported = tmp_path / "out" / "travel-dataset.json"
    cases = {case.eval_case_id: case for case in sdk_dataset(exported).eval_cases}
    hello = cases["hello"]
    # A prompt case: the agent's events in turn_0, its final text in `responses`, as `eval generate` writes.
    assert hello.prompt.parts[0].text == "Hi there, what do you do?"
    assert [(t.turn_index, t.turn_id) for t in hello.agent_data.turns] == [(0, "turn_0")]
    assert hello.responses[0].response.parts[0].text.startswith("history: none; message: Hi there")
    dates = cases["dates"]
    last = dates.agent_data.turns[-1].events
    assert [e.author for e in last] == ["user", "planner"] and last[-1].content.role == "model"
    assert cases["capital"].model_extra["ticket"] == "T-17"
    # The exported file is graded as it stands: every case holds its answer.
    graded = tmp_path / "graded.json"
    (tmp_path / "out" / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.0}}))
    done = invoke_evalkit("run", str(exported), "--json", str(graded), "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(json.loads(graded.read_text())["cases"]) == 3
