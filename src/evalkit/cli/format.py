"""How `evalkit` words its help: metavars as any CLI writes them, no Python type names."""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument, TyperCommand


class _PlainArgument(TyperArgument):
    """An argument shown by its metavar alone: typer would add a Python type name (`<list[str]>`)."""

    def display_type_rich(self, ctx: object) -> None:
        return None

    def _usage_display_name(self) -> str:
        # typer writes a required argument as `{PATH}`; CLIs write `PATH`, and `[PATH]` when optional.
        name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
        return name + ("..." if self.nargs != 1 else "")


class EvalkitCommand(TyperCommand):
    """A command whose help reads like any CLI's: metavars, no Python type names."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if type(param) is TyperArgument:
                param.__class__ = _PlainArgument
