"""Where did my agent fail? Tracebacks and worker stderr in `error_detail` and under `--debug`,
a quiet console for a failing ADK agent, and a clean Ctrl-C with `cmd:` workers.

Real `evalkit run` processes; Python, ADK (through ADK's Runner) and Node.js agents.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, ROOT
from tests.in_process import invoke_evalkit

ECHO = str(FIXTURES / "echo.evalset.json")
AGENTS = str(FIXTURES / "agents_py" / "agents.py")
ROUGE = str(FIXTURES / "rouge_only.config.json")


def _cases(out: Path) -> dict[str, dict]:
    return {c["eval_id"]: c for c in json.loads(out.read_text())["cases"]}


def test_an_agent_traceback_is_kept_in_error_detail_and_shown_under_debug(tmp_path):
    out = tmp_path / "r.json"
    done = invoke_evalkit("run", f"{ECHO}:boom", "--agent", f"{AGENTS}:explodes_on_boom", "--config", ROUGE,
                          "--json", str(out))
    assert done.returncode == 3 and "Traceback" not in done.stdout + done.stderr
    assert "run with --debug to see where the agent failed" in done.stdout
    detail = _cases(out)["boom"]["error_detail"]
    assert detail.startswith("Traceback (most recent call last):")
    assert "agents.py" in detail and "in explodes_on_boom" in detail  # the agent's own frame
    assert detail.rstrip().endswith("RuntimeError: the tool backend is down")
    debug = invoke_evalkit("run", f"{ECHO}:boom", "--agent", f"{AGENTS}:explodes_on_boom", "--config", ROUGE, "--debug")
    assert debug.returncode == 3
    assert "in explodes_on_boom" in debug.stdout + debug.stderr
    assert "run with --debug" not in debug.stdout


ADK_SET = {"eval_set_id": "adk", "eval_cases": [
    {"eval_id": f"explodes_{i}", "conversation": [
        {"user_content": {"role": "user", "parts": [{"text": "hello"}]},
         "final_response": {"role": "model", "parts": [{"text": "never"}]}}]} for i in range(3)]}

# An LlmAgent whose callback raises: ADK's workflow runner logs a traceback for it, every turn.
FAILING_LLM_AGENT = """
from google.adk.agents import LlmAgent


def refuse(callback_context, llm_request):
    raise RuntimeError("the model gateway is down")


root_agent = LlmAgent(name="failing_agent", model="gemini-2.5-flash", before_model_callback=refuse)
"""


def test_a_failing_adk_agent_does_not_flood_the_console(tmp_path):
    pytest.importorskip("google.adk")  # not installed on Python 3.10 (ADK needs 3.11)
    evalset = tmp_path / "adk.evalset.json"
    evalset.write_text(json.dumps(ADK_SET))
    folder = tmp_path / "failing_agent"
    folder.mkdir()
    (folder / "__init__.py").write_text("from . import agent\n")
    (folder / "agent.py").write_text(FAILING_LLM_AGENT)
    out = tmp_path / "r.json"
    agent = str(folder)
    done = invoke_evalkit("run", str(evalset), "--agent", agent, "--config", ROUGE, "--json", str(out),
                          env={"GOOGLE_API_KEY": "unused"})
    assert done.returncode == 3, done.stderr
    output = done.stdout + done.stderr
    assert "Traceback" not in output and "Node execution failed" not in output, output
    assert done.stderr.strip() == ""
    assert output.count("the agent raised RuntimeError: the model gateway is down") == 1  # once, with the count
    assert "! 3 cases, the same error: " in done.stdout
    detail = _cases(out)["explodes_0"]["error_detail"]
    assert "in refuse" in detail and "RuntimeError: the model gateway is down" in detail
    debug = invoke_evalkit("run", str(evalset), "--agent", agent, "--config", ROUGE, "--debug", "--jobs", "1",
                           env={"GOOGLE_API_KEY": "unused"})
    assert "Node execution failed" in debug.stderr and "in refuse" in debug.stdout


CHATTY_WORKER = r"""
import json, sys
print("worker ready, model loaded", file=sys.stderr, flush=True)
for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") != "turn":
        continue
    print(f"handling {message['user_text']}", file=sys.stderr, flush=True)
    if message["user_text"] == "boom":
        print("database connection refused", file=sys.stderr, flush=True)
        sys.exit(3)
    print(json.dumps({"final_response": "you said: " + message["user_text"]}), flush=True)
