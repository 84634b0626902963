"""`evalkit run --cluster local[:N] | tcp://HOST:PORT`: the cases run on a Dask cluster, folded into one run.

Before anything runs, the run connects (a `LocalCluster` of N worker processes started
here, or a running scheduler reached within `CONNECT_TIMEOUT_S`), asks every worker which
evalkit it runs, and registers the run's `ClusterRun` plugin on them
(engine/cluster_worker.py: the settings as data, the agent built once per worker). Any
of that failing is exit 2, nothing run. Then the plan's cases go out in chunks, each a
Dask task run by evalkit's engine on a worker; a chunk's cases come back as a
`--processes` worker's shard lines and are added to this run's record as each chunk
finishes (progress, reports and the result file as in a local run; the record keeps the
eval sets' order).

Budgets (`--max-cost`, `--max-tokens`, `--max-model-calls`): each finished chunk sends back
what it spent, added to the run's ledger; with a budget, the cases go out one at a time per
worker thread, each with the run's spend so far, and none is sent once the budget is
reached. So the cases in flight when it is reached, which finish, are at most the
cluster's worker threads; the cases never sent are `not_evaluated` as in a local run.

Exactly once: a chunk's cases reach the record only with its whole result, so a chunk
whose worker is lost is run again elsewhere by Dask and counted once. A chunk that kept
killing its workers (Dask's `KilledWorker`) and the chunks left when no worker has been
there for the grace period (`EVALKIT_CLUSTER_GRACE_S`) are `error` cases (exit 3).

Ctrl-C and SIGTERM (to this process, or to its process group: a local cluster's workers
leave them to the run) end the run as a local run ends: the chunks not sent are dropped,
the workers stop the chunks they run and send back the cases those had finished (within
`STOP_WAIT_S`), which the run keeps; it is `interrupted`, exit 130 or 143. A local
cluster's processes are stopped with the run.
"""

from __future__ import annotations

import logging
import math
import os
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

from evalkit import __version__
from evalkit.engine.budget import Ledger
from evalkit.engine.evaluation import RunProgress, jobs_for, not_started_results, plan_order
from evalkit.engine.fork_server import start_fork_server, worker_imports
from evalkit.engine.sharding import case_keys, plan_of_cases
from evalkit.errors import MissingExtraError, SettingError
from evalkit.foundation.signals import run_has_ended
from evalkit.results.case_store import CaseStore
from evalkit.results.record import RunRecord
from evalkit.results.record_views import parse_shard_lines
from evalkit.schema.coverage import Inventory
from evalkit.schema.results import CaseResult, RunResult
from evalkit.settings import RunSettings
from evalkit.settings.values import LOCAL_CLUSTER, is_local_cluster

if TYPE_CHECKING:
    from distributed import Client, Future

    from evalkit.loading.plan import Plan
    from evalkit.results.quarantine import Quarantine

CaseKey = tuple[str, str]
# (the chunk's case keys, the reason) → those cases as `error`: a chunk no worker could finish
LostChunk = Callable[[list[CaseKey], str], list[CaseResult]]
Watcher = Callable[[RunProgress], Any]

CONNECT_TIMEOUT_S = 10  # an address nobody answers at: said soon (Dask waits 30 s), a busy scheduler still reached
CHUNKS_PER_THREAD = 4  # small enough to spread the cases and stream them back, large enough to pay a task
MOST_CASES_PER_CHUNK = 100
IN_FLIGHT_PER_THREAD = 2  # chunks sent ahead per worker thread: none idles, and a reached budget stops the rest
LOCAL_THREADS_PER_WORKER = 2  # two chunks at once per process, one starting as the other's last cases finish
POLL_S = 0.5  # how often the run looks for workers while it waits for chunks
STOP_WAIT_S = 10  # after Ctrl-C or SIGTERM, how long the stopped chunks have to send back their finished cases


class ClusterOutcome:
    """What the cluster ran: the progress (every chunk's cases added), the chunks' headers, the agent's inventory."""

    def __init__(self, progress: RunProgress):
        self.progress = progress
        self.headers: list[RunResult] = []
        self.interrupted: KeyboardInterrupt | None = None
        self.inventory: Inventory | None = None


