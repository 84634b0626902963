"""Snapshot of the plain-text console report (what CI logs show)."""

from __future__ import annotations

from io import StringIO

from rich.console import Console

from evalkit.report.console import failure_lines, render
from evalkit.schema.results import CaseResult, CriterionResult, InvocationScore, RunResult, Status, Summary


def _result() -> RunResult:
    cases = [
        CaseResult(eval_set_id="weather", eval_id="paris", status=Status.PASSED, criteria=[
            CriterionResult(name="tool_trajectory_avg_score", threshold=1.0, score=1.0, status=Status.PASSED),
            CriterionResult(name="response_match_score", threshold=0.8, score=0.9, status=Status.PASSED),
            CriterionResult(name="tool_call_count_v1", score=1.0, status=Status.INFORMATIONAL),
        ]),
        CaseResult(eval_id="rome", eval_set_id="weather", status=Status.FAILED, criteria=[
            CriterionResult(name="tool_trajectory_avg_score", threshold=1.0, score=0.0, status=Status.FAILED,
                            invocations=[InvocationScore(score=0.0, status=Status.FAILED, details={
                                "difference": "call 1: expected get_weather(city='Rome'), got get_weather(city='rome')"})]),
            CriterionResult(name="response_match_score", threshold=0.8, score=0.5, status=Status.FAILED,
                            invocations=[InvocationScore(score=0.5, status=Status.FAILED, details={
                                "expected": "Sunny in Rome.", "actual": "Looks sunny."})]),
        ]),
        CaseResult(eval_set_id="weather", eval_id="tokyo", status=Status.ERROR,
                   error="case 'tokyo', turn 1: the agent raised RuntimeError: backend down"),
    ]
    return RunResult(evalkit_version="0", started_at="2026-01-01T00:00:00+00:00", duration_s=1.5,
                     summary=Summary.of(cases), cases=cases)


EXPECTED = """\
case            status   tool_trajectory_avg_score   response_match_score
─────────────────────────────────────────────────────────────────────────
weather/paris   passed                   1.000/1 ✓            0.900/0.8 ✓
weather/rome    failed                   0.000/1 ✗            0.500/0.8 ✗
weather/tokyo   error
✗ weather/rome: tool_trajectory_avg_score 0 < 1
    turn 1: call 1: expected get_weather(city='Rome'), got get_weather(city='rome')
✗ weather/rome: response_match_score 0.5 < 0.8
    turn 1: expected 'Sunny in Rome.'
           got      'Looks sunny.'
! weather/tokyo: case 'tokyo', turn 1: the agent raised RuntimeError: backend down
3 cases: 1 passed, 1 failed, 1 error in 1.50 s
"""


def test_plain_report_snapshot():
    out = StringIO()
    render(_result(), Console(file=out, width=160, no_color=True, force_terminal=False))
    assert [line.rstrip() for line in out.getvalue().splitlines()] == EXPECTED.splitlines()


def test_ids_that_look_like_markup_are_printed_as_written():
    case = CaseResult(eval_set_id="s", eval_id="[red]x[/red]", status=Status.PASSED, criteria=[
        CriterionResult(name="[bold]m", threshold=0.5, score=1.0, status=Status.PASSED)])
    result = RunResult(evalkit_version="0", started_at="t", duration_s=0.1, summary=Summary.of([case]), cases=[case])
    out = StringIO()
    render(result, Console(file=out, width=160, no_color=True, force_terminal=False))
    assert "s/[red]x[/red]" in out.getvalue() and "[bold]m" in out.getvalue()


def _terminal(result: RunResult, width: int) -> str:
    out = StringIO()
    render(result, Console(file=out, width=width, force_terminal=True, color_system=None))
    return out.getvalue()


def _long_result() -> RunResult:
    result = _result()
    result.cases[0].eval_id = "a_rather_long_case_identifier_for_testing"
    return result


EXPECTED_80 = """\
╭─────────────────────────────────────┬────────┬──────────────────┬────────────╮
│                                     │        │ tool_trajectory_ │   response_│
│case                                 │ status │        avg_score │ match_score│
├─────────────────────────────────────┼────────┼──────────────────┼────────────┤
│weather/a_rather_long_case_identifie │ passed │        1.000/1 ✓ │ 0.900/0.8 ✓│
│r_for_testing                        │        │                  │            │
│weather/rome                         │ failed │        0.000/1 ✗ │ 0.500/0.8 ✗│
│weather/tokyo                        │ error  │                  │            │
╰─────────────────────────────────────┴────────┴──────────────────┴────────────╯
"""


def test_at_80_columns_headers_break_at_an_underscore_and_ids_wrap():
    shown = _terminal(_long_result(), 80)
    assert shown.startswith(EXPECTED_80)
    assert "…" not in shown
    assert all(len(line) <= 80 for line in shown.splitlines() if line.startswith(("│", "╭", "╰", "├")))


def test_narrower_terminals_number_the_columns_with_a_legend_then_list_blocks():
    numbered = _terminal(_long_result(), 60)
    assert "│ status │        #1 │          #2│" in numbered
    assert "#1 tool_trajectory_avg_score\n#2 response_match_score\n" in numbered
    assert "…" not in numbered
    blocks = _terminal(_long_result(), 44)
    assert "weather/rome  failed\n    tool_trajectory_avg_score  0.000/1 ✗\n" in blocks
    assert "…" not in blocks and "╭" not in blocks


def test_every_failed_turn_of_a_case_is_listed_not_only_the_first():
    turns = [InvocationScore(score=0.0, status=Status.FAILED, details={"expected": "Sunny.", "actual": "Rain."}),
             InvocationScore(score=1.0, status=Status.PASSED, details={}),
             InvocationScore(score=0.2, status=Status.FAILED, details={"expected": "Warm.", "actual": "Cold."})]
    case = CaseResult(eval_set_id="weather", eval_id="two", status=Status.FAILED, criteria=[
        CriterionResult(name="response_match_score", threshold=0.8, score=0.4, status=Status.FAILED, invocations=turns)])
    assert failure_lines([case]) == [
        "✗ weather/two: response_match_score 0.4 < 0.8"
        "\n    turn 1: expected 'Sunny.'\n           got      'Rain.'"
        "\n    turn 3: expected 'Warm.'\n           got      'Cold.'"]


def test_a_long_conversation_names_the_first_failed_turns_and_counts_the_rest():
    turns = [InvocationScore(score=0.0, status=Status.FAILED, details={"reason": f"wrong {i}"}) for i in range(13)]
    case = CaseResult(eval_set_id="s", eval_id="long", status=Status.FAILED, criteria=[
        CriterionResult(name="m", threshold=1.0, score=0.0, status=Status.FAILED, invocations=turns)])
    (line,) = failure_lines([case])
    assert line.splitlines()[1:] == [*(f"    turn {i + 1}: wrong {i}" for i in range(10)),
                                     "    …and 3 more failed turns (the result file has each)"]
