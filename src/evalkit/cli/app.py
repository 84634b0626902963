"""The `evalkit` command: parse flags, call the library, turn outcomes into exit codes.

Everything heavy is imported inside the commands, so `evalkit --help` starts fast.
Domain errors become short messages at the edge (`cli.edge.guarded`: exit 2 for bad
input, 3 when the run itself had errors); any other exception is evalkit's own bug,
one line and exit 4. `--debug`, before or after the command, adds the tracebacks.
The `import` commands' flags are in `cli.imports`; `run`, `rescore` and `merge` take theirs from the settings' declarations (`cli.run_commands`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, List, Optional

import typer

from evalkit import defaults
from evalkit.cli.deferred import EvalkitGroup, defer
from evalkit.cli.edge import debug, guarded, take_debug_flag
from evalkit.cli.format import EvalkitCommand
from evalkit.cli.exports import export_app
from evalkit.cli.imports import import_app

app = typer.Typer(
    name="evalkit",
    cls=EvalkitGroup,
    help="Evaluate LLM agents against eval sets, with ADK-compatible scores, as a CI gate.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: CLI conventions, no boxes, no Python type names
    context_settings={"help_option_names": ["-h", "--help"]},
)

# Their options are the settings' declarations: built when named (evalkit.cli.deferred).
defer("run", "Run the agent on the eval cases, score them, and exit 0 only if every case passed.",
      "evalkit.cli.run_commands:run_app")
defer("rescore", "Score the actual turns saved in RESULT again, with new or changed criteria; nothing is re-run.",
      "evalkit.cli.run_commands:rescore_app")
defer("merge", "Combine shard results into one result file, with the exit code of one whole run.",
      "evalkit.cli.run_commands:merge_app")
# Options that repeat a run's settings, derived from their declarations (evalkit.cli.setting_commands).
defer("validate", "Check eval sets and configs without running anything (no agent, no network).",
      "evalkit.cli.setting_commands:validate_app")
defer("compare", "Per case and criterion, what changed from BASE to NEW; exit 1 on regressions.",
      "evalkit.cli.setting_commands:compare_app")
defer("proxy", "Run the model proxy alone, for an agent you start yourself (Ctrl-C stops it).",
      "evalkit.cli.setting_commands:proxy_app")
defer("accept", "Write the actual turns of failed (or named) cases into their eval set files as the expected ones.",
      "evalkit.cli.setting_commands:accept_app")
defer("calibrate", "How far each judged criterion agrees with people's labels: agreement, Cohen's kappa, confusion.",
      "evalkit.cli.setting_commands:calibrate_app")
defer("mcp", "Stand in for an MCP server, recording or replaying its tools: on stdin/stdout for a COMMAND, on "
      "127.0.0.1 for a --url.", "evalkit.cli.setting_commands:mcp_app")
defer("report", "Render a saved result in any report format (--report NAME=PATH; with none: print the table).",
      "evalkit.cli.run_commands:report_app")
defer("generate", "Write conversation scenarios aimed at the agent's tools, parameters and sub-agents that no case "
      "reaches yet.", "evalkit.cli.run_commands:generate_app")


def _show_version(value: bool) -> None:
    if value:
        from evalkit import __version__

        typer.echo(f"evalkit {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    debug_flag: bool = typer.Option(False, "--debug", help="Show tracebacks for errors (also accepted after the command)."),
    version: bool = typer.Option(False, "--version", "-V", callback=_show_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    if debug_flag:
        debug.on = True







@app.command(cls=EvalkitCommand)
def view(
    paths: Optional[List[Path]] = typer.Argument(None, metavar="PATH", help="Result files, or folders holding them (default: the run history in .evalkit/runs/)"),
    host: str = typer.Option("127.0.0.1", "--host", metavar="HOST", help="Address to serve on; anything but this machine shows the results to others"),
    port: Optional[int] = typer.Option(None, "--port", metavar="PORT", min=0, max=65535, show_default=False, help=f"Port (0: any free one) [default: {defaults.DEFAULT_VIEW_PORT}, or a free one when taken]"),
    no_open: bool = typer.Option(False, "--no-open", help="Do not open a browser"),
    labels: Optional[Path] = typer.Option(None, "--labels", metavar="FILE", help="Labels file the case pages write your verdicts on judged criteria to (JSON or YAML)"),
    export: Optional[Path] = typer.Option(None, "--export", metavar="DIR", help="Write a static copy of the viewer into DIR instead of serving"),
) -> None:
    """Browse runs in a local web viewer: history, trends, cases turn by turn, two runs side by side."""
    from evalkit.commands.view import ViewRequest, view_command

    request = ViewRequest(paths=paths or [], host=host, port=port, open_browser=not no_open, labels=labels,
                          export=export)
    raise typer.Exit(guarded(lambda: view_command(request)))


@app.command(cls=EvalkitCommand)
def label(
    result_file: Path = typer.Argument(..., metavar="RESULT", help="A result file written by `evalkit run --json`"),
    labels: Path = typer.Option(..., "--labels", metavar="FILE", help="The labels file (JSON or YAML) to add to; created if missing"),
    criterion: Optional[List[str]] = typer.Option(None, "--criterion", metavar="NAME", help="Only this judged criterion (repeatable)"),
    again: bool = typer.Option(False, "--again", help="Also show the cases already labelled"),
) -> None:
    """Label the judged cases of RESULT in the terminal: agree or disagree with the judge, case by case."""
    from evalkit.commands.label import label_command

    raise typer.Exit(guarded(lambda: label_command(result_file, labels, criteria=criterion or [], again=again)))



@app.command("criteria", cls=EvalkitCommand)
def list_criteria(
    names: Optional[List[str]] = typer.Argument(None, metavar="NAME", help="Show only these criteria"),
) -> None:
    """List the criteria with their options and defaults (or only the ones named)."""
    from evalkit.report.console import make_console
    from evalkit.report.criteria_list import render_criteria

    guarded(lambda: render_criteria(make_console(), names or None))


@app.command(cls=EvalkitCommand)
def schema(which: str = typer.Argument(..., metavar="evalset|config", help='evalset or config')) -> None:
    """Print the JSON Schema of eval set or config files."""
    import json

    from evalkit.loading.json_schema import json_schema

    document = guarded(lambda: json_schema(which))
    typer.echo(json.dumps(document, indent=2))


@app.command(cls=EvalkitCommand)
def scenarios(
    file: Path = typer.Argument(..., metavar="FILE", help='JSON or YAML file holding {"scenarios": [...]} (ADK\'s --scenarios_file format)'),
    out: Path = typer.Option(..., "--out", metavar="FILE", help="Eval set file to add the cases to (created if missing)"),
    session_input: Optional[Path] = typer.Option(None, "--session-input", metavar="FILE", help="SessionInput file (app_name, user_id, state) for every case"),
) -> None:
    """Turn conversation scenarios into eval cases with stable ids (ADK's scenario hash)."""
    from evalkit.commands.scenarios import scenarios_command

    for line in guarded(lambda: scenarios_command(file, out, session_input)):
        typer.echo(line)


app.add_typer(import_app, name="import")
app.add_typer(export_app, name="export")


def main() -> None:
    """The `evalkit` entry point: every way out of a command ends in a documented exit code."""
    import signal

    from evalkit.errors import ExitCode, Terminated, raise_terminated
    from evalkit.foundation.gc_control import freeze_at_exit
    from evalkit.report.closed_pipe import tolerate_closed_stdout

    signal.signal(signal.SIGTERM, raise_terminated)  # CI cancellation, `docker stop`: end like Ctrl-C (exit 143)
    freeze_at_exit()  # the interpreter's final collection would walk all of google-adk: skip it
    args = take_debug_flag(sys.argv[1:])
    tolerate_closed_stdout()
    try:
        code = app(args=args, prog_name="evalkit", standalone_mode=False)
    except typer.Exit as done:
        code = done.exit_code
    except _USAGE_ERROR as bad_usage:  # unknown option, missing argument, bad value: exit 2
        bad_usage.show()
        code = bad_usage.exit_code
    except (KeyboardInterrupt, typer.Abort) as stop:  # click turns an interrupt into Abort, its cause kept
        terminated = isinstance(stop, Terminated) or isinstance(stop.__cause__, Terminated)
        code = ExitCode.TERMINATED if terminated else ExitCode.INTERRUPTED
    except Exception as bug:  # not evalkit's own error: a bug, never a verdict (exit 1 means "a case failed")
        if debug.on:
            import traceback

            traceback.print_exc()
        detail = f"{type(bug).__name__}: {bug}".splitlines()[0]
        typer.echo(f"evalkit: internal error: {detail}; run with --debug for the traceback", err=True)
        code = ExitCode.INTERNAL
    sys.exit(code if isinstance(code, int) else 0)


# The base class of command-line usage errors. Older typer re-exports click's; typer 0.29
# carries a click of its own (and no longer needs click installed), so take the class from
# the ancestry of one of typer's public errors rather than from `import click` (so, to a type
# checker, a class of no known type).
_USAGE_ERROR: type[Any] = next(kind for kind in typer.BadParameter.__mro__ if kind.__name__ == "ClickException")


if __name__ == "__main__":
    main()
