"""How a local `--cluster`'s workers start: forked by a fork server, never by the run's own process.

By the time a local cluster starts its workers, the run's process has threads (Dask's event
loop, which runs the scheduler and the nannies there, the progress display, an OTLP receiver,
a user's own), and a fork copies only the thread that forks: a lock another thread held at that
moment stays held in the worker for ever, and the worker hangs on it. So the nannies start
their workers through multiprocessing's fork server: a fresh interpreter with one thread,
started once per process, which first imports what every worker imports before its first
case (`worker_imports`: evalkit's side of the cluster, the criteria's libraries, google-adk for
an ADK agent folder) and then forks each worker from itself. A worker so starts in a fraction
of a second, and so does a nanny's restart of a lost worker (docs/performance.md, "A local
cluster's workers, started clean"). On Linux only: elsewhere each worker is spawned, a fresh
interpreter of its own (Windows has no fork server, and on macOS forking after some system
libraries have loaded, which numpy may load, is unsafe).

The fork server is in the run's process group, so a SIGTERM sent to the group (as CI runners
send it) reaches it too. Ended by it, it would take with it what tells the nannies that their
workers are alive: Dask would count every worker as lost, start new ones, and the cases the
workers had finished would never come back to the run. So this module, which the fork server
imports first, makes the server leave SIGTERM to the run (as multiprocessing's own resource
tracker does); the server ends when the run's process does, and the workers it forks get
SIGTERM's default back. Imported anywhere else, it changes nothing.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evalkit.loading.plan import Plan

METHOD = "distributed.worker.multiprocessing-method"


def start_fork_server(preload: list[str]) -> dict[str, str]:
    """Start the fork server now, importing `preload` after this module, while the run's process goes on to start
    the scheduler (on two cores the two overlap); Dask's setting for a local cluster whose workers come from it,
    to hold for as long as the cluster runs (a nanny starts a lost worker again the same way)."""
    import multiprocessing
    from multiprocessing import forkserver

    if sys.platform != "linux" or "forkserver" not in multiprocessing.get_all_start_methods():
        return {METHOD: "spawn"}
    # Read when the server starts: a later cluster of the same process shares the server the first one started.
    forkserver.set_forkserver_preload([__name__, *preload])
    forkserver.ensure_running()
    return {METHOD: "forkserver"}


def worker_imports(plan: Plan, spec: str) -> list[str]:
    """What every local worker imports before its first case: evalkit's side of the cluster, the libraries of
    the plan's criteria, google-adk's run modules for an ADK agent folder."""
    from evalkit.engine.forked_worker import ADK_MODULES
    from evalkit.engine.process_count import burns_cpu_in_process

    modules = ["evalkit.engine.cluster_worker"]
    for planned in plan.sets:
        for criterion in planned.criteria:
            modules += [name for name in criterion.preload_modules if name not in modules]
    if burns_cpu_in_process(spec):
        modules += ADK_MODULES
    return modules


def _in_the_fork_server() -> bool:
    """Whether this is multiprocessing's fork server importing its preload list: a `python -c` process whose
    only thread runs `multiprocessing.forkserver.main`."""
    import threading

    return sys.argv == ["-c"] and "multiprocessing.forkserver" in sys.modules and threading.active_count() == 1


def _leave_sigterm_to_the_run() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    os.register_at_fork(after_in_child=lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL))


if _in_the_fork_server():
    _leave_sigterm_to_the_run()
