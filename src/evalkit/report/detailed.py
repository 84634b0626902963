"""`--print_detailed_results`: every criterion of every turn, in the spirit of ADK's layout."""

from __future__ import annotations

from rich.console import Console

from evalkit.results.notation import call_text
from evalkit.schema.evalset import Invocation
from evalkit.schema.results import CaseResult, RunResult, Status
from evalkit.schema.views import final_text, tool_calls, user_text

_LABEL_WIDTH = 30


def render_detailed(result: RunResult, console: Console) -> None:
    for case in result.cases:
        for line in case_lines(case):
            console.print(line, highlight=False, markup=False, soft_wrap=True)


def case_lines(case: CaseResult) -> list[str]:
    lines = ["*" * 68, f"Eval Set Id: {case.eval_set_id}", f"Eval Id: {case.eval_id}",
             f"Overall Eval Status: {case.status.value.upper()}"]
    if case.error:
        lines.append(f"Error: {case.error}")
    for criterion in case.criteria:
        score = "n/a" if criterion.score is None else f"{criterion.score:g}"
        lines += ["-" * 69, f"Metric: {criterion.name}, Status: {criterion.status.value.upper()}, "
                            f"Score: {score}, Threshold: {criterion.threshold}"]
    lines += ["-" * 69, "Invocation Details:"]
    for index, record in enumerate(case.invocations):
        lines += ["", f"Invocation {index + 1} of {len(case.invocations)}"]
        actual = Invocation.model_validate(record.actual) if record.actual else None
        expected = Invocation.model_validate(record.expected) if record.expected else None
        source = actual or expected
        rows = [("prompt", user_text(source) if source else "(none)")]
        if expected is not None:
            rows.append(("expected_response", final_text(expected) or "(none)"))
        rows.append(("actual_response", final_text(actual) if actual else "(none)"))
        if expected is not None:
            rows.append(("expected_tool_calls", _calls(expected)))
        rows.append(("actual_tool_calls", _calls(actual) if actual else "(none)"))
        for criterion in case.criteria:
            if index < len(criterion.invocations):
                turn = criterion.invocations[index]
                value = "n/a" if turn.score is None else f"{turn.score:g}"
                cell = value if turn.status is Status.INFORMATIONAL else f"{turn.status.value.upper()} ({value})"
                rows.append((criterion.name, cell))
        lines += [f"  {label + ':':<{_LABEL_WIDTH - 2}}{value}" for label, value in rows]
    return lines


def _calls(invocation: Invocation) -> str:
    calls = tool_calls(invocation)
    if not calls:
        return "(none)"
    return "; ".join(call_text(c.name, c.args) for c in calls)
