"""`evalkit run`: plan → agent → evaluate → reports → exit code."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from evalkit.engine.coverage import gate_ratio
from evalkit.results.run_verdict import exit_code
from evalkit.errors import EvalkitError, ExitCode, InputError, StorageError, UsageError
from evalkit.report.console import make_console
from evalkit.report.writing import write_reports
from evalkit.schema.results import CaseResult, RunResult
from evalkit.settings import RunSettings

if TYPE_CHECKING:
    from rich.console import Console

    from evalkit.agents.base import Agent
    from evalkit.compare.diff import Comparison
    from evalkit.engine.evaluation import RunProgress
    from evalkit.engine.progress_file import ProgressFile
    from evalkit.loading.plan import Plan
    from evalkit.results.reader import ScoredRun


@dataclass
class RunRequest:
    """The flags of `evalkit run` as typed: `run_settings` turns the run's own into its
    `RunSettings`; the rest (outputs, baseline, how to print) are the command's."""

    paths: list[str]
    config: str | None = None
    agent: str | None = None
    jobs: int | str | None = None  # a number or "auto"; None: not given, the settings' default
    json_out: Path | None = None
    junit: Path | None = None
    markdown: Path | None = None
    html: Path | None = None
    repeat: int | str | None = None  # a number or "auto"
    case_ids: list[str] = field(default_factory=list)
    shard: str | None = None
    baseline: str | None = None
    use_cache: bool | None = None
    timeout: float | None = None
    quiet: bool = False
    judge_jobs: int | str | None = None  # a number or "auto"
    detailed: bool = False
    debug: bool = False  # show each error case's error_detail
    pass_rate: float | None = None  # with repeat: share of runs a case needs to pass
    tolerance: float | None = None  # with baseline: allowed score drop (None: not given, 0)
    cassettes: Path | None = None  # answer the agent's model calls from this folder (docs/cassettes.md)
    cassette_mode: str = "replay"
    processes: int | str | None = None  # worker processes (a number or "auto"), each running a shard of the cases
    max_repeat: int | None = None  # with repeat "auto": the most runs a case gets
    confidence: float | None = None  # with pass_rate: a case passes when its interval's low end reaches it
    significance: float | None = None  # with baseline: a regression counts only when significant at this level
    gate_scores: bool = False  # with significance: a significant drop of a criterion's mean score fails too
    quarantine: Path | None = None  # known-flaky cases that do not set the exit code (evalkit.quarantine)
    gate: str | None = None  # thresholds, regressions or both: what sets exit 1 (None: both with a baseline)
    min_coverage: float | None = None  # exit 1 below this share of the agent's tools called (docs/coverage.md)
    headers: list[str] = field(default_factory=list)  # `--header 'Name: value'`, for agents reached over HTTP


def run_command(request: RunRequest, plan: Plan | None = None, agent: Agent | None = None) -> int:
    """Run and report; `evalkit rescore` passes the plan and the replay agent it built itself.

    Ctrl-C or SIGTERM after the run's cases have ended is noted, not raised: every file is
    written in full, and the exit code still says the signal came (docs/reliability.md)."""
    import signal

    from evalkit.foundation.signals import signals_noted_after_the_run

    with signals_noted_after_the_run() as noted:
        code, interrupted = _run_and_report(request, plan, agent)
    if noted.first is None or interrupted:  # stopped by its own signal, `code` already says which
        return code
    name = "SIGTERM" if noted.first == signal.SIGTERM else "Ctrl-C"
    print(f"evalkit: {name} came after the run had ended; every file was written in full", file=sys.stderr)
    return ExitCode.TERMINATED if noted.first == signal.SIGTERM else ExitCode.INTERRUPTED


