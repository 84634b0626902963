"""`calibrate` over result files: what counts, what is left out, and what is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalkit.calibration.judged import read_results
from evalkit.calibration.labels import Label
from evalkit.calibration.report import calibrate, report_lines, to_json, warnings
from evalkit.errors import InputError
from evalkit.results.writer import write_result
from evalkit.schema.results import CaseResult, CriterionResult, RunResult, Status, Summary

JUDGE = {"judge_model": "gemini-2.5-flash", "prompt_hash": "0123456789abcdef"}


def criterion(status: Status, name: str = "final_response_match_v2", **details) -> CriterionResult:
    return CriterionResult(name=name, threshold=0.5, status=status, details={**JUDGE, **details})


def result_file(path: Path, cases: dict[str, list[CriterionResult]]) -> Path:
    results = [CaseResult(eval_set_id="s", eval_id=eval_id, status=Status.PASSED, criteria=criteria)
               for eval_id, criteria in cases.items()]
    write_result(RunResult(evalkit_version="0", started_at="now", duration_s=0.0, summary=Summary.of(results),
                           cases=results), path)
    return path


def label(eval_id: str, verdict: str, name: str = "final_response_match_v2") -> Label:
    return Label(eval_set_id="s", eval_id=eval_id, criterion=name, verdict=verdict)


def test_not_evaluated_and_error_are_excluded_held_back_verdicts_count(tmp_path):
    path = result_file(tmp_path / "r.json", {
        "a": [criterion(Status.PASSED)],
        "b": [criterion(Status.FAILED)],
        "c": [criterion(Status.NOT_EVALUATED, reason="no judge reply could be read")],
        "d": [criterion(Status.ERROR)],
        "e": [criterion(Status.NOT_EVALUATED, reason="not gated: …", judge_verdict="failed", judge_score=0.0)],
    })
    labels = [label("a", "pass"), label("b", "pass"), label("c", "fail"), label("d", "pass"), label("e", "fail")]
    (result,) = calibrate(read_results([path]), labels, "labels.json")
    assert result.excluded == 2
    assert result.confusion.as_dict() == {"judge_pass_human_pass": 1, "judge_pass_human_fail": 0,
                                          "judge_fail_human_pass": 1, "judge_fail_human_fail": 1}
    (entry,) = to_json([result])["criteria"]
    assert entry["n"] == 3 and entry["agreement"] == pytest.approx(2 / 3) and entry["kappa"] == pytest.approx(0.4)
    assert (entry["judge_model"], entry["prompt_hash"], entry["threshold"]) == (*JUDGE.values(), 0.5)
    assert "too harsh" in "\n".join(report_lines(result)) and warnings(result)


def test_only_labelled_criteria_are_listed_by_name(tmp_path):
    path = result_file(tmp_path / "r.json", {
        "a": [criterion(Status.PASSED), criterion(Status.PASSED, "safety_v1"), criterion(Status.FAILED, "other")]})
    found = calibrate(read_results([path]), [label("a", "pass", "safety_v1"), label("a", "pass")], "l.json")
    assert [c.name for c in found] == ["final_response_match_v2", "safety_v1"]


def test_an_undefined_kappa_is_reported_as_such(tmp_path):
    path = result_file(tmp_path / "r.json", {"a": [criterion(Status.PASSED)], "b": [criterion(Status.PASSED)]})
    (result,) = calibrate(read_results([path]), [label("a", "pass"), label("b", "pass")], "l.json")
    assert result.confusion.kappa is None and to_json([result])["criteria"][0]["kappa"] is None
    assert any("undefined (judge and people gave one verdict all round)" in line for line in report_lines(result))


def test_verdicts_of_two_judges_are_not_mixed(tmp_path):
    first = result_file(tmp_path / "a.json", {"a": [criterion(Status.PASSED)]})
    other = criterion(Status.PASSED)
    other.details["judge_model"] = "gemini-2.5-pro"
    second = result_file(tmp_path / "b.json", {"b": [other]})
    with pytest.raises(InputError) as caught:
        calibrate(read_results([first, second]), [label("a", "pass"), label("b", "pass")], "l.json")
    assert "was judged by more than one judge" in str(caught.value)


def test_a_case_in_two_result_files_is_refused(tmp_path):
    first = result_file(tmp_path / "a.json", {"a": [criterion(Status.PASSED)]})
    second = result_file(tmp_path / "b.json", {"a": [criterion(Status.FAILED)]})
    with pytest.raises(InputError) as caught:
        read_results([first, second])
    (problem,) = caught.value.problems
    assert problem.file == str(second) and problem.location == "cases[0]" and "evalkit merge" in problem.message
