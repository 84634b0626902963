"""`evalkit import ...`: turn other tools' files (CES evaluations, ADK sessions, OpenTelemetry
traces) into eval sets. The command bodies live in `evalkit.commands`; this is their flags."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from evalkit import defaults
from evalkit.cli.edge import guarded
from evalkit.cli.format import EvalkitCommand

import_app = typer.Typer(help="Convert other tools' evaluation files into eval sets.", no_args_is_help=True,
                         rich_markup_mode=None, context_settings={"help_option_names": ["-h", "--help"]})


@import_app.command("ces", cls=EvalkitCommand)
def import_ces(
    file: Path = typer.Argument(..., metavar="FILE", help='A CES Evaluation resource (JSON)'),
    out: Optional[Path] = typer.Option(None, "--out", metavar="PATH", help="Where to write the eval set (default <name>.evalset.json here)"),
    force: bool = typer.Option(False, "--force", help="Overwrite an existing eval set or test_config.json"),
) -> None:
    """Convert a CES golden or scenario evaluation into an eval set and a test_config.json beside it."""
    from evalkit.importers.ces.importer import import_ces_file, summary_lines

    result = guarded(lambda: import_ces_file(file, out, force=force))
    for line in summary_lines(result):
        typer.echo(line)


@import_app.command("adk-session", cls=EvalkitCommand)
def import_adk_session(
    file: str = typer.Argument(..., metavar="FILE", help="ADK Session JSON (one or a list), or ADK's SQLite session database (file or sqlite:///URL)"),
    out: Optional[Path] = typer.Option(None, "--out", metavar="PATH", help="Where to write the eval set (default <name>.evalset.json here)"),
    app_name: Optional[str] = typer.Option(None, "--app", metavar="APP", help="Only sessions of this app"),
    user_id: Optional[str] = typer.Option(None, "--user", metavar="USER", help="Only sessions of this user"),
    session_id: Optional[str] = typer.Option(None, "--session", metavar="ID", help="Only the session with this id"),
) -> None:
    """Turn saved ADK sessions into an eval set whose expected turns are what happened."""
    from evalkit.commands.import_adk_session import import_adk_session_command

    for line in guarded(lambda: import_adk_session_command(file, out, app=app_name, user=user_id, session=session_id)):
        typer.echo(line)


@import_app.command("otel", cls=EvalkitCommand)
def import_otel(
    files: List[Path] = typer.Argument(..., metavar="FILE", help="OTLP JSON traces: one document per line (the Collector's file exporter) or per file; gzip allowed"),
    out: Optional[Path] = typer.Option(None, "--out", metavar="PATH", help="Where to write the eval set (default <name>.evalset.json here)"),
    since: Optional[str] = typer.Option(None, "--since", metavar="TIME", help="Only conversations begun at or after this (ISO 8601; UTC unless an offset is given)"),
    until: Optional[str] = typer.Option(None, "--until", metavar="TIME", help="Only conversations begun before this"),
    services: Optional[List[str]] = typer.Option(None, "--service", metavar="NAME", help="Only turns of this service.name (repeatable)"),
    conversations: Optional[List[str]] = typer.Option(None, "--conversation", metavar="ID", help="Only this conversation (repeatable)"),
    max_cases: Optional[int] = typer.Option(None, "--max-cases", metavar="N", help="At most N cases, the earliest conversations first"),
    sample: Optional[float] = typer.Option(None, "--sample", metavar="FRACTION", help="Keep this fraction of the conversations, chosen by a hash of their id and --seed"),
    seed: Optional[int] = typer.Option(None, "--seed", metavar="N", help=f"Which conversations --sample keeps (default {defaults.DEFAULT_SAMPLE_SEED})"),
    group_by: Optional[str] = typer.Option(None, "--group-by", metavar="ATTR", help="The span attribute that names a conversation (default: gen_ai.conversation.id, session.id, the framework's thread or group id, else the history rule)"),
) -> None:
    """Turn OpenTelemetry traces of an agent (GenAI conventions, OpenInference, ADK, older names) into an eval set of what happened."""
    from evalkit.commands.import_otel import import_otel_command

    lines = guarded(lambda: import_otel_command(files, out, since=since, until=until, services=services,
                                                conversations=conversations, max_cases=max_cases, sample=sample,
                                                seed=seed, group_by=group_by))
    for line in lines:
        typer.echo(line)




@import_app.command("agent-platform", cls=EvalkitCommand)
def import_agent_platform(
    file: Path = typer.Argument(..., metavar="FILE", help="An Agent Platform dataset, *-dataset.json (agents-cli's tests/eval/datasets/)"),
    out: Optional[Path] = typer.Option(None, "--out", metavar="PATH", help="Where to write the eval set (default <name>.evalset.json here)"),
) -> None:
    """Turn an agents-cli dataset (Agent Platform EvaluationDataset) into an ADK eval set."""
    from evalkit.commands.import_agent_platform import import_agent_platform_command

    for line in guarded(lambda: import_agent_platform_command(file, out)):
        typer.echo(line)


@import_app.command("table", cls=EvalkitCommand)
def import_table(
    file: Path = typer.Argument(..., metavar="FILE", help="A table: .csv (with a header row), .jsonl or .parquet (the tables extra)"),
    maps: List[str] = typer.Option(..., "--map", metavar="ROLE=COLUMN", help="Which column holds what: user=, expected= (both needed), id=, tool_calls= (JSON), state= (JSON); repeatable"),
    out: Optional[Path] = typer.Option(None, "--out", metavar="PATH", help="Where to write the eval set (default <name>.evalset.json here)"),
) -> None:
    """Turn a table into an eval set, one case a row."""
    from evalkit.commands.import_table import import_table_command

    for line in guarded(lambda: import_table_command(file, out, maps)):
        typer.echo(line)
