"""`evalkit run` end to end: exit codes, the result file, agents that fail.

Each exit code's contract (0, 1, 2, 3, 130) and a closed console are pinned by a real
`python -m evalkit` process; the other tests run the command in-process (tests/in_process.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from tests.conftest import FIXTURES, ROOT, run_evalkit
from tests.in_process import invoke_evalkit

WEATHER = "evalsets/weather.evalset.json"
ECHO = str(FIXTURES / "echo.evalset.json")
AGENTS = str(FIXTURES / "agents_py" / "agents.py")


def test_demo_passes_with_exit_0_and_writes_the_result_file(tmp_path):
    out = tmp_path / "result.json"
    done = run_evalkit("run", WEATHER, "--json", str(out))
    assert done.returncode == 0, done.stderr
    assert "3 cases: 3 passed, 0 failed" in done.stdout
    result = json.loads(out.read_text())
    required = {"cases": 3, "passed": 3, "failed": 0, "not_evaluated": 0, "errors": 0}
    assert {k: result["summary"][k] for k in required} == required
    paris = next(c for c in result["cases"] if c["eval_id"] == "paris")
    assert paris["eval_set_id"] == "weather" and paris["status"] == "passed" and paris["error"] is None
    trajectory = paris["criteria"][0]
    assert trajectory == {**trajectory, "name": "tool_trajectory_avg_score", "threshold": 1.0, "score": 1.0, "status": "passed"}
    assert trajectory["invocations"][0]["status"] == "passed"
    assert [c["name"] for c in paris["criteria"]][2:] == [
        "tool_call_count_v1", "inference_call_count_v1", "token_usage_v1", "invocation_duration_v1"]
    actual = paris["invocations"][0]["actual"]
    assert actual["final_response"]["parts"][0]["text"] == "It is sunny in Paris today, 24°C."
    events = actual["intermediate_data"]["invocation_events"]
    assert events[0]["content"]["parts"][0]["function_call"]["args"] == {"city": "Paris"}
    assert paris["invocations"][0]["expected"]["intermediate_data"]["tool_uses"][0]["name"] == "get_weather"


def test_regressed_agent_fails_the_gate_and_shows_the_difference():
    done = run_evalkit("run", WEATHER, "--agent", "examples/weather_agent/regressed_agent.py:weather_agent")
    assert done.returncode == 1
    assert "expected get_weather(city='Paris'), got get_weather(city='paris')" in done.stdout
    assert "'Looks sunny in Paris.'" in done.stdout
    assert "3 cases: 1 passed, 2 failed" in done.stdout


def test_an_agent_exception_marks_only_that_case_error_and_exits_3(tmp_path):
    out = tmp_path / "r.json"
    done = run_evalkit("run", f"{ECHO}:hello,boom,two_turns", "--agent", f"{AGENTS}:explodes_on_boom",
                       "--config", str(FIXTURES / "rouge_only.config.json"), "--json", str(out))
    assert done.returncode == 3, done.stderr
    cases = {c["eval_id"]: c for c in json.loads(out.read_text())["cases"]}
    assert cases["boom"]["status"] == "error"
    assert cases["boom"]["error"] == "case 'boom', turn 1: the agent raised RuntimeError: the tool backend is down"
    assert cases["hello"]["status"] == "passed" and cases["two_turns"]["status"] == "passed"
    assert "Traceback" not in done.stdout + done.stderr


def test_a_turn_past_the_timeout_is_an_error(tmp_path):
    out = tmp_path / "r.json"
    done = invoke_evalkit("run", f"{ECHO}:hello,slow", "--agent", f"{AGENTS}:slow", "--timeout", "0.5",
                          "--config", str(FIXTURES / "rouge_only.config.json"), "--json", str(out))
    assert done.returncode == 3
    cases = {c["eval_id"]: c for c in json.loads(out.read_text())["cases"]}
    assert cases["slow"]["error"] == "case 'slow', turn 1: no reply within 0.5 s (per-turn timeout)"
    assert cases["hello"]["status"] == "passed"


def test_async_agents_state_and_history(tmp_path):
    out = tmp_path / "r.json"
    done = invoke_evalkit("run", f"{ECHO}:two_turns", "--agent", f"{AGENTS}:remembers", "--json", str(out),
                          "--config", str(FIXTURES / "rouge_only.config.json"))
    texts = [i["actual"]["final_response"]["parts"][0]["text"] for i in json.loads(out.read_text())["cases"][0]["invocations"]]
    assert texts[0].startswith("turn 1 of two_turns") and texts[0].endswith("history 0")
    assert texts[1].startswith("turn 2 of two_turns") and texts[1].endswith("history 1")
    assert done.returncode == 1  # the texts differ from the references
    async_done = invoke_evalkit("run", f"{ECHO}:hello", "--agent", f"{AGENTS}:async_echo",
                                "--config", str(FIXTURES / "rouge_only.config.json"))
    assert async_done.returncode == 0, async_done.stdout + async_done.stderr


def test_a_reply_with_an_unknown_key_is_a_clear_error(tmp_path):
    done = invoke_evalkit("run", f"{ECHO}:hello", "--agent", f"{AGENTS}:bad_reply")
    assert done.returncode == 3
    assert ("case 'hello', turn 1: invalid reply: final_answer: unknown key 'final_answer'; "
            "did you mean 'final_response'?") in done.stdout


def test_replay_rescores_a_saved_run_without_the_agent(tmp_path):
    first = tmp_path / "first.json"
    invoke_evalkit("run", WEATHER, "--agent", "examples/weather_agent/regressed_agent.py:weather_agent", "--json", str(first))
    lenient = tmp_path / "test_config.json"
    lenient.write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "ignore_args": True}}}))
    done = invoke_evalkit("run", WEATHER, "--agent", f"replay:{first}", "--config", str(lenient))
    assert done.returncode == 0, done.stdout
    assert "3 cases: 3 passed" in done.stdout


def test_case_filter_and_missing_agent(tmp_path):
    done = invoke_evalkit("run", WEATHER, "--case", "paris", "--quiet")
    assert done.returncode == 0 and done.stdout.strip().startswith("1 case: 1 passed")
    no_agent = run_evalkit("run", ECHO)  # exit 2's contract, as a real process
    assert no_agent.returncode == 2
    assert "no agent to run" in no_agent.stderr
    bad_agent = invoke_evalkit("run", ECHO, "--agent", "no_such_module:fn")
    assert bad_agent.returncode == 2 and "no module named 'no_such_module'" in bad_agent.stderr


def test_ctrl_c_writes_the_finished_cases_and_exits_130(tmp_path):
    out = tmp_path / "r.json"
    marker = tmp_path / "slow-turn-began"
    process = subprocess.Popen(
        [sys.executable, "-m", "evalkit", "run", f"{ECHO}:hello,slow", "--agent", f"{AGENTS}:slow",
         "--jobs", "1", "--json", str(out), "--config", str(FIXTURES / "rouge_only.config.json")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "SLOW_TURN_MARKER": str(marker)},
    )
    deadline = time.time() + 60
    while not marker.exists() and time.time() < deadline:  # the first case is done, the slow one began
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=max(1, deadline - time.time()))
    assert process.returncode == 130, stderr
    result = json.loads(out.read_text())
    assert result["interrupted"] is True
    assert [c["eval_id"] for c in result["cases"]] == ["hello"]
    assert result["summary"]["cases"] == 1
    assert "Traceback" not in stderr


def test_detailed_results_list_each_turn():
    done = invoke_evalkit("run", f"{WEATHER}:paris", "--print_detailed_results",
                          "--agent", "examples/weather_agent/regressed_agent.py:weather_agent")
    assert done.returncode == 1
    assert "Overall Eval Status: FAILED" in done.stdout
    assert "  expected_tool_calls:        get_weather(city='Paris')" in done.stdout
    assert "  actual_tool_calls:          get_weather(city='paris')" in done.stdout
    assert "  tool_trajectory_avg_score:  FAILED (0)" in done.stdout


def test_output_paths_that_cannot_be_written(tmp_path):
    folder = invoke_evalkit("run", WEATHER, "--json", str(tmp_path))
    assert folder.returncode == 2 and f"--json {tmp_path}: is a folder" in folder.stderr
    blocked = tmp_path / "file"
    blocked.write_text("x")
    early = invoke_evalkit("run", WEATHER, "--junit", str(blocked / "deeper" / "junit.xml"))
    assert early.returncode == 2
    assert f"--junit {blocked / 'deeper' / 'junit.xml'}: {blocked} is a file, not a folder" in early.stderr
    assert early.stdout == ""  # refused before any case ran
    assert "Traceback" not in early.stderr
    same = invoke_evalkit("run", WEATHER, "--json", str(tmp_path / "r.json"), "--html", str(tmp_path / "r.json"))
    assert same.returncode == 2 and "--json writes the same file" in same.stderr
    history = invoke_evalkit("run", WEATHER, "--quiet", env={"EVALKIT_RUNS_DIR": str(blocked / "runs")})
    assert history.returncode == 0 and "could not record this run" in history.stderr


def test_a_console_closed_early_keeps_the_result_files_and_the_exit_code(tmp_path):
    out, junit = tmp_path / "r.json", tmp_path / "j.xml"
    process = subprocess.Popen(
        [sys.executable, "-m", "evalkit", "run", WEATHER, "--json", str(out), "--junit", str(junit),
         "--agent", "examples/weather_agent/regressed_agent.py:weather_agent", "--print_detailed_results"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    process.stdout.close()  # like `| head -0`: nobody reads the console
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 1, stderr.decode()  # the run's own verdict, not a pipe error
    assert json.loads(out.read_text())["summary"]["failed"] == 2 and junit.is_file()
    assert b"Traceback" not in stderr


def test_report_folders_are_tried_for_real_before_any_case_runs(tmp_path):
    # As root, os.access says yes to /proc and /sys; creating a file there fails all the same.
    for path in ("/proc/nope/r.json", "/sys/r.json"):
        done = invoke_evalkit("run", WEATHER, "--json", path)
        assert done.returncode == 2, done.stderr
        assert f"--json {path}: cannot create a file in /" in done.stderr
        assert "choose a folder you can write to" in done.stderr
        assert done.stdout == "" and "Traceback" not in done.stderr  # refused before any case ran
    kept = tmp_path / "reports"
    kept.mkdir()
    ok = invoke_evalkit("run", WEATHER, "--json", str(kept / "r.json"), "--quiet")
    assert ok.returncode == 0 and [p.name for p in kept.iterdir()] == ["r.json"]  # no probe left behind
