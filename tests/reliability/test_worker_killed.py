"""A `--processes 2` run whose worker is killed (SIGKILL, as the OOM killer does) keeps every case it
can: the other process's, the killed worker's finished ones; the killed worker's unfinished cases
are `error` naming what happened, and the result file is written (exit 3). A real run, a real kill.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from evalkit.engine.sharding import assign

QUICK, BLOCKING = 1, 1


def _ids() -> tuple[list[str], list[str], list[str]]:
    """Case ids such that the worker's shard (2 of 2) gets quick cases, then (in file order) one that blocks."""
    names = [f"case{n:03d}" for n in range(2 * (QUICK + BLOCKING))]
    shards = assign([("s", name) for name in names], 2)  # as the run splits exactly these cases
    worker = [name for name in names if shards[("s", name)] == 2]
    here = [name for name in names if shards[("s", name)] == 1]
    return here, worker[:QUICK], worker[QUICK:]


def test_a_killed_worker_loses_only_its_unfinished_cases(tmp_path):
    here, worker_quick, worker_blocking = _ids()
    (tmp_path / "agent.py").write_text(
        "import os, time\nfrom pathlib import Path\n\n"
        f"BLOCKING = {worker_blocking!r}\n\n"
        "def agent(turn):\n"
        "    if turn.user_text in BLOCKING:  # the worker's last case: held until the test kills it\n"
        f"        Path({str(tmp_path)!r}, f'blocking-{{os.getpid()}}').touch()\n"
        "        time.sleep(120)\n"
        "    return {'final_response': 'done ' + turn.user_text}\n")
    cases = [{"eval_id": name, "conversation": [{
        "user_content": {"role": "user", "parts": [{"text": name}]},
        "final_response": {"role": "model", "parts": [{"text": f"done {name}"}]}}]}
        for name in sorted(here + worker_quick + worker_blocking)]
    (tmp_path / "set.evalset.json").write_text(json.dumps({"eval_set_id": "s", "eval_cases": cases}))
    (tmp_path / "config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.9}}))
    out = tmp_path / "r.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "evalkit", "run", str(tmp_path / "set.evalset.json"), "--agent",
         f"{tmp_path / 'agent.py'}:agent", "--config", str(tmp_path / "config.json"), "--processes", "2",
         "--jobs", "1", "--json", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "EVALKIT_RUNS_DIR": str(tmp_path / "runs"), "EVALKIT_CACHE_DIR": str(tmp_path / "cache")})
    try:
        deadline = time.monotonic() + 180  # two interpreters start on a loaded machine
        while not (marks := list(tmp_path.glob("blocking-*"))):
            assert process.poll() is None and time.monotonic() < deadline, process.communicate()
            time.sleep(0.05)
        worker_pid = int(marks[0].name.removeprefix("blocking-"))
        assert worker_pid != process.pid  # a worker, not the run's own process
        os.kill(worker_pid, signal.SIGKILL)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 3, stdout + stderr
    assert "Traceback" not in stderr, stderr
    result = json.loads(out.read_text())
    statuses = {case["eval_id"]: case["status"] for case in result["cases"]}
    assert {name: statuses[name] for name in here + worker_quick} == dict.fromkeys(here + worker_quick, "passed")
    [lost] = [case for case in result["cases"] if case["eval_id"] in worker_blocking]
    assert lost["status"] == "error"
    assert lost["error"].startswith("--processes: worker 2 of 2 ended before this case finished (killed by SIGKILL"), lost
    assert len(result["cases"]) == len(cases)
