"""The `evalkit` command: parse flags, call the library, turn outcomes into exit codes.

Everything heavy is imported inside the commands, so `evalkit --help` starts fast.
Domain errors become short messages here and nowhere else (exit 2 for bad input, 3
when the run itself had errors); `--debug` shows tracebacks instead.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

app = typer.Typer(
    name="evalkit",
    help="Evaluate LLM agents against eval sets, with ADK-compatible scores, as a CI gate.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

_debug = False


def fail(lines: list[str], code: int) -> None:
    for line in lines:
        typer.echo(f"evalkit: {line}", err=True)
    raise typer.Exit(code)


def guarded(action):
    """Run a command body, mapping evalkit errors to their messages and exit codes."""
    from evalkit.errors import EvalkitError

    try:
        return action()
    except EvalkitError as error:
        if _debug:
            raise
        fail(error.lines(), error.exit_code)


@app.callback()
def _root(debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors.")) -> None:
    global _debug
    _debug = debug


@app.command()
def run(
    paths: List[str] = typer.Argument(..., help="Eval set files, folders, or file.json:case1,case2"),
    config: Optional[str] = typer.Option(None, "--config", "--config_file_path", help="EvalConfig file (JSON or YAML)"),
    agent: Optional[str] = typer.Option(None, "--agent", help="module:attr, file.py:attr, ADK agent folder, cmd:COMMAND, http(s)://URL or replay:RESULT.json"),
    jobs: str = typer.Option("auto", "--jobs", help="Cases run at once: 'auto' adapts to the agent, a number fixes it"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Write the result file here"),
    junit: Optional[Path] = typer.Option(None, "--junit", help="Write a JUnit XML report here"),
    markdown: Optional[Path] = typer.Option(None, "--markdown", help="Write a Markdown summary here"),
    html: Optional[Path] = typer.Option(None, "--html", help="Write a self-contained HTML report here"),
    repeat: int = typer.Option(1, "--repeat", min=1, help="Run each case N times"),
    case: Optional[List[str]] = typer.Option(None, "--case", help="Only this eval id (repeatable)"),
    shard: Optional[str] = typer.Option(None, "--shard", help="K/N: run the K-th of N stable slices of the cases"),
    baseline: Optional[str] = typer.Option(None, "--baseline", help="Compare with an earlier result file (evalkit's or ADK's), or 'last' for the previous run; regressions exit 1"),
    tolerance: float = typer.Option(0.0, "--tolerance", help="With --baseline: a score may drop this much before it counts as a regression"),
    pass_rate: Optional[float] = typer.Option(None, "--pass-rate", help="With --repeat: share of the runs a case needs to pass (default: all)"),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the judge cache"),
    timeout: float = typer.Option(300.0, "--timeout", min=0.001, help="Seconds allowed per turn"),
    quiet: bool = typer.Option(False, "--quiet", help="Print only the summary line"),
    processes: int = typer.Option(1, "--processes", min=1, help="Worker processes to spread the cases over (for CPU-bound agents)"),
    judge_jobs: str = typer.Option("auto", "--judge-jobs", help="Judge calls in flight at once, per judge endpoint: 'auto' or a number"),
    print_detailed_results: bool = typer.Option(False, "--print_detailed_results", help="Also list every criterion of every turn (ADK's option)"),
) -> None:
    """Run the agent on the eval cases, score them, and exit 0 only if every case passed."""
    from evalkit.commands.run import RunRequest, run_command

    request = RunRequest(
        paths=paths, config=config, agent=agent, jobs=jobs, json_out=json_out, junit=junit,
        markdown=markdown, html=html, repeat=repeat, case_ids=case or [], shard=shard,
        baseline=baseline, tolerance=tolerance, pass_rate=pass_rate, use_cache=not no_cache, timeout=timeout, quiet=quiet,
        judge_jobs=judge_jobs, detailed=print_detailed_results, processes=processes,
    )
    raise typer.Exit(guarded(lambda: run_command(request)))


@app.command()
def validate(
    paths: List[str] = typer.Argument(..., help="Eval set files, folders, or file.json:case1,case2"),
    config: Optional[str] = typer.Option(None, "--config", "--config_file_path", help="EvalConfig file"),
    case: Optional[List[str]] = typer.Option(None, "--case", help="Only this eval id (repeatable)"),
) -> None:
    """Check eval sets and configs without running anything (no agent, no network)."""
    from evalkit.loading.plan import build_plan

    plan = guarded(lambda: build_plan(paths, case_ids=case or [], config_file=config))
    for planned in plan.sets:
        typer.echo(f"ok  {planned.file}: {len(planned.cases)} cases, criteria from {planned.config_file or 'defaults'}")


@app.command()
def compare(
    base: Path = typer.Argument(..., help="The earlier result file (evalkit's, or ADK's *.evalset_result.json)"),
    new: Path = typer.Argument(..., help="The later result file"),
    tolerance: float = typer.Option(0.0, "--tolerance", help="A score may drop this much before it counts as a regression"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Write the comparison here as JSON"),
    show_all: bool = typer.Option(False, "--all", help="Also list the unchanged cases"),
    quiet: bool = typer.Option(False, "--quiet", help="Print only the summary line"),
) -> None:
    """Per case and criterion, what changed from BASE to NEW; exit 1 on regressions."""
    from evalkit.commands.compare import compare_command

    raise typer.Exit(guarded(lambda: compare_command(base, new, tolerance=tolerance, json_out=json_out,
                                                     show_unchanged=show_all, quiet=quiet)))


@app.command()
def merge(
    files: List[Path] = typer.Argument(..., help="Result files of the shards (or of separate runs)"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Write the combined result file here"),
    junit: Optional[Path] = typer.Option(None, "--junit", help="Write a JUnit XML report here"),
    markdown: Optional[Path] = typer.Option(None, "--markdown", help="Write a Markdown summary here"),
    html: Optional[Path] = typer.Option(None, "--html", help="Write a self-contained HTML report here"),
    quiet: bool = typer.Option(False, "--quiet", help="Print only the summary line"),
) -> None:
    """Combine shard results into one result file, with the exit code of one whole run."""
    from evalkit.commands.merge import merge_command

    raise typer.Exit(guarded(lambda: merge_command(files, json_out=json_out, junit=junit, markdown=markdown,
                                                   html=html, quiet=quiet)))


@app.command()
def report(
    result_file: Path = typer.Argument(..., help="A result file written by `evalkit run --json`"),
    html: Optional[Path] = typer.Option(None, "--html", help="Write a self-contained HTML report here"),
    junit: Optional[Path] = typer.Option(None, "--junit", help="Write a JUnit XML report here"),
    markdown: Optional[Path] = typer.Option(None, "--markdown", help="Write a Markdown summary here"),
) -> None:
    """Render a saved result as HTML, JUnit XML or Markdown (with none of them: print the table)."""
    from evalkit.commands.report import ReportRequest, report_command

    request = ReportRequest(result_file=result_file, html=html, junit=junit, markdown=markdown)
    raise typer.Exit(guarded(lambda: report_command(request)))


@app.command("criteria")
def list_criteria() -> None:
    """List the criteria with their options and defaults."""
    from rich.console import Console

    from evalkit.report.criteria_list import render_criteria

    render_criteria(Console())


@app.command()
def schema(which: str = typer.Argument(..., help="evalset or config")) -> None:
    """Print the JSON Schema of eval set or config files."""
    import json

    from evalkit.schema.json_schema import json_schema

    document = guarded(lambda: json_schema(which))
    typer.echo(json.dumps(document, indent=2))


@app.command()
def scenarios(
    file: Path = typer.Argument(..., help='JSON or YAML file holding {"scenarios": [...]} (ADK\'s --scenarios_file format)'),
    out: Path = typer.Option(..., "--out", help="Eval set file to add the cases to (created if missing)"),
    session_input: Optional[Path] = typer.Option(None, "--session-input", help="SessionInput file (app_name, user_id, state) for every case"),
) -> None:
    """Turn conversation scenarios into eval cases with stable ids (ADK's scenario hash)."""
    from evalkit.commands.scenarios import scenarios_command

    for line in guarded(lambda: scenarios_command(file, out, session_input)):
        typer.echo(line)


import_app = typer.Typer(help="Convert other tools' evaluation files into eval sets.", no_args_is_help=True)
app.add_typer(import_app, name="import")


@import_app.command("ces")
def import_ces(
    file: Path = typer.Argument(..., help="A CES Evaluation resource (JSON)"),
    out: Optional[Path] = typer.Option(None, "--out", help="Where to write the eval set (default <name>.evalset.json here)"),
) -> None:
    """Convert a CES golden or scenario evaluation into an eval set and a test_config.json beside it."""
    from evalkit.ces.importer import import_ces_file, summary_lines

    result = guarded(lambda: import_ces_file(file, out))
    for line in summary_lines(result):
        typer.echo(line)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        from evalkit.errors import ExitCode

        sys.exit(ExitCode.INTERRUPTED)


if __name__ == "__main__":
    main()
