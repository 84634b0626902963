"""`run --baseline FILE|last` and the run history under `.evalkit/runs/`."""

from __future__ import annotations

import json

from evalkit.engine import history
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
    assert done.stderr.strip() == f"evalkit: {tmp_path / 'missing.json'}: no such file"
    assert not (tmp_path / "runs").exists()


def test_history_keeps_the_last_n_runs_and_last_means_the_previous_run(tmp_path):
    env = {"EVALKIT_HISTORY_LIMIT": "2"}
    first = evalkit("run", WEATHER, "--baseline", "last", "--quiet", tmp_path=tmp_path, env=env)
    assert first.returncode == 0, first.stderr
    assert "--baseline last: no earlier run recorded" in first.stderr
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
    monkeypatch.setenv("EVALKIT_RUNS_DIR", str(folder))
    result = RunResult(evalkit_version="0", started_at="2026-01-01T00:00:00+00:00", duration_s=0.0,
                       summary=Summary(), cases=[])
    written = [history.record(result, limit=3) for _ in range(5)]
    assert history.recorded_runs() == written[-3:]
    assert history.previous_run() == written[-1]
    monkeypatch.setenv("EVALKIT_HISTORY_LIMIT", "0")
    assert history.record(result) is None
    assert len(history.recorded_runs()) == 3
    monkeypatch.setenv("EVALKIT_HISTORY_LIMIT", "many")
    done = evalkit("run", WEATHER, "--quiet", tmp_path=tmp_path, env={"EVALKIT_HISTORY_LIMIT": "many"})
    assert done.returncode == 2
    assert "EVALKIT_HISTORY_LIMIT=many: expected a whole number" in done.stderr

