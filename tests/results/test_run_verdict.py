"""The exit code as the results' verdict (docs/ci.md, "Exit codes"): one rule for run, merge and workers."""

from __future__ import annotations

from evalkit.errors import ExitCode
from evalkit.results.run_verdict import decide, exit_code
from evalkit.schema.coverage import Coverage, ToolCoverage
from evalkit.schema.results import CaseResult, CriterionResult, RunResult, Status, Summary


def case(eval_id: str, status: Status, criteria: list[CriterionResult] | None = None) -> CaseResult:
    return CaseResult(eval_set_id="weather", eval_id=eval_id, status=status, criteria=criteria or [])


def run_of(cases: list[CaseResult], **fields: object) -> RunResult:
    return RunResult(evalkit_version="0", started_at="", duration_s=0, summary=Summary.of(cases), cases=cases,
                     **fields)


def test_every_case_passed_is_exit_0_and_one_failure_is_exit_1():
    assert exit_code(run_of([case("paris", Status.PASSED), case("rome", Status.PASSED)])) == ExitCode.OK
    assert exit_code(run_of([case("paris", Status.PASSED), case("rome", Status.FAILED)])) == ExitCode.FAILED


def test_no_case_at_all_or_only_unscored_ones_is_not_a_pass():
    assert exit_code(run_of([])) == ExitCode.FAILED
    assert exit_code(run_of([case("paris", Status.NOT_EVALUATED)])) == ExitCode.FAILED


def test_an_error_outranks_a_failure_also_inside_a_failed_case():
    errored = CriterionResult(name="judge", status=Status.ERROR, error="no verdict")
    failed = CriterionResult(name="tool_trajectory_avg_score", status=Status.FAILED, score=0.0, threshold=1.0)
    assert exit_code(run_of([case("paris", Status.FAILED, [failed, errored])])) == ExitCode.RUN_ERROR
    assert exit_code(run_of([case("paris", Status.ERROR), case("rome", Status.FAILED)])) == ExitCode.RUN_ERROR


def test_an_interrupted_run_says_so_whatever_its_cases():
    assert exit_code(run_of([case("paris", Status.PASSED)], interrupted=True)) == ExitCode.INTERRUPTED


def test_the_coverage_gate_fails_a_whole_run_but_not_a_shard():
    below = Coverage(tools=ToolCoverage(declared=["a", "b"], called={"a": 1}, ratio=0.5), min_ratio=0.8)
    passed = [case("paris", Status.PASSED)]
    assert exit_code(run_of(passed, coverage=below)) == ExitCode.FAILED
    assert exit_code(run_of(passed, coverage=below, shard="1/2")) == ExitCode.OK


def test_a_minimum_for_an_agent_whose_tools_are_unknown_fails_with_the_reason():
    """The decider fails it as the console's message does (no coverage object, a minimum asked for)."""
    verdict = decide(run_of([case("paris", Status.PASSED)]), min_coverage=0.5)
    assert verdict.exit_code == ExitCode.FAILED
    assert [f.gate for f in verdict.record.failures] == ["coverage"]
    assert "evalkit does not know this agent's tools" in verdict.record.failures[0].message


def test_a_shard_records_its_minimum_for_the_merge_but_is_not_gated():
    verdict = decide(run_of([case("paris", Status.PASSED)], shard="1/2"), min_coverage=0.5)
    assert verdict.exit_code == ExitCode.OK and verdict.record.passed and verdict.record.min_coverage == 0.5


def test_each_failed_gate_is_named_and_the_exit_code_is_the_worst():
    below = Coverage(tools=ToolCoverage(declared=["a", "b"], called={"a": 1}, never_called=["b"], ratio=0.5))
    errored = decide(run_of([case("paris", Status.ERROR), case("rome", Status.FAILED)], coverage=below),
                     min_coverage=0.8, regressions="1 case regressed against the baseline: weather/rome")
    assert errored.exit_code == ExitCode.RUN_ERROR
    assert [(f.gate, f.message) for f in errored.record.failures] == [
        ("errors", "1 case had an agent or judge error"), ("cases", "1 case of 2 did not pass"),
        ("coverage", "tool coverage 0.5 is below the minimum 0.8; never called: b; add eval cases that call them, "
                     "or lower --min-coverage (min_coverage in the config)"),
        ("regressions", "1 case regressed against the baseline: weather/rome")]


def test_gate_regressions_leaves_failed_thresholds_out_but_not_coverage():
    failed = run_of([case("paris", Status.FAILED)])
    assert decide(failed, min_coverage=None, count_cases=False).exit_code == ExitCode.OK
    assert decide(failed, min_coverage=0.5, count_cases=False).exit_code == ExitCode.FAILED