def _run_and_report(request: RunRequest, plan: Plan | None, agent: Agent | None) -> tuple[int, bool]:
    """The run, its files and its table: the exit code, and whether a signal stopped the run."""
    from evalkit.engine.history import run_stamp
    from evalkit.engine.run import load_plan, run
    from evalkit.report.console import render
    from evalkit.report.progress import live_progress

    settings = run_settings(request)
    if plan is None:
        plan = load_plan(settings)
    check_loop_options(request)
    check_statistics_options(request, settings)
    baseline = load_run_baseline(request, {s.evalset.eval_set_id for s in plan.sets})  # before this run is recorded
    console = make_console()
    live: list[ProgressFile] = []  # the run's progress file for `evalkit view`, opened as the run starts
    stamp = run_stamp()  # names both that file and the run's file in the history
    planned = plan
    spec = None if agent is not None else settings.agent or plan.agent_from_config() or None

    def watch(progress: RunProgress) -> AbstractContextManager[object]:
        progress_file = start_live_progress(planned, settings, progress, spec, stamp)
        if progress_file is not None:
            live.append(progress_file)
        return live_progress(console, progress, enabled=not request.quiet and console.is_terminal)

    try:
        outcome = run(settings, agent=agent, plan=plan, watch=watch)
    except BaseException:
        close_live_progress(live)
        raise
    result, interrupted, full_cases = outcome.result, outcome.interrupted, outcome.full_cases
    if outcome.empty_shard:
        write_reports(result, json_out=request.json_out, junit=request.junit, markdown=request.markdown,
                      html=request.html)
        print(f"evalkit: shard {outcome.shard} holds no eval case; nothing to run", file=sys.stderr)
        return ExitCode.OK, False
    comparison = None
    if baseline is not None:  # before the reports, which show its tests
        comparison = compare_with_baseline(baseline, result.model_copy(update={"cases": full_cases()})
                                           if full_cases else result, request)
        result.comparison = comparison.to_dict()
    # Result files first: a console cut short (`| head`) must not lose them or the exit code.
    write_failure = None
    try:
        write_reports(result, json_out=request.json_out, junit=request.junit, markdown=request.markdown,
                      html=request.html, full_cases=full_cases)
    except EvalkitError as failure:  # after the run: a full disk or a removed folder is the run's error (exit 3)
        write_failure = StorageError("\n".join(failure.lines())) if isinstance(failure, InputError) else failure
    if not interrupted:
        record_history(result, settings, full_cases() if full_cases else None, stamp)
    close_live_progress(live)  # after the history has the finished run, so the viewer never loses it
    try:
        if request.quiet:
            from evalkit.report.console import summary_line

            console.print(summary_line(result), highlight=False)
        else:
            render(result, console, debug=request.debug)
            if request.detailed:
                from evalkit.report.detailed import render_detailed

                render_detailed(result.model_copy(update={"cases": list(full_cases())}) if full_cases else result,
                                console)
    except BrokenPipeError:
        # The reader went away; keep Python from complaining about stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if write_failure is not None:
        raise write_failure
    if interrupted:
        never = f"; {result.summary.never_ran} of {result.summary.planned} cases never ran" if result.summary.never_ran else ""
        print(f"evalkit: interrupted; results of the finished cases were written{never}", file=sys.stderr)
    for warning in outcome.quarantine.warnings() if outcome.quarantine is not None else ():
        print(f"evalkit: warning: {warning}", file=sys.stderr)
    code = ExitCode.TERMINATED if outcome.terminated else exit_code(result)
    gate = chosen_gate(request)
    if gate == GATE_REGRESSIONS and code == ExitCode.FAILED:
        code = ExitCode.OK  # failed thresholds alone do not fail this gate; errors (exit 3) still do
    if not interrupted and not settings.shard and report_coverage_gate(result, gate_ratio(settings, plan)) \
            and code == ExitCode.OK:
        code = ExitCode.FAILED
    trouble = outcome.progress.store.trouble if outcome.progress is not None else None
    if trouble is not None:  # nothing was lost, but the place must be named (docs/reliability.md)
        print(f"evalkit: {trouble}", file=sys.stderr)
        code = ExitCode.RUN_ERROR if code in (ExitCode.OK, ExitCode.FAILED) else code
    if comparison is not None:
        regressed = report_baseline(comparison, result, request, console)
        if regressed and gate != GATE_THRESHOLDS and code == ExitCode.OK:
            code = ExitCode.FAILED
    return code, interrupted


GATE_THRESHOLDS, GATE_REGRESSIONS, GATE_BOTH = "thresholds", "regressions", "both"
GATES = (GATE_THRESHOLDS, GATE_REGRESSIONS, GATE_BOTH)


def chosen_gate(request: RunRequest) -> str:
    """`--gate`: what sets exit 1. Thresholds without a baseline, both with one."""
    if request.gate is not None:
        return request.gate
    return GATE_BOTH if request.baseline else GATE_THRESHOLDS


def report_coverage_gate(result: RunResult, requested: float | None) -> bool:
    """Say why the coverage gate fails, on stderr; True when it does."""
    from evalkit.results.coverage import gate_message

    message = gate_message(result.coverage, requested)
    if message is not None:
        print(f"evalkit: {message}", file=sys.stderr)
    return message is not None


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


def run_settings(request: RunRequest) -> RunSettings:
    """The run's settings: what the flags gave, the defaults for the rest (checked once, here)."""
    return RunSettings.of(paths=tuple(request.paths), case_ids=tuple(request.case_ids), config=request.config,
                          agent=request.agent, shard=request.shard or None, cassettes=request.cassettes,
                          cassette_mode=request.cassette_mode, processes=request.processes,
                          jobs=request.jobs, judge_jobs=request.judge_jobs, timeout=request.timeout,
                          repeat=request.repeat, pass_rate=request.pass_rate, use_cache=request.use_cache,
                          confidence=request.confidence, max_repeat=request.max_repeat,
                          quarantine=request.quarantine, min_coverage=request.min_coverage,
                          headers=request.headers or None)


