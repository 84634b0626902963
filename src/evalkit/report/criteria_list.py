"""`evalkit criteria`: every criterion with its options and their defaults."""

from __future__ import annotations

import json

from pydantic import BaseModel
from rich.console import Console
from rich.text import Text

from evalkit.criteria.registry import CRITERIA
from evalkit.errors import Problem
from evalkit.report.hanging import print_hanging


def _nested_keys(annotation: object) -> list[str]:
    """The keys of an options model nested in a field (`tools: {name: ToolRules}` → its rules)."""
    from pydantic import BaseModel

    candidates = [annotation, *getattr(annotation, "__args__", ())]
    for candidate in candidates:
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return list(candidate.model_fields)
        inner = _nested_keys(candidate) if candidate is not annotation and getattr(candidate, "__args__", None) else []
        if inner:
            return inner
    return []


def describe_options(name: str) -> list[tuple[str, str, str]]:
    criterion = CRITERIA.get(name)
    assert criterion is not None
    rows = []
    for field_name, field in criterion.Options.model_fields.items():
        description = field.description or ""
        keys = _nested_keys(field.annotation)
        if keys and field_name != "judge_model_options":
            description += f" (keys: {', '.join(keys)})"
        if field.is_required():
            rows.append((field_name, "(required)", description))
            continue
        default = field.get_default(call_default_factory=True)
        rows.append((field_name, config_value(default), description))
    return rows


def config_value(default: object) -> str:
    """A default as a user writes it in a config file (JSON), not as a Python repr."""
    if isinstance(default, BaseModel):
        default = default.model_dump(mode="json", exclude_none=True)
    return json.dumps(default, default=lambda value: getattr(value, "value", str(value)))


def render_criteria(console: Console, names: list[str] | None = None) -> None:
    """A list, not a table: criterion names are long and must never be cut. `names`: only these."""
    known = CRITERIA.names()
    unknown = [name for name in names or () if CRITERIA.get(name) is None]
    if unknown:
        from evalkit.errors import UsageError
        from evalkit.foundation.suggestions import did_you_mean

        raise UsageError([Problem("", "", f"no criterion named {name!r}{did_you_mean(name, known, 0.6)} "
                                  "(`evalkit criteria` lists them all)") for name in unknown])
    for name in names or known:
        criterion = CRITERIA.get(name)
        assert criterion is not None
        needs = [w for w, on in (("expected turns", criterion.requires_expected),
                                 ("a conversation scenario", criterion.requires_scenario),
                                 ("a judge model", criterion.uses_judge)) if on]
        kind = ("report-only; gates with an upper bound, max" if criterion.gateable
                else "informational, never gates" if criterion.informational else "threshold")
        # A pipe or a log gets whole lines (soft_wrap): grep finds an option with its meaning.
        wrap = not console.is_terminal
        console.print(f"[bold]{name}[/bold]  [dim]({kind}{'; needs ' + ', '.join(needs) if needs else ''})[/dim]",
                      soft_wrap=wrap)
        print_hanging(console, f"    {criterion.description}")
        for option, default, meaning in describe_options(name):
            print_hanging(console, Text.assemble("    ", (option, "cyan"), f" = {default}",
                                                 (f"  {meaning}" if meaning else "", "dim")))
        console.print()
