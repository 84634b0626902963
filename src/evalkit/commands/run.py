"""`evalkit run` (and `rescore`): plan → agent → evaluate → the finish step (evalkit.finish) → exit code."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from contextlib import AbstractContextManager
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from evalkit.errors import EvalkitError, ExitCode
from evalkit.report.console import make_console
from evalkit.schema.results import CaseResult, RunResult
from evalkit.settings import FinishSettings, RunSettings

if TYPE_CHECKING:
    from evalkit.agents.base import Agent
    from evalkit.engine.evaluation import RunProgress
    from evalkit.engine.progress_file import ProgressFile
    from evalkit.loading.plan import Plan


def run_command(settings: RunSettings, finish: FinishSettings, plan: Plan | None = None,
                agent: Agent | None = None) -> int:
    """Run and report; `evalkit rescore` passes the plan and the replay agent it built itself.

    Ctrl-C or SIGTERM after the run's cases have ended is noted, not raised: every file is
    written in full, and the exit code still says the signal came (docs/reliability.md)."""
    import signal

    from evalkit.foundation.signals import signals_noted_after_the_run

    with signals_noted_after_the_run() as noted:
        code, interrupted = _run_and_report(settings, finish, plan, agent)
    if noted.first is None or interrupted:  # stopped by its own signal, `code` already says which
        return code
    name = "SIGTERM" if noted.first == signal.SIGTERM else "Ctrl-C"
    print(f"evalkit: {name} came after the run had ended; every file was written in full", file=sys.stderr)
    return ExitCode.TERMINATED if noted.first == signal.SIGTERM else ExitCode.INTERRUPTED


def _run_and_report(settings: RunSettings, finish_settings: FinishSettings, plan: Plan | None,
                    agent: Agent | None) -> tuple[int, bool]:
    """The run, its files and its table: the exit code, and whether a signal stopped the run."""
    from evalkit.finish import Finish
    from evalkit.results.history import run_stamp
    from evalkit.engine.run import load_plan, run
    from evalkit.report.progress import live_progress

    if plan is None:
        plan = load_plan(settings)
    finish = Finish.plan(finish_settings, settings, {s.evalset.eval_set_id for s in plan.sets})  # before history
    console = make_console()
    live: list[ProgressFile] = []  # the run's progress file for `evalkit view`, opened as the run starts
    stamp = run_stamp()  # names both that file and the run's file in the history
    planned = plan
    spec = None if agent is not None else settings.agent or plan.agent_from_config() or None

    def watch(progress: RunProgress) -> AbstractContextManager[object]:
        progress_file = start_live_progress(planned, settings, progress, spec, stamp)
        if progress_file is not None:
            live.append(progress_file)
        return live_progress(console, progress, enabled=not finish_settings.quiet and console.is_terminal)

    try:
        outcome = run(settings, agent=agent, plan=plan, watch=watch)
    except BaseException:
        close_live_progress(live)
        raise
    result, interrupted, full_cases = outcome.result, outcome.interrupted, outcome.full_cases
    if outcome.empty_shard:
        failure = finish.write(result)
        if failure is not None:
            raise failure
        print(f"evalkit: shard {outcome.shard} holds no eval case; nothing to run", file=sys.stderr)
        return ExitCode.OK, False
    comparison = finish.compare(result, full_cases)  # before the reports, which show its tests
    verdict = finish.judge(result, min_coverage=outcome.min_coverage, comparison=comparison)  # the reports say it
    write_failure = finish.write(result, full_cases)  # first: a console cut short (`| head`) must not lose them
    if not interrupted:
        record_history(result, settings, full_cases() if full_cases else None, stamp)
    close_live_progress(live)  # after the history has the finished run, so the viewer never loses it
    finish.show(result, console, full_cases)
    if write_failure is not None:
        raise write_failure
    if interrupted:
        never = f"; {result.summary.never_ran} of {result.summary.planned} cases never ran" if result.summary.never_ran else ""
        print(f"evalkit: interrupted; results of the finished cases were written{never}", file=sys.stderr)
    for warning in outcome.quarantine.warnings() if outcome.quarantine is not None else ():
        print(f"evalkit: warning: {warning}", file=sys.stderr)
    finish.tell(verdict, comparison, console)
    code = ExitCode.TERMINATED if outcome.terminated else verdict.exit_code
    trouble = outcome.progress.store.trouble if outcome.progress is not None else None
    if trouble is not None:  # nothing was lost, but the place must be named (docs/reliability.md)
        print(f"evalkit: {trouble}", file=sys.stderr)
        code = ExitCode.RUN_ERROR if code in (ExitCode.OK, ExitCode.FAILED) else code
    return code, interrupted

def start_live_progress(plan: Plan, settings: RunSettings, progress: RunProgress,
                        spec: str | None, stamp: str | None = None) -> ProgressFile | None:
    """The run's progress file for `evalkit view`, in the history's folder (None when history is off).

    Each case the run's progress hears of is appended to it as it finishes; `spec` is the
    agent the run was given (None when it runs an agent object).
    """
    from evalkit.engine.progress_file import ProgressFile
    from evalkit.engine.sharding import parse_shard, shard_plan

    if settings.environment.history_limit == 0:
        return None
    if settings.shard:  # the header counts this shard's cases, as the run does
        plan = shard_plan(plan, parse_shard(settings.shard))
    header = {"started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"), "agent": spec,
              "eval_set_ids": [s.evalset.eval_set_id for s in plan.sets], "total": plan.case_count}
    progress_file = ProgressFile.start(settings.environment.runs_dir, header, stamp)
    if progress_file is not None:
        progress.listeners.append(lambda case: progress_file.add(case, progress.total))
    return progress_file


def close_live_progress(live: list[ProgressFile]) -> None:
    for progress_file in live:
        progress_file.close()
    live.clear()


def record_history(result: RunResult, settings: RunSettings, cases: Iterable[CaseResult] | None = None,
                   stamp: str | None = None) -> None:
    from evalkit.results import history

    folder = settings.environment.runs_dir
    try:
        history.record(result, directory=folder, limit=settings.environment.history_limit, cases=cases,
                       stamp=stamp)
    except (OSError, EvalkitError) as error:  # history is a convenience: never fail a run over it
        print(f"evalkit: could not record this run in {folder}: {error}", file=sys.stderr)
