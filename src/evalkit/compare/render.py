"""The comparison on the console: regressions first, then improvements and other changes."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.segment import Segment, SegmentLines
from rich.table import Table
from rich.text import Text

from evalkit.results.notation import format_p
from evalkit.compare.diff import ADDED, IMPROVED, REGRESSED, REMOVED, UNCHANGED, CaseChange, Comparison, CriterionChange

_STYLE = {REGRESSED: "red", IMPROVED: "green", ADDED: "cyan", REMOVED: "yellow"}
# Narrower than this, a p-value column squeezes the criteria into slivers: the p-value goes under them.
P_VALUE_COLUMN_MIN_WIDTH = 120


def render_comparison(comparison: Comparison, console: Console, show_unchanged: bool = False) -> None:
    rows = [c for c in comparison.cases if show_unchanged or c.kind != UNCHANGED]
    if rows:
        plain = not console.is_terminal
        table = Table(box=box.SIMPLE if plain else box.ROUNDED, show_edge=not plain, pad_edge=False)
        table.add_column("change")
        table.add_column("case")
        table.add_column("status")
        table.add_column("criteria (base → new)")
        tested = comparison.significance is not None
        own_column = tested and console.width >= P_VALUE_COLUMN_MIN_WIDTH
        if own_column:
            table.add_column("p-value")
        for case in rows:
            criteria = [_criterion(c) for c in case.criteria if show_unchanged or c.kind != UNCHANGED]
            p_value = _p_value(case) if tested else ""
            if p_value and not own_column:
                criteria.append(f"p = {p_value}")
            cells: list[Text | str] = [Text(case.kind, style=_STYLE.get(case.kind, "")), case.name, _status(case),
                                       "\n".join(criteria)]
            if own_column:
                cells.append(p_value)
            table.add_row(*cells)
        if Measurement.get(console, console.options.update(width=_UNBOUNDED), table).minimum > console.width:
            print_blocks(rows, console, show_unchanged, tested)  # a squeezed table would cut ids and names
        else:
            _print_unpadded(table, console)
    if comparison.significance is not None:
        for line in significance_lines(comparison):
            console.print(line, highlight=False, soft_wrap=True)
    console.print(Text(summary_line(comparison), style="bold"), highlight=False, soft_wrap=True)


_UNBOUNDED = 100_000  # measured unsqueezed, a table's minimum is its longest words side by side
_KIND_WIDTH = 10  # "regressed " : the change, then the case, on a block's first line


def _print_unpadded(table: Table, console: Console) -> None:
    """The table without the spaces rich pads each line's last cell with up to the column's width:
    piped into a file or a diff, a line ends where its text does."""
    for line in console.render_lines(table, pad=False):
        while line and not line[-1].text.rstrip() and not line[-1].control:
            line.pop()  # a segment of spaces only
        if line:
            last = line[-1]
            line[-1] = Segment(last.text.rstrip(" "), last.style, last.control)
        console.print(SegmentLines([line], new_lines=True), end="")


def print_blocks(rows: list[CaseChange], console: Console, show_unchanged: bool, tested: bool) -> None:
    """One block per case for a narrow console: the change and the whole case id, then its status and
    criteria, each wrapped at spaces under it (never an id or a criterion name cut short)."""
    import textwrap

    indent = " " * (_KIND_WIDTH + 1)
    for case in rows:
        console.print(Text.assemble((f"{case.kind:<{_KIND_WIDTH}}", _STYLE.get(case.kind, "")), " ", case.name),
                      highlight=False, soft_wrap=True)
        lines = [_status(case)] + [_criterion(c) for c in case.criteria if show_unchanged or c.kind != UNCHANGED]
        p_value = _p_value(case) if tested else ""
        if p_value:
            lines.append(f"p = {p_value}")
        for line in lines:
            wrapped = textwrap.wrap(line, width=max(console.width, len(indent) + 20), initial_indent=indent,
                                    subsequent_indent=indent + "  ", break_long_words=False, break_on_hyphens=False)
            for piece in wrapped:
                console.print(piece, highlight=False, markup=False, soft_wrap=True)


def significance_lines(comparison: Comparison) -> list[str]:
    """The overall test and the per-criterion score tests, one line each."""
    tested = comparison.significance
    if tested is None:
        return []
    verdict = "significant" if tested.overall_significant else "within noise"
    family = f" with {tested.family} test(s) in the gate" if tested.family > 1 else ""
    overall = (f"overall ({tested.test}, {tested.base_runs} run(s) on the base side, {tested.new_runs} on the new): "
               f"{tested.regressed} case(s) worse, {tested.improved} better, p = {format_p(tested.p_value)} "
               f"(adjusted {format_p(tested.p_adjusted)}{family}): {verdict} at {tested.level:g}")
    lines = [overall]
    for criterion in tested.criteria:
        direction = "fell" if criterion.new_mean < criterion.base_mean else "rose" if criterion.new_mean > criterion.base_mean else "held"
        p_value = criterion.p_worse if direction != "rose" else criterion.p_better
        note = "significant drop" if criterion.significant else "within noise" if direction == "fell" else "no drop"
        gating = "" if tested.gate_scores else ", not gating"
        lines.append(f"  {criterion.name}: mean {criterion.base_mean:.3f} → {criterion.new_mean:.3f} over "
                     f"{criterion.cases} case(s) ({direction}), p = {format_p(p_value)}: {note}{gating}")
    noise = [c for c in comparison.cases if c.kind == REGRESSED and c.significance is not None
             and not c.significance.significant]
    if noise or not tested.overall_significant:
        lines.append(f"{len(noise)} regression(s) within noise. {_could_see(tested.detectable_drop)}; to see smaller "
                     "drops, run more --repeat runs or test against --baseline history (docs/repeats.md, "
                     "\"What it can see\")")
    return lines


def _could_see(drop: float | None) -> str:
    if drop is None:
        return "This comparison could not have caught any drop: too few runs on one side"
    return (f"This comparison catches a drop of about {drop:.2f} in every case's pass rate 80% of the time "
            "(a normal approximation)")


def _p_value(case: CaseChange) -> str:
    tested = case.significance
    if tested is None or case.kind not in (REGRESSED, IMPROVED):
        return ""
    counts = f"{tested.base_passed}/{tested.base_runs} → {tested.new_passed}/{tested.new_runs}"
    if case.kind == IMPROVED:
        return f"{format_p(tested.p_value)} ({counts})"
    verdict = "significant" if tested.significant else "within noise"
    return f"{format_p(tested.p_value)} ({counts}), {verdict}"


def summary_line(comparison: Comparison) -> str:
    counts = comparison.counts()
    parts = [f"{counts[kind]} {kind}" for kind in (REGRESSED, IMPROVED, "changed", UNCHANGED) if counts[kind] or kind == REGRESSED]
    parts += [f"{counts[kind]} {kind}" for kind in (ADDED, REMOVED) if counts[kind]]
    tolerance = f", tolerance {comparison.tolerance:g}" if comparison.tolerance else ""
    tested = ""
    if comparison.significance is not None:
        significant = len(comparison.gate_regressions)
        overall = "significant" if comparison.significance.overall_significant else "within noise"
        tested = (f"; at significance {comparison.significance.level:g}: {significant} significant regression(s), "
                  f"overall {overall}")
    return f"compared with {comparison.base}: {', '.join(parts)}{tolerance}{tested}"


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
