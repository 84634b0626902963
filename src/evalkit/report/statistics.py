"""What the reports say about repeats, quarantine and a baseline's significance tests.

Shared by the Markdown, JUnit and HTML reports so that they say the same thing in the
same words as the console (docs/repeats.md). All of it reads the result file's fields:
`repeat.pass_rate_ci` and `repeat.stability` per case, `quarantined`, and `comparison`
(the compare JSON of `--baseline`).
"""

from __future__ import annotations

from typing import Any

from evalkit.results.notation import format_p
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


def tested_changes(result: RunResult) -> list[dict[str, Any]]:
    """With `--baseline … --significance`: the regressed and improved cases with their p-values."""
    comparison = result.comparison or {}
    return [case for case in comparison.get("cases", []) if "p_value" in case]


def change_line(change: dict[str, Any]) -> str:
    """`regressed weather/paris 10/10 → 5/10, p = 0.016: significant`."""
    name = f"{change['eval_set_id']}/{change['eval_id']}"
    counts = f"{change['base_passed']}/{change['base_runs']} → {change['new_passed']}/{change['new_runs']}"
    verdict = "significant" if change.get("significant") else "within noise"
    if change.get("kind") != "regressed":
        verdict = "improvement"
    return f"{change.get('kind')} {name} {counts}, p = {format_p(change['p_value'])}: {verdict}"


def overall_line(result: RunResult) -> str | None:
    comparison = result.comparison or {}
    overall = comparison.get("overall")
    if not overall:
        return None
    verdict = "significant" if overall.get("significant") else "within noise"
    return (f"compared with {comparison.get('base')} at significance {comparison.get('significance')}: "
            f"{overall['regressed']} case(s) worse, {overall['improved']} better, overall p = "
            f"{format_p(overall['p_value'])} ({overall['test']}): {verdict}")
