"""`evalkit criteria`: every criterion with its options and their defaults."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from evalkit.criteria import registry


def describe_options(name: str) -> list[tuple[str, str, str]]:
    criterion = registry.get(name)
    assert criterion is not None
    rows = []
    for field_name, field in criterion.Options.model_fields.items():
        default = field.get_default(call_default_factory=True)
        default_text = getattr(default, "value", default)
        rows.append((field_name, repr(default_text) if default_text is not None else "none", field.description or ""))
    return rows


def render_criteria(console: Console) -> None:
    table = Table(show_lines=True)
    table.add_column("criterion", style="bold")
    table.add_column("what it scores")
    table.add_column("options (default)")
    for name in registry.names():
        criterion = registry.get(name)
        assert criterion is not None
        kind = " [informational]" if criterion.informational else ""
        needs = [w for w, on in (("expected turns", criterion.requires_expected), ("a scenario", criterion.requires_scenario), ("a judge", criterion.uses_judge)) if on]
        what = criterion.description + kind + (f"\nneeds {', '.join(needs)}" if needs else "")
        options = "\n".join(f"{n} ({d}): {desc}" if desc else f"{n} ({d})" for n, d, desc in describe_options(name))
        table.add_row(name, what, options or "threshold only" if not criterion.informational else "none")
    console.print(table)
