"""The comparison on the console: regressions first, then improvements and other changes."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from evalkit.compare.diff import ADDED, IMPROVED, REGRESSED, REMOVED, UNCHANGED, CaseChange, Comparison, CriterionChange

_STYLE = {REGRESSED: "red", IMPROVED: "green", ADDED: "cyan", REMOVED: "yellow"}


def render_comparison(comparison: Comparison, console: Console, show_unchanged: bool = False) -> None:
    rows = [c for c in comparison.cases if show_unchanged or c.kind != UNCHANGED]
    if rows:
        plain = not console.is_terminal
        table = Table(box=box.SIMPLE if plain else box.ROUNDED, show_edge=not plain, pad_edge=False)
        table.add_column("change")
        table.add_column("case")
        table.add_column("status")
        table.add_column("criteria (base → new)")
        for case in rows:
            table.add_row(
                Text(case.kind, style=_STYLE.get(case.kind, "")),
                case.name,
                _status(case),
                "\n".join(_criterion(c) for c in case.criteria if show_unchanged or c.kind != UNCHANGED),
            )
        console.print(table)
    console.print(Text(summary_line(comparison), style="bold"), highlight=False, soft_wrap=True)


def summary_line(comparison: Comparison) -> str:
    counts = comparison.counts()
    parts = [f"{counts[kind]} {kind}" for kind in (REGRESSED, IMPROVED, "changed", UNCHANGED) if counts[kind] or kind == REGRESSED]
    parts += [f"{counts[kind]} {kind}" for kind in (ADDED, REMOVED) if counts[kind]]
    tolerance = f", tolerance {comparison.tolerance:g}" if comparison.tolerance else ""
    return f"compared with {comparison.base}: {', '.join(parts)}{tolerance}"


def _status(case: CaseChange) -> str:
    if case.base_status == case.new_status:
        return case.new_status or ""
    return f"{case.base_status or '—'} → {case.new_status or '—'}"


def _criterion(change: CriterionChange) -> str:
    text = f"{change.name} {_score(change.base_score)} → {_score(change.new_score)}"
    if change.delta is not None and change.delta:
        text += f" ({change.delta:+.3f})"
    if change.base_status != change.new_status:
        text += f" {change.base_status or 'absent'} → {change.new_status or 'absent'}"
    if change.kind == REGRESSED:
        text = f"✗ {text}"
    return text


def _score(score: float | None) -> str:
    return "n/a" if score is None else f"{score:.3f}"
