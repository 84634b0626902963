"""`evalkit run`: plan → agent → evaluate → reports → exit code."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from evalkit.defaults import DEFAULT_PROCESSES
from evalkit.engine.evaluation import exit_code
from evalkit.errors import EvalkitError, ExitCode, UsageError
from evalkit.report.console import make_console
from evalkit.report.writing import write_reports
from evalkit.schema.results import RunResult
from evalkit.settings import RunSettings


@dataclass
class RunRequest:
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
    processes: int | None = None  # worker processes, each running a shard of the cases (evalkit.engine.processes)
    max_repeat: int | None = None  # with repeat "auto": the most runs a case gets
    confidence: float | None = None  # with pass_rate: a case passes when its interval's low end reaches it
    significance: float | None = None  # with baseline: a regression counts only when significant at this level
    gate_scores: bool = False  # with significance: a significant drop of a criterion's mean score fails too
    quarantine: Path | None = None  # known-flaky cases that do not set the exit code (evalkit.quarantine)


def run_command(request: RunRequest, plan=None, agent=None) -> int:
    """Run and report; `evalkit rescore` passes the plan and the replay agent it built itself."""
    from evalkit.loading.plan import build_plan
    from evalkit.report.console import render

    if plan is None:
        plan = build_plan(request.paths, case_ids=request.case_ids, config_file=request.config)
    spec = request.agent or (None if agent else plan.agent_from_config())
    plan, shard = apply_shard(plan, request.shard)
    check_loop_options(request)
    settings = run_settings(request)
    check_statistics_options(request, settings)
    quarantine = load_run_quarantine(request)
    baseline = load_run_baseline(request, {s.evalset.eval_set_id for s in plan.sets})  # before this run is recorded
    if not spec and agent is None:
        raise UsageError("no agent to run: pass --agent SPEC, or set 'agent' in the config")
    if shard is not None and plan.case_count == 0:
        return empty_shard(request, settings, shard)
    console = make_console()
    full_cases = None
    processes = DEFAULT_PROCESSES if request.processes is None else request.processes
    if processes > 1 and agent is None:  # each worker process resolves the agent (and its cassettes) itself
        from evalkit.engine.processes import run_in_processes

        if shard is not None:
            raise UsageError("--processes with --shard: give each CI job its shard, or split one run into processes")
        result, interrupted = run_in_processes(request, settings, min(processes, max(1, plan.case_count)))
        if quarantine is not None:
            result = quarantined_after_merge(result, quarantine)
    else:
        result, interrupted, full_cases = run_here(request, plan, spec, agent, settings, console, quarantine)
        result.shard = str(shard) if shard else None
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
    except EvalkitError as failure:
        write_failure = failure
    if not interrupted:
        record_history(result, full_cases() if full_cases else None)
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
        print("evalkit: interrupted; results of the finished cases were written", file=sys.stderr)
    for warning in quarantine.warnings() if quarantine is not None else ():
        print(f"evalkit: warning: {warning}", file=sys.stderr)
    code = exit_code(result)
    if comparison is not None:
        regressed = report_baseline(comparison, result, request, console)
        if regressed and code == ExitCode.OK:
            code = ExitCode.FAILED
    return code


def run_here(request: RunRequest, plan, spec, agent, settings, console, quarantine=None):
    """Run the plan in this process: (slim result, interrupted, the full cases to read back).

    The cassettes' proxy, when asked for, starts before the agent loads (the agent must
    see its URLs) and stops however the run ends.
    """
    from evalkit.agents.registry import resolve_agent
    from evalkit.engine.aio import run_sync
    from evalkit.engine.evaluation import RunProgress, evaluate
    from evalkit.gc_control import start_up_frozen
    from evalkit.report.progress import live_progress

    cassettes = start_cassettes(request, spec) if agent is None else None
    interrupted = False
    progress = RunProgress(quarantine=quarantine)
    try:
        if agent is None:
            agent = resolve_agent(spec, None, settings, how_to_name="pass --agent SPEC")
            if cassettes is not None:
                agent = cassettes.wrap(agent)
        agent.check_cases([(s.evalset.eval_set_id, c.eval_id) for s in plan.sets for c in s.cases_to_run])
        with start_up_frozen(), live_progress(console, progress, enabled=not request.quiet and console.is_terminal):
            try:
                run_sync(lambda: evaluate(plan, agent, settings, progress, full=False))
            except KeyboardInterrupt:
                interrupted = True
    finally:
        stop_cassettes(cassettes)
    result = progress.result(interrupted=interrupted, full=False)  # slim cases: memory flat in their number
    return result, interrupted, progress.stored_cases


def start_cassettes(request: RunRequest, spec: str):
    """`--cassettes DIR`: the model proxy for this run, already started (None without the option)."""
    if request.cassettes is None:
        return None
    from evalkit.cassettes.deck import MODES

    if request.cassette_mode not in MODES:
        raise UsageError(f"--cassette-mode {request.cassette_mode}: expected one of {', '.join(MODES)}")
    if request.cassettes.exists() and not request.cassettes.is_dir():
        raise UsageError(f"--cassettes {request.cassettes}: is a file; name the folder that holds the cassettes")
    if request.cassette_mode == "replay" and not request.cassettes.is_dir():
        raise UsageError(f"--cassettes {request.cassettes}: no such folder; record the cassettes first "
                         "with --cassette-mode record")
    from evalkit.cassettes.session import CassetteRun

    cassettes = CassetteRun(request.cassettes, request.cassette_mode).start()
    if spec.strip().startswith(("http://", "https://")):
        variables = " ".join(f"{name}={value}" for name, value in cassettes.proxy.environment().items())
        print(f"evalkit: {cassettes.describe()}; the agent at {spec} must send its model calls there: "
              f"start it with {variables}", file=sys.stderr)
    return cassettes


def stop_cassettes(cassettes) -> None:
    if cassettes is None:
        return
    cassettes.stop()
    for warning in cassettes.warnings():
        print(f"evalkit: {warning}", file=sys.stderr)


def apply_shard(plan, text: str | None):
    """`--shard K/N`: the plan's K-th slice, and the shard (None without the option)."""
    if not text:
        return plan, None
    from evalkit.engine.sharding import parse_shard, shard_plan

    shard = parse_shard(text)
    return shard_plan(plan, shard), shard


