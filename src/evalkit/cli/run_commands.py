"""`evalkit run`, `rescore` and `merge`: the commands whose options are the settings' declarations.

Built only when the command line names one of them (evalkit.cli.deferred): their options
come from `RunSettings` and `FinishSettings` (evalkit.cli.options), so a new setting shows
up here, in `evalkit.run_evals` and in the pytest plugin with no line changed in this file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, List

import typer

from evalkit.cli.edge import debug, guarded
from evalkit.cli.format import EvalkitCommand
from evalkit.cli.options import settings_from, with_settings

RESCORE_SETTINGS = ("config", "json_out", "junit", "markdown", "html", "use_cache", "quiet", "judge_jobs")
MERGE_SETTINGS = ("json_out", "junit", "markdown", "html", "quiet", "min_coverage")


def _app() -> typer.Typer:
    return typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None,
                       context_settings={"help_option_names": ["-h", "--help"]})


def run_app() -> typer.Typer:
    app = _app()

    @app.command("run", cls=EvalkitCommand)
    @with_settings()
    def run(paths: List[str] = typer.Argument(..., metavar="PATH", help="Eval set files, folders, or "  # noqa: UP006
                                              "file.json:case1,case2"), **given: Any) -> None:
        """Run the agent on the eval cases, score them, and exit 0 only if every case passed."""
        from evalkit.engine.idle_cores import mark_start

        mark_start()  # `--processes auto` measures the other work from here: by the time it chooses, long enough
        from evalkit.commands.run import run_command

        raise typer.Exit(guarded(lambda: run_command(*settings_from(given, paths=tuple(paths), debug=debug.on))))

    return app


def rescore_app() -> typer.Typer:
    app = _app()

    @app.command("rescore", cls=EvalkitCommand)
    @with_settings(RESCORE_SETTINGS, helps={"config": "EvalConfig file with the new or changed criteria"})
    def rescore(result_file: Path = typer.Argument(..., metavar="RESULT", help="A result file (evalkit's, or "
                                                   "ADK's *.evalset_result.json)"), **given: Any) -> None:
        """Score the actual turns saved in RESULT again, with new or changed criteria; nothing is re-run."""
        from evalkit.commands.rescore import rescore_inputs
        from evalkit.commands.run import run_command

        def rescore() -> int:
            settings, finish = settings_from(given, paths=(str(result_file),), debug=debug.on)
            plan, agent = rescore_inputs(result_file, settings.config)
            return run_command(settings, finish, plan=plan, agent=agent)

        raise typer.Exit(guarded(rescore))

    return app


def merge_app() -> typer.Typer:
    app = _app()

    @app.command("merge", cls=EvalkitCommand)
    @with_settings(MERGE_SETTINGS, helps={"min_coverage": "Exit 1 when the shards together called fewer than this "
                                          "share of the agent's tools (default: the shards' own setting)"})
    def merge(files: List[Path] = typer.Argument(..., metavar="RESULT", help="Result files of the shards (or of "  # noqa: UP006
                                                 "separate runs)"), **given: Any) -> None:
        """Combine shard results into one result file, with the exit code of one whole run."""
        from evalkit.commands.merge import merge_command

        raise typer.Exit(guarded(lambda: merge_command(files, *settings_from(given, debug=debug.on))))

    return app
