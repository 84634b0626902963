"""`evalkit run`, `rescore`, `merge` and `generate`: the commands whose options are the settings' declarations.

Built only when the command line names one of them (evalkit.cli.deferred): their options
come from `RunSettings` and `FinishSettings` (evalkit.cli.options), so a new setting shows
up here, in `evalkit.run_evals` and in the pytest plugin with no line changed in this file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, List, Optional

import typer

from evalkit.cli.edge import debug, guarded
from evalkit.cli.format import EvalkitCommand
from evalkit.cli.options import settings_from, with_settings
from evalkit.defaults import DEFAULT_GENERATE_COUNT, DEFAULT_GENERATE_MIN_COVERAGE

REPORT_SETTINGS = ("junit", "markdown", "html", "reports")  # the report formats: `--report NAME=PATH`, short forms
RESCORE_SETTINGS = ("config", "json_out", *REPORT_SETTINGS, "use_cache", "quiet", "judge_jobs")
MERGE_SETTINGS = ("json_out", *REPORT_SETTINGS, "quiet", "min_coverage")
GENERATE_SETTINGS = ("agent", "config", "min_coverage", "cassettes", "cassette_mode")


def command_app() -> typer.Typer:
    """The typer app one deferred command is built in (evalkit.cli.deferred)."""
    return typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None,
                       context_settings={"help_option_names": ["-h", "--help"]})


def deferred_command(name: str, settings: Iterable[str] | None = None, helps: Mapping[str, str] | None = None
                     ) -> Callable[[Callable[..., None]], Callable[[], typer.Typer]]:
    """Declare the command `name`: the decorated function becomes the builder evalkit.cli.deferred
    calls on first use, which adds the options of `settings` (default: every one; `helps` gives
    the command's own help lines) and returns the command's typer app."""

    def declare(command: Callable[..., None]) -> Callable[[], typer.Typer]:
        def build() -> typer.Typer:
            app = command_app()
            app.command(name, cls=EvalkitCommand)(with_settings(settings, helps)(command))
            return app

        return build

    return declare


@deferred_command("run")
def run_app(paths: List[str] = typer.Argument(..., metavar="PATH", help="Eval set files, folders, or "  # noqa: UP006
                                              "file.json:case1,case2"), **given: Any) -> None:
    """Run the agent on the eval cases, score them, and exit 0 only if every case passed."""
    from evalkit.engine.idle_cores import mark_start

    mark_start()  # `--processes auto` measures the other work from here: by the time it chooses, long enough
    from evalkit.commands.run import run_command

    raise typer.Exit(guarded(lambda: run_command(*settings_from(given, paths=tuple(paths), debug=debug.on))))


@deferred_command("rescore", RESCORE_SETTINGS, helps={"config": "EvalConfig file with the new or changed criteria"})
def rescore_app(result_file: Path = typer.Argument(..., metavar="RESULT", help="A result file (evalkit's, or "
                                                   "ADK's *.evalset_result.json)"), **given: Any) -> None:
    """Score the actual turns saved in RESULT again, with new or changed criteria; nothing is re-run."""
    from evalkit.commands.rescore import rescore_inputs
    from evalkit.commands.run import run_command

    def rescore() -> int:
        settings, finish = settings_from(given, paths=(str(result_file),), debug=debug.on)
        plan, agent = rescore_inputs(result_file, settings.config)
        return run_command(settings, finish, plan=plan, agent=agent)

    raise typer.Exit(guarded(rescore))


@deferred_command("report", REPORT_SETTINGS)
def report_app(result_file: Path = typer.Argument(..., metavar="RESULT", help="A result file written by "
                                                  "`evalkit run --json`"), **given: Any) -> None:
    """Render a saved result in any report format (--report NAME=PATH; with none: print the table)."""
    from evalkit.commands.report import report_command

    raise typer.Exit(guarded(lambda: report_command(result_file, settings_from(given, debug=debug.on)[1])))


@deferred_command("merge", MERGE_SETTINGS, helps={
    "min_coverage": "Exit 1 when the shards together called fewer than this share of the agent's tools (default: "
                    "the shards' own setting)"})
def merge_app(files: List[Path] = typer.Argument(..., metavar="RESULT", help="Result files of the shards (or of "  # noqa: UP006
                                                 "separate runs)"), **given: Any) -> None:
    """Combine shard results into one result file, with the exit code of one whole run."""
    from evalkit.commands.merge import merge_command

    raise typer.Exit(guarded(lambda: merge_command(files, *settings_from(given, debug=debug.on))))


@deferred_command("generate", GENERATE_SETTINGS, helps={
    "config": "EvalConfig whose \"coverage\" declares the tools and sub-agents of an agent evalkit cannot list",
    "min_coverage": "Stop once the kept cases target this share of the agent's tools, parameters and sub-agents "
                    f"[default: {DEFAULT_GENERATE_MIN_COVERAGE:g}]",
    "cassettes": "Record the model's calls in DIR/generate/ (and read recorded MCP listings in DIR/mcp/), or "
                 "replay them: a replay writes the same file",
    "cassette_mode": "With --cassettes: replay (offline), record or auto [default: replay]"})
def generate_app(
    out: Path = typer.Option(..., "--out", metavar="FILE", help="The eval set file to write (replaced if it exists)"),
    count: int = typer.Option(DEFAULT_GENERATE_COUNT, "--count", metavar="N", min=1,
                              help="The most cases to keep"),
    model: Optional[str] = typer.Option(None, "--model", metavar="MODEL", show_default=False,
                                        help="The model writing the cases, named as a judge model: a Gemini "
                                             "model, or openai/NAME [default: the judges' default model]"),
    seed: Optional[int] = typer.Option(None, "--seed", metavar="S", help="Ask the model to sample with this seed"),
    adversarial: bool = typer.Option(False, "--adversarial", help="Hostile users and poisoned tool responses, "
                                     "each case checking that the agent makes no unrequested tool call"),
    **given: Any,
) -> None:
    """Write conversation scenarios aimed at the agent's tools, parameters and sub-agents that no case reaches yet."""
    from evalkit.commands.generate import GenerateRequest, generate_command

    request = GenerateRequest(out=out, count=count, model=model, seed=seed, adversarial=adversarial)
    raise typer.Exit(guarded(lambda: generate_command(settings_from(given, debug=debug.on)[0], request)))
