"""Ctrl-C and SIGTERM end a run cleanly: real `evalkit run` processes, real `cmd:` workers, real signals.

A run stopped by either signal writes its finished cases (`interrupted: true`, with
`summary.planned`), says how many cases never ran, reaps its agent processes before its
event loop closes, and exits 130 (Ctrl-C) or 143 (SIGTERM).
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import FIXTURES, ROOT

ECHO = str(FIXTURES / "echo.evalset.json")
ROUGE = str(FIXTURES / "rouge_only.config.json")

# Each turn leaves a file named after the worker's pid, then answers at once ("hello")
# or after a minute (anything else): the test signals while those turns are in flight.
WORKER = r"""
import json, os, pathlib, sys, time
folder = pathlib.Path(sys.argv[1])
for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") != "turn":
        continue
    (folder / f"{os.getpid()}-{message['session_id']}").touch()
    if message["user_text"] != "hello":
        time.sleep(60)
    print(json.dumps({"final_response": "you said: " + message["user_text"]}), flush=True)
"""

NOISE = ("Traceback", "Event loop is closed", "Exception ignored", "is closed", "never retrieved")


def _start(tmp_path: Path, evalset: str, *flags: str, group: bool = False) -> tuple[subprocess.Popen, Path, Path]:
    """`group`: in a process group of its own, as a terminal's foreground job (for `os.killpg`)."""
    worker, turns, out = tmp_path / "worker.py", tmp_path / "turns", tmp_path / "r.json"
    worker.write_text(WORKER)
    turns.mkdir()
    agent = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(worker))} {shlex.quote(str(turns))}"
    env = {**os.environ, "EVALKIT_RUNS_DIR": str(tmp_path / "runs"), "GITHUB_STEP_SUMMARY": ""}
    process = subprocess.Popen(
        [sys.executable, "-m", "evalkit", "run", evalset, "--agent", agent, "--config", ROUGE, "--json", str(out),
         *flags], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=group)
    return process, turns, out


def _wait_for_turns(process: subprocess.Popen, turns: Path, count: int) -> None:
    deadline = time.time() + 60
    while len(list(turns.iterdir())) < count and time.time() < deadline and process.poll() is None:
        time.sleep(0.05)
    assert len(list(turns.iterdir())) >= count, "the turns never started"


def _signal_when(process: subprocess.Popen, turns: Path, count: int, sig: int) -> tuple[str, str]:
    _wait_for_turns(process, turns, count)
    process.send_signal(sig)
    return process.communicate(timeout=60)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_ctrl_c_with_many_cmd_workers_mid_turn_is_quiet_and_reaps_them(tmp_path):
    cases = [{"eval_id": f"c{i}", "conversation": [
        {"user_content": {"role": "user", "parts": [{"text": f"slow {i}"}]},
         "final_response": {"role": "model", "parts": [{"text": "never"}]}}]} for i in range(12)]
    evalset = tmp_path / "many.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "many", "eval_cases": cases}))
    process, turns, out = _start(tmp_path, str(evalset), "--jobs", "6")
    stdout, stderr = _signal_when(process, turns, 6, signal.SIGINT)  # six workers, each mid-turn
    assert process.returncode == 130, stderr
    for noise in NOISE:
        assert noise not in stderr + stdout, stderr
    pids = {int(name.name.split("-")[0]) for name in turns.iterdir()}
    assert len(pids) == 6 and not any(_alive(pid) for pid in pids)  # stopped and reaped, none left behind
    result = json.loads(out.read_text())
    assert result["interrupted"] is True and result["cases"] == []
    assert result["summary"]["planned"] == 12
    assert "evalkit: interrupted; results of the finished cases were written; 12 of 12 cases never ran" in stderr
    assert "(interrupted; 12 of 12 cases never ran)" in stdout


def test_sigterm_ends_the_run_like_ctrl_c_with_exit_143(tmp_path):
    process, turns, out = _start(tmp_path, f"{ECHO}:hello,slow,two_turns", "--jobs", "1")
    stdout, stderr = _signal_when(process, turns, 2, signal.SIGTERM)  # hello answered, slow in flight
    assert process.returncode == 143, stderr
    for noise in NOISE:
        assert noise not in stderr + stdout, stderr
    result = json.loads(out.read_text())
    assert result["interrupted"] is True
    assert [case["eval_id"] for case in result["cases"]] == ["hello"]
    assert result["summary"]["cases"] == 1 and result["summary"]["planned"] == 3
    assert "2 of 3 cases never ran" in stderr
    assert "echo/hello" in stdout and "1 case: 1 passed" in stdout
    pids = {int(name.name.split("-")[0]) for name in turns.iterdir()}
    assert not any(_alive(pid) for pid in pids)


def test_a_finished_run_records_what_it_planned(tmp_path):
    process, _, out = _start(tmp_path, f"{ECHO}:hello")
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    summary = json.loads(out.read_text())["summary"]
    assert summary["planned"] == summary["cases"] == 1
    assert "never ran" not in stdout + stderr


def test_ctrl_c_with_processes_keeps_every_process_s_finished_cases(tmp_path):
    # A terminal's Ctrl-C reaches the whole process group: the parent and its `--processes`
    # worker each stop mid-turn, and the parent still adds the worker's finished cases to the run.
    cases = [{"eval_id": f"{word}{i}", "conversation": [
        {"user_content": {"role": "user", "parts": [{"text": "hello" if word == "fast" else "slow"}]},
         "final_response": {"role": "model", "parts": [{"text": "you said: hello"}]}}]}
        for i in range(4) for word in ("fast", "slow")]
    evalset = tmp_path / "mixed.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "mixed", "eval_cases": cases}))
    process, turns, out = _start(tmp_path, str(evalset), "--processes", "2", "--jobs", "8", group=True)
    _wait_for_turns(process, turns, len(cases))
    time.sleep(1.5)  # a turn's file comes just before its answer: let the fast answers be scored
    os.killpg(process.pid, signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    for noise in NOISE:
        assert noise not in stderr + stdout, stderr
    assert len({name.name.split("-")[0] for name in turns.iterdir()}) >= 2  # more than one agent process ran turns
    result = json.loads(out.read_text())
    assert result["interrupted"] is True and result["summary"]["planned"] == 8
    assert sorted(case["eval_id"] for case in result["cases"]) == [f"fast{i}" for i in range(4)]
    assert all(case["status"] == "passed" for case in result["cases"])
    assert "4 of 8 cases never ran" in stderr