def run_on_cluster(settings: RunSettings, spec: str, plan: Plan, watch: Watcher | None, lost_chunk: LostChunk,
                   quarantine: Quarantine | None, ledger: Ledger | None = None) -> ClusterOutcome:
    """Run `plan` with the agent `spec` on the cluster `settings.cluster` names (see the module's text); `ledger`,
    when given, is the budget the run spends from (the pytest plugin's, shared by a session's files)."""
    address = settings.cluster or LOCAL_CLUSTER
    local = is_local_cluster(address)
    # A local cluster's workers come from a fork server (engine/fork_server.py), started before Dask is imported here
    worker_start = start_fork_server(worker_imports(plan, spec)) if local and _has_dask() else {}
    distributed = _dask()
    progress = RunProgress(record=RunRecord(store=CaseStore(settings.redaction)), quarantine=quarantine)
    progress.total, progress.record.order = plan.case_count, plan_order(plan)
    # The whole run's budgets: what every chunk spent, added here.
    progress.ledger = ledger if ledger is not None else Ledger.for_run(settings, plan)
    if settings.auto_repeat or settings.repeat > 1:
        progress.repeat, progress.pass_rate, progress.confidence = settings.repeat, settings.pass_rate, settings.confidence
    if settings.auto_repeat:  # each chunk decides its own cases' runs; the run's result keeps the rule (as --processes)
        from evalkit.engine.repeats import AutoRepeat

        progress.auto_repeat = AutoRepeat(settings.stopping_rule(), settings.repeat, progress.add)
    outcome = ClusterOutcome(progress)
    try:
        with _connected(distributed, address, worker_start) as client:
            _refuse_other_versions(client, address, settings.environment.cluster_grace_s)
            from evalkit.engine.cluster_worker import ClusterRun

            name = f"evalkit-run-{uuid.uuid4().hex[:12]}"
            client.register_plugin(ClusterRun(name, settings.model_dump_json(), settings.headers, spec, local=local),
                                   name=name)
            try:
                _run_chunks(distributed, client, name, settings, plan, watch, outcome, lost_chunk)
            finally:
                _unregister(client, name)
    except KeyboardInterrupt as stop:  # before the chunks went out (the cluster starting): a run of no cases
        outcome.interrupted = stop
    finally:
        run_has_ended()
    return outcome


def _run_chunks(distributed: Any, client: Client, name: str, settings: RunSettings, plan: Plan,
                watch: Watcher | None, outcome: ClusterOutcome, lost_chunk: LostChunk) -> None:
    """Send the plan's chunks to the run's plugin `name` and add their cases to the run as they come back."""
    progress = outcome.progress
    threads = max(1, sum(client.nthreads().values()))
    if progress.ledger is None:
        chunks = _ChunksOut(client, name, _chunks(case_keys(plan), threads), IN_FLIGHT_PER_THREAD * threads)
    else:  # a case at a time per worker thread, each sent with the run's spend so far (see the module's text)
        chunks = _ChunksOut(client, name, [[key] for key in case_keys(plan)], threads)
    try:
        with watch(progress) if watch is not None else nullcontext():
            _gather(distributed, client, chunks, outcome, lost_chunk, settings.environment.cluster_grace_s)
        if chunks.waiting:  # a budget was reached: the chunks not sent never start
            assert progress.ledger is not None
            jobs = jobs_for(plan_of_cases(plan, [key for keys in chunks.waiting for key in keys]))
            for case in not_started_results(jobs, set(), progress.ledger):
                progress.add(case)
    except KeyboardInterrupt as stop:  # Ctrl-C (or SIGTERM): what finished is kept, the rest cancelled
        outcome.interrupted = stop
        run_has_ended()  # a second signal must not cut short the gathering of what finished
        _keep_what_finished(distributed, client, name, chunks, outcome)
    finally:
        run_has_ended()
        client.cancel(list(chunks.pending))  # however the run ended, no chunk of it is left to run


