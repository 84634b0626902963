"""Shared test helpers: the repository's paths and a CLI runner that keeps stderr apart."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.bytecode_cache import keep_bytecode_outside_the_tree

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def pytest_configure(config: pytest.Config) -> None:
    keep_bytecode_outside_the_tree()  # before xdist starts its workers, so they and their processes share it


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture(autouse=True)
def own_state_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test its own `.evalkit/` (run history, judge cache), so tests running side by side never share one."""
    monkeypatch.setenv("EVALKIT_CACHE_DIR", str(tmp_path / ".evalkit" / "cache"))
    monkeypatch.setenv("EVALKIT_RUNS_DIR", str(tmp_path / ".evalkit" / "runs"))


def run_evalkit(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `python -m evalkit` as a real process, as a user or a CI job would.

    For the tests whose subject is the process (an exit code's contract, signals, a closed
    stdout); the others use `tests.in_process.invoke_evalkit`, the same command without the start-up.

    Its `.evalkit/` is the one in `cwd`, or else the test's own (`own_state_folder`).
    """
    if cwd is not None:
        state = {"EVALKIT_CACHE_DIR": str(cwd / ".evalkit" / "cache"), "EVALKIT_RUNS_DIR": str(cwd / ".evalkit" / "test-runs")}
    else:
        state = {name: os.environ.get(name) or str(ROOT / ".evalkit" / folder)
                 for name, folder in (("EVALKIT_CACHE_DIR", "cache"), ("EVALKIT_RUNS_DIR", "test-runs"))}
    environment = {**os.environ, **state, "GITHUB_STEP_SUMMARY": "", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "evalkit", *args],
        cwd=cwd or ROOT, env=environment, capture_output=True, text=True, timeout=timeout,
    )


def stop_process(*processes: subprocess.Popen, grace_s: float = 10.0) -> None:
    """Ask servers the test started to stop (SIGTERM, all at once, so they stop side by side); kill any
    that has not within `grace_s`."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
    deadline = time.monotonic() + grace_s
    for process in processes:
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def point_genai_at(fake, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, api_key: str = "dummy-test-key") -> None:
    """Send google-genai to `fake` only, with a fresh judge cache for the test."""
    for name, value in fake.environment(api_key).items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    monkeypatch.setenv("EVALKIT_CACHE_DIR", str(tmp_path / "cache"))
