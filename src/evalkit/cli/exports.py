"""`evalkit export ...`: write eval sets and runs in other tools' formats. The command bodies live
in `evalkit.commands`; this is their flags."""

from __future__ import annotations

from pathlib import Path

import typer

from evalkit.cli.edge import guarded
from evalkit.cli.format import EvalkitCommand

export_app = typer.Typer(help="Write eval sets and results in other tools' formats.", no_args_is_help=True,
                         rich_markup_mode=None, context_settings={"help_option_names": ["-h", "--help"]})


@export_app.command("agent-platform", cls=EvalkitCommand)
def export_agent_platform(
    source: Path = typer.Argument(..., metavar="RESULT.json|EVALSET", help="An evalkit result file, or an eval set (any form run reads)"),
    out: Path = typer.Option(..., "--out", metavar="DIR", help="Folder for the *-dataset.json files, one per eval set"),
) -> None:
    """Write Agent Platform datasets (agents-cli's *-dataset.json) from a run or an eval set."""
    from evalkit.commands.export_agent_platform import export_agent_platform_command

    for line in guarded(lambda: export_agent_platform_command(source, out)):
        typer.echo(line)
