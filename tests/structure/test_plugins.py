"""Other packages extend evalkit through entry points: a criterion, an agent prefix and a judge, found and used."""

from __future__ import annotations

import json
import os

from tests.conftest import ROOT, run_evalkit

PLUGIN_PATH = ROOT / "tests" / "fixtures" / "plugin"  # holds the package and its *.dist-info
ECHO_SET = ROOT / "tests" / "fixtures" / "echo.evalset.json"


def with_plugin() -> dict[str, str]:
    return {"PYTHONPATH": os.pathsep.join([str(PLUGIN_PATH), os.environ.get("PYTHONPATH", "")])}


def test_evalkit_criteria_lists_a_plugged_in_criterion():
    listed = run_evalkit("criteria", env=with_plugin())
    assert listed.returncode == 0, listed.stderr
    assert "echo_prefix_present_v1" in listed.stdout
    assert 'prefix = "hi"' in listed.stdout
    assert "echo_prefix_present_v1" not in run_evalkit("criteria").stdout  # not installed: not there


def test_evalkit_run_uses_a_plugged_in_agent_prefix_and_criterion(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"criteria": {"echo_prefix_present_v1": {"threshold": 1.0, "prefix": "hey"}}}))
    out = tmp_path / "result.json"
    done = run_evalkit("run", f"{ECHO_SET}:hello,two_turns", "--agent", "echo-prefix:hey", "--config", str(config),
                       "--json", str(out), env=with_plugin())
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    turns = [r["actual"]["final_response"]["parts"][0]["text"] for c in result["cases"] for r in c["invocations"]]
    assert turns == ["hey: hello", "hey: one", "hey: two"]
    scores = {c["eval_id"]: c["criteria"][0] for c in result["cases"]}
    assert {k: (v["name"], v["score"], v["status"]) for k, v in scores.items()} == {
        "hello": ("echo_prefix_present_v1", 1.0, "passed"), "two_turns": ("echo_prefix_present_v1", 1.0, "passed")}


def test_a_plugged_in_kind_that_runs_elsewhere_is_refused_under_cassettes_replay(tmp_path):
    tapes = tmp_path / "tapes"
    tapes.mkdir()
    done = run_evalkit("run", f"{ECHO_SET}:hello", "--agent", "echo-remote:http://127.0.0.1:9/agent", "--cassettes",
                       str(tapes), "--cassette-mode", "replay", env=with_plugin())
    assert done.returncode == 2, done.stderr
    assert "echo-remote:http://127.0.0.1:9/agent runs in a server evalkit does not start" in done.stderr
    assert f"evalkit proxy --cassettes {tapes}" in done.stderr and "Traceback" not in done.stderr
    # Without --cassettes the same kind runs (its loader is the plain echo-prefix one).
    out = tmp_path / "result.json"
    ran = run_evalkit("run", f"{ECHO_SET}:hello", "--agent", "echo-remote:hey", "--json", str(out), env=with_plugin())
    assert ran.returncode in (0, 1), ran.stderr
    answer = json.loads(out.read_text())["cases"][0]["invocations"][0]["actual"]["final_response"]["parts"][0]["text"]
    assert answer == "hey: hello"


def test_without_the_plugin_the_prefix_and_criterion_are_unknown(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"criteria": {"echo_prefix_present_v1": 1.0}}))
    done = run_evalkit("run", f"{ECHO_SET}:hello", "--agent", "echo-prefix:hey", "--config", str(config))
    assert done.returncode == 2
    assert "echo_prefix_present_v1" in done.stderr and "Traceback" not in done.stderr


def test_a_plugged_in_judge_backend_serves_its_model_prefix(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"criteria": {"safety_v1": {
        "threshold": 1.0, "judge_model_options": {"judge_model": "fixed/any-model", "num_samples": 1}}}}))
    out = tmp_path / "result.json"
    done = run_evalkit("run", f"{ECHO_SET}:hello", "--agent", "echo-prefix:hey", "--config", str(config), "--no-cache",
                       "--json", str(out), env=with_plugin())
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    safety = result["cases"][0]["criteria"][0]
    assert (safety["name"], safety["score"], safety["status"]) == ("safety_v1", 1.0, "passed")
    assert result["judge"]["calls"] == 1  # answered by the plug-in, not by a model
