"""`run --baseline FILE|last` and the run history under `.evalkit/runs/`."""

from __future__ import annotations

import json
from pathlib import Path

from evalkit.results import history
from evalkit.settings import RunSettings
from evalkit.schema.results import RunResult, Summary
from tests.devloop.helpers import REGRESSED, WEATHER, evalkit, save


def test_run_with_a_baseline_reports_regressions_and_exits_1(demo_result, tmp_path):
    base_path, _ = demo_result
    done = evalkit("run", WEATHER, "--agent", REGRESSED, "--baseline", str(base_path), "--quiet", tmp_path=tmp_path)
    assert done.returncode == 1
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("3 cases: 1 passed, 2 failed")
    assert lines[1] == f"compared with {base_path}: 2 regressed, 1 unchanged"


def test_a_score_drop_alone_fails_a_passing_run_unless_tolerated(demo_result, tmp_path):
    base_path, _ = demo_result
    # A baseline that scored higher than today's (perfect) run cannot exist, so lower today's bar instead:
    # the baseline says the trajectory scored 1.0; a config with a lower threshold still passes a 0.0 now.
    config = save({"criteria": {"tool_trajectory_avg_score": 0.0, "response_match_score": 0.4}}, tmp_path / "lenient.json")
    args = ("run", WEATHER, "--agent", REGRESSED, "--config", str(config), "--baseline", str(base_path), "--quiet")
    strict = evalkit(*args, tmp_path=tmp_path)
    assert strict.stdout.splitlines()[0].startswith("3 cases: 3 passed, 0 failed")
    assert strict.returncode == 1, strict.stdout
    assert "2 regressed" in strict.stdout
    tolerated = evalkit(*args, "--tolerance", "1", tmp_path=tmp_path)
    assert tolerated.returncode == 0, tolerated.stdout
    assert "0 regressed, 2 changed, 1 unchanged, tolerance 1" in tolerated.stdout


