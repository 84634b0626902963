"""A signal at any moment ends with a complete result file of the finished cases (exit 130 or 143).

Real `evalkit run` processes in process groups of their own, real signals at
deterministic points: while turns are in flight (an agent that blocks), and while a
result is being written (the process group is frozen with SIGSTOP the moment the
result's temporary file appears, signalled, then let go: the signal lands mid-write).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import ROOT

# Each case's reply is large, so the result's writing lasts long enough to be caught mid-way.
AGENT = """
import os, pathlib, time
def reply(turn):
    if turn.user_text.startswith("slow"):
        pathlib.Path(os.environ["TURNS"], turn.case_id).touch()
        time.sleep(60)
    return "x" * 400_000
"""
TRAJECTORY_ONLY = {"criteria": {"tool_trajectory_avg_score": 1.0}}  # cheap on long replies


def _evalset(tmp_path: Path, fast: int, slow: int = 0) -> Path:
    cases = [{"eval_id": f"{word}{i}", "conversation": [
        {"user_content": {"role": "user", "parts": [{"text": word}]},
         "final_response": {"role": "model", "parts": [{"text": "-"}]}}]}
        for word, count in (("fast", fast), ("slow", slow)) for i in range(count)]
    path = tmp_path / "big.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "big", "eval_cases": cases}))
    return path


def _start(tmp_path: Path, evalset: Path, *flags: str) -> tuple[subprocess.Popen, Path]:
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "criteria.json").write_text(json.dumps(TRAJECTORY_ONLY))
    (tmp_path / "turns").mkdir()
    (tmp_path / "tmp").mkdir()
    out = tmp_path / "out" / "r.json"
    env = {**os.environ, "EVALKIT_RUNS_DIR": str(tmp_path / "runs"), "GITHUB_STEP_SUMMARY": "",
           "TURNS": str(tmp_path / "turns"), "TMPDIR": str(tmp_path / "tmp")}
    process = subprocess.Popen(
        [sys.executable, "-m", "evalkit", "run", str(evalset), "--agent", f"{tmp_path / 'agent.py'}:reply",
         "--config", str(tmp_path / "criteria.json"), "--json", str(out), "-q", *flags],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    return process, out


def _signal_mid_write(process: subprocess.Popen, folder: Path, prefix: str, sig: int) -> tuple[str, str]:
    """Freeze the group as soon as a temporary file named `prefix…` is in `folder`, signal it, let it go."""
    deadline = time.time() + 240
    while process.poll() is None and time.time() < deadline:
        if any(name.startswith(prefix) for name in _names(folder)):
            os.killpg(process.pid, signal.SIGSTOP)
            assert any(name.startswith(prefix) for name in _names(folder)), "the write ended before the freeze"
            os.killpg(process.pid, sig)
            os.killpg(process.pid, signal.SIGCONT)
            return process.communicate(timeout=120)
    raise AssertionError(f"no {prefix}… appeared in {folder}: {process.communicate(timeout=60)}")


def _names(folder: Path) -> list[str]:
    try:
        return [entry.name for path in (folder, *folder.glob("*/")) for entry in os.scandir(path)]
    except FileNotFoundError:
        return []


def test_sigterm_while_the_result_file_is_written_leaves_it_whole_and_exits_143(tmp_path):
    # 40 cases of 400 KB, as below: a result of 12 was written before a loaded machine's poll saw its file.
    process, out = _start(tmp_path, _evalset(tmp_path, fast=40))
    out.parent.mkdir()
    stdout, stderr = _signal_mid_write(process, out.parent, ".r.json.", signal.SIGTERM)
    assert process.returncode == 143, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    result = json.loads(out.read_text())
    assert result["summary"]["cases"] == 40 and len(result["cases"]) == 40
    assert "SIGTERM came after the run had ended; every file was written in full" in stderr
    assert [path.name for path in out.parent.iterdir()] == ["r.json"]  # no temporary file left


def test_ctrl_c_while_the_result_file_is_written_leaves_it_whole_and_exits_130(tmp_path):
    process, out = _start(tmp_path, _evalset(tmp_path, fast=40))
    out.parent.mkdir()
    stdout, stderr = _signal_mid_write(process, out.parent, ".r.json.", signal.SIGINT)
    assert process.returncode == 130, stderr
    assert len(json.loads(out.read_text())["cases"]) == 40
    assert "Ctrl-C came after the run had ended" in stderr


def test_sigterm_while_a_worker_writes_its_cases_keeps_them_and_exits_143(tmp_path):
    # The worker's lines go to a temporary folder under TMPDIR; the signal reaches the whole
    # group (both processes) while the worker is writing them.
    # 40 cases of 400 KB: the worker's lines take long enough to write to be caught mid-way.
    process, out = _start(tmp_path, _evalset(tmp_path, fast=40), "--processes", "2")
    stdout, stderr = _signal_mid_write(process, tmp_path / "tmp", ".shard-2.jsonl.", signal.SIGTERM)
    assert process.returncode == 143, stderr
    assert "wrote no result" not in stderr and "Traceback" not in stderr, stderr
    result = json.loads(out.read_text())
    # Every case of the worker, whose lines were being written, reached the parent. The parent's own shard may
    # still have had cases in flight when the signal came: those are counted as never run, not lost.
    from evalkit.engine.sharding import assign

    workers = {eval_id for (_, eval_id), shard in assign([("big", f"fast{i}") for i in range(40)], 2).items() if shard == 2}
    kept = {case["eval_id"] for case in result["cases"]}
    assert workers <= kept, stderr
    assert len(kept) == 40 or f"{40 - len(kept)} of 40 cases never ran" in stderr, stderr


def test_sigterm_to_the_group_with_processes_mid_turn_keeps_every_finished_case(tmp_path):
    process, out = _start(tmp_path, _evalset(tmp_path, fast=4, slow=4), "--processes", "2", "--jobs", "8")
    deadline = time.time() + 240
    while len(list((tmp_path / "turns").iterdir())) < 4 and time.time() < deadline and process.poll() is None:
        time.sleep(0.05)
    time.sleep(1.5)  # the slow turns' files come as they start: let the fast answers be scored
    os.killpg(process.pid, signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 143, stderr
    assert "wrote no result" not in stderr and "Traceback" not in stderr, stderr
    result = json.loads(out.read_text())
    assert result["interrupted"] is True and result["summary"]["planned"] == 8
    assert sorted(case["eval_id"] for case in result["cases"]) == [f"fast{i}" for i in range(4)]
    assert "4 of 8 cases never ran" in stderr