class _ChunksOut:
    """The chunks of a run: sent a few at a time (at most `most` in flight), while no budget is reached."""

    def __init__(self, client: Client, plugin: str, chunks: list[list[CaseKey]], most: int):
        self.client, self.plugin, self.most = client, plugin, most
        self.waiting = deque(chunks)
        self.sent: dict[Future, list[CaseKey]] = {}
        self.pending: set[Future] = set()

    def top_up(self, ledger: Ledger | None) -> None:
        """Send chunks until `most` are in flight; none once the run's budget is reached. Each chunk takes the
        run's spend so far, so that its worker starts no case once the spend and its own reach the budget."""
        from evalkit.engine.cluster_worker import run_chunk

        while self.waiting and len(self.pending) < self.most and (ledger is None or ledger.may_start()):
            keys = self.waiting.popleft()
            future = self.client.submit(run_chunk, self.plugin, keys, ledger.spend() if ledger is not None else None,
                                        key=f"{self.plugin}-{len(self.sent)}", pure=False)
            self.sent[future] = keys
            self.pending.add(future)

    def unfinished(self) -> list[list[CaseKey]]:
        """The chunks in flight and those not sent yet, taken off the run (no worker will run them)."""
        chunks = [self.sent[future] for future in self.pending] + list(self.waiting)
        self.client.cancel(list(self.pending))
        self.pending.clear()
        self.waiting.clear()
        return chunks


def _gather(distributed: Any, client: Client, chunks: _ChunksOut, outcome: ClusterOutcome, lost_chunk: LostChunk,
            grace_s: float) -> None:
    """Add each chunk's cases to the run as the chunk finishes; chunks no worker can finish become errors."""
    import time

    ledger = outcome.progress.ledger
    chunks.top_up(ledger)
    no_workers_since: float | None = None
    while chunks.pending:
        try:  # Dask streams the chunks back as they finish; now and then, the run looks for its workers
            done, chunks.pending = distributed.wait(chunks.pending, timeout=POLL_S, return_when="FIRST_COMPLETED")
        except TimeoutError:
            done = set()
        for future in done:
            if not _add_chunk(future, chunks.sent[future], outcome, lost_chunk):
                chunks.pending.add(future)
        chunks.top_up(ledger)
        if not chunks.pending or done:
            no_workers_since = None
            continue
        if client.nthreads():
            no_workers_since = None
        elif no_workers_since is None:
            no_workers_since = time.monotonic()
        elif time.monotonic() - no_workers_since >= grace_s:
            reason = (f"--cluster: every worker was lost before this case finished (none for {grace_s:g} s); "
                      "start workers again and rerun these cases")
            for keys in chunks.unfinished():
                for case in lost_chunk(keys, reason):
                    outcome.progress.add(case)
            return


def _keep_what_finished(distributed: Any, client: Client, name: str, chunks: _ChunksOut,
                        outcome: ClusterOutcome) -> None:
    """The run was stopped: no chunk is sent any more, the workers stop those they run (engine/cluster_worker.py's
    `stop_chunks`), and the cases those had finished join the run. Chunks no worker sends back within
    `STOP_WAIT_S` (or lost meanwhile) are left out, as the cases a local run had not finished."""
    from evalkit.engine.cluster_worker import stop_chunks

    chunks.waiting.clear()
    try:
        client.run(stop_chunks, name, on_error="ignore")
        distributed.wait(chunks.pending, timeout=STOP_WAIT_S)
    except (OSError, TimeoutError):  # not every chunk came back in time, or the cluster is gone: those that did count
        pass
    for future in [future for future in chunks.pending if future.status == "finished"]:
        chunks.pending.discard(future)
        _add_finished(future, outcome)


def _add_chunk(future: Future, keys: list[CaseKey], outcome: ClusterOutcome, lost_chunk: LostChunk) -> bool:
    """Add a finished chunk's cases (or, when its workers were lost, its cases as errors) to the run. False: the
    chunk is not done after all (its result was on a worker lost since, and Dask is running it again)."""
    from distributed.scheduler import KilledWorker

    if future.status == "finished":
        _add_finished(future, outcome)
        return True
    if future.status != "error":
        return False
    error = future.exception()
    if isinstance(error, KilledWorker):  # Dask ran it again on other workers; each of them was lost too
        reason = (f"--cluster: the workers running this case's chunk were lost ({error}); "
                  "see the workers' logs for why (memory, a crash in the agent)")
        for case in lost_chunk(keys, reason):
            outcome.progress.add(case)
        return True
    assert error is not None
    raise error  # bad input only a worker could see (an agent that cannot load), or an evalkit bug: as its own


def _add_finished(future: Future, outcome: ClusterOutcome) -> None:
    """A chunk's cases, what they spent and the agent's inventory, added to the run."""
    lines, inventory, spent = future.result()
    if spent is not None and outcome.progress.ledger is not None:
        outcome.progress.ledger.add(spent)
    header, cases = parse_shard_lines(lines)
    outcome.headers.append(header)
    for case in cases:
        outcome.progress.add(case)
    if inventory is not None and outcome.inventory is None:
        outcome.inventory = inventory


