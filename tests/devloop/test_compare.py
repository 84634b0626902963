"""`evalkit compare BASE NEW`: regressions exit 1, listed first; ADK result files read too."""

from __future__ import annotations

import json

from tests.devloop.helpers import case as case_of, evalkit, load, save, seeded

ADK_STATUS = {"passed": 1, "failed": 2, "not_evaluated": 3, "informational": 4}


def adk_result(evalkit_result: dict, set_id: str = "weather") -> dict:
    """The same run as ADK 2.13 would store it (adk-reference §3.7): integer statuses, snake_case."""
    results = []
    for case in evalkit_result["cases"]:
        metrics = [
            {"metric_name": c["name"], "threshold": c["threshold"], "criterion": {"threshold": c["threshold"]},
             "custom_function_path": None, "score": c["score"], "eval_status": ADK_STATUS[c["status"]],
             "details": {"rubric_scores": None, "token_usage_details": None, "duration_details": None}}
            for c in case["criteria"]
        ]
        results.append({
            "eval_set_file": set_id, "eval_set_id": set_id, "eval_id": case["eval_id"],
            "final_eval_status": ADK_STATUS[case["status"]], "eval_metric_results": None,
            "overall_eval_metric_results": metrics,
            "eval_metric_result_per_invocation": [
                {"actual_invocation": r["actual"], "expected_invocation": r["expected"], "eval_metric_results": metrics}
                for r in case["invocations"]
            ],
            "session_id": f"adk-eval-session-{case['eval_id']}", "session_details": None, "user_id": "test_user_id",
        })
    name = f"weather_agent_{set_id}_1795275216.5027432"
    return {"eval_set_result_id": name, "eval_set_result_name": name, "eval_set_id": set_id,
            "creation_timestamp": 1795275216.5027432, "eval_case_results": results}


def kind_of(stdout: str, case_name: str) -> str | None:
    """The change column of the table row for one case."""
    for line in stdout.splitlines():
        words = line.split()
        if len(words) > 1 and words[1] == case_name:
            return words[0]
    return None


def test_a_seeded_regression_exits_1_and_is_listed_first(demo_result, tmp_path):
    base_path, base = demo_result
    # `no_city` is last in the file; seeding the regression there shows the table reorders.
    new = save(seeded(base, "no_city", "response_match_score", 0.4, "failed", "failed"), tmp_path / "new.json")
    done = evalkit("compare", str(base_path), str(new), "--all", "--json", str(tmp_path / "diff.json"), tmp_path=tmp_path,
                   real_process=True)
    assert done.returncode == 1, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith(("regressed", "unchanged"))]
    assert rows[0].split()[:4] == ["regressed", "weather/no_city", "passed", "→"]
    assert "✗ response_match_score 1.000 → 0.400 (-0.600) passed → failed" in done.stdout
    assert done.stdout.strip().splitlines()[-1].startswith(f"compared with {base_path}: 1 regressed, 2 unchanged")
    diff = load(tmp_path / "diff.json")
    assert diff["summary"]["regressed"] == 1
    first = diff["cases"][0]
    assert (first["eval_id"], first["kind"], first["base_status"], first["new_status"]) == ("no_city", "regressed", "passed", "failed")
    match = next(c for c in first["criteria"] if c["name"] == "response_match_score")
    assert (match["base_score"], match["new_score"], match["kind"]) == (1.0, 0.4, "regressed")
    # Informational metrics (call counts, tokens) are not compared as scores.
    assert {c["name"] for c in first["criteria"]} == {"tool_trajectory_avg_score", "response_match_score"}


