"""`evalkit criteria`: every criterion with its options and their defaults."""

from __future__ import annotations

import json

from pydantic import BaseModel
from rich.console import Console

from evalkit.criteria import registry


def describe_options(name: str) -> list[tuple[str, str, str]]:
    criterion = registry.get(name)
    assert criterion is not None
    rows = []
    for field_name, field in criterion.Options.model_fields.items():
        default = field.get_default(call_default_factory=True)
        rows.append((field_name, config_value(default), field.description or ""))
    return rows


def config_value(default: object) -> str:
    """A default as a user writes it in a config file (JSON), not as a Python repr."""
    if isinstance(default, BaseModel):
        default = default.model_dump(mode="json", exclude_none=True)
    return json.dumps(default, default=lambda value: getattr(value, "value", str(value)))


def render_criteria(console: Console) -> None:
    """A list, not a table: criterion names are long and must never be cut."""
    for name in registry.names():
        criterion = registry.get(name)
        assert criterion is not None
        needs = [w for w, on in (("expected turns", criterion.requires_expected),
                                 ("a conversation scenario", criterion.requires_scenario),
                                 ("a judge model", criterion.uses_judge)) if on]
        kind = "informational, never gates" if criterion.informational else "threshold"
        # A pipe or a log gets whole lines (soft_wrap): grep finds an option with its meaning.
        wrap = not console.is_terminal
        console.print(f"[bold]{name}[/bold]  [dim]({kind}{'; needs ' + ', '.join(needs) if needs else ''})[/dim]",
                      soft_wrap=wrap)
        console.print(f"    {criterion.description}", highlight=False, markup=False, soft_wrap=wrap)
        for option, default, meaning in describe_options(name):
            console.print(f"    [cyan]{option}[/cyan] = {default}" + (f"  [dim]{meaning}[/dim]" if meaning else ""),
                          highlight=False, soft_wrap=wrap)
        console.print()
