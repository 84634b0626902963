"""A disk that fills up is a message naming the place: exit 3 once the run has begun, exit 2 before it.

The disk is made "full" for real: the `evalkit run` process gets a file-size limit
(RLIMIT_FSIZE, with SIGXFSZ ignored), so every write past it fails with an OSError
as a write to a full disk does.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

AGENT = 'def reply(turn):\n    return "x" * 300_000\n'


def _run(tmp_path: Path, limit: int, *flags: str, case_text: str = "hi") -> subprocess.CompletedProcess:
    cases = [{"eval_id": f"c{i}", "conversation": [
        {"user_content": {"role": "user", "parts": [{"text": case_text}]},
         "final_response": {"role": "model", "parts": [{"text": "-"}]}}]} for i in range(12)]
    (tmp_path / "big.evalset.json").write_text(json.dumps({"eval_set_id": "big", "eval_cases": cases}))
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "criteria.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0}}))
    (tmp_path / "tmp").mkdir()

    def small_disk() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = {**os.environ, "EVALKIT_RUNS_DIR": str(tmp_path / "runs"), "GITHUB_STEP_SUMMARY": "",
           "TMPDIR": str(tmp_path / "tmp"), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "evalkit", "run", str(tmp_path / "big.evalset.json"), "--agent",
         f"{tmp_path / 'agent.py'}:reply", "--config", str(tmp_path / "criteria.json"), "-q", *flags],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=240, preexec_fn=small_disk)


def test_a_full_temporary_folder_keeps_the_cases_and_names_the_place_exit_3(tmp_path):
    done = _run(tmp_path, 1_500_000, "--markdown", str(tmp_path / "r.md"))
    assert done.returncode == 3, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert f"{tmp_path / 'tmp'}: cannot hold the finished cases (File too large)" in done.stderr
    assert "set TMPDIR to a folder with room" in done.stderr
    assert "12 cases: 12 passed" in done.stdout  # none was lost
    assert "12 passed" in (tmp_path / "r.md").read_text()


def test_a_result_file_the_disk_cannot_take_is_named_exit_3(tmp_path):
    done = _run(tmp_path, 2_500_000, "--json", str(tmp_path / "r.json"))
    assert done.returncode == 3, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert f"{tmp_path / 'r.json'}: cannot write here: File too large; free some space there" in done.stderr
    assert not (tmp_path / "r.json").exists() and not list(tmp_path.glob(".r.json.*"))  # no half a file


def test_no_room_for_the_plan_is_named_before_the_run_exit_2(tmp_path):
    done = _run(tmp_path, 20_000, case_text="y" * 30_000)
    assert done.returncode == 2, done.stderr
    assert f"{tmp_path / 'tmp'}: cannot hold the plan's cases (" in done.stderr
    assert "set TMPDIR to a folder with room" in done.stderr and "Traceback" not in done.stderr