def check_loop_options(request: RunRequest) -> None:
    """Reject flags without their partner or a bad output path before anything runs."""
    from evalkit.report.output_paths import check_output_paths

    check_output_paths({"--json": request.json_out, "--junit": request.junit,
                        "--markdown": request.markdown, "--html": request.html})
    if request.pass_rate is not None and str(request.repeat or 1) == "1":
        raise UsageError(f"--pass-rate {request.pass_rate:g}: only means something with --repeat N (N > 1); "
                         "add --repeat, or drop --pass-rate")
    if request.tolerance is not None and not request.baseline:
        raise UsageError(f"--tolerance {request.tolerance:g}: only means something with --baseline; "
                         "add --baseline FILE (or last), or drop --tolerance")
    if request.cassettes is None and request.cassette_mode != "replay":
        from evalkit.cassettes.deck import MODES

        known = "" if request.cassette_mode in MODES else f" (and it is not a mode: expected one of {', '.join(MODES)})"
        raise UsageError(f"--cassette-mode {request.cassette_mode}: only means something with --cassettes DIR{known}; "
                         "add --cassettes, or drop --cassette-mode")


def load_run_baseline(request: RunRequest, eval_set_ids: set[str]) -> ScoredRun | None:
    if not request.baseline:
        return None
    from evalkit.compare.baseline import check_tolerance, load_baseline

    check_tolerance(request.tolerance or 0.0)
    return load_baseline(request.baseline, eval_set_ids)


def compare_with_baseline(baseline: ScoredRun, result: RunResult, request: RunRequest) -> Comparison:
    """What changed since the baseline, with the significance tests when asked for."""
    from evalkit.compare.diff import compare_runs
    from evalkit.results.reader import from_result

    this_run = from_result(result, "this run")
    comparison = compare_runs(baseline, this_run, request.tolerance or 0.0)
    if request.significance is not None:
        from evalkit.compare.significance import add_significance

        held = {(case.eval_set_id, case.eval_id) for case in result.cases if case.quarantined}
        add_significance(comparison, baseline, this_run, request.significance, request.gate_scores, held=held)
    return comparison


def report_baseline(comparison: Comparison, result: RunResult, request: RunRequest, console: Console) -> bool:
    """Print what changed since the baseline; True when it fails the gate. A quarantined
    case does not (with `--significance` it is left out of the tests as well)."""
    from evalkit.compare.render import render_comparison, summary_line

    if request.quiet:
        console.print(summary_line(comparison), highlight=False, soft_wrap=True)
    else:
        render_comparison(comparison, console)
    if comparison.significance is not None:
        return comparison.fails_gate
    held = {(case.eval_set_id, case.eval_id) for case in result.cases if case.quarantined}
    return any((c.eval_set_id, c.eval_id) not in held for c in comparison.regressions)


def check_statistics_options(request: RunRequest, settings: RunSettings) -> None:
    """The statistics flags need their partners, and a confidence gate must be reachable."""
    from evalkit.compare.significance import check_level

    check_level(request.significance)
    if request.significance is not None and not request.baseline:
        raise UsageError(f"--significance {request.significance:g}: only means something with --baseline; "
                         "add --baseline FILE (or last), or compare two result files with evalkit compare")
    if request.gate is not None and request.gate not in GATES:
        raise UsageError(f"--gate {request.gate}: expected thresholds, regressions or both (see docs/repeats.md)")
    if request.gate in (GATE_REGRESSIONS, GATE_BOTH) and not request.baseline:
        raise UsageError(f"--gate {request.gate}: regressions need something to regress from; add --baseline "
                         "FILE, last or history, or use --gate thresholds")
    if request.gate_scores and request.significance is None:
        raise UsageError("--gate-scores: only means something with --significance LEVEL; "
                         "add --significance 0.05, or drop --gate-scores")
    if request.max_repeat is not None and not settings.auto_repeat:
        raise UsageError(f"--max-repeat {request.max_repeat}: only means something with --repeat auto; "
                         "use --repeat auto, or drop --max-repeat")
    if settings.confidence is not None and settings.pass_rate is None:
        raise UsageError(f"--confidence {settings.confidence:g}: only means something with --pass-rate RATE; "
                         "add --pass-rate (such as 0.8), or drop --confidence")
    if settings.confidence is not None and settings.required_passes > settings.repeat:
        needed = next(n for n in range(settings.repeat + 1, 100_000) if settings.passes_required(n) <= n)
        raise UsageError(f"--pass-rate {settings.pass_rate:g} --confidence {settings.confidence:g}: no case can pass "
                         f"in {settings.repeat} runs (even all passing leaves the interval's low end below "
                         f"{settings.pass_rate:g}); use {'--max-repeat' if settings.auto_repeat else '--repeat'} {needed} or more, "
                         "or a lower --pass-rate or --confidence")


def record_history(result: RunResult, settings: RunSettings, cases: Iterable[CaseResult] | None = None,
                   stamp: str | None = None) -> None:
    from evalkit.engine import history

    folder = settings.environment.runs_dir
    try:
        history.record(result, directory=folder, limit=settings.environment.history_limit, cases=cases,
                       stamp=stamp)
    except (OSError, EvalkitError) as error:  # history is a convenience: never fail a run over it
        print(f"evalkit: could not record this run in {folder}: {error}", file=sys.stderr)