"""


def test_worker_stderr_is_shown_under_debug_and_kept_on_failure(tmp_path):
    worker = tmp_path / "worker.py"
    worker.write_text(CHATTY_WORKER)
    agent = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(worker))}"
    out = tmp_path / "r.json"
    done = invoke_evalkit("run", f"{ECHO}:hello,boom", "--agent", agent, "--config", ROUGE, "--json", str(out),
                          "--jobs", "1")
    assert done.returncode == 3
    assert "worker ready" not in done.stdout + done.stderr  # stderr is for --debug
    detail = _cases(out)["boom"]["error_detail"]
    assert "handling boom\ndatabase connection refused" in detail
    debug = invoke_evalkit("run", f"{ECHO}:hello", "--agent", agent, "--config", ROUGE, "--debug")
    assert debug.returncode == 0
    pid_prefixed = [line for line in debug.stderr.splitlines() if "worker ready, model loaded" in line]
    assert pid_prefixed and pid_prefixed[0].split(": ")[0].startswith("python")  # worker name and pid


def test_a_worker_that_dies_at_start_stops_the_run_with_the_line_that_explains_it(tmp_path):
    out = tmp_path / "r.json"
    script = tmp_path / "agent.js"
    script.write_text("require('evalkit-no-such-module');\n")
    command = f"node {shlex.quote(str(script))}"
    done = invoke_evalkit("run", ECHO, "--agent", f"cmd:{command}", "--config", ROUGE, "--json", str(out))
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and not out.exists()  # no case counts: one message, not one error per case
    (message,) = done.stderr.splitlines()
    assert message.startswith(f"evalkit: --agent cmd:{command}: it stopped as soon as it started, before any case ran: "
                              "the agent process exited with code 1; stderr: ")
    assert "Cannot find module 'evalkit-no-such-module'" in message and "Node.js v" not in message
    assert f"run `{command}` by hand to see why" in message


def test_an_http_agent_with_nothing_listening_stops_the_run_before_it_starts(tmp_path):
    with socket.socket() as probe:  # a port that was free a moment ago, and now has no listener
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/turn"
    done = invoke_evalkit("run", ECHO, "--agent", url, "--config", ROUGE, "--json", str(tmp_path / "r.json"))
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and done.stderr.splitlines() == [
        (f"evalkit: --agent {url}: nothing answers at 127.0.0.1:{port} (Connection refused); "
         "start the agent's server first, or fix the URL")]


DIES_ON_EVERY_TURN = r"""
import json, sys
for line in sys.stdin:
    if json.loads(line).get("type") == "turn":
        print("the tool backend is down", file=sys.stderr, flush=True)
        sys.exit(3)
"""


def test_cases_that_fail_alike_are_said_once_with_their_count(tmp_path):
    worker = tmp_path / "worker.py"
    worker.write_text(DIES_ON_EVERY_TURN)
    out = tmp_path / "r.json"
    done = invoke_evalkit("run", ECHO, "--agent", f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(worker))}",
                          "--config", ROUGE, "--json", str(out), "--jobs", "1")
    assert done.returncode == 3, done.stderr  # it started fine: each case is an error, the run completes
    error_lines = [line for line in done.stdout.splitlines() if line.startswith("! ")]
    assert error_lines == [("! 4 cases, the same error: the agent process exited with code 3; "
                            "stderr: 'the tool backend is down' (echo/hello, echo/boom, echo/slow and 1 more)")]
    cases = _cases(out)
    assert cases["slow"]["error"] == ("case 'slow', turn 1: the agent process exited with code 3; "
                                      "stderr: 'the tool backend is down'")  # the result file keeps each


SLOW_WORKER = r"""
import json, pathlib, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") != "turn":
        continue
    if message["user_text"] == "slow":
        pathlib.Path(sys.argv[1]).touch()
        time.sleep(60)
    print(json.dumps({"final_response": "you said: " + message["user_text"]}), flush=True)
"""


def _interrupt_when(process: subprocess.Popen, ready, limit: float = 60) -> tuple[str, str]:
    deadline = time.time() + limit
    while not ready() and time.time() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    return process.communicate(timeout=60)


def test_ctrl_c_with_cmd_workers_is_clean_and_prints_only_what_finished(tmp_path):
    worker = tmp_path / "worker.py"
    worker.write_text(SLOW_WORKER)
    started = tmp_path / "slow-turn-started"
    agent = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(worker))} {shlex.quote(str(started))}"
    out = tmp_path / "r.json"
    env = {**os.environ, "EVALKIT_RUNS_DIR": str(tmp_path / "runs"), "GITHUB_STEP_SUMMARY": ""}
    process = subprocess.Popen(
        [sys.executable, "-m", "evalkit", "run", f"{ECHO}:hello,slow", "--agent", agent, "--jobs", "1",
         "--config", ROUGE, "--json", str(out), "--debug"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stdout, stderr = _interrupt_when(process, started.exists)
    assert process.returncode == 130, stderr
    assert "Event loop is closed" not in stderr and "Traceback" not in stderr, stderr
    assert [c["eval_id"] for c in json.loads(out.read_text())["cases"]] == ["hello"]
    assert "echo/hello" in stdout and "echo/slow" not in stdout

    started.unlink()
    nothing = subprocess.Popen(
        [sys.executable, "-m", "evalkit", "run", f"{ECHO}:slow", "--agent", agent, "--config", ROUGE],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stdout, stderr = _interrupt_when(nothing, started.exists)
    assert nothing.returncode == 130, stderr
    assert "Event loop is closed" not in stderr and "Traceback" not in stderr, stderr
    assert stdout.splitlines()[0].startswith("0 cases: 0 passed")  # no empty table, no header without rows
    assert "interrupted" in stdout and "status" not in stdout
