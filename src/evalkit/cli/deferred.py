"""Commands built when they are used: the ones whose options come from the settings' declarations.

Deriving `evalkit run`'s options imports the settings models (pydantic), which `evalkit --help`
or `evalkit view` have no use for. So those commands are listed by name and summary, and
built (`build()`, which imports their module) only when the command line names them.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

import typer
from typer.core import TyperGroup

# name → (one-line summary for the command list, "module:function" building the command's typer app)
DEFERRED: dict[str, tuple[str, str]] = {}


def defer(name: str, summary: str, builder: str) -> None:
    DEFERRED[name] = (summary, builder)


class _Deferred(typer.core.TyperCommand):
    """Stands in for a deferred command in the list of commands, with its summary."""

    def __init__(self, name: str, summary: str):
        super().__init__(name=name, help=summary, callback=None)


class EvalkitGroup(TyperGroup):
    """evalkit's commands, in the order they are listed, the deferred ones built on first use."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        given = dict(self.commands)
        self.commands.clear()
        for name in ORDER:
            if name in given:
                self.commands[name] = given.pop(name)
            elif name in DEFERRED:
                self.commands[name] = _Deferred(name, DEFERRED[name][0])
        self.commands.update(given)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name, command, rest = super().resolve_command(ctx, args)
        if isinstance(command, _Deferred) and name is not None:
            command = self.commands[name] = _build(name)
        return name, command, rest


def _build(name: str) -> Any:
    module, function = DEFERRED[name][1].split(":")
    build: Callable[[], typer.Typer] = getattr(import_module(module), function)
    return typer.main.get_command(build())


ORDER = ("run", "proxy", "mcp", "validate", "compare", "rescore", "merge", "report", "accept", "view", "label",
         "calibrate", "criteria", "schema", "scenarios", "generate", "import", "export")
