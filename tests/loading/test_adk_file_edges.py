"""Real ADK files evalkit used to reject: empty eval sets, scenarios next to scripted cases
without a config, legacy files of the same name in different folders, configs alone."""

from __future__ import annotations

import json
from pathlib import Path

from tests.in_process import invoke_evalkit

AGENT = "tests/fixtures/agents_py/agents.py:echo"


def turn(text: str, answer: str) -> dict:
    return {"user_content": {"role": "user", "parts": [{"text": text}]},
            "final_response": {"role": "model", "parts": [{"text": answer}]}}


def write(path: Path, document) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document))
    return path


def test_an_eval_set_without_cases_is_valid_but_runs_nothing(tmp_path):
    empty = write(tmp_path / "empty.evalset.json", {"eval_set_id": "empty", "eval_cases": []})
    checked = invoke_evalkit("validate", str(empty), cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert f"ok  {empty}: 0 cases, criteria from defaults" in checked.stdout
    ran = invoke_evalkit("run", str(empty), "--agent", str(Path.cwd() / AGENT), cwd=tmp_path)
    assert ran.returncode == 2
    assert "nothing selected" in ran.stderr and "Traceback" not in ran.stderr


def test_a_scenario_beside_a_scripted_case_without_config_is_not_evaluated_with_the_reason(tmp_path):
    evalset = write(tmp_path / "mixed.evalset.json", {"eval_set_id": "mixed", "eval_cases": [
        {"eval_id": "scripted", "conversation": [turn("hi", "you said: hi")]},
        {"eval_id": "trip", "conversation_scenario": {"starting_prompt": "I need a flight.",
                                                      "conversation_plan": "Fly to LAX."}},
    ]})
    checked = invoke_evalkit("validate", str(evalset), cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert f"evalkit: warning: {evalset}: eval case 'trip': will be not_evaluated:" in checked.stderr
    assert "add a test_config.json" in checked.stderr

    result = tmp_path / "r.json"
    ran = invoke_evalkit("run", str(evalset), "--agent", str(Path.cwd() / AGENT), "--json", str(result), cwd=tmp_path)
    assert ran.returncode == 1, ran.stderr  # not evaluated is not a pass
    cases = {c["eval_id"]: c for c in json.loads(result.read_text())["cases"]}
    assert cases["scripted"]["status"] == "passed"
    gating = [c["name"] for c in cases["scripted"]["criteria"] if c["status"] != "informational"]
    assert gating == ["tool_trajectory_avg_score", "response_match_score"]
    assert cases["trip"]["status"] == "not_evaluated"
    assert "multi_turn_task_success_v1" in cases["trip"]["reason"]
    assert "– mixed/trip: not evaluated: a conversation scenario cannot be scored" in ran.stdout
    assert [c["eval_id"] for c in json.loads(result.read_text())["cases"]] == ["scripted", "trip"]


def test_validate_checks_a_config_file_given_alone(tmp_path):
    good = write(tmp_path / "strict.json", {"criteria": {"tool_trajectory_avg_score": 1.0}})
    done = invoke_evalkit("validate", str(good), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"ok  {good}: config: tool_trajectory_avg_score\n" in done.stdout
    bad = write(tmp_path / "test_config.json", {"criteria": {"response_match_scor": 0.8}})
    failed = invoke_evalkit("validate", str(bad), cwd=tmp_path)
    assert failed.returncode == 2
    assert f"{bad}: criteria.response_match_scor" in failed.stderr and "did you mean 'response_match_score'" in failed.stderr


def test_legacy_files_of_the_same_name_in_different_folders_keep_apart(tmp_path):
    from evalkit.loading.plan import build_plan

    legacy = [{"query": "hi", "expected_tool_use": [], "reference": "you said: hi"}]
    for folder in ("agent_a/tests", "agent_b/tests", "other"):
        write(tmp_path / folder / "simple.test.json", legacy)
    plan = build_plan([str(tmp_path)])
    assert sorted(s.evalset.eval_set_id for s in plan.sets) == ["agent_a/tests/simple", "agent_b/tests/simple",
                                                                "other/simple"]
    alone = build_plan([str(tmp_path / "other")])
    assert [s.evalset.eval_set_id for s in alone.sets] == ["simple"]  # no collision, no change
    checked = invoke_evalkit("validate", str(tmp_path), cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr


def test_two_explicit_equal_eval_set_ids_stay_an_error(tmp_path):
    case = {"eval_id": "c", "conversation": [turn("hi", "you said: hi")]}
    first = write(tmp_path / "a" / "x.evalset.json", {"eval_set_id": "same", "eval_cases": [case]})
    write(tmp_path / "b" / "x.evalset.json", {"eval_set_id": "same", "eval_cases": [case]})
    done = invoke_evalkit("validate", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 2
    assert f"'same' is also the id of {first}" in done.stderr


def test_validate_checks_a_folder_of_configs(tmp_path):
    write(tmp_path / "configs" / "a.json", {"criteria": {"response_match_score": 0.5}})
    write(tmp_path / "configs" / "b.yaml", {"criteria": {"tool_trajectory_avg_score": 1.0}})
    done = invoke_evalkit("validate", str(tmp_path / "configs"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(": config: ") == 2
    empty = tmp_path / "nothing"
    empty.mkdir()
    assert invoke_evalkit("validate", str(empty), cwd=tmp_path).returncode == 2
