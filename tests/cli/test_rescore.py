"""`evalkit rescore RESULT.json [--config NEW.json]`: new criteria over saved turns, nothing re-run."""

from __future__ import annotations

import json

from tests.in_process import invoke_evalkit

AGENT = '''
def agent(turn):
    return {"final_response": "It is sunny in Paris.",
            "tool_calls": [{"name": "get_weather", "args": {"city": "Paris"}}]}
'''


def _turn(answer: str) -> dict:
    return {"user_content": {"role": "user", "parts": [{"text": "weather in Paris?"}]},
            "final_response": {"role": "model", "parts": [{"text": answer}]},
            "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "Paris"}}]}}


def _recorded_run(tmp_path):
    (tmp_path / "agent.py").write_text(AGENT)
    evalset = tmp_path / "weather.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "weather", "eval_cases": [
        {"eval_id": "exact", "conversation": [_turn("It is sunny in Paris.")]},
        {"eval_id": "close", "conversation": [_turn("It is sunny in Paris today.")]},
    ]}))
    first = tmp_path / "first.json"
    done = invoke_evalkit("run", str(evalset), "--agent", "agent.py:agent", "--json", str(first), "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (tmp_path / "agent.py").unlink()  # rescoring must not need the agent
    return evalset, first


def _cases(path) -> dict:
    return {c["eval_id"]: c for c in json.loads(path.read_text())["cases"]}


def test_rescore_applies_a_new_config_to_the_saved_turns(tmp_path):
    evalset, first = _recorded_run(tmp_path)
    strict = tmp_path / "strict.json"
    strict.write_text(json.dumps({"criteria": {"response_match_score": 0.95}}))
    second = tmp_path / "second.json"
    junit = tmp_path / "second.xml"

    done = invoke_evalkit("rescore", str(first), "--config", str(strict), "--json", str(second), "--junit", str(junit),
                          "--quiet", cwd=tmp_path)

    assert done.returncode == 1, done.stderr  # "close" no longer clears the stricter threshold
    before, after = _cases(first), _cases(second)
    assert after["exact"]["status"] == "passed" and after["close"]["status"] == "failed"
    assert [c["name"] for c in after["close"]["criteria"] if c["status"] != "informational"] == ["response_match_score"]
    assert after["close"]["criteria"][0]["score"] == before["close"]["criteria"][1]["score"]  # the same turns
    for case_id in before:
        assert [i["actual"]["final_response"] for i in after[case_id]["invocations"]] == \
               [i["actual"]["final_response"] for i in before[case_id]["invocations"]]
    assert after["close"]["source_file"] == str(evalset)
    assert junit.read_text().count("<testcase") == 2


def test_rescore_without_a_config_gives_the_runs_own_verdicts(tmp_path):
    _, first = _recorded_run(tmp_path)
    again = tmp_path / "again.json"

    done = invoke_evalkit("rescore", str(first), "--json", str(again), "--quiet", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    scores = {k: [(c["name"], c["score"]) for c in v["criteria"]] for k, v in _cases(first).items()}
    assert {k: [(c["name"], c["score"]) for c in v["criteria"]] for k, v in _cases(again).items()} == scores


def test_a_missing_eval_set_file_is_rebuilt_from_the_expected_turns_in_the_result(tmp_path):
    evalset, first = _recorded_run(tmp_path)
    evalset.unlink()
    strict = tmp_path / "strict.json"
    strict.write_text(json.dumps({"criteria": {"response_match_score": 0.95, "tool_trajectory_avg_score": 1.0}}))
    second = tmp_path / "second.json"

    done = invoke_evalkit("rescore", str(first), "--config", str(strict), "--json", str(second), "--quiet", cwd=tmp_path)

    assert done.returncode == 1, done.stderr
    after = _cases(second)
    assert {k: v["status"] for k, v in after.items()} == {"exact": "passed", "close": "failed"}
    assert after["close"]["eval_set_id"] == "weather"


def test_a_file_that_is_no_result_is_an_input_error(tmp_path):
    bogus = tmp_path / "bogus.json"
    bogus.write_text(json.dumps({"hello": 1}))

    done = invoke_evalkit("rescore", str(bogus), cwd=tmp_path)

    assert done.returncode == 2
    assert "not an evalkit result file or an ADK *.evalset_result.json" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_adk_result_file_is_rescored_from_its_expected_turns(tmp_path):
    def invocation(answer: str) -> dict:
        return {"invocation_id": "i1", "user_content": {"role": "user", "parts": [{"text": "weather in Paris?"}]},
                "final_response": {"role": "model", "parts": [{"text": answer}]}}

    adk_result = tmp_path / "app_weather_1.evalset_result.json"
    adk_result.write_text(json.dumps({
        "eval_set_result_id": "app_weather_1", "eval_set_id": "weather", "creation_timestamp": 1.0,
        "eval_case_results": [
            {"eval_set_id": "weather", "eval_id": case_id, "final_eval_status": 1, "overall_eval_metric_results": [],
             "eval_metric_result_per_invocation": [{"actual_invocation": invocation("It is sunny in Paris."),
                                                    "expected_invocation": invocation(expected),
                                                    "eval_metric_results": []}],
             "session_id": "s", "user_id": "u"}
            for case_id, expected in (("exact", "It is sunny in Paris."), ("off", "Rain all day in Paris."))
        ]}))
    config = tmp_path / "rouge.json"
    config.write_text(json.dumps({"criteria": {"response_match_score": 0.8}}))
    out = tmp_path / "rescored.json"

    done = invoke_evalkit("rescore", str(adk_result), "--config", str(config), "--json", str(out), "--quiet", cwd=tmp_path)

    assert done.returncode == 1, done.stderr
    assert {k: v["status"] for k, v in _cases(out).items()} == {"exact": "passed", "off": "failed"}
