"""The one way a run is put together: settings in, plan → agent → evaluate, a `RunOutcome` out.

`evalkit run`, the Python API (`evalkit.run_evals`), the pytest plugin and each
`--processes` worker call `run` with one `RunSettings`; what they add is only theirs:
flags, messages and the exit code for the CLI, a returned result or a raised
`EvalFailed` for the API, test items for the plugin. So every path gets the same steps:
the shard, the cassettes' proxy, the agent's check of the cases it can serve (the replay
agent's), and the garbage collector's start-up freeze (docs/architecture.md).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalkit.agents.base import Agent
from evalkit.agents.registry import no_agent_error
from evalkit.engine.budget import Ledger, check_budget
from evalkit.engine.coverage import refuse_a_gate_without_inventory
from evalkit.engine.evaluation import RunProgress, evaluate, plan_order
from evalkit.engine.idle_cores import mark_start
from evalkit.results.merging import sum_judge_stats
from evalkit.engine.sharding import Shard, case_keys, parse_shard, plan_of_cases, shard_plan
from evalkit.errors import InputError, SettingError, SettingProblem, Terminated, UsageError
from evalkit.foundation.aio import run_sync
from evalkit.foundation.signals import run_has_ended
from evalkit.foundation.gc_control import start_up_frozen
from evalkit.loading.plan import Plan, build_plan
from evalkit.results.case_store import CaseStore
from evalkit.results.media_folder import MediaFolder
from evalkit.results.record import RunRecord
from evalkit.schema.results import CaseResult, RunResult, Status, Summary
from evalkit.schema.run_figures import CassettesUse
from evalkit.settings import AUTO_PROCESSES, RunSettings, check_partners

if TYPE_CHECKING:
    from evalkit.cassettes.session import CassetteRun
    from evalkit.engine.telemetry import RunTelemetry
    from evalkit.results.quarantine import Quarantine

# Watches a run while it runs (the CLI's live progress bar); entered around the evaluation.
Watcher = Callable[[RunProgress], AbstractContextManager[Any]]


@dataclass
class RunOutcome:
    """A finished (or interrupted) run.

    `result` holds the cases in full when `run` was asked for `full=True`; otherwise slim
    copies, and `full_cases()` reads the full ones back one at a time (for files).
    """

    result: RunResult
    interrupted: bool = False
    shard: Shard | None = None
    full_cases: Callable[[], Iterable[CaseResult]] | None = None
    empty_shard: bool = False  # the shard held no case: nothing ran
    terminated: bool = False  # the interrupt was SIGTERM (errors.Terminated): the CLI exits 143
    quarantine: Quarantine | None = None  # the `quarantine` list, with what it found (its warnings)
    progress: RunProgress | None = None  # what the run finished, for `--processes` to add its workers' cases to

    @property
    def min_coverage(self) -> float | None:
        """The coverage minimum the run was given (`--min-coverage`, else the configs'), decided once by the
        engine as the cases ended (engine/coverage.py's gate_ratio); None when there is none or the run
        stopped first. Recorded whether or not the agent's tools are known: unknown tools fail it."""
        return self.progress.min_coverage if self.progress is not None else None


def load_plan(settings: RunSettings) -> Plan:
    """The settings' eval sets, cases and config as a Plan (every input problem at once)."""
    return build_plan(list(settings.paths), case_ids=list(settings.case_ids), config_file=settings.config)


def run(settings: RunSettings, *, agent: Any = None, plan: Plan | None = None, watch: Watcher | None = None,
        full: bool = False, tell: Callable[[str], None] | None = None, ledger: Ledger | None = None) -> RunOutcome:
    """Run what the settings name and return the outcome; Ctrl-C ends it with what finished.

    `agent` is an agent object or spec given beside the settings (the API's `agent=`,
    `evalkit rescore`'s replay agent); without it, `settings.agent`, else the config's.
    `plan`, when given, is used instead of loading `settings.paths`. `tell` receives the
    notices meant for the user (the cassettes' proxy address and warnings). `ledger`, when given,
    is the budget this run spends from (the pytest plugin's, shared by a session's eval set files);
    without it, the run keeps its own (engine/budget.py).
    """
    tell = tell or _to_stderr
    check_partners(settings)  # every front end: the API and the plugin have no finish step to check them
    if settings.processes == AUTO_PROCESSES and not settings.shard:
        mark_start()  # `--processes auto` reads how busy the cores are from here on
    if plan is None:
        plan = load_plan(settings)
    given = agent if agent is not None else settings.agent
    spec = given if isinstance(given, str) else None
    if given is None or given == "":
        spec = plan.agent_from_config()
    if settings.cluster:
        from evalkit.engine.beside_cluster import refuse_beside_cluster

        refuse_beside_cluster(settings, given)
    given = _recorded_answers_unless_an_agent(plan, given, spec)
    shard = parse_shard(settings.shard) if settings.shard else None
    if shard is not None:
        plan = shard_plan(plan, shard)
    if not spec and (given is None or given == ""):
        raise no_agent_error()
    if shard is None:  # a shard is not gated: its coverage is a part
        refuse_a_gate_without_inventory(settings, plan, spec if given is None or isinstance(given, str) else None)
    if settings.cassettes is not None and (given is None or isinstance(given, str)):
        from evalkit.cassettes.reach import refuse_agents_started_elsewhere

        refuse_agents_started_elsewhere(spec, settings.cassettes, settings.cassette_mode)
    if settings.headers and spec and (given is None or isinstance(given, str)):
        _tell_of_unsent_headers(spec, tell)
    check_budget(settings, plan)  # `max_cost` without prices is exit 2 before anything runs
    quarantine = _load_quarantine(settings)
    if shard is not None and plan.case_count == 0:
        return RunOutcome(_empty_result(settings, shard), shard=shard, empty_shard=True)
    if settings.cluster and spec:
        return _where_made(_on_cluster(settings, plan, spec, watch, full, quarantine, ledger), settings, spec)
    processes = _worker_processes(settings, spec if given is None or isinstance(given, str) else None, shard,
                                  plan.case_count * settings.repeat)
    if processes > 1 and (given is None or isinstance(given, str)):
        from evalkit.engine.processes import run_in_processes

        if shard is not None:
            raise UsageError(SettingProblem("", "", "{processes} with {shard}: give each CI job its shard, "
                                            "or split one run into processes", mentions=("processes", "shard")))
        # Each worker process resolves the agent (and its cassettes) itself, and receives its own
        # agent's spans (on a port of its own; this run's receiver serves shard 1, played here).
        workers = settings.model_copy(update={"agent": spec, "otel_port": None})
        # Bound now (a taken --otel-port is exit 2 before any worker starts), served once they have started: a
        # thread of its own in this process would keep the workers from being forked (engine/forked_worker.py).
        telemetry = _start_telemetry(settings, spec or "", serve=False)
        def shard_here(shard_settings: RunSettings) -> tuple[RunProgress, bool, bool]:
            if telemetry is not None:
                telemetry.start()
            # Shard 1 with this run's quarantine list, so that the list that reports is the one that saw the cases.
            first = parse_shard(shard_settings.shard or "")
            here = _run_here(shard_settings, shard_plan(plan, first), given, spec, None, False, tell, first, quarantine,
                             telemetry)
            assert here.progress is not None  # _run_here always keeps it
            return here.progress, here.interrupted, here.terminated

        try:
            progress, headers, interrupted = run_in_processes(workers, min(processes, max(1, plan.case_count)),
                                                              shard_here, partial(_lost_cases, plan))
        finally:
            _stop_telemetry(telemetry, tell)
        return _where_made(_folded(progress, headers, plan, interrupted, full, quarantine), settings, spec)
    return _where_made(_run_here(settings, plan, given, spec, watch, full, tell, shard, quarantine, ledger=ledger),
                       settings, spec)


def _on_cluster(settings: RunSettings, plan: Plan, spec: str, watch: Watcher | None, full: bool,
                quarantine: Quarantine | None, ledger: Ledger | None) -> RunOutcome:
    """`cluster`: the plan's cases run in chunks on a Dask cluster (engine/cluster.py), folded into one run.
    The workers load the plan's eval set files (a plan given rather than loaded from `paths`, as the pytest
    plugin gives one, included); each chunk names the cases of them it runs."""
    from evalkit.engine.cluster import run_on_cluster
    from evalkit.engine.coverage import gate_ratio

    files = tuple(dict.fromkeys(str(planned.file) for planned in plan.sets))
    shipped = settings.model_copy(update={"agent": spec, "paths": files, "case_ids": ()})
    if settings.cassettes is not None:  # each local worker replays them itself (engine/cluster_worker.py)
        _check_cassettes(settings.cassettes, settings.cassette_mode)
        shipped = shipped.model_copy(update={"cassettes": settings.cassettes.resolve()})
    ran = run_on_cluster(shipped, spec, plan, watch, partial(_unfinished_as_errors, plan), quarantine, ledger)
    if ran.interrupted is None:  # the coverage gate is decided once the cases have ended, as in a local run
        ran.progress.inventory, ran.progress.min_coverage = ran.inventory, gate_ratio(settings, plan)
    return _folded(ran.progress, ran.headers, plan, ran.interrupted or False, full, quarantine)


def _recorded_answers_unless_an_agent(plan: Plan, given: Any, spec: str | None) -> Any:
    """With no agent, cases that hold their answers are graded as they stand (evalkit.agents.recorded);
    with one, a case whose conversation already ends with the agent's message is an input error."""
    if spec or not (given is None or given == ""):
        closed = plan.closed_case_problems()
        if closed:
            raise InputError(closed)
        return given
    if plan.case_count and not plan.unanswered_cases():
        from evalkit.agents.recorded import RecordedAnswersAgent

        return RecordedAnswersAgent()
    return given


def _where_made(outcome: RunOutcome, settings: RunSettings, spec: str | None) -> RunOutcome:
    """The result file's `git`, `agent` and `cassettes`: what the run was made from (docs/viewer.md)."""
    from evalkit.results.git_info import current_git

    result = outcome.result
    result.git, result.agent = current_git(), spec or None
    if settings.cassettes is not None:
        result.cassettes = CassettesUse(folder=str(settings.cassettes.resolve()), mode=settings.cassette_mode)
    return outcome


def _worker_processes(settings: RunSettings, spec: str | None, shard: Shard | None, cases: int) -> int:
    """`processes`: the number given, or `auto` (evalkit.engine.process_count), which stays at 1
    in a shard of a CI split (that job's cores are the CI's to share out)."""
    from evalkit.engine.process_count import AUTO, choose_processes

    if settings.processes == AUTO and shard is not None:
        return 1
    return choose_processes(settings.processes, spec, cases)


def _run_here(settings: RunSettings, plan: Plan, given: Any, spec: str | None, watch: Watcher | None, full: bool,
              tell: Callable[[str], None], shard: Shard | None, quarantine: Quarantine | None,
              telemetry: RunTelemetry | None = None, ledger: Ledger | None = None) -> RunOutcome:
    """Run the plan in this process. The cassettes' proxy and the telemetry receiver, when asked
    for, start before the agent loads (the agent must see their URLs) and stop however the run
    ends (`telemetry`, when given, is the caller's to stop)."""
    own_telemetry = telemetry is None
    if telemetry is None:
        telemetry = _start_telemetry(settings, spec or (getattr(given, "description", None) or "the agent object"))
    try:
        return _run_here_traced(settings, plan, given, spec, watch, full, tell, shard, quarantine, telemetry, ledger)
    finally:
        if own_telemetry:
            _stop_telemetry(telemetry, tell)


def _run_here_traced(settings: RunSettings, plan: Plan, given: Any, spec: str | None, watch: Watcher | None,
                     full: bool, tell: Callable[[str], None], shard: Shard | None, quarantine: Quarantine | None,
                     telemetry: RunTelemetry | None, ledger: Ledger | None) -> RunOutcome:
    from evalkit.agents.registry import resolve_agent

    by_spec = given is None or isinstance(given, str)
    cassettes = _start_cassettes(settings, spec or "", tell) if by_spec else None
    interrupted: KeyboardInterrupt | None = None  # Ctrl-C, or SIGTERM (errors.Terminated)
    # The run's masking (its header values): held by this run's record, gone with it.
    media = MediaFolder(settings.environment.media_dir)  # the cases' media, by hash, beside the history
    progress = RunProgress(record=RunRecord(store=CaseStore(settings.redaction, media)), quarantine=quarantine,
                           ledger=ledger)
    try:
        try:
            loaded: Agent = resolve_agent(spec if by_spec else given, None, settings)
            if cassettes is not None:
                loaded = cassettes.wrap(loaded)
                settings = settings.model_copy(update={"environment": cassettes.judges_environment(settings.environment)})
            loaded.check_cases([(s.evalset.eval_set_id, c.eval_id) for s in plan.sets for c in s.cases_to_run])
            with start_up_frozen(), (watch(progress) if watch is not None else nullcontext()):
                run_sync(lambda: evaluate(plan, loaded, settings, progress, full=False, telemetry=telemetry))
        except KeyboardInterrupt as stop:  # also while the agent loads: a result of no cases
            interrupted = stop
        finally:
            run_has_ended()  # a signal from here on must not cut the writing of what finished short
    finally:
        _stop_cassettes(cassettes, tell)
    result = progress.result(interrupted=interrupted is not None, full=full)  # slim unless asked: memory flat in the cases
    result.shard = str(shard) if shard else None
    return RunOutcome(result, interrupted is not None, shard, None if full else progress.record.full_cases,
                      terminated=isinstance(interrupted, Terminated), quarantine=quarantine, progress=progress)


def _load_quarantine(settings: RunSettings) -> Quarantine | None:
    """`quarantine`: the list of known-flaky cases, checked before anything runs (None without it)."""
    if settings.quarantine is None:
        return None
    from evalkit.results.quarantine import load_quarantine

    return load_quarantine(settings.quarantine)


def _lost_cases(plan: Plan, index: int, count: int, finished: set[tuple[str, str]], reason: str) -> list[CaseResult]:
    """The cases of shard `index` of `count` not in `finished`, each `error` with `reason` (a worker that died)."""
    lost = shard_plan(plan, Shard(index, count))
    return _unfinished_as_errors(lost, [key for key in case_keys(lost) if key not in finished], reason)


def _unfinished_as_errors(plan: Plan, keys: list[tuple[str, str]], reason: str) -> list[CaseResult]:
    """The cases `keys` names, each `error` with `reason`: no worker finished them."""
    lost = plan_of_cases(plan, keys)
    return [CaseResult(eval_set_id=planned.evalset.eval_set_id, eval_id=case.eval_id, status=Status.ERROR,
                       error=reason, source_file=str(planned.file))
            for planned in lost.sets for case in planned.cases]


def _folded(progress: RunProgress, workers: list[RunResult], plan: Plan, interrupted: KeyboardInterrupt | bool,
            full: bool, quarantine: Quarantine | None) -> RunOutcome:
    """`processes`: one run of shard 1's progress, which holds every worker's cases too, in
    the order of the whole plan (the workers' cases marked with this run's quarantine list)."""
    progress.record.order, progress.total = plan_order(plan), plan.case_count
    progress.judge_stats = sum_judge_stats([progress.judge_stats, *(worker.judge for worker in workers)])
    # The spend is the journal's, read by run_in_processes; the cases a budget kept from starting, each worker's own.
    if progress.ledger is not None:
        progress.ledger.skipped(sum(worker.budget.not_started for worker in workers if worker.budget is not None))
    result = progress.result(interrupted=bool(interrupted), full=full)
    if result.repeat_auto:  # each process decided its own cases' runs: keep the rule, not one process's counts
        result.repeat_auto = result.repeat_auto.rule_only()
    return RunOutcome(result, bool(interrupted), full_cases=None if full else progress.record.full_cases,
                      terminated=isinstance(interrupted, Terminated), quarantine=quarantine, progress=progress)


def _start_telemetry(settings: RunSettings, agent: str, serve: bool = True) -> RunTelemetry | None:
    """`otel`: the receiver for this process's turns, bound, and serving unless `serve` is False (None without
    the setting)."""
    if not settings.otel:
        return None
    from evalkit.engine.telemetry import RunTelemetry

    telemetry = RunTelemetry(settings, agent)
    return telemetry.start() if serve else telemetry


def _stop_telemetry(telemetry: RunTelemetry | None, tell: Callable[[str], None]) -> None:
    if telemetry is None:
        return
    telemetry.stop()
    for note in telemetry.notes():
        tell(note)


def _start_cassettes(settings: RunSettings, spec: str, tell: Callable[[str], None]) -> CassetteRun | None:
    """`cassettes`: the model proxy for this run, already started (None without the setting)."""
    if settings.cassettes is None:
        return None
    _check_cassettes(settings.cassettes, settings.cassette_mode)
    from evalkit.cassettes.session import CassetteRun

    return CassetteRun(settings.cassettes, settings.cassette_mode).start()


def _check_cassettes(folder: Path, mode: str) -> None:
    """`cassettes` and `cassette_mode`: a mode evalkit knows, a folder (in replay, one that exists)."""
    from evalkit.cassettes.deck import MODES

    if mode not in MODES:
        raise SettingError("cassette_mode", mode, f"expected one of {', '.join(MODES)}")
    if folder.exists() and not folder.is_dir():
        raise SettingError("cassettes", folder, "is a file; name the folder that holds the cassettes")
    if mode == "replay" and not folder.is_dir():
        raise SettingError("cassettes", folder, "no such folder; record the cassettes first with {cassette_mode} record",
                           mentions=("cassette_mode",))


def _tell_of_unsent_headers(spec: str, tell: Callable[[str], None]) -> None:
    """Headers go only to agents whose kind `takes_headers`: say so when the run's agent takes none."""
    from evalkit.agents.registry import agent_kind

    kind = agent_kind(spec)
    if kind is None or not kind.takes_headers:  # None: a Python object, run in this process
        tell(f"the headers given (--header) are not sent: the agent {spec.strip()} makes no requests that "
             "carry them (http(s)://, adk-server: and a2a: agents do); drop them, or name the agent's server")


def _stop_cassettes(cassettes: CassetteRun | None, tell: Callable[[str], None]) -> None:
    if cassettes is None:
        return
    cassettes.stop()
    for warning in cassettes.warnings():
        tell(warning)


def _empty_result(settings: RunSettings, shard: Shard) -> RunResult:
    """More shards than cases leaves some shard empty: that job passes, and `merge` still gets its file."""
    from datetime import datetime, timezone

    from evalkit import __version__

    return RunResult(evalkit_version=__version__, started_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                     duration_s=0.0, summary=Summary(), cases=[], repeat=settings.repeat,
                     pass_rate=settings.pass_rate if settings.repeat > 1 else None, shard=str(shard))


def _to_stderr(notice: str) -> None:
    print(f"evalkit: {notice}", file=sys.stderr)
