"""Ctrl-C and SIGTERM to a `--cluster local:2` run, as a real process and its process group: the cases that
finished are kept (also inside chunks still running), the exit code is the contract's, no process is left."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cluster.cases import CONFIG, write_agent, write_set
from tests.conftest import ROOT

pytest.importorskip("distributed", reason="the dask extra is not installed")


@pytest.mark.parametrize(("stop", "to_the_group", "code"), [
    (signal.SIGINT, False, 130), (signal.SIGINT, True, 130), (signal.SIGTERM, True, 143)],
    ids=["ctrl-c-to-evalkit-alone", "ctrl-c-to-the-process-group", "sigterm-to-the-process-group"])
def test_a_stopped_cluster_run_keeps_the_cases_that_finished_and_leaves_no_worker_behind(tmp_path, stop, to_the_group,
                                                                                         code):
    # 32 cases in chunks of two (local:2 has 4 worker threads, 4 chunks a thread): in each chunk the even case
    # answers at once and the odd one is held until the run is stopped, so no chunk ever finishes. The cases
    # that finished inside those chunks are kept, as a local run keeps its finished cases; none is held.
    evalset = write_set(tmp_path, 32, boom=None)
    agent = write_agent(tmp_path, "\n".join([
        "number = int(turn.user_text.split()[1])",
        "if number % 2:",
        "    (MARKS / f'held-{number}-{os.getpid()}').touch()",
        "    time.sleep(120)  # held until the run is stopped",
        "(MARKS / f'answered-c{number:02d}').touch()"]))
    process = subprocess.Popen(
        [sys.executable, "-m", "evalkit", "run", str(evalset), "--agent", agent, "--config", str(CONFIG),
         "--cluster", "local:2", "--jobs", "4", "--json", str(tmp_path / "r.json")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env={**os.environ, "EVALKIT_RUNS_DIR": str(tmp_path / "runs"), "EVALKIT_CACHE_DIR": str(tmp_path / "cache")})
    try:
        deadline = time.monotonic() + 120
        while len(workers := {int(mark.name.split("-")[2]) for mark in tmp_path.glob("held-*")}) < 2:
            assert process.poll() is None and time.monotonic() < deadline, process.communicate()
            time.sleep(0.05)
        if to_the_group:
            os.killpg(process.pid, stop)
        else:
            os.kill(process.pid, stop)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == code, stderr
    assert "Traceback" not in stderr
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["interrupted"] is True
    kept = [case["eval_id"] for case in result["cases"]]
    answered = {mark.name.split("-")[1] for mark in tmp_path.glob("answered-*")}
    assert kept and set(kept) <= answered, (kept, answered)  # finished inside chunks that never finished
    assert kept == sorted(kept) and {case["status"] for case in result["cases"]} == {"passed"}
    assert result["summary"]["cases"] == len(kept) and result["summary"]["planned"] == 32
    assert os.getpid() not in workers and process.pid not in workers
    deadline = time.monotonic() + 10  # a worker's exit is seen by the system a moment after the run's
    while alive := [pid for pid in workers if _alive(pid)] + _group_members(process.pid):
        assert time.monotonic() < deadline, f"processes of the run left behind: {alive}"
        time.sleep(0.05)


def _group_members(group: int) -> list[int]:
    """The live processes of a process group (zombies, whose exit is only waiting to be read, left out)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended; only its entry is left
    except FileNotFoundError:
        return False
