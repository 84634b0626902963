"""A `--cluster` run on a Dask worker: its settings as data, its agent built once, its chunks run by the engine.

The run registers one `ClusterRun` plugin (a Dask `WorkerPlugin`) on every worker: the
run's settings as JSON (headers beside them, as a `--processes` worker gets them in its
environment rather than its settings file) and the agent's spec; no object of the
client's process is shipped. On a worker's first chunk the plugin loads the eval sets and
builds the agent once, on an event loop of its own (`foundation/aio.py`'s `LoopThread`),
where every later chunk of that worker runs too, sharing one cases-in-flight controller
(`--jobs` bounds the cases in flight on each worker, however many chunks it runs at once).

A chunk is a list of case keys; `run_chunk` runs them through `engine/evaluation.py`'s
`evaluate`, the engine every run uses, and returns them as a `--processes` worker's
shard lines (`results/record_views.py`: the header, then a case a line) with the agent's
inventory. The agent is closed when the run unregisters the plugin (`teardown`).

Ctrl-C and SIGTERM: the run calls `stop_chunks` on every worker, which cancels the chunks
running there as a local run is cancelled (the cases in flight are stopped, the agent's
sessions closed) and makes every later chunk of the run return at once; each chunk then
returns the cases that had finished, marked interrupted, so the run keeps them. A local
cluster's workers leave the signals themselves to the run (`setup`): sent to the whole
process group, they would otherwise end the workers before their finished cases are back.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from concurrent.futures import CancelledError
from typing import TYPE_CHECKING, Any

from distributed import WorkerPlugin, get_worker

from evalkit import __version__
from evalkit.agents.base import Agent, AgentSession, SessionSpec
from evalkit.engine.budget import Ledger, Spend
from evalkit.engine.evaluation import RunProgress, evaluate
from evalkit.engine.loop_load import BusyMeter
from evalkit.engine.sharding import plan_of_cases
from evalkit.foundation.aio import LoopThread
from evalkit.foundation.concurrency import AdaptiveLimit
from evalkit.foundation.signals import leave_stop_signals_to_the_parent
from evalkit.loading.plan import Plan, build_plan
from evalkit.results.case_store import CaseStore
from evalkit.results.record import RunRecord
from evalkit.results.record_views import shard_line_pieces
from evalkit.schema.coverage import Inventory
from evalkit.settings import RunSettings

if TYPE_CHECKING:
    from evalkit.cassettes.session import CassetteRun

CaseKey = tuple[str, str]  # (eval_set_id, eval_id)
# A chunk's cases as shard lines, the agent's inventory (None: unknown), what the chunk spent (None: no budget)
ChunkResult = tuple[str, Inventory | None, Spend | None]


def evalkit_version() -> str:
    """What a worker answers when the run asks which evalkit it runs (engine/cluster.py)."""
    return __version__


class ClusterRun(WorkerPlugin):
    """One run's state on one worker: set up as data, the plan and the agent made on first use."""

    def __init__(self, name: str, settings_json: str, headers: tuple[tuple[str, str], ...], spec: str, *,
                 local: bool = False):
        self.__setstate__({"name": name, "settings_json": settings_json, "headers": headers, "spec": spec,
                           "local": local})

    def __getstate__(self) -> dict[str, Any]:  # shipped as data: the lock and the state stay where they are
        return {"name": self.name, "settings_json": self.settings_json, "headers": self.headers, "spec": self.spec,
                "local": self.local}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.name: str = state["name"]  # Dask's key for the plugin: one per run
        self.settings_json: str = state["settings_json"]
        self.headers: tuple[tuple[str, str], ...] = state["headers"]
        self.spec: str = state["spec"]
        self.local: bool = state["local"]  # a worker of a local cluster: a process the run owns
        self._ready = threading.Lock()
        self._stopped = threading.Event()  # the run was stopped (Ctrl-C, SIGTERM): no case of it starts here
        self._state: _WorkerState | None = None

    def setup(self, worker: Any) -> None:
        if self.local:  # the run stops this worker's chunks and then the worker (see the module's text)
            leave_stop_signals_to_the_parent()

    def run_chunk(self, keys: list[CaseKey], spent: Spend | None) -> ChunkResult:
        with self._ready:  # the first chunk builds the state; chunks arriving meanwhile wait for it
            if self._state is None:
                settings = RunSettings.model_validate_json(self.settings_json)
                self._state = _WorkerState(settings.model_copy(update={"headers": self.headers}), self.spec,
                                           self._stopped)
        return self._state.run(keys, spent)

    def stop(self) -> None:
        """The run was stopped: its chunks running here are cancelled, and later ones return at once."""
        self._stopped.set()  # before the state is read: a chunk that builds it later sees the stop
        if self._state is not None:
            self._state.cancel_running()

    def teardown(self, worker: Any) -> None:
        if self._state is not None:
            self._state.close()
            self._state = None


