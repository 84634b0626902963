"""How `evalkit` words things: help with metavars as any CLI writes them (no Python type names),
and each setting named by its flag."""

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


# The flag of each run setting, so the settings' messages name what the user typed.
SETTING_FLAGS = {"jobs": "--jobs", "judge_jobs": "--judge-jobs", "timeout": "--timeout", "repeat": "--repeat",
                 "pass_rate": "--pass-rate", "use_cache": "--no-cache", "agent": "--agent", "case_ids": "--case",
                 "config": "--config", "shard": "--shard", "cassettes": "--cassettes", "cassette_mode": "--cassette-mode",
                 "processes": "--processes", "tolerance": "--tolerance", "confidence": "--confidence",
                 "max_repeat": "--max-repeat", "quarantine": "--quarantine", "headers": "--header",
                 "baseline": "--baseline",
                 "min_coverage": "--min-coverage"}