def _chunks(keys: list[CaseKey], threads: int) -> list[list[CaseKey]]:
    """The cases in order, cut into about `CHUNKS_PER_THREAD` chunks per worker thread."""
    size = max(1, min(MOST_CASES_PER_CHUNK, math.ceil(len(keys) / (threads * CHUNKS_PER_THREAD))))
    return [keys[start:start + size] for start in range(0, len(keys), size)]


def _has_dask() -> bool:
    import importlib.util

    return importlib.util.find_spec("distributed") is not None


def _dask() -> Any:
    """The `distributed` module; without the `dask` extra, a setting problem saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise MissingExtraError("--cluster", "dask", "distributed", "evalkit-agents[dask]") from None
    return distributed


@contextmanager
def _connected(distributed: Any, address: str, worker_start: dict[str, str]) -> Iterator[Client]:
    """A client of the cluster `address` names; a local cluster is started here, its workers as Dask's setting
    `worker_start` says (engine/fork_server.py), and stopped after."""
    if is_local_cluster(address):
        import dask

        count = int(address.partition(":")[2] or _cores())
        with dask.config.set(worker_start):
            cluster = distributed.LocalCluster(n_workers=count, threads_per_worker=LOCAL_THREADS_PER_WORKER,
                                               processes=True, dashboard_address=None,
                                               silence_logs=logging.CRITICAL,  # evalkit says what failed
                                               # no dashboard; the scheduler's own HTTP server (health,
                                               # metrics) on a free port, never a warning about port 8787
                                               scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                                               # the run's environment as it is now, not as it was when the
                                               # fork server started (an earlier run of this process)
                                               env=dict(os.environ))
            try:
                with distributed.Client(cluster) as client:
                    yield client
            finally:
                cluster.close()
        return
    _refuse_a_closed_port(address)
    try:
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError) as error:
        raise _no_scheduler(address, f"within {CONNECT_TIMEOUT_S} s ({error})") from None
    with client:
        yield client


def _refuse_a_closed_port(address: str) -> None:
    """A scheduler address nobody answers at, said as soon as that is known: Dask's client would try it again and
    again for the whole `CONNECT_TIMEOUT_S`, also where nothing listens (a mistyped port is the usual case)."""
    import socket

    host, _, port = address.removeprefix("tcp://").rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except ConnectionRefusedError:
        raise _no_scheduler(address, "(nothing listens on that port)") from None
    except OSError as error:  # no answer in time, an unknown host, no route
        raise _no_scheduler(address, f"within {CONNECT_TIMEOUT_S} s ({error})") from None


def _no_scheduler(address: str, how: str) -> SettingError:
    return SettingError("cluster", address, f"no Dask scheduler answered there {how}; start one with "
                        "`dask scheduler`, or check the address")


def _cores() -> int:
    from evalkit.engine.idle_cores import usable_cores

    return usable_cores()


def _refuse_other_versions(client: Client, address: str, wait_s: float) -> None:
    """Ask every worker which evalkit it runs: none there, or another version than this one's, is exit 2."""
    from evalkit.engine.cluster_worker import evalkit_version

    try:
        client.wait_for_workers(1, timeout=wait_s)
    except TimeoutError:
        raise SettingError("cluster", address, f"the scheduler has no workers (waited {wait_s:g} s); start some "
                           f"with `dask worker {address}`") from None
    try:
        versions: dict[str, str] = client.run(evalkit_version)
    except ImportError as error:
        raise SettingError("cluster", address, f"a worker cannot import evalkit ({error}); install evalkit-agents "
                           f"{__version__} where the workers run") from None
    other = {worker: version for worker, version in versions.items() if version != __version__}
    if other:
        worker, version = sorted(other.items())[0]
        more = f" (and {len(other) - 1} more workers differ)" if len(other) > 1 else ""
        raise SettingError("cluster", address, f"worker {worker} runs evalkit {version}, this run evalkit "
                           f"{__version__}{more}; install evalkit-agents {__version__} on every worker")


def _unregister(client: Client, name: str) -> None:
    """Take the run's plugin off the workers (each closes its agent); a cluster already gone has nothing to close."""
    try:
        client.unregister_worker_plugin(name)
    except Exception:  # noqa: BLE001 - the workers or the scheduler are gone: there is nothing left to close
        pass
