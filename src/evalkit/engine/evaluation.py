"""One evaluation run from Python: a Plan and an Agent in, a RunResult out.

The CLI, the pytest plugin and `evalkit.assert_passes` all come through here. Results
collect in `RunProgress` as cases finish, so an interrupted run still has them: in its
`RunRecord` (evalkit.results.record), each in full on disk and a slim copy in memory.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from evalkit import __version__
from evalkit.agents.base import Agent
from evalkit.loading.plan import Plan
from evalkit.results.case_store import CaseStore
from evalkit.results.coverage import coverage_of
from evalkit.results.record import RunRecord
from evalkit.results.slim_cases import SlimCases
from evalkit.schema.coverage import Inventory
from evalkit.engine.budget import Ledger
from evalkit.engine.coverage import gate_ratio, run_inventory
from evalkit.foundation.concurrency import AdaptiveLimit
from evalkit.engine.loop_load import BusyMeter
from evalkit.engine.jobs import CaseJob
from evalkit.engine.runner import Runner
from evalkit.schema.results import CaseResult, JudgeStatistics, RunResult, Status
from evalkit.schema.run_figures import Concurrency
from evalkit.defaults import DEFAULT_REPEAT
from evalkit.settings import RunSettings

if TYPE_CHECKING:
    from evalkit.engine.repeats import AutoRepeat
    from evalkit.engine.telemetry import RunTelemetry
    from evalkit.results.quarantine import Quarantine


@dataclass
class RunProgress:
    """What has finished so far, and how the run went; read it after Ctrl-C too.

    The finished cases are the run's record (evalkit.results.record): each in full in a
    case store on disk, and a slim copy in memory."""

    record: RunRecord = field(default_factory=RunRecord)
    total: int = 0
    judge_stats: JudgeStatistics | None = None
    listeners: list[Callable[[CaseResult], None]] = field(default_factory=list)
    repeat: int = DEFAULT_REPEAT
    pass_rate: float | None = None
    limit: AdaptiveLimit | None = None  # the run's cases-in-flight controller, for the progress bar
    reruns: int = 0
    quarantine: Quarantine | None = None  # `--quarantine FILE`: marks the cases it holds out, before they are stored
    auto_repeat: AutoRepeat | None = None  # `--repeat auto`: how many agent runs it took
    confidence: float | None = None  # `--confidence`
    inventory: Inventory | None = None  # what the agent declares, asked once after the cases (engine/coverage.py)
    min_coverage: float | None = None  # the coverage gate
    ledger: Ledger | None = None  # the run's budgets and what it spent (engine/budget.py); None: no budget

    @property
    def cases(self) -> SlimCases:
        """The slim copies, in finishing order."""
        return self.record.cases

    @property
    def store(self) -> CaseStore:
        return self.record.store

    def add(self, result: CaseResult) -> None:
        if self.quarantine is not None:
            self.quarantine.mark(result)
        result = self.record.add(result)  # as stored: text no file can hold is escaped
        for listener in self.listeners:
            listener(result)

    def result(self, interrupted: bool = False, full: bool = True) -> RunResult:
        """The run so far; `full=False` holds the slim cases (write files from `record.full_cases()`)."""
        record = self.record
        header = RunResult(
            evalkit_version=__version__,
            started_at=record.started_at,
            duration_s=record.elapsed_s(),
            summary=record.summary(planned=self.total),
            cases=[],
            interrupted=interrupted,
            judge=self.judge_stats.model_copy(update={"no_verdict": record.no_verdicts}) if self.judge_stats else None,
            latency=record.figures.report(total=self.total),
            repeat=self.repeat,
            pass_rate=self.pass_rate,
            concurrency=self.concurrency_figures(),
            quarantine=self.quarantine.summary() if self.quarantine is not None else None,
            repeat_auto=self.auto_repeat.figures() if self.auto_repeat is not None else None,
            confidence=self.confidence,
            coverage=coverage_of(self.inventory, record.coverage.activity, record.coverage.expected, self.min_coverage),
            budget=self.ledger.figures() if self.ledger is not None else None,
        )
        return record.with_cases(header, full)

    def concurrency_figures(self) -> Concurrency | None:
        if self.limit is None:
            return None
        return Concurrency(**self.limit.summary(), reruns=self.reruns)


def jobs_for(plan: Plan) -> list[CaseJob]:
    jobs = []
    for planned in plan.sets:
        source_file = str(planned.file)  # one string for the set's cases, not one per case
        jobs += [CaseJob(eval_set_id=planned.evalset.eval_set_id, case=case, criteria=planned.criteria,
                         source_file=source_file, simulator_config=planned.config.user_simulator_config)
                 for case in planned.cases_to_run]
    return jobs


def plan_order(plan: Plan) -> dict[str, dict[str, int]]:
    """Each case's place in the plan, by eval set id and eval id (one dict per eval set: no
    tuple kept per case)."""
    order: dict[str, dict[str, int]] = {}
    places = iter(range(plan.case_count))
    for planned in plan.sets:
        order.setdefault(planned.evalset.eval_set_id, {}).update((case.eval_id, next(places)) for case in planned.cases)
    return order


def not_evaluated_results(plan: Plan) -> list[CaseResult]:
    """The cases the plan cannot score (a scenario without criteria for it), with the reason."""
    return [
        CaseResult(eval_set_id=planned.evalset.eval_set_id, eval_id=case.eval_id, status=Status.NOT_EVALUATED,
                   reason=planned.not_evaluated[case.eval_id], source_file=str(planned.file))
        for planned in plan.sets
        for case in planned.cases
        if case.eval_id in planned.not_evaluated
    ]


def not_started_results(jobs: list[CaseJob], started: set[tuple[str, str]], ledger: Ledger) -> list[CaseResult]:
    """The cases a reached budget kept from starting (each once, however many runs it had left), `not_evaluated`
    with the budget's reason; a case in `started` had runs of its own and is not among them."""
    cases: dict[tuple[str, str], CaseJob] = {}
    for job in jobs:
        key = (job.eval_set_id, job.case.eval_id)
        if key not in started:
            cases.setdefault(key, job)
    if not cases:
        return []
    ledger.skipped(len(cases))
    reason = ledger.figures().not_started_reason()
    return [CaseResult(eval_set_id=job.eval_set_id, eval_id=job.case.eval_id, status=Status.NOT_EVALUATED,
                       reason=reason, source_file=job.source_file) for job in cases.values()]


