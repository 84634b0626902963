"""`evalkit run` on scenario eval sets, end to end: the command, a callable
agent from a file, and the fake Gemini server (in this process) as simulator and judge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evalkit.testing import FakeGemini
from tests.in_process import invoke_evalkit
from tests.simulation.support import script

AGENT = Path(__file__).parent / "scenario_agent.py"


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, indent=2))
    return path


def scenario(eval_id: str, starting_prompt: str, persona: Any = None) -> dict:
    case = {"eval_id": eval_id, "conversation_scenario": {
        "starting_prompt": starting_prompt, "conversation_plan": "Fly from SFO to LAX next Tuesday."}}
    if persona is not None:
        case["conversation_scenario"]["user_persona"] = persona
    return case


def evalset(tmp_path: Path, *cases: dict, config: dict | None = None) -> Path:
    folder = tmp_path / "evals"
    folder.mkdir(exist_ok=True)
    write(folder / "test_config.json", config or {
        "criteria": {"per_turn_user_simulator_quality_v1": {"threshold": 1.0, "judge_model_options": {"num_samples": 1}},
                     "multi_turn_tool_use_quality_v1": {"threshold": 0.5, "judge_model_options": {"num_samples": 1}}},
        "user_simulator_config": {"max_allowed_invocations": 5},
    })
    return write(folder / "trips.evalset.json", {"eval_set_id": "trips", "eval_cases": list(cases)})


def run(path: Path, fake: FakeGemini, tmp_path: Path, *extra: str):
    out = tmp_path / "result.json"
    env = {"GOOGLE_GEMINI_BASE_URL": fake.base_url, "GOOGLE_API_KEY": "test-key", "GEMINI_API_KEY": "",
           "GOOGLE_GENAI_USE_VERTEXAI": "", "EVALKIT_CACHE_DIR": str(tmp_path / "cache"),
           "EVALKIT_JUDGE_MAX_ATTEMPTS": "2", "EVALKIT_JUDGE_RETRY_BASE_DELAY": "0.001",
           "EVALKIT_JUDGE_RETRY_MAX_DELAY": "0.01"}
    done = invoke_evalkit("run", str(path), "--agent", f"{AGENT}:travel_agent", "--json", str(out), *extra,
                          env=env, cwd=tmp_path)
    return done, (json.loads(out.read_text()) if out.exists() else None)


def user_texts(case: dict) -> list[str]:
    return [r["actual"]["user_content"]["parts"][0]["text"] for r in case["invocations"]]


TOOL_USE_VERDICTS = "\n".join(
    f"ID: {i}\nProperty: p\nRationale: fine.\nVerdict: {v}"
    for i, v in [("needed_tools_called", "yes"), ("no_unneeded_calls", "yes"), ("grounded_arguments", "yes"),
                 ("outputs_used_correctly", "no"), ("handles_tool_errors", "yes")])


def test_a_simulated_conversation_is_scored_and_written_turn_by_turn(tmp_path):
    with FakeGemini() as fake:
        script(fake, user=["To LAX, please.", "Thanks! </finished>"], judge={},
               conversation_judge=TOOL_USE_VERDICTS)
        done, result = run(evalset(tmp_path, scenario("trip", "I need a flight.")), fake, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    (case,) = result["cases"]
    assert case["status"] == "passed"
    assert user_texts(case) == ["I need a flight.", "To LAX, please."]
    assert [r["actual"]["final_response"]["parts"][0]["text"] for r in case["invocations"]] == [
        "Where would you like to fly?", "Booked: SFO to LAX on Tuesday, 8:05."]
    assert all(r.get("expected") is None for r in case["invocations"])
    quality, tool_use = case["criteria"][:2]
    assert (quality["name"], quality["score"], [t["score"] for t in quality["invocations"]]) == (
        "per_turn_user_simulator_quality_v1", 1.0, [1.0, 1.0])
    assert tool_use["score"] == 0.8 and [t["status"] for t in tool_use["invocations"]] == ["not_evaluated", "passed"]
    assert result["judge"]["requests"] == 2 + 2 + 1  # simulator, per-turn judge (turn 2 + stop check), tool use


def test_a_simulator_outage_mid_conversation_is_an_error_and_other_cases_finish(tmp_path):
    def user(prompt: str, count: int) -> str:
        if "I am doomed." in prompt and count >= 2:
            raise RuntimeError("outage")  # answered with HTTP 500 on every attempt
        return "To LAX, please." if count == 1 else "Thanks! </finished>"

    with FakeGemini() as fake:
        script(fake, user=user, judge={}, conversation_judge=TOOL_USE_VERDICTS)
        done, result = run(evalset(tmp_path, scenario("healthy", "I need a flight."),
                                   scenario("doomed", "I am doomed.")), fake, tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr
    cases = {c["eval_id"]: c for c in result["cases"]}
    assert cases["healthy"]["status"] == "passed"
    doomed = cases["doomed"]
    assert doomed["status"] == "error"
    assert "user simulator failed" in doomed["error"] and "500" in doomed["error"]
    assert user_texts(doomed) == ["I am doomed.", "To LAX, please."]  # the conversation so far
    assert result["summary"] == {**result["summary"], "cases": 2, "passed": 1, "errors": 1}


def test_an_unknown_persona_id_is_an_input_error(tmp_path):
    with FakeGemini() as fake:
        done, result = run(evalset(tmp_path, scenario("trip", "Hi.", persona="GRUMPY")), fake, tmp_path)
        assert fake.call_count == 0
    assert done.returncode == 2 and result is None
    assert "eval_cases[0].conversation_scenario.user_persona" in done.stderr
    assert "unknown persona id 'GRUMPY'" in done.stderr and "Traceback" not in done.stderr


def test_simulator_config_mistakes_are_input_errors_before_anything_runs(tmp_path):
    config = {
        "criteria": {"per_turn_user_simulator_quality_v1": 1.0},
        "user_simulator_config": {"max_allowed_invocation": 5, "max_allowed_invocations": 0,
                                  "custom_instructions": "Plan: {{ conversation_plan }}"},
    }
    path = evalset(tmp_path, scenario("trip", "Hi."), config=config)
    done = invoke_evalkit("validate", str(path), cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    errors = done.stderr
    assert "user_simulator_config.max_allowed_invocation: unknown key" in errors
    assert "user_simulator_config.max_allowed_invocations: must be at least 1" in errors
    assert "user_simulator_config.custom_instructions: the template must use {{ stop_signal }}, " \
           "{{ conversation_history }}" in errors
    assert "Traceback" not in errors


def test_a_persona_scenario_needs_persona_in_custom_instructions(tmp_path):
    config = {"criteria": {"per_turn_user_simulator_quality_v1": 1.0}, "user_simulator_config": {
        "custom_instructions": "{{ stop_signal }} {{ conversation_plan }} {{ conversation_history }}"}}
    path = evalset(tmp_path, scenario("plain", "Hi."), scenario("expert", "Hi.", persona="EXPERT"), config=config)
    done = invoke_evalkit("validate", str(path), cwd=tmp_path)
    assert done.returncode == 2
    assert "eval case 'expert'" in done.stderr and "{{ persona }}" in done.stderr
    assert "'plain'" not in done.stderr


def test_reference_criteria_on_a_scenario_are_an_input_error(tmp_path):
    config = {"criteria": {"response_match_score": 0.8}}
    path = evalset(tmp_path, scenario("trip", "Hi."), config=config)
    done = invoke_evalkit("validate", str(path), cwd=tmp_path)
    assert done.returncode == 2 and "response_match_score" in done.stderr and "scenario" in done.stderr


def test_a_valid_simulator_config_validates(tmp_path):
    config = {"criteria": {"multi_turn_task_success_v1": 0.5}, "user_simulator_config": {
        "type": "llm_backed", "model": "gemini-2.5-pro", "maxAllowedInvocations": -1, "include_function_calls": True,
        "custom_instructions": "{{ stop_signal }} {{ conversation_plan }} {{ conversation_history }} {{ persona }}"}}
    path = evalset(tmp_path, scenario("trip", "Hi.", persona="NOVICE"), config=config)
    done = invoke_evalkit("validate", str(path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