def run_chunk(plugin_name: str, keys: list[CaseKey], spent: Spend | None) -> ChunkResult:
    """The task the run submits for each chunk: its cases run by this worker's `ClusterRun`; `spent` is what the
    run had spent when it sent the chunk (None: the run has no budget)."""
    plugin = get_worker().plugins[plugin_name]
    assert isinstance(plugin, ClusterRun)
    return plugin.run_chunk(keys, spent)


def stop_chunks(plugin_name: str, dask_worker: Any) -> None:
    """What the run calls on every worker (`Client.run`, which passes the worker as `dask_worker`) when it
    is stopped (Ctrl-C, SIGTERM): see the module's text."""
    plugin = dask_worker.plugins.get(plugin_name)
    if isinstance(plugin, ClusterRun):  # a worker that joined after the run's plugin was taken off has none
        plugin.stop()


class _WorkerState:
    """The plan, the agent and the loop they live on, for the whole run on this worker."""

    def __init__(self, settings: RunSettings, spec: str, stopped: threading.Event):
        from evalkit.agents.registry import resolve_agent

        self.stopped = stopped
        self.running: set[asyncio.Task[Any]] = set()  # the chunks being run on the loop, touched only there
        self.plan: Plan = build_plan(list(settings.paths), case_ids=list(settings.case_ids),
                                     config_file=settings.config)
        # A local cluster's worker replays the run's cassettes (engine/beside_cluster.py) through a proxy of its
        # own, started before the agent loads, as a `--processes` worker does; the judges stay off it.
        self.cassettes: CassetteRun | None = None
        if settings.cassettes is not None:
            from evalkit.cassettes.session import CassetteRun

            self.cassettes = CassetteRun(settings.cassettes, "replay").start()
            settings = settings.model_copy(update={"environment": self.cassettes.judges_environment(settings.environment)})
        self.settings = settings
        self.loop = LoopThread("evalkit-cluster-worker")
        try:
            async def build() -> tuple[Agent, AdaptiveLimit]:
                agent = resolve_agent(spec, None, settings)
                return (self.cassettes.wrap(agent) if self.cassettes is not None else agent,
                        AdaptiveLimit(settings.jobs, busy=BusyMeter()))

            self.agent, self.limit = self.loop.run(build)
        except BaseException:
            self.loop.close()
            self._stop_cassettes()
            raise

    def run(self, keys: list[CaseKey], spent: Spend | None) -> ChunkResult:
        """The chunk's cases run here: its shard lines, the agent's inventory, and what they spent."""
        progress = RunProgress(record=RunRecord(store=CaseStore(self.settings.redaction)))
        ledger = progress.ledger = Ledger.for_run(self.settings, self.plan) if spent is not None else None
        if ledger is not None and spent is not None:  # the whole run's budgets, against its spend so far and this chunk's
            ledger.add(spent)
        chunk = plan_of_cases(self.plan, keys)
        self.agent.check_cases(keys)
        try:
            try:
                self.loop.run(lambda: self._unless_stopped(evaluate(chunk, _KeptOpen(self.agent), self.settings,
                                                                    progress, full=False, limit=self.limit)))
                interrupted = False
            except (CancelledError, asyncio.CancelledError):  # the run was stopped: the cases that finished
                interrupted = True
            lines = "".join(shard_line_pieces(progress.result(interrupted=interrupted, full=False),
                                              progress.record.full_cases()))
        finally:
            progress.store.close()
        return lines, progress.inventory, ledger.spend() - spent if ledger is not None and spent is not None else None

    async def _unless_stopped(self, chunk: Coroutine[Any, Any, object]) -> None:
        """Run a chunk on the loop, where `cancel_running` can reach it; none once the run was stopped. The
        check and the registration happen in one step on the loop, so no chunk slips between them and a stop."""
        if self.stopped.is_set():
            chunk.close()
            raise asyncio.CancelledError
        task = asyncio.current_task()
        assert task is not None
        self.running.add(task)
        try:
            await chunk
        finally:
            self.running.discard(task)

    def cancel_running(self) -> None:
        """Cancel the chunks running now (from any thread): each ends as a local run ends on Ctrl-C."""
        self.loop.call_soon(lambda: [task.cancel() for task in list(self.running)])

    def close(self) -> None:
        try:
            self.loop.run(self.agent.aclose)
        finally:
            self.loop.close()
            self._stop_cassettes()

    def _stop_cassettes(self) -> None:
        if self.cassettes is not None:
            self.cassettes.stop()


class _KeptOpen(Agent):
    """The worker's agent lent to one chunk: `evaluate` closes what it is given; this stays open for the next."""

    def __init__(self, agent: Agent):
        self._agent = agent
        self.description = agent.description

    async def open_session(self, spec: SessionSpec) -> AgentSession:
        return await self._agent.open_session(spec)

    def check_cases(self, cases: list[tuple[str, str]]) -> None:
        self._agent.check_cases(cases)

    async def check_ready(self) -> None:
        await self._agent.check_ready()

    async def inventory(self) -> Inventory | None:
        return await self._agent.inventory()

    def instruction(self) -> str | None:
        return self._agent.instruction()

    async def aclose(self) -> None:
        """Closed once, when the run is over on this worker (`ClusterRun.teardown`)."""