def needs_judge(plan: Plan) -> bool:
    """A judge criterion, or a scenario (its user is played by a model), needs the judge layer."""
    return any(
        any(c.uses_judge for c in planned.criteria) or any(case.is_scenario for case in planned.cases_to_run)
        for planned in plan.sets
    )


async def evaluate(plan: Plan, agent: Agent, settings: RunSettings, progress: RunProgress | None = None,
                   full: bool = True, telemetry: RunTelemetry | None = None,
                   limit: AdaptiveLimit | None = None) -> RunResult:
    """Run the plan; with `full=False` the result holds slim cases (see `RunProgress.result`);
    with `telemetry` (`--otel`), each turn is traced and its spans read into it; with `limit`,
    the cases in flight are that controller's (shared by the chunks a `--cluster` worker runs at once).
    The run's budgets are `progress.ledger` when it holds one, else the settings' and the plan's."""
    progress = progress or RunProgress()
    if progress.ledger is None:
        progress.ledger = Ledger.for_run(settings, plan)
    ledger = progress.ledger
    jobs = jobs_for(plan)
    unscored = not_evaluated_results(plan)
    progress.total = len(jobs) + len(unscored)
    progress.record.order = plan_order(plan)
    for result in unscored:
        progress.add(result)
    on_case_done = progress.add
    collector = None
    auto = None
    if settings.auto_repeat or settings.repeat > 1:
        progress.repeat, progress.pass_rate = settings.repeat, settings.pass_rate
        progress.confidence = settings.confidence
    if settings.auto_repeat:
        from evalkit.engine.repeats import AutoRepeat

        auto = progress.auto_repeat = AutoRepeat(settings.stopping_rule(), settings.repeat, progress.add)
        on_case_done = auto.add
    elif settings.repeat > 1:
        from evalkit.engine.repeats import RepeatCollector, repeated

        collector = RepeatCollector(settings.repeat, settings.required_passes, progress.add)
        on_case_done = collector.add
        jobs = repeated(jobs, settings.repeat)
    for criterion in {id(c): c for planned in plan.sets for c in planned.criteria}.values():
        criterion.prepare()
    judge = None
    if needs_judge(plan):
        from evalkit.judge.endpoints import JudgeEndpoints
        from evalkit.judge.retry import RetryPolicy
        from evalkit.judge.service import JudgeService

        environment = settings.environment
        judge = JudgeService(max_concurrency=settings.judge_jobs, use_cache=settings.use_cache,
                             cache_dir=environment.cache_dir, retry=RetryPolicy.of(environment),
                             endpoints=JudgeEndpoints.of(environment),
                             on_usage=ledger.record_judge if ledger is not None else None)
    progress.limit = limit or AdaptiveLimit(settings.jobs, busy=BusyMeter())
    from evalkit.cassettes.mcp_misses import MissWatch

    misses = MissWatch().start()  # the agent's `evalkit mcp` stand-ins tell it what they could not answer
    runner = Runner(agent, settings, judge=judge, on_case_done=on_case_done, limit=progress.limit, misses=misses,
                    telemetry=telemetry, ledger=ledger)
    try:
        await run_checked(runner.run(jobs), agent.check_ready() if jobs else None)
        # The agent was checked in the first round; a reached budget starts no other.
        while auto is not None and (ledger is None or ledger.may_start()) and (jobs := auto.next_round(jobs)):
            await runner.run(jobs)
        progress.inventory = await run_inventory(agent, plan, settings.cassettes)  # once, after the cases, before the agent closes
        progress.min_coverage = gate_ratio(settings, plan)
    finally:
        progress.reruns = runner.reruns
        # A case with runs of its own before the budget was reached is folded from them (as after Ctrl-C).
        started = {*(collector.pending if collector is not None else ()), *(auto.pending if auto is not None else ())}
        if collector is not None:
            collector.flush()
        if auto is not None:
            auto.flush()
        if ledger is not None:
            for result in not_started_results(runner.not_started, started, ledger):
                progress.add(result)
            ledger.close()
        try:
            await agent.aclose()
        finally:
            misses.stop()
        for missed in misses.unclaimed:
            print(f"evalkit: while no case's turn was in flight, {missed}", file=sys.stderr)
        if judge is not None:
            progress.judge_stats = judge.stats.model_copy(update={"concurrency": judge.concurrency()})
            await judge.aclose()
    return progress.result(full=full)


async def run_checked(run: Coroutine[Any, Any, None], check: Coroutine[Any, Any, None] | None) -> None:
    """Run the cases while the agent's readiness check runs; a failed check stops the run and is raised.

    Side by side, so a working agent pays nothing for the check. An agent that cannot
    start fails every case the same way, so what those cases did before the check
    failed is not worth keeping: the run ends with the check's error (exit 2).
    """
    if check is None:  # nothing to run, nothing to check
        await run
        return
    checking = asyncio.ensure_future(check)
    running = asyncio.ensure_future(run)
    try:
        await asyncio.wait({checking, running}, return_when=asyncio.FIRST_COMPLETED)
        if checking.done() and checking.exception() is not None:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
            checking.result()
        await running
        await checking
    finally:
        for task in (checking, running):
            if not task.done():
                task.cancel()
        await asyncio.gather(checking, running, return_exceptions=True)

