"""One evaluation run from Python: a Plan and an Agent in, a RunResult out.

The CLI, the pytest plugin and `evalkit.assert_passes` all come through here. Results
collect in `RunProgress` as cases finish, so an interrupted run still has them: each
in full in a `CaseStore` on disk, and a slim copy in memory.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from datetime import datetime, timezone

from evalkit import __version__
from evalkit.agents.base import Agent
from evalkit.loading.plan import Plan
from evalkit.results.coverage import CoverageTally, coverage_of
from evalkit.results.latency import RunFigures
from evalkit.schema.coverage import Inventory
from evalkit.engine.coverage import gate_ratio, run_inventory
from evalkit.foundation.concurrency import AdaptiveLimit
from evalkit.engine.case_store import CaseStore, StoredCases, slim
from evalkit.engine.loop_load import BusyMeter
from evalkit.engine.slim_cases import SlimCases
from evalkit.engine.jobs import CaseJob
from evalkit.engine.runner import Runner
from evalkit.schema.results import CaseResult, JudgeStatistics, RunResult, Status, Summary
from evalkit.schema.run_figures import Concurrency
from evalkit.defaults import DEFAULT_REPEAT
from evalkit.settings import RunSettings

if TYPE_CHECKING:
    from evalkit.engine.repeats import AutoRepeat
    from evalkit.results.quarantine import Quarantine


_AFTER_THE_PLAN = 1 << 62  # where a finished case the plan does not list is put: last


@dataclass
class RunProgress:
    """What has finished so far; read it after Ctrl-C too."""

    started_at: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    started: float = field(default_factory=time.perf_counter)
    total: int = 0
    cases: SlimCases = field(default_factory=SlimCases)  # slim copies, packed (evalkit.engine.slim_cases)
    store: CaseStore = field(default_factory=CaseStore)  # case i of `cases` in full, in finishing order
    judge_stats: JudgeStatistics | None = None
    order: dict[str, dict[str, int]] = field(default_factory=dict)  # eval set id → eval id → place in the plan
    listeners: list[Callable[[CaseResult], None]] = field(default_factory=list)
    repeat: int = DEFAULT_REPEAT
    pass_rate: float | None = None
    limit: AdaptiveLimit | None = None  # the run's cases-in-flight controller, for the progress bar
    reruns: int = 0
    figures: RunFigures = field(default_factory=RunFigures)  # latency and tool figures, fed as cases finish
    quarantine: Quarantine | None = None  # `--quarantine FILE`: marks the cases it holds out, before they are stored
    auto_repeat: AutoRepeat | None = None  # `--repeat auto`: how many agent runs it took
    confidence: float | None = None  # `--confidence`
    no_verdicts: int = 0  # judged turns without a readable verdict, over every case added (workers' too)
    coverage: CoverageTally = field(default_factory=CoverageTally)  # what the cases exercised, fed as they finish
    inventory: Inventory | None = None  # what the agent declares, asked once after the cases (engine/coverage.py)
    min_coverage: float | None = None  # the coverage gate

    def add(self, result: CaseResult) -> None:
        if self.quarantine is not None:
            self.quarantine.mark(result)
        result = self.store.add(result)  # as stored: text no file can hold is escaped
        self.no_verdicts += sum(1 for criterion in result.criteria for turn in criterion.invocations
                                if turn.details.get("no_verdict"))
        self.figures.add(result)
        self.coverage.add(result)
        self.cases.append(slim(result))
        for listener in self.listeners:
            listener(result)

    def stored_cases(self) -> StoredCases:
        """Every finished case in full, in plan order, read back from disk one at a time."""
        return self.store.in_order(self._plan_order())

    def _plan_order(self) -> list[int]:
        def place(index: int) -> int:
            eval_set_id, eval_id = self.cases.key(index)
            return self.order.get(eval_set_id, {}).get(eval_id, _AFTER_THE_PLAN)

        return sorted(range(len(self.cases)), key=place)

    def result(self, interrupted: bool = False, full: bool = True) -> RunResult:
        """The run so far; `full=False` holds the slim cases (write files from `stored_cases()`)."""
        result = RunResult(
            evalkit_version=__version__,
            started_at=self.started_at,
            duration_s=round(time.perf_counter() - self.started, 3),
            summary=Summary.of(self.cases, planned=self.total),
            cases=[],
            interrupted=interrupted,
            judge=self.judge_stats.model_copy(update={"no_verdict": self.no_verdicts}) if self.judge_stats else None,
            latency=self.figures.report(total=self.total),
            repeat=self.repeat,
            pass_rate=self.pass_rate,
            concurrency=self.concurrency_figures(),
            quarantine=self.quarantine.summary() if self.quarantine is not None else None,
            repeat_auto=self.auto_repeat.figures() if self.auto_repeat is not None else None,
            confidence=self.confidence,
            coverage=coverage_of(self.inventory, self.coverage.activity, self.coverage.expected, self.min_coverage),
        )
        # Slim cases are read through a view, built one at a time: a list of them all is what grew per case.
        result.cases = list(self.stored_cases()) if full else self.cases.in_order(self._plan_order())  # type: ignore[assignment]
        return result

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


def needs_judge(plan: Plan) -> bool:
    """A judge criterion, or a scenario (its user is played by a model), needs the judge layer."""
    return any(
        any(c.uses_judge for c in planned.criteria) or any(case.is_scenario for case in planned.cases_to_run)
        for planned in plan.sets
    )


async def evaluate(plan: Plan, agent: Agent, settings: RunSettings, progress: RunProgress | None = None,
                   full: bool = True) -> RunResult:
    """Run the plan; with `full=False` the result holds slim cases (see `RunProgress.result`)."""
    progress = progress or RunProgress()
    jobs = jobs_for(plan)
    unscored = not_evaluated_results(plan)
    progress.total = len(jobs) + len(unscored)
    progress.order = plan_order(plan)
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
                             endpoints=JudgeEndpoints.of(environment))
    progress.limit = AdaptiveLimit(settings.jobs, busy=BusyMeter())
    runner = Runner(agent, settings, judge=judge, on_case_done=on_case_done, limit=progress.limit)
    try:
        await run_checked(runner.run(jobs), agent.check_ready() if jobs else None)
        while auto is not None and (jobs := auto.next_round(jobs)):  # the agent was checked in the first round
            await runner.run(jobs)
        progress.inventory = await run_inventory(agent, plan, settings.cassettes)  # once, after the cases, before the agent closes
        progress.min_coverage = gate_ratio(settings, plan)
    finally:
        progress.reruns = runner.reruns
        if collector is not None:
            collector.flush()
        if auto is not None:
            auto.flush()
        await agent.aclose()
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