def test_an_unreadable_baseline_stops_before_running(tmp_path):
    done = evalkit("run", WEATHER, "--baseline", str(tmp_path / "missing.json"), tmp_path=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == (f"evalkit: --baseline {tmp_path / 'missing.json'}: no such file; give a result file "
                                   "(evalkit run --json writes one) or `last` for the newest run in the history")
    assert not (tmp_path / "runs").exists()


def test_history_keeps_the_last_n_runs_and_last_means_the_previous_run(tmp_path):
    env = {"EVALKIT_HISTORY_LIMIT": "2"}
    first = evalkit("run", WEATHER, "--baseline", "last", "--quiet", tmp_path=tmp_path, env=env)
    assert first.returncode == 0, first.stderr
    assert "--baseline last: no earlier run of these eval sets (weather) recorded" in first.stderr
    runs = tmp_path / "runs"
    [oldest] = sorted(runs.glob("run-*.json"))

    second = evalkit("run", WEATHER, "--agent", REGRESSED, "--baseline", "last", "--quiet", tmp_path=tmp_path, env=env)
    assert second.returncode == 1
    assert f"compared with the last run ({oldest}): 2 regressed, 1 unchanged" in second.stdout

    third = evalkit("run", WEATHER, "--baseline", "last", "--quiet", tmp_path=tmp_path, env=env)
    assert third.returncode == 0, third.stdout
    assert "0 regressed, 2 improved, 1 unchanged" in third.stdout

    kept = sorted(runs.glob("run-*.json"))
    assert len(kept) == 2 and oldest not in kept
    summaries = [json.loads(path.read_text())["summary"] for path in kept]
    assert [(s["passed"], s["failed"]) for s in summaries] == [(1, 2), (3, 0)]


def test_history_directory_limit_and_off_switch(tmp_path, monkeypatch):
    folder = tmp_path / "h"
    result = RunResult(evalkit_version="0", started_at="2026-01-01T00:00:00+00:00", duration_s=0.0,
                       summary=Summary(), cases=[])
    written = [history.record(result, folder, limit=3) for _ in range(5)]
    assert history.recorded_runs(folder) == written[-3:]
    assert history.previous_run(folder) == written[-1]
    assert history.record(result, folder, limit=0) is None
    assert len(history.recorded_runs(folder)) == 3
    monkeypatch.setenv("EVALKIT_HISTORY_LIMIT", "many")
    done = evalkit("run", WEATHER, "--quiet", tmp_path=tmp_path, env={"EVALKIT_HISTORY_LIMIT": "many"})
    assert done.returncode == 2
    assert "EVALKIT_HISTORY_LIMIT=many: expected a whole number" in done.stderr



def test_a_new_evalkit_folder_gets_a_gitignore_of_its_own(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVALKIT_RUNS_DIR", raising=False)
    monkeypatch.setenv("EVALKIT_HISTORY_LIMIT", "3")
    environment = RunSettings().environment  # the run's: its folder and limit, as a run records them
    recorded = history.record(RunResult(evalkit_version="0", started_at="2026-01-01T00:00:00+00:00",
                                        duration_s=0.0, summary=Summary(), cases=[]),
                              environment.runs_dir, environment.history_limit)
    assert recorded is not None and recorded.parent == Path(".evalkit", "runs")
    assert (tmp_path / ".evalkit" / ".gitignore").read_text().splitlines()[-1] == "*"

    from evalkit.foundation.state_folder import make_folder

    own = tmp_path / "other" / ".evalkit"
    own.mkdir(parents=True)  # a folder the user made keeps what they put in it
    make_folder(own / "cache")
    assert not (own / ".gitignore").exists()


async def test_the_judge_cache_creates_its_evalkit_folder_with_a_gitignore(tmp_path):
    from evalkit.judge.cache import JudgeCache
    from evalkit.judge.base import JudgeReply, JudgeRequest

    cache = JudgeCache(tmp_path / ".evalkit" / "cache")
    await cache.put(JudgeRequest(model="m", prompt="p"), JudgeReply(text="t"))
    cache.close()
    assert (tmp_path / ".evalkit" / "cache" / "judge-cache.sqlite3").is_file()
    assert "*" in (tmp_path / ".evalkit" / ".gitignore").read_text().splitlines()


def test_baseline_last_is_the_last_run_of_the_same_eval_sets(tmp_path):
    weather = evalkit("run", WEATHER, "--quiet", tmp_path=tmp_path)
    assert weather.returncode == 0, weather.stderr
    [weather_run] = sorted((tmp_path / "runs").glob("run-*.json"))
    other = tmp_path / "other" / "other.evalset.json"
    other.parent.mkdir()
    other.write_text(json.dumps({"eval_set_id": "other", "eval_cases": [{"eval_id": "hi", "conversation": [
        {"user_content": {"role": "user", "parts": [{"text": "hi"}]},
         "final_response": {"role": "model", "parts": [{"text": "you said: hi"}]}}]}]}))
    unrelated = evalkit("run", str(other), "--agent", "tests/fixtures/agents_py/agents.py:echo", "--quiet",
                        tmp_path=tmp_path)
    assert unrelated.returncode == 0, unrelated.stderr

    again = evalkit("run", WEATHER, "--baseline", "last", "--quiet", tmp_path=tmp_path)
    assert again.returncode == 0, again.stderr
    assert f"compared with the last run ({weather_run}): 0 regressed, 3 unchanged" in again.stdout

    first_of_its_kind = evalkit("run", str(other), WEATHER, "--baseline", "last", "--quiet",
                                tmp_path=tmp_path, env={"EVALKIT_HISTORY_LIMIT": "20"})
    assert "--baseline last: no earlier run of these eval sets (other, weather)" in first_of_its_kind.stderr


def test_loop_options_without_their_partner_are_errors(tmp_path):
    rate = evalkit("run", WEATHER, "--pass-rate", "0.5", tmp_path=tmp_path)
    assert rate.returncode == 2 and "--pass-rate 0.5: only means something with --repeat" in rate.stderr
    tolerance = evalkit("run", WEATHER, "--tolerance", "0", tmp_path=tmp_path)
    assert tolerance.returncode == 2 and "--tolerance 0: only means something with --baseline" in tolerance.stderr
    assert rate.stdout == tolerance.stdout == ""


def test_with_significance_single_score_drops_are_within_noise(demo_result, tmp_path):
    base_path, _ = demo_result
    config = save({"criteria": {"tool_trajectory_avg_score": 0.0, "response_match_score": 0.4}}, tmp_path / "lenient.json")
    out = tmp_path / "r.json"
    done = evalkit("run", WEATHER, "--agent", REGRESSED, "--config", str(config), "--baseline", str(base_path),
                   "--significance", "0.05", "--json", str(out), tmp_path=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert ("overall (mcnemar_exact, 3 run(s) on the base side, 3 on the new): 0 case(s) worse, 0 better, "
            "p = 1.000 (adjusted 1.000): within noise at 0.05") in done.stdout
    # Three cases run once on each side: nothing could have been caught, and the console says so.
    assert "This comparison could not have caught any drop: too few runs on one side" in done.stdout
    assert "0 significant regression(s), overall within noise" in done.stdout
    comparison = json.loads(out.read_text())["comparison"]
    assert comparison["significance"] == 0.05 and comparison["summary"]["regressed"] == 2
    regressed = [c for c in comparison["cases"] if c["kind"] == "regressed"]
    assert [c["p_value"] for c in regressed] == [1.0, 1.0]  # both passed, once each side: no evidence at all
    (score_test,) = [c for c in comparison["criteria_tests"] if c["name"] == "tool_trajectory_avg_score"]
    assert score_test["p_worse"] == 0.25  # two of three cases fell: 1 in 4 sign patterns is as bad


def test_significance_needs_a_baseline(tmp_path):
    done = evalkit("run", WEATHER, "--significance", "0.05", tmp_path=tmp_path)
    assert done.returncode == 2 and "--significance 0.05: only means something with --baseline" in done.stderr


def test_quarantined_failures_are_reported_but_do_not_fail_the_run(tmp_path):
    entries = [{"case": "weather/paris", "until": "2999-12-31", "reason": "tracked in ISSUE-1"},
               {"case": "weather/london_then_tokyo", "until": "2999-12-31", "reason": "tracked in ISSUE-2"},
               {"case": "weather/atlantis", "until": "2999-12-31", "reason": "renamed"}]
    quarantine = save(entries, tmp_path / "quarantine.json")
    out = tmp_path / "r.json"
    done = evalkit("run", WEATHER, "--agent", REGRESSED, "--quarantine", str(quarantine), "--json", str(out),
                   tmp_path=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "quarantined, not counted in the exit code: weather/paris failed, weather/london_then_tokyo failed" in done.stdout
    assert f"evalkit: warning: {quarantine}[2]: quarantine entry names weather/atlantis" in done.stderr
    result = json.loads(out.read_text())
    assert {c["eval_id"]: c["quarantined"] for c in result["cases"]} == {
        "paris": True, "london_then_tokyo": True, "no_city": None}
    assert result["summary"]["quarantined"] == 2 and result["quarantine"]["unknown"] == ["weather/atlantis"]

    entries[0]["until"] = "2000-01-01"  # expired: paris counts again, and a warning names it
    save(entries, quarantine)
    done = evalkit("run", WEATHER, "--agent", REGRESSED, "--quarantine", str(quarantine), tmp_path=tmp_path)
    assert done.returncode == 1
    assert "the quarantine of weather/paris ended on 2000-01-01; it counts again" in done.stderr


def test_a_malformed_quarantine_file_stops_before_running(tmp_path):
    bad = tmp_path / "q.yaml"
    bad.write_text("- case: weather/paris\n  until: next week\n  reason: flaky\n")
    done = evalkit("run", WEATHER, "--quarantine", str(bad), tmp_path=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == (f"evalkit: {bad}: [0].until: expected the last day of the quarantine "
                                   "as YYYY-MM-DD (UTC)")


def _fill_history(tmp_path: Path, result: dict, runs: int, failing_every: int = 0) -> list[str]:
    """`runs` earlier results of the weather set in the history; with `failing_every` k, every
    k-th of them has paris and london_then_tokyo failing."""
    folder = tmp_path / "runs"
    folder.mkdir(exist_ok=True)
    ids = []
    for index in range(runs):
        data = json.loads(json.dumps(result))
        if failing_every and index % failing_every == 0:
            for case in data["cases"]:
                if case["eval_id"] != "no_city":
                    case["status"] = "failed"
        run_id = f"run-20260101T0000{index:02d}000000Z-00000{index % 10}"
        save(data, folder / f"{run_id}.json")
        ids.append(run_id)
    return ids


def test_baseline_history_tests_one_run_against_twenty(demo_result, tmp_path):
    _, base = demo_result
    ids = _fill_history(tmp_path, base, 20)
    out = tmp_path / "r.json"
    # Two cases passed in each of the last 20 runs and fail now; thresholds alone do not gate.
    done = evalkit("run", WEATHER, "--agent", REGRESSED, "--baseline", "history", "--significance", "0.05",
                   "--gate", "regressions", "--json", str(out), tmp_path=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    comparison = json.loads(out.read_text())["comparison"]
    assert comparison["baseline_runs"] == ids
    assert comparison["base"] == "the last 20 run(s) in the history"
    regressed = [c for c in comparison["cases"] if c["kind"] == "regressed"]
    assert [(c["base_passed"], c["base_runs"], c["new_passed"], c["new_runs"]) for c in regressed] == [(20, 20, 0, 1)] * 2
    assert [c["p_value"] for c in regressed] == [round(1 / 21, 6)] * 2
    assert comparison["overall"]["test"] == "stratified_exact"
    assert comparison["overall"]["p_value"] == float(f"{(1 / 21) ** 2:.6g}") and comparison["overall"]["significant"]
    assert "overall (stratified_exact, 60 run(s) on the base side, 3 on the new): 2 case(s) worse" in done.stdout


def test_baseline_history_n_and_a_case_that_passed_half_the_time(demo_result, tmp_path):
    _, base = demo_result
    _fill_history(tmp_path, base, 20, failing_every=2)  # the two cases passed 10 of 20 times
    args = ("run", WEATHER, "--agent", REGRESSED, "--baseline", "history", "--significance", "0.05", "--quiet")
    within_noise = evalkit(*args, "--gate", "regressions", tmp_path=tmp_path)
    assert within_noise.returncode == 0, within_noise.stdout + within_noise.stderr
    assert "overall within noise" in within_noise.stdout
    both = evalkit(*args, tmp_path=tmp_path)  # the default with a baseline: thresholds too
    assert both.returncode == 1
    thresholds = evalkit("run", WEATHER, "--agent", REGRESSED, "--baseline", "history:3", "--gate", "thresholds",
                         "--quiet", tmp_path=tmp_path)
    assert thresholds.returncode == 1 and "the last 3 run(s) in the history" in thresholds.stdout


def test_gate_and_history_mistakes_are_usage_errors(tmp_path):
    for args, words in [
        (["--gate", "regressions"], "--gate regressions: regressions need something to regress from"),
        (["--gate", "sometimes"], "--gate sometimes: expected thresholds, regressions or both"),
        (["--baseline", "history:0"], "--baseline history:0: expected history or history:N"),
    ]:
        done = evalkit("run", WEATHER, *args, tmp_path=tmp_path)
        assert done.returncode == 2 and words in done.stderr, (args, done.stderr)


def test_gate_scores_against_a_history_is_refused(demo_result, tmp_path):
    _, base = demo_result
    _fill_history(tmp_path, base, 3)
    done = evalkit("run", WEATHER, "--baseline", "history", "--significance", "0.05", "--gate-scores",
                   tmp_path=tmp_path)
    assert done.returncode == 2 and "--gate-scores:" in done.stderr and "drop --gate-scores" in done.stderr
