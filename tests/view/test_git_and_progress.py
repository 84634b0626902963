"""The result file's git commit and branch, and the progress file a run publishes for the viewer."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from evalkit.engine.progress_file import ProgressFile
from evalkit.results.git_info import current_git
from evalkit.schema.results import CaseResult, CriterionResult, Status
from evalkit.view.live import LiveRuns

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(folder: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": os.devnull}
    return subprocess.run(["git", *args], cwd=folder, env=env, check=True, capture_output=True, text=True).stdout.strip()


@needs_git
def test_commit_and_branch_are_read_from_the_repository_worktree_and_packed_refs(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "trunk")
    (repo / "f").write_text("x")
    _git(repo, "add", "f")
    _git(repo, "commit", "-q", "-m", "first")
    head = _git(repo, "rev-parse", "HEAD")
    (repo / "sub").mkdir()
    assert current_git(repo / "sub").model_dump() == {"commit": head, "branch": "trunk"}
    _git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "wt"))
    assert current_git(tmp_path / "wt").model_dump() == {"commit": head, "branch": "side"}
    _git(repo, "pack-refs", "--all")
    assert current_git(repo).commit == head
    _git(repo, "checkout", "-q", "--detach")
    assert current_git(repo).model_dump() == {"commit": head, "branch": None}


def test_outside_a_repository_or_in_a_broken_one_there_is_none(tmp_path: Path):
    if any((folder / ".git").exists() for folder in [tmp_path, *tmp_path.parents]):
        pytest.skip("the temporary folder is inside a repository")
    assert current_git(tmp_path) is None
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")  # a branch with no commit yet
    assert current_git(tmp_path) is None


def _case(eval_id: str, status: Status) -> CaseResult:
    return CaseResult(eval_set_id="s", eval_id=eval_id, status=status, invocations=[],
                      criteria=[CriterionResult(name="c", threshold=1.0, score=1.0 if status is Status.PASSED else 0.0,
                                                status=status)])


def test_the_viewer_reads_a_progress_file_as_it_grows_and_it_is_gone_at_the_end(tmp_path: Path):
    live = ProgressFile.start(tmp_path, {"started_at": "2026-01-01T00:00:00+00:00", "eval_set_ids": ["s"], "total": 3})
    assert live is not None
    runs = LiveRuns([tmp_path])
    [run] = runs.runs()
    assert run.summary()["cases"] == 0 and run.total == 3 and not run.stopped()
    live.add(_case("a", Status.PASSED), 3)
    live.add(_case("b", Status.FAILED), 3)
    [run] = runs.runs()
    assert run.summary() == {"cases": 2, "passed": 1, "failed": 1, "not_evaluated": 0, "errors": 0}
    assert run.rows[1]["criteria"]["c"] == {"score": 0.0, "status": "failed", "threshold": 1.0, "at": 0}
    with live.path.open("a") as handle:  # a line still being written is left for the next look
        handle.write('{"total": 3, "case": {"eval_set_id"')
    assert len(runs.runs()[0].rows) == 2
    live.close()
    assert not live.path.exists() and runs.runs() == []


def test_a_progress_file_whose_process_is_gone_is_stopped(tmp_path: Path):
    child = subprocess.Popen(["true"])
    child.wait()
    (tmp_path / "live-x.jsonl").write_text(json.dumps({"started_at": "t", "pid": child.pid, "total": 1}) + "\n")
    [run] = LiveRuns([tmp_path]).runs()
    assert run.stopped() and run.listing()["stopped"] is True


@needs_git
def test_a_run_records_its_commit_branch_and_agent(tmp_path: Path):
    from tests.conftest import ROOT
    from tests.in_process import invoke_evalkit

    shutil.copytree(ROOT / "evalsets", tmp_path / "evalsets", ignore=shutil.ignore_patterns("cassettes", "llm_*"))
    shutil.copytree(ROOT / "examples" / "weather_agent", tmp_path / "examples" / "weather_agent")
    _git(tmp_path, "init", "-q", "-b", "feature")
    _git(tmp_path, "add", "evalsets")
    _git(tmp_path, "commit", "-q", "-m", "eval sets")
    done = invoke_evalkit("run", "evalsets/weather.evalset.json", "--quiet", "--json", "r.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    written = json.loads((tmp_path / "r.json").read_text())
    assert written["git"] == {"commit": _git(tmp_path, "rev-parse", "HEAD"), "branch": "feature"}
    assert written["agent"] == "evalsets/../examples/weather_agent/agent.py:weather_agent"
