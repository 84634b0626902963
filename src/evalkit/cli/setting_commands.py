"""`evalkit validate`, `compare`, `accept`, `calibrate`, `proxy` and `mcp`: commands that repeat
some of a run's settings.

An option that means what a run's setting means (`--config`, `--case`, `--cassettes`,
`--cassette-mode`, `--json`, `--quiet`, `--tolerance`, `--significance`, `--gate-scores`)
is derived from that setting's declaration (evalkit.cli.options), with the command's own
help line where its meaning is narrower; only the options no setting has are written
here. Built on first use (evalkit.cli.deferred), like `run`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Optional

import typer

from evalkit.cli.edge import guarded
from evalkit.cli.options import settings_from
from evalkit.cli.run_commands import deferred_command

VALIDATE_SETTINGS = ("config", "case_ids")
COMPARE_SETTINGS = ("tolerance", "json_out", "quiet", "significance", "gate_scores")
CASSETTE_SETTINGS = ("cassettes", "cassette_mode")


@deferred_command("validate", VALIDATE_SETTINGS, helps={"config": "EvalConfig file"})
def validate_app(paths: List[str] = typer.Argument(..., metavar="PATH", help="Eval set files, folders, or "  # noqa: UP006
                                                   "file.json:case1,case2"), **given: Any) -> None:
    """Check eval sets and configs without running anything (no agent, no network)."""
    from evalkit.commands.validate import validate_command

    def check() -> Any:
        settings, _ = settings_from(given)
        return validate_command(paths, list(settings.case_ids), settings.config)

    validation = guarded(check)
    for line in validation.ok:
        typer.echo(line)
    for line in validation.warnings:
        typer.echo(f"evalkit: warning: {line}", err=True)


@deferred_command("compare", COMPARE_SETTINGS, helps={
    "tolerance": "A score may drop this much before it counts as a regression",
    "json_out": "Write the comparison here as JSON",
    "significance": "Count a regression only when it is significant at LEVEL, such as 0.05 (see docs/repeats.md)"})
def compare_app(base: Path = typer.Argument(..., metavar="BASE", help="The earlier result file (evalkit's, or ADK's "
                                            "*.evalset_result.json)"),
                new: Path = typer.Argument(..., metavar="NEW", help="The later result file"),
                show_all: bool = typer.Option(False, "--all", help="Also list the unchanged cases"),
                **given: Any) -> None:
    """Per case and criterion, what changed from BASE to NEW; exit 1 on regressions."""
    from evalkit.commands.compare import compare_command

    def compared() -> int:
        _, finish = settings_from(given)
        return compare_command(base, new, tolerance=finish.tolerance or 0.0, json_out=finish.json_out,
                               show_unchanged=show_all, quiet=finish.quiet, significance=finish.significance,
                               gate_scores=finish.gate_scores)

    raise typer.Exit(guarded(compared))


@deferred_command("accept", ("case_ids",), helps={
    "case_ids": "Accept this case (ID or EVAL_SET_ID/ID; repeatable); default: every failed case"})
def accept_app(result_file: Path = typer.Argument(..., metavar="RESULT", help="A result file written by `evalkit run "
                                                  "--json`"),
               interactive: bool = typer.Option(False, "--interactive", help="Show each case's change and ask before "
                                                "accepting it"),
               **given: Any) -> None:
    """Write the actual turns of failed (or named) cases into their eval set files as the expected ones."""
    from evalkit.commands.accept import accept_command

    raise typer.Exit(guarded(lambda: accept_command(result_file, list(settings_from(given)[0].case_ids),
                                                    interactive=interactive)))


@deferred_command("calibrate", ("json_out",), helps={
    "json_out": "Write the calibration here (what judge_model_options.calibration reads)"})
def calibrate_app(result_files: List[Path] = typer.Argument(  # noqa: UP006
                      ..., metavar="RESULT", help="Result files whose judged cases were labelled"),
                  labels: Path = typer.Option(..., "--labels", metavar="FILE", help="The labels file (JSON or YAML)"),
                  min_kappa: Optional[float] = typer.Option(  # noqa: UP045
                      None, "--min-kappa", metavar="K",
                      help="Exit 1 when a criterion's Cohen's kappa is below K (or undefined)"),
                  **given: Any) -> None:
    """How far each judged criterion agrees with people's labels: agreement, Cohen's kappa, confusion."""
    from evalkit.commands.calibrate import calibrate_command

    raise typer.Exit(guarded(lambda: calibrate_command(result_files, labels, json_out=settings_from(given)[1].json_out,
                                                       min_kappa=min_kappa)))


@deferred_command("proxy", CASSETTE_SETTINGS, helps={"cassettes": "Folder of the cassettes (required)"})
def proxy_app(port: int = typer.Option(0, "--port", metavar="PORT", min=0, max=65535,
                                       help="Port on 127.0.0.1 (default: any free one)"), **given: Any) -> None:
    """Run the model proxy alone, for an agent you start yourself (Ctrl-C stops it)."""
    from evalkit.commands.proxy import proxy_command

    raise typer.Exit(guarded(lambda: proxy_command(*_cassettes_of(given), port)))


@deferred_command("mcp", CASSETTE_SETTINGS, helps={
    "cassettes": "Folder of the cassettes (required; the server's is DIR/mcp/NAME.mcp.json)",
    "cassette_mode": "replay (the real server is never contacted), record or auto [default: replay]"})
def mcp_app(server_command: Optional[List[str]] = typer.Argument(  # noqa: UP006, UP045
                None, metavar="-- COMMAND [ARGS...]", help="The stdio MCP server to stand in for"),
            url: Optional[str] = typer.Option(  # noqa: UP045
                None, "--url", metavar="URL", help="The streamable-HTTP MCP server to stand in for, instead of a COMMAND"),
            port: Optional[int] = typer.Option(  # noqa: UP045
                None, "--port", metavar="PORT", min=0, max=65535,
                help="With --url: the port on 127.0.0.1 (default: any free one)"),
            name: Optional[str] = typer.Option(  # noqa: UP045
                None, "--name", metavar="NAME", help="The cassette's name (default: the command's words without "
                "their folders, or the URL's host and path)"),
            **given: Any) -> None:
    """Stand in for an MCP server, recording or replaying its tools: on stdin/stdout for a COMMAND, on 127.0.0.1 for a --url."""
    from evalkit.commands.mcp import mcp_command

    raise typer.Exit(guarded(lambda: mcp_command(*_cassettes_of(given), list(server_command or ()), name, url,
                                                 port)))


def _cassettes_of(given: dict[str, Any]) -> tuple[Path, str]:
    """The folder and mode of a cassette command, whose `--cassettes` is required."""
    from evalkit.errors import SettingProblem, UsageError

    settings, _ = settings_from(given)
    if settings.cassettes is None:
        raise UsageError(SettingProblem("", "", "give the folder of the cassettes with {cassettes} DIR",
                                        mentions=("cassettes",)))
    return settings.cassettes, settings.cassette_mode
