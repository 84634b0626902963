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

from evalkit import defaults

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
    from evalkit.errors import EvalkitError, SettingError

    try:
        return action()
    except SettingError as error:
        if _debug:
            raise
        flag = SETTING_FLAGS.get(error.name)
        fail([error.worded_as(flag)] if flag else error.lines(), error.exit_code)
    except EvalkitError as error:
        if _debug:
            raise
        fail(error.lines(), error.exit_code)


# The flag of each run setting, so the settings' messages name what the user typed.
SETTING_FLAGS = {"jobs": "--jobs", "judge_jobs": "--judge-jobs", "timeout": "--timeout", "repeat": "--repeat",
                 "pass_rate": "--pass-rate", "use_cache": "--no-cache"}


@app.callback()
def _root(debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors.")) -> None:
    global _debug
    _debug = debug


@app.command()
def run(
    paths: List[str] = typer.Argument(..., help="Eval set files, folders, or file.json:case1,case2"),
    config: Optional[str] = typer.Option(None, "--config", "--config_file_path", help="EvalConfig file (JSON or YAML)"),
    agent: Optional[str] = typer.Option(None, "--agent", help="module:attr, file.py:attr, ADK agent folder, cmd:COMMAND, http(s)://URL or replay:RESULT.json"),
    jobs: Optional[int] = typer.Option(None, "--jobs", min=1, show_default=False, help=f"Cases run at once \\[default: {defaults.DEFAULT_JOBS}]"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Write the result file here"),
    junit: Optional[Path] = typer.Option(None, "--junit", help="Write a JUnit XML report here"),
    markdown: Optional[Path] = typer.Option(None, "--markdown", help="Write a Markdown summary here"),
    html: Optional[Path] = typer.Option(None, "--html", help="Write a self-contained HTML report here"),
    repeat: Optional[int] = typer.Option(None, "--repeat", min=1, show_default=False, help=f"Run each case N times \\[default: {defaults.DEFAULT_REPEAT}]"),
    case: Optional[List[str]] = typer.Option(None, "--case", help="Only this eval id (repeatable)"),
    shard: Optional[str] = typer.Option(None, "--shard", help="K/N: run the K-th of N stable slices of the cases"),
    baseline: Optional[str] = typer.Option(None, "--baseline", help="Compare with an earlier result file (evalkit's or ADK's), or 'last' for the previous run; regressions exit 1"),
    tolerance: float = typer.Option(0.0, "--tolerance", help="With --baseline: a score may drop this much before it counts as a regression"),
    pass_rate: Optional[float] = typer.Option(None, "--pass-rate", help="With --repeat: share of the runs a case needs to pass (default: all)"),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the judge cache"),
    timeout: Optional[float] = typer.Option(None, "--timeout", min=0.001, show_default=False, help=f"Seconds allowed per turn \\[default: {defaults.DEFAULT_TIMEOUT_S}]"),
    quiet: bool = typer.Option(False, "--quiet", help="Print only the summary line"),
    judge_jobs: Optional[int] = typer.Option(None, "--judge-jobs", min=1, show_default=False, help=f"Judge calls in flight at once \\[default: {defaults.DEFAULT_JUDGE_JOBS}]"),
    print_detailed_results: bool = typer.Option(False, "--print_detailed_results", help="Also list every criterion of every turn (ADK's option)"),
    cassettes: Optional[Path] = typer.Option(None, "--cassettes", help="Answer the agent's model calls from cassettes in this folder (see docs/cassettes.md)"),
    cassette_mode: str = typer.Option("replay", "--cassette-mode", help="With --cassettes: replay (offline), record (call the model, rewrite) or auto (record only what is missing)"),
) -> None:
    """Run the agent on the eval cases, score them, and exit 0 only if every case passed."""
    from evalkit.commands.run import RunRequest, run_command

    request = RunRequest(
        paths=paths, config=config, agent=agent, jobs=jobs, json_out=json_out, junit=junit,
        markdown=markdown, html=html, repeat=repeat, case_ids=case or [], shard=shard,
        baseline=baseline, tolerance=tolerance, pass_rate=pass_rate, use_cache=False if no_cache else None, timeout=timeout, quiet=quiet,
        judge_jobs=judge_jobs, detailed=print_detailed_results, cassettes=cassettes, cassette_mode=cassette_mode,
    )
    raise typer.Exit(guarded(lambda: run_command(request)))


@app.command()
def proxy(
    cassettes: Path = typer.Option(..., "--cassettes", help="Folder of the cassettes"),
    cassette_mode: str = typer.Option("replay", "--cassette-mode", help="replay, record or auto"),
    port: int = typer.Option(0, "--port", min=0, max=65535, help="Port on 127.0.0.1 (default: any free one)"),
) -> None:
    """Run the model proxy alone, for an agent you start yourself (Ctrl-C stops it)."""
    from evalkit.commands.proxy import proxy_command

    raise typer.Exit(guarded(lambda: proxy_command(cassettes, cassette_mode, port)))


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
