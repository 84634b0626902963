"""What the reports say about repeats, quarantine and a baseline's significance tests.

Shared by the Markdown, JUnit and HTML reports so that they say the same thing in the
same words as the console (docs/repeats.md). All of it reads the result file's fields:
`repeat.pass_rate_ci` and `repeat.stability` per case, `quarantined`, and `comparison`
(the compare JSON of `--baseline`).
"""

from __future__ import annotations

from evalkit.results.notation import format_p
from evalkit.schema.comparison import CaseChange
from evalkit.schema.results import CaseResult, RunResult


def case_note(case: CaseResult) -> str:
    """`8/10 flaky (95% 0.49–0.94)`, `quarantined`: what a case's row adds to its status."""
    parts = []
    if case.repeat is not None:
        parts.append(f"{case.repeat.passed}/{case.repeat.runs}")
        if case.repeat.stability:
            parts.append(case.repeat.stability.replace("_", " "))
        if case.repeat.pass_rate_ci:
            low, high = case.repeat.pass_rate_ci
            parts.append(f"(95% {low:.2f}–{high:.2f})")
    if case.quarantined:
        parts.append("quarantined")
    return " ".join(parts)


def tested_changes(result: RunResult) -> list[CaseChange]:
    """With `--baseline … --significance`: the regressed and improved cases with their p-values."""
    if result.comparison is None:
        return []
    return [case for case in result.comparison.cases if case.p_value is not None]


def change_line(change: CaseChange) -> str:
    """`regressed weather/paris 10/10 → 5/10, p = 0.016: significant`."""
    name = f"{change.eval_set_id}/{change.eval_id}"
    counts = f"{change.base_passed}/{change.base_runs} → {change.new_passed}/{change.new_runs}"
    verdict = "significant" if change.significant else "within noise"
    if change.kind != "regressed":
        verdict = "improvement"
    return f"{change.kind} {name} {counts}, p = {format_p(change.p_value or 0.0)}: {verdict}"


def overall_line(result: RunResult) -> str | None:
    comparison = result.comparison
    overall = comparison.overall if comparison is not None else None
    if comparison is None or overall is None:
        return None
    verdict = "significant" if overall.significant else "within noise"
    return (f"compared with {comparison.base} at significance {comparison.significance}: "
            f"{overall.regressed} case(s) worse, {overall.improved} better, overall p = "
            f"{format_p(overall.p_value)} ({overall.test}): {verdict}")