def test_identical_files_exit_0(demo_result, tmp_path):
    base_path, _ = demo_result
    done = evalkit("compare", str(base_path), str(base_path), tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "0 regressed, 3 unchanged" in done.stdout


def test_a_score_drop_within_the_tolerance_is_not_a_regression(demo_result, tmp_path):
    base_path, base = demo_result
    # Still above the 0.8 threshold: only the score moved.
    new = save(seeded(base, "paris", "response_match_score", 0.95), tmp_path / "new.json")
    strict = evalkit("compare", str(base_path), str(new), tmp_path=tmp_path)
    assert strict.returncode == 1
    assert kind_of(strict.stdout, "weather/paris") == "regressed" and "(-0.050)" in strict.stdout
    lenient = evalkit("compare", str(base_path), str(new), "--tolerance", "0.05", tmp_path=tmp_path)
    assert lenient.returncode == 0, lenient.stdout
    assert kind_of(lenient.stdout, "weather/paris") == "changed"
    assert "0 regressed, 1 changed, 2 unchanged, tolerance 0.05" in lenient.stdout
    assert evalkit("compare", str(base_path), str(new), "--tolerance", "0.04", tmp_path=tmp_path).returncode == 1
    # A rise is an improvement, never a failure.
    back = evalkit("compare", str(new), str(base_path), tmp_path=tmp_path)
    assert back.returncode == 0 and kind_of(back.stdout, "weather/paris") == "improved"


def test_a_case_that_passed_and_now_fails_regresses_whatever_the_tolerance(demo_result, tmp_path):
    base_path, base = demo_result
    new = save(seeded(base, "paris", "response_match_score", 0.79, "failed", "failed"), tmp_path / "new.json")
    done = evalkit("compare", str(base_path), str(new), "--tolerance", "0.5", tmp_path=tmp_path)
    assert done.returncode == 1
    assert "passed → failed" in done.stdout


def test_adk_result_files_are_read_as_base_or_new(demo_result, tmp_path):
    base_path, base = demo_result
    adk_base = save(adk_result(base), tmp_path / "weather_agent_weather_1795275216.5027432.evalset_result.json")
    regressed = seeded(base, "paris", "tool_trajectory_avg_score", 0.0, "failed", "failed")
    adk_new = save(adk_result(regressed), tmp_path / "later.evalset_result.json")

    same = evalkit("compare", str(adk_base), str(base_path), tmp_path=tmp_path)
    assert same.returncode == 0, same.stdout + same.stderr
    assert "3 unchanged" in same.stdout

    done = evalkit("compare", str(adk_base), str(adk_new), "--json", str(tmp_path / "d.json"), tmp_path=tmp_path)
    assert done.returncode == 1, done.stderr
    first = load(tmp_path / "d.json")["cases"][0]
    assert (first["eval_set_id"], first["eval_id"], first["kind"]) == ("weather", "paris", "regressed")
    trajectory = next(c for c in first["criteria"] if c["name"] == "tool_trajectory_avg_score")
    assert (trajectory["base_status"], trajectory["new_status"]) == ("passed", "failed")


def test_adk_camel_case_and_double_encoded_files_are_read(demo_result, tmp_path):
    base_path, base = demo_result
    snake = adk_result(base)
    camel = {"evalSetResultId": snake["eval_set_result_id"], "evalSetId": "weather", "evalCaseResults": [
        {"evalSetId": c["eval_set_id"], "evalId": c["eval_id"], "finalEvalStatus": c["final_eval_status"],
         "overallEvalMetricResults": [
             {"metricName": m["metric_name"], "threshold": m["threshold"], "score": m["score"], "evalStatus": m["eval_status"]}
             for m in c["overall_eval_metric_results"]]}
        for c in snake["eval_case_results"]]}
    camel_path = save(camel, tmp_path / "camel.evalset_result.json")
    encoded = tmp_path / "old.evalset_result.json"
    encoded.write_text(json.dumps(json.dumps(snake)))
    done = evalkit("compare", str(camel_path), str(encoded), tmp_path=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 regressed, 3 unchanged" in done.stdout


def test_added_and_removed_cases_are_listed_but_do_not_fail(demo_result, tmp_path):
    base_path, base = demo_result
    fewer = dict(base, cases=[c for c in base["cases"] if c["eval_id"] != "no_city"])
    renamed = dict(fewer, cases=[*fewer["cases"], {**base["cases"][2], "eval_id": "no_city_v2"}])
    new = save(renamed, tmp_path / "new.json")
    done = evalkit("compare", str(base_path), str(new), tmp_path=tmp_path)
    assert done.returncode == 0, done.stdout
    assert "1 added, 1 removed" in done.stdout
    assert kind_of(done.stdout, "weather/no_city_v2") == "added"
    assert kind_of(done.stdout, "weather/no_city") == "removed"


def test_unreadable_inputs_exit_2_with_a_readable_message(demo_result, tmp_path):
    base_path, _ = demo_result
    missing = evalkit("compare", str(base_path), str(tmp_path / "nope.json"), tmp_path=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr.strip() == f"evalkit: {tmp_path / 'nope.json'}: no such file"
    other = save({"hello": "world"}, tmp_path / "other.json")
    wrong = evalkit("compare", str(other), str(base_path), tmp_path=tmp_path)
    assert wrong.returncode == 2
    assert "not an evalkit result file or an ADK *.evalset_result.json" in wrong.stderr
    bad_status = adk_result(load(base_path))
    bad_status["eval_case_results"][0]["final_eval_status"] = 9
    wrong_status = evalkit("compare", str(save(bad_status, tmp_path / "b.evalset_result.json")), str(base_path),
                           tmp_path=tmp_path)
    assert wrong_status.returncode == 2
    assert "eval_case_results[0].final_eval_status: unknown status 9" in wrong_status.stderr
    negative = evalkit("compare", str(base_path), str(base_path), "--tolerance", "-1", tmp_path=tmp_path)
    assert negative.returncode == 2 and "cannot be negative" in negative.stderr
    assert "Traceback" not in missing.stderr + wrong.stderr + wrong_status.stderr + negative.stderr


def with_repeats(data: dict, eval_id: str, passed: int, runs: int) -> dict:
    """A copy of a result in which one case ran `runs` times and passed `passed` of them."""
    import copy

    changed = copy.deepcopy(data)
    changed["repeat"] = runs
    for target in changed["cases"]:
        count = passed if target["eval_id"] == eval_id else runs
        target["repeat"] = {"runs": runs, "passed": count, "failed": runs - count, "required": runs,
                            "pass_rate": count / runs, "flaky": 0 < count < runs}
        target["status"] = "passed" if count == runs else "failed"
    return changed


def test_significance_tells_a_real_regression_from_noise(demo_result, tmp_path):
    _, data = demo_result
    base = save(with_repeats(data, "paris", 10, 10), tmp_path / "base.json")
    real = save(with_repeats(data, "paris", 5, 10), tmp_path / "real.json")
    noise = save(with_repeats(data, "paris", 9, 10), tmp_path / "noise.json")

    done = evalkit("compare", str(base), str(real), "--significance", "0.05", "--json", str(tmp_path / "real-diff.json"),
                   tmp_path=tmp_path)
    assert done.returncode == 1, done.stderr
    row = next(line for line in done.stdout.splitlines() if "weather/paris" in line)
    assert "0.016 (10/10 → 5/10), significant" in row
    assert "1 significant regression(s)" in done.stdout.strip().splitlines()[-1]
    diff = load(tmp_path / "real-diff.json")
    assert round(case_of(diff, "paris")["p_value"], 4) == 0.0163
    assert set(diff["overall"]) >= {"test", "p_value", "regressed", "improved"}

    done = evalkit("compare", str(base), str(noise), "--significance", "0.05", tmp_path=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    row = next(line for line in done.stdout.splitlines() if "weather/paris" in line)
    assert row.startswith("regressed") and "within noise" in row
    # What this comparison could have seen, and what to do next.
    assert "1 regression(s) within noise. This comparison catches a drop of about 0." in done.stdout
    assert "80% of the time (a normal approximation); to see smaller drops, run more --repeat runs" in done.stdout
    # Without the flag, the same drop is a regression as before.
    assert evalkit("compare", str(base), str(noise), tmp_path=tmp_path).returncode == 1


def test_significance_out_of_range_is_a_usage_error(demo_result, tmp_path):
    base_path, _ = demo_result
    done = evalkit("compare", str(base_path), str(base_path), "--significance", "5", tmp_path=tmp_path)
    assert done.returncode == 2 and "--significance 5: expected a level above 0 and below 1" in done.stderr
    done = evalkit("compare", str(base_path), str(base_path), "--gate-scores", tmp_path=tmp_path)
    assert done.returncode == 2 and "--gate-scores: only means something with --significance" in done.stderr
