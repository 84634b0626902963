"""Where the `evalkit` command meets the library: evalkit errors become messages and exit codes.

Every command body runs inside `guarded`, so a domain error is a short message here and nowhere
else; `--debug` (taken from anywhere on the command line) adds tracebacks and evalkit's log.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import NoReturn, TypeVar

import typer



T = TypeVar("T")


class _DebugSwitch:
    """Whether `--debug` was given: set once per command line, read by `guarded` and the run."""

    on = False


debug = _DebugSwitch()


def fail(lines: list[str], code: int) -> NoReturn:
    for line in lines:
        typer.echo(f"evalkit: {line}", err=True)
    raise typer.Exit(code)


def guarded(action: Callable[[], T]) -> T:
    """Run a command body, mapping evalkit errors to their messages and exit codes."""
    from evalkit.errors import EvalkitError, InputError
    from evalkit.settings import flags

    try:
        return action()
    except EvalkitError as error:
        if debug.on:
            import traceback

            traceback.print_exc()
        # A setting's message names the flag the user typed (`--jobs`), not the keyword.
        fail(error.lines(flags()) if isinstance(error, InputError) else error.lines(), error.exit_code)


def take_debug_flag(args: list[str]) -> list[str]:
    """`--debug` is accepted anywhere before a `--`, before or after the command; returns the rest."""
    end = args.index("--") if "--" in args else len(args)
    kept = [arg for arg in args[:end] if arg != "--debug"]
    debug.on = len(kept) != end
    if debug.on:
        show_debug_log()
    return kept + args[end:]


def show_debug_log() -> None:
    """Under --debug, evalkit's log (worker stderr, ADK's log, judge retries) goes to stderr."""
    import logging

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    log = logging.getLogger("evalkit")
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    log.propagate = False
