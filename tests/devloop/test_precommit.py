"""The hooks of `.pre-commit-hooks.yaml`, run by the real `pre-commit` in a throwaway git repository.

The hooks are copied into a `repo: local` config with `language: system` and this
interpreter, so pre-commit builds no environment and fetches nothing; everything else
(entry, file pattern, stages, filename passing) is ours, as users get it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(shutil.which("pre-commit", path=str(Path(sys.executable).parent)) is None
                                and shutil.which("pre-commit") is None, reason="pre-commit is not installed")

GOOD = json.loads((ROOT / "evalsets" / "weather.evalset.json").read_text())
AGENT = ROOT / "examples" / "weather_agent" / "agent.py"


def local_hooks() -> list[dict]:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    local = []
    for hook in hooks:
        entry = hook["entry"]
        if entry.startswith("python "):
            entry = f"{sys.executable} {entry.removeprefix('python ')}"
        elif entry.startswith("evalkit "):
            entry = f"{sys.executable} -m evalkit {entry.removeprefix('evalkit ')}"
        local.append({**hook, "entry": entry, "language": "system"})
    return local


@pytest.fixture
def repo(tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "GIT_AUTHOR_NAME": "Eval Author", "GIT_AUTHOR_EMAIL": "author@example.invalid",
        "GIT_COMMITTER_NAME": "Eval Author", "GIT_COMMITTER_EMAIL": "author@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path),
        "EVALKIT_RUNS_DIR": str(tmp_path / "runs"), "EVALKIT_CACHE_DIR": str(tmp_path / "cache"),
    }
    hooks = local_hooks()
    for hook in hooks:
        if hook["id"] == "evalkit-run":
            hook["args"] = ["evals/"]
    config = {"repos": [{"repo": "local", "hooks": hooks}]}
    (folder / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(args, cwd=folder, env=env, capture_output=True, text=True, timeout=120)

    assert run("git", "init", "-q", "-b", "main").returncode == 0
    installed = run(sys.executable, "-m", "pre_commit", "install")
    assert installed.returncode == 0, installed.stderr
    run.folder = folder
    return run


def commits(run) -> int:
    done = run("git", "rev-list", "--count", "HEAD")
    return int(done.stdout) if done.returncode == 0 else 0


def test_a_broken_eval_set_blocks_the_commit_and_a_good_one_passes(repo):
    evals = repo.folder / "evals"
    evals.mkdir()
    (evals / "weather.evalset.json").write_text(json.dumps(GOOD, indent=2))
    (evals / "test_config.json").write_text(json.dumps({"agent": f"{AGENT}:weather_agent", "criteria": {"response_match_score": 0.8}}))
    repo("git", "add", "-A")
    good = repo("git", "commit", "-m", "add the weather eval set")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "evalkit validate" in good.stdout + good.stderr and "Passed" in good.stdout + good.stderr
    assert commits(repo) == 1

    broken = json.loads(json.dumps(GOOD))
    del broken["eval_cases"][1]["conversation"][0]["user_content"]
    (evals / "weather.evalset.json").write_text(json.dumps(broken, indent=2))
    repo("git", "add", "-A")
    blocked = repo("git", "commit", "-m", "break it")
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0
    assert "evalkit validate" in output and "Failed" in output
    assert ("evalkit: evals/weather.evalset.json: eval_cases[1].conversation[0].user_content: field required"
            in output), output
    assert "Traceback" not in output
    assert commits(repo) == 1


def test_a_broken_config_blocks_the_commit_through_the_eval_sets_beside_it(repo):
    evals = repo.folder / "evals"
    evals.mkdir()
    (evals / "weather.evalset.json").write_text(json.dumps(GOOD, indent=2))
    (evals / "test_config.json").write_text(json.dumps({"criteria": {"response_match_scor": 0.8}}))
    repo("git", "add", "-A")
    blocked = repo("git", "commit", "-m", "typo in the config")
    assert blocked.returncode != 0
    assert "evals/test_config.json" in blocked.stdout + blocked.stderr
    assert "response_match_scor" in blocked.stdout + blocked.stderr
    assert commits(repo) == 0


def test_the_run_hook_is_opt_in(repo):
    evals = repo.folder / "evals"
    evals.mkdir()
    (evals / "weather.evalset.json").write_text(json.dumps(GOOD, indent=2))
    (evals / "test_config.json").write_text(json.dumps({"agent": f"{AGENT}:weather_agent", "criteria": {"response_match_score": 0.8}}))
    repo("git", "add", "-A")
    committed = repo("git", "commit", "-m", "evals")
    assert committed.returncode == 0, committed.stdout
    assert "evalkit run" not in committed.stdout + committed.stderr  # the manual stage does not run on commit
    manual = repo(sys.executable, "-m", "pre_commit", "run", "evalkit-run", "--hook-stage", "manual", "--verbose")
    assert manual.returncode == 0, manual.stdout + manual.stderr
    assert "3 cases: 3 passed, 0 failed" in manual.stdout


def test_the_hooks_file_is_a_valid_pre_commit_manifest():
    done = subprocess.run([sys.executable, "-m", "pre_commit", "validate-manifest", str(ROOT / ".pre-commit-hooks.yaml")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    hooks = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["evalkit-run"]["stages"] == ["manual"]  # opt-in
    assert "pass_filenames" not in hooks["evalkit-validate"]  # it checks the files being committed


def test_the_validate_hook_reports_every_problem_of_a_commit(repo):
    evals = repo.folder / "evals"
    evals.mkdir()
    (evals / "weather.evalset.json").write_text('{"eval_set_id": "weather", "eval_cases": [')
    (evals / "test_config.json").write_text(json.dumps({"agent": "../gone.py:agent",
                                                        "criteria": {"response_match_scor": 0.8}}))
    repo("git", "add", "-A")
    blocked = repo("git", "commit", "-m", "two mistakes")
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0 and commits(repo) == 0
    assert "evalkit: evals/weather.evalset.json: line 1 column" in output, output
    assert "evalkit: evals/test_config.json: criteria.response_match_scor: unknown criterion" in output
    assert "evalkit: 2 problems in eval sets or configs" in output
    # With the eval set mended, the config's agent path is the one problem left, named in the config.
    (evals / "weather.evalset.json").write_text(json.dumps(GOOD, indent=2))
    (evals / "test_config.json").write_text(json.dumps({"agent": "../gone.py:agent",
                                                        "criteria": {"response_match_score": 0.8}}))
    repo("git", "add", "-A")
    again = repo("git", "commit", "-m", "one mistake")
    assert again.returncode != 0 and commits(repo) == 0
    assert "evalkit: evals/test_config.json: agent: '../gone.py:agent': no such file or folder" in again.stdout + again.stderr


def test_the_run_hook_names_the_cases_that_block(repo):
    evals = repo.folder / "evals"
    evals.mkdir()
    (evals / "weather.evalset.json").write_text(json.dumps(GOOD, indent=2))
    regressed = ROOT / "examples" / "weather_agent" / "regressed_agent.py"
    (evals / "test_config.json").write_text(json.dumps({"agent": f"{regressed}:weather_agent",
                                                        "criteria": {"tool_trajectory_avg_score": 1.0}}))
    repo("git", "add", "-A")
    assert repo("git", "commit", "-m", "evals").returncode == 0
    blocked = repo(sys.executable, "-m", "pre_commit", "run", "evalkit-run", "--hook-stage", "manual")
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0
    assert "3 cases: 1 passed, 2 failed" in output, output
    assert "✗ weather/paris: tool_trajectory_avg_score 0 < 1" in output
    assert ("evalkit: blocked by 2 cases that did not pass: weather/paris, weather/london_then_tokyo; "
            "fix the agent, or accept the new answers with `evalkit accept`") in output