def run_settings(request: RunRequest) -> RunSettings:
    """The run's settings: what the flags gave, the defaults for the rest (checked once, here)."""
    return RunSettings.of(jobs=request.jobs, judge_jobs=request.judge_jobs, timeout=request.timeout,
                          repeat=request.repeat, pass_rate=request.pass_rate, use_cache=request.use_cache,
                          confidence=request.confidence, max_repeat=request.max_repeat)


def check_loop_options(request: RunRequest) -> None:
    """Reject flags without their partner, a bad `EVALKIT_HISTORY_LIMIT` or output path before anything runs."""
    from evalkit.report.output_paths import check_output_paths

    check_output_paths({"--json": request.json_out, "--junit": request.junit,
                        "--markdown": request.markdown, "--html": request.html})
    if request.pass_rate is not None and str(request.repeat or 1) == "1":
        raise UsageError(f"--pass-rate {request.pass_rate:g}: only means something with --repeat N (N > 1); "
                         "add --repeat, or drop --pass-rate")
    if request.tolerance is not None and not request.baseline:
        raise UsageError(f"--tolerance {request.tolerance:g}: only means something with --baseline; "
                         "add --baseline FILE (or last), or drop --tolerance")
    from evalkit.engine.history import history_limit

    history_limit()


def load_run_baseline(request: RunRequest, eval_set_ids: set[str]):
    if not request.baseline:
        return None
    from evalkit.compare.baseline import check_tolerance, load_baseline

    check_tolerance(request.tolerance or 0.0)
    return load_baseline(request.baseline, eval_set_ids)


def compare_with_baseline(baseline, result: RunResult, request: RunRequest):
    """What changed since the baseline, with the significance tests when asked for."""
    from evalkit.compare.diff import compare_runs
    from evalkit.results.reader import from_result

    this_run = from_result(result, "this run")
    comparison = compare_runs(baseline, this_run, request.tolerance or 0.0)
    if request.significance is not None:
        from evalkit.compare.significance import add_significance

        add_significance(comparison, baseline, this_run, request.significance, request.gate_scores)
    return comparison


def report_baseline(comparison, result: RunResult, request: RunRequest, console) -> bool:
    """Print what changed since the baseline; True when it fails the gate. A quarantined
    case's own regression does not (the overall test still counts every case)."""
    from evalkit.compare.render import render_comparison, summary_line

    if request.quiet:
        console.print(summary_line(comparison), highlight=False, soft_wrap=True)
    else:
        render_comparison(comparison, console)
    held = {(case.eval_set_id, case.eval_id) for case in result.cases if case.quarantined}
    if not held:
        return comparison.fails_gate
    counted = [c for c in comparison.gate_regressions if (c.eval_set_id, c.eval_id) not in held]
    overall = comparison.significance is not None and comparison.significance.fails_gate
    return bool(counted) or overall


def check_statistics_options(request: RunRequest, settings: RunSettings) -> None:
    """The statistics flags need their partners, and a confidence gate must be reachable."""
    from evalkit.compare.significance import check_level

    check_level(request.significance)
    if request.significance is not None and not request.baseline:
        raise UsageError(f"--significance {request.significance:g}: only means something with --baseline; "
                         "add --baseline FILE (or last), or compare two result files with evalkit compare")
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
                         f"{settings.pass_rate:g}); use --repeat {needed} or more, or a lower --pass-rate or --confidence")


def load_run_quarantine(request: RunRequest):
    if request.quarantine is None:
        return None
    from evalkit.quarantine import load_quarantine

    return load_quarantine(request.quarantine)


def quarantined_after_merge(result: RunResult, quarantine) -> RunResult:
    """`--processes`: the workers' merged cases, marked here (the workers ran without the list)."""
    from evalkit.schema.results import Summary

    cases = list(quarantine.marked(result.cases))
    return result.model_copy(update={"cases": cases, "summary": Summary.of(cases), "quarantine": quarantine.summary()})


def record_history(result: RunResult, cases=None) -> None:
    from evalkit.engine import history
    from evalkit.errors import EvalkitError

    try:
        history.record(result, cases=cases)
    except (OSError, EvalkitError) as error:  # history is a convenience: never fail a run over it
        print(f"evalkit: could not record this run in {history.runs_dir()}: {error}", file=sys.stderr)


def empty_shard(request: RunRequest, settings: RunSettings, shard) -> int:
    """More shards than cases leaves some shard empty: that job passes, and `merge` still gets its file."""
    from datetime import datetime, timezone

    from evalkit import __version__
    from evalkit.schema.results import Summary

    result = RunResult(evalkit_version=__version__, started_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                       duration_s=0.0, summary=Summary(), cases=[], repeat=settings.repeat,
                       pass_rate=settings.pass_rate if settings.repeat > 1 else None, shard=str(shard))
    write_reports(result, json_out=request.json_out, junit=request.junit, markdown=request.markdown,
                  html=request.html)
    print(f"evalkit: shard {shard} holds no eval case; nothing to run", file=sys.stderr)
    return ExitCode.OK
