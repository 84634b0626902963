"""The Markdown summary: its table, its escaping, and GitHub's job summary."""

from __future__ import annotations

import re
from pathlib import Path

from evalkit.results.reader import read_result
from evalkit.report.markdown import MAX_ROWS, append_step_summary, render_markdown
from evalkit.schema.results import CaseResult, CriterionResult, RunResult, Status, Summary
from tests.conftest import ROOT
from tests.in_process import invoke_evalkit

MIXED = Path(__file__).resolve().parent / "mixed.result.json"
WEATHER = str(ROOT / "evalsets" / "weather.evalset.json")
REGRESSED = "examples/weather_agent/regressed_agent.py:weather_agent"


def _cells(row: str) -> list[str]:
    """A table row's cells, split on the pipes Markdown sees (not the escaped ones)."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row.strip())[1:-1]]


def _table(markdown: str) -> list[list[str]]:
    return [_cells(line) for line in markdown.splitlines() if line.startswith("|")]


def _result(cases: list[CaseResult]) -> RunResult:
    return RunResult(evalkit_version="0", started_at="2026-01-01T00:00:00Z", duration_s=1.0,
                     summary=Summary.of(cases), cases=cases)


def test_summary_line_then_one_row_per_case_with_scores_against_thresholds():
    markdown = render_markdown(read_result(MIXED))

    assert markdown.startswith("### evalkit: 6 cases: 1 passed, 2 failed, 1 not evaluated, 2 errors in 4.50 s\n")
    header, rule, *rows = _table(markdown)
    assert header == ["case", "status", "tool_trajectory_avg_score", "response_match_score",
                      "final_response_match_v2", "rubric_based_final_response_quality_v1", "hallucinations_v1"]
    assert set(rule) == {"---"} and len(rule) == len(header)
    assert all(len(row) == len(header) for row in rows)
    by_case = {row[0]: row for row in rows}
    assert by_case["weather/paris"][1:4] == ["✅ passed", "1.000 / 1 ✅", "0.917 / 0.8 ✅"]
    assert by_case["weather/london_then_tokyo"][1:4] == ["❌ failed", "0.500 / 1 ❌", "0.950 / 0.8 ✅"]
    assert by_case["weather/agent_crash"][1] == "💥 error"
    assert by_case["weather/judge_down"][4] == "💥 error"
    assert by_case["booking/simulated_refund"][1::5] == ["⚪ not evaluated", "n/a / 0.8 ⚪"]


def test_untrusted_names_cannot_break_the_table_or_inject_html():
    markdown = render_markdown(read_result(MIXED))

    row = next(line for line in markdown.splitlines() if line.startswith("| hostile"))
    assert _cells(row)[0] == r"hostile &lt;set&gt; &amp; co/injection\|pipe \`tick\` \*star\*"
    assert "<set>" not in markdown.split("<details>")[0]


def test_failures_are_folded_in_a_details_block():
    markdown = render_markdown(read_result(MIXED))

    details = markdown[markdown.index("<details>"):]
    assert details.startswith("<details>\n<summary>What did not pass (6)</summary>\n\n```text\n")
    assert "✗ weather/london_then_tokyo: tool_trajectory_avg_score 0.5 < 1\n" \
           "    turn 2: call 1: expected get_weather(city='Tokyo'), got get_weather(city='Kyoto')" in details
    assert "! weather/agent_crash: agent raised RuntimeError: tool backend <down> & unreachable" in details
    assert details.rstrip().endswith("```\n\n</details>")


def test_backticks_in_a_failure_cannot_close_its_code_block():
    case = CaseResult(eval_set_id="s", eval_id="c", status=Status.ERROR, error="agent said ````` and </details>")
    markdown = render_markdown(_result([case]))

    assert "\n``````text\n! s/c: agent said ````` and </details>\n``````\n" in markdown


def test_all_passing_run_has_no_failure_block():
    criterion = CriterionResult(name="response_match_score", threshold=0.8, score=1.0, status=Status.PASSED)
    case = CaseResult(eval_set_id="s", eval_id="ok", status=Status.PASSED, criteria=[criterion])
    markdown = render_markdown(_result([case]))

    assert "<details>" not in markdown
    assert _table(markdown)[2] == ["s/ok", "✅ passed", "1.000 / 0.8 ✅"]


def test_long_runs_list_every_problem_and_count_the_rest():
    cases = [CaseResult(eval_set_id="s", eval_id=f"ok{i}", status=Status.PASSED) for i in range(MAX_ROWS + 50)]
    cases.insert(120, CaseResult(eval_set_id="s", eval_id="broken", status=Status.ERROR, error="boom"))
    markdown = render_markdown(_result(cases))

    rows = _table(markdown)[2:]
    assert len(rows) == MAX_ROWS
    assert rows[0][:2] == ["s/broken", "💥 error"]
    assert "…and 51 more cases, not listed (all passed)." in markdown


def test_a_huge_failing_run_still_fits_a_pull_request_comment():
    criterion = CriterionResult(name="response_match_score", threshold=0.8, score=0.1, status=Status.FAILED,
                                invocations=[{"score": 0.1, "status": "failed",
                                              "details": {"expected": "x" * 80, "actual": "y" * 80}}])
    cases = [CaseResult(eval_set_id="s", eval_id=f"case{i}", status=Status.FAILED, criteria=[criterion])
             for i in range(1000)]
    markdown = render_markdown(_result(cases))

    assert len(markdown) < 65_536
    assert len(_table(markdown)) == MAX_ROWS + 2
    assert "…and 800 more cases, not listed (0 of them passed)." in markdown
    assert "… (cut; the full list is in the HTML or JSON report)\n" in markdown


def test_append_step_summary_only_when_github_names_a_file(tmp_path):
    result = read_result(MIXED)
    summary = tmp_path / "step_summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")

    assert append_step_summary(result, {}) is None
    assert append_step_summary(result, {"GITHUB_STEP_SUMMARY": str(summary)}) == summary
    assert summary.read_text(encoding="utf-8") == "earlier step\n" + render_markdown(result) + "\n"


def test_run_appends_to_the_github_step_summary_without_being_asked(tmp_path):
    summary = tmp_path / "step_summary.md"
    summary.write_text("## Earlier step\n\n", encoding="utf-8")
    markdown_file = tmp_path / "summary.md"
    env = {"GITHUB_STEP_SUMMARY": str(summary)}

    first = invoke_evalkit("run", WEATHER, "--agent", REGRESSED, "--quiet", env=env)
    second = invoke_evalkit("run", WEATHER, "--agent", REGRESSED, "--quiet", "--markdown", str(markdown_file), env=env)

    assert (first.returncode, second.returncode) == (1, 1), first.stderr + second.stderr
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("## Earlier step\n\n### evalkit: 3 cases: 1 passed, 2 failed in ")
    assert text.count("### evalkit:") == 2
    assert text.endswith(markdown_file.read_text(encoding="utf-8") + "\n")
    rows = {row[0]: row for row in _table(markdown_file.read_text(encoding="utf-8"))[2:]}
    assert rows["weather/paris"] == ["weather/paris", "❌ failed", "0.000 / 1 ❌", "0.500 / 0.8 ❌"]
    assert rows["weather/no_city"][1] == "✅ passed"


def test_an_unwritable_step_summary_is_a_warning_not_a_failure(tmp_path):
    run = invoke_evalkit("run", WEATHER, "--quiet", env={"GITHUB_STEP_SUMMARY": str(tmp_path)})  # a folder

    assert run.returncode == 0, run.stderr
    assert "warning: cannot append to GITHUB_STEP_SUMMARY" in run.stderr


def test_no_step_summary_outside_github(tmp_path):
    markdown_file = tmp_path / "summary.md"
    run = invoke_evalkit("run", WEATHER, "--quiet", "--markdown", str(markdown_file), cwd=tmp_path,
                         env={"GITHUB_STEP_SUMMARY": ""})

    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".md") == ["summary.md"]
    assert "| weather/paris | ✅ passed | 1.000 / 1 ✅ | 1.000 / 0.8 ✅ |" in markdown_file.read_text(encoding="utf-8")
