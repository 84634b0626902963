"""`evalkit run`: plan → agent → evaluate → reports → exit code."""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass, field
from pathlib import Path

from evalkit.errors import UsageError
from evalkit.schema.results import RunResult

EXIT_OK, EXIT_FAILED, EXIT_RUN_ERROR, EXIT_INTERRUPTED = 0, 1, 3, 130


@dataclass
class RunRequest:
    paths: list[str]
    config: str | None = None
    agent: str | None = None
    jobs: int = 8
    json_out: Path | None = None
    junit: Path | None = None
    markdown: Path | None = None
    html: Path | None = None
    repeat: int = 1
    case_ids: list[str] = field(default_factory=list)
    shard: str | None = None
    baseline: str | None = None
    use_cache: bool = True
    timeout: float | None = 300.0
    quiet: bool = False
    judge_jobs: int = 16
    detailed: bool = False


def exit_code(result: RunResult) -> int:
    if result.interrupted:
        return EXIT_INTERRUPTED
    if result.summary.errors:
        return EXIT_RUN_ERROR
    if result.summary.cases and result.summary.passed == result.summary.cases:
        return EXIT_OK
    return EXIT_FAILED


def run_command(request: RunRequest) -> int:
    from evalkit.agents.spec import load_agent
    from evalkit.evaluation import RunProgress, RunSettings, evaluate
    from evalkit.loading.plan import build_plan
    from evalkit.report.console import render
    from evalkit.report.progress import live_progress

    plan = build_plan(request.paths, case_ids=request.case_ids, config_file=request.config)
    spec = request.agent or resolve_config_agent(plan)
    if not spec:
        raise UsageError("no agent to run: pass --agent SPEC, or set 'agent' in the config")
    agent = load_agent(spec, jobs=request.jobs, timeout=request.timeout)
    settings = RunSettings(jobs=request.jobs, timeout=request.timeout, judge_jobs=request.judge_jobs,
                           use_cache=request.use_cache)
    console = make_console()
    progress = RunProgress()
    interrupted = False
    with live_progress(console, progress, enabled=not request.quiet and console.is_terminal):
        try:
            asyncio.run(evaluate(plan, agent, settings, progress))
        except KeyboardInterrupt:
            interrupted = True
    result = progress.result(interrupted=interrupted)
    write_reports(result, request)
    if request.quiet:
        from evalkit.report.console import summary_line

        console.print(summary_line(result), highlight=False)
    else:
        render(result, console)
        if request.detailed:
            from evalkit.report.detailed import render_detailed

            render_detailed(result, console)
    if interrupted:
        print("evalkit: interrupted; results of the finished cases were written", file=sys.stderr)
    return exit_code(result)


def make_console():
    """A terminal gets colour and its own width; logs and pipes get plain, wide text."""
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        console = Console(width=160, no_color=True, highlight=False)
    return console


def resolve_config_agent(plan) -> str | None:
    """The config's `agent`; a relative file or folder in it is taken from the config's folder."""
    for planned in plan.sets:
        spec = planned.config.agent
        if not spec:
            continue
        if planned.config_file is not None and not spec.startswith(("cmd:", "http://", "https://", "replay:")):
            target, sep, attr = spec.partition(":")
            candidate = planned.config_file.parent / target
            if candidate.exists():
                return f"{candidate}{sep}{attr}"
        return spec
    return None


def write_reports(result: RunResult, request: RunRequest) -> None:
    from evalkit.report.json_file import write_result

    if request.json_out:
        write_result(result, request.json_out)
