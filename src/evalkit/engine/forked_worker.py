"""A `--processes` worker started by forking the run's process, where that is safe.

A worker started as `python -m evalkit.engine.worker` pays an interpreter's start-up and
evalkit's imports (about 0.3 s) before it can import the agent; the run's own process
has paid them already and starts its shard at once, so the worker finished that much
later (docs/performance.md, "All cores"). Forked, the worker starts from the run's
process as it is, before either has imported the agent, and runs the same
`evalkit.engine.worker.main` with the same files, so its shard is run exactly as a
spawned worker's.

For an ADK agent folder the run's process imports google-adk's modules that every ADK
run needs before it forks (`preload_adk`), so the worker starts with them too: neither
process pays for them twice, and both start their cases at the same moment.

Only on Linux (forking after some macOS frameworks have loaded is unsafe), and only
while the process has a single thread (a fork copies only the thread that forks; a
lock another thread held would stay held). Otherwise the caller spawns the worker.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path
from typing import NoReturn


WORKER_MODULE = "evalkit.engine.worker"


def can_fork() -> bool:
    return sys.platform == "linux" and hasattr(os, "fork") and threading.active_count() == 1


# What running any ADK agent imports (about half a second): ADK's Runner and its in-memory
# services, its LLM flow and Gemini model, google-genai's types, and evalkit's ADK adapter.
ADK_MODULES = (
    "google.adk.runners",
    "google.adk.agents",
    "google.adk.apps.app",
    "google.adk.models.google_llm",
    "google.adk.flows.llm_flows.base_llm_flow",
    "google.adk.sessions.in_memory_session_service",
    "google.adk.artifacts.in_memory_artifact_service",
    "google.adk.memory.in_memory_memory_service",
    "google.genai.types",
    "evalkit.agents.adk_agent",
    "evalkit.agents.adk_turn_plugin",
)


def preload_adk() -> None:
    """Import `ADK_MODULES` here, before forking; without google-adk, nothing (loading the agent says so)."""
    import importlib

    for name in ADK_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            return


class ForkedWorker:
    """The parent's handle on a forked worker: what it needs of `subprocess.Popen`."""

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self) -> int:
        if self.returncode is None:
            _, status = os.waitpid(self.pid, 0)
            self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def terminate(self) -> None:
        if self.returncode is None:
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass


def fork_worker(argv: list[str], log: Path, environment: dict[str, str] | None = None) -> ForkedWorker:
    """Fork a worker running `evalkit.engine.worker.main(argv)`, its stderr to `log`, its stdout nowhere,
    with `environment` added to its variables."""
    for stream in (sys.stdout, sys.stderr):  # or the child would write the parent's buffered output again
        stream.flush()
    pid = os.fork()
    if pid == 0:
        os.environ.update(environment or {})
        _be_the_worker(argv, log)
    return ForkedWorker(pid)


def _be_the_worker(argv: list[str], log: Path) -> NoReturn:
    import atexit

    code = 70  # EX_SOFTWARE: what is left if even the worker's own error handling failed
    # The parent's exit handlers are the parent's (a test runner's, when it runs evalkit in
    # its own process); the worker runs only those registered while it runs (an agent's).
    atexit._clear()
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        os.dup2(os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)
        import importlib

        # Named, as the spawned worker's `python -m evalkit.engine.worker` names it: the worker
        # runs `engine.run`, which starts the workers.
        code = importlib.import_module(WORKER_MODULE).main(argv)
    except BaseException as error:  # never return into the parent's code: its files, its merge
        print(f"evalkit: the worker failed: {type(error).__name__}: {error}", file=sys.stderr)
    finally:
        try:
            atexit._run_exitfuncs()  # what a normal exit runs (an agent's telemetry flush); nothing of the parent's
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
