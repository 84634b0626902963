"""At 80 columns, a failure's detail and `evalkit criteria` wrap under themselves (a hanging indent)."""

from __future__ import annotations

from io import StringIO

from rich.console import Console

from evalkit.report.console import render
from evalkit.report.criteria_list import render_criteria
from evalkit.schema.results import CaseResult, CriterionResult, InvocationScore, RunResult, Status, Summary

LONG = "It is sunny in Paris today with a light breeze from the west and about 24 degrees in the afternoon."


def terminal(width: int) -> tuple[Console, StringIO]:
    out = StringIO()
    return Console(file=out, width=width, force_terminal=True, color_system=None), out


def failing_run() -> RunResult:
    turn = InvocationScore(score=0.4, status=Status.FAILED, details={"expected": LONG, "actual": "Looks sunny."})
    criterion = CriterionResult(name="response_match_score", threshold=0.8, score=0.4, status=Status.FAILED,
                                invocations=[turn])
    case = CaseResult(eval_set_id="weather", eval_id="paris", status=Status.FAILED, criteria=[criterion])
    return RunResult(evalkit_version="0", started_at="2026-01-01T00:00:00+00:00", duration_s=1.0,
                     summary=Summary.of([case]), cases=[case])


def test_a_long_failure_detail_wraps_under_its_turn_at_80_columns():
    console, out = terminal(80)
    render(failing_run(), console)
    lines = out.getvalue().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("    turn 1: expected"))
    assert lines[start:start + 3] == [
        "    turn 1: expected 'It is sunny in Paris today with a light breeze from the",
        "        west and about 24 degrees in the afternoon.'",
        "           got      'Looks sunny.'"]
    assert all(len(line) <= 80 for line in lines)


def test_a_pipe_keeps_each_detail_line_whole():
    out = StringIO()
    render(failing_run(), Console(file=out, width=80, no_color=True))
    assert f"    turn 1: expected {LONG!r}" in out.getvalue().splitlines()


def test_evalkit_criteria_wraps_with_an_indent_at_80_columns():
    console, out = terminal(80)
    render_criteria(console, ["response_checks_v1", "tool_trajectory_match_v1"])
    lines = [line for line in out.getvalue().splitlines() if line]
    assert all(len(line) <= 80 for line in lines)
    assert all(line.startswith(("response_checks_v1", "tool_trajectory_match_v1", "    ")) for line in lines)
    checks = next(i for i, line in enumerate(lines) if line.startswith("    checks = []"))
    assert lines[checks + 1].startswith("        ") and lines[checks + 1].strip().startswith("not_contains")
