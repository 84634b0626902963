"""The `evalkit` command run inside the test's own process: its exit code, stdout and stderr.

A real `python -m evalkit` pays an interpreter's start-up and evalkit's imports on every
command (1–2 s on a 2-core machine; google-adk alone about 1.5 s); here they are paid once
per test worker. `main()` is the same entry point the console script calls, so flags,
messages and exit codes (its mapping of usage errors, interrupts and bugs) are the real
ones. Tests about the process itself (signals, a closed stdout, what an interpreter
imports, output of child processes that inherit the file descriptors) keep `run_evalkit`,
one or two per contract.
"""

from __future__ import annotations

import io
import logging
import os
import signal
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from tests.conftest import ROOT


def invoke_evalkit(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Like `tests.conftest.run_evalkit`, with the same `.evalkit/` rules, without a new process."""
    from evalkit.cli import main

    if cwd is not None:
        state = {"EVALKIT_CACHE_DIR": str(cwd / ".evalkit" / "cache"), "EVALKIT_RUNS_DIR": str(cwd / ".evalkit" / "test-runs")}
    else:
        state = {name: os.environ.get(name) or str(ROOT / ".evalkit" / folder)
                 for name, folder in (("EVALKIT_CACHE_DIR", "cache"), ("EVALKIT_RUNS_DIR", "test-runs"))}
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch, _global_state_kept():
        for name, value in {**state, "GITHUB_STEP_SUMMARY": "", **(env or {})}.items():
            patch.setenv(name, value)
        patch.chdir(cwd or ROOT)
        patch.setattr(sys, "argv", ["evalkit", *args])
        with redirect_stdout(out), redirect_stderr(err):
            try:
                main()
                code = 0
            except SystemExit as done:
                code = done.code if isinstance(done.code, int) else 0 if done.code is None else 1
    return subprocess.CompletedProcess(["evalkit", *args], int(code), out.getvalue(), err.getvalue())


class _global_state_kept:
    """What a command changes for the rest of its process, put back for the next test:
    the SIGTERM handler, `--debug`'s log handler, the import path, the modules of agent files."""

    def __enter__(self) -> None:
        log = logging.getLogger("evalkit")
        self.log = (log, list(log.handlers), log.level, log.propagate)
        self.sigterm = signal.getsignal(signal.SIGTERM)
        self.path = list(sys.path)
        self.modules = set(sys.modules)

    def __exit__(self, *exc: object) -> None:
        log, handlers, level, propagate = self.log
        log.handlers[:] = handlers
        log.setLevel(level)
        log.propagate = propagate
        signal.signal(signal.SIGTERM, self.sigterm)
        # An agent's file and the modules beside it are loaded afresh by each run, as by a new process.
        added = [folder for folder in sys.path if folder and folder not in self.path]
        sys.path[:] = self.path
        for name in set(sys.modules) - self.modules:
            where = getattr(sys.modules[name], "__file__", None) or ""
            if name.startswith("_evalkit_agent_") or any(where.startswith(folder + os.sep) for folder in added):
                del sys.modules[name]
