"""Provenance in judged results, and `judge_model_options.calibration` holding back an unproven judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.criteria.judging.calibration_option import CalibrationRequirement
from evalkit.criteria.judging.calibration_gate import hold_reason, judged_result
from evalkit.criteria.registry import CRITERIA
from evalkit.criteria.adk.final_response_match_v2 import FinalResponseMatchV2Criterion
from evalkit.criteria.adk.rubric_final_response import RubricFinalResponseQualityCriterion
from evalkit.criteria.configure import configure_criteria
from evalkit.criteria.judging.criterion import JudgeCriterion
from evalkit.criteria.vertex.model_based import PointwiseMetricCriterion
from evalkit.engine.scoring import score_case
from evalkit.errors import InputError
from evalkit.schema.config import EvalConfig
from evalkit.schema.results import CriterionResult, Status

from tests.criteria.judge_support import context, fake_gemini, judge, make_criterion, turn  # noqa: F401

VALID = '{"reasoning": "matches", "is_the_agent_response_valid": "valid"}'


def frm(threshold: float = 0.5, **judge_options) -> JudgeCriterion:
    return make_criterion(FinalResponseMatchV2Criterion, threshold, judge_model_options=judge_options)


def built(criterion_class: type[JudgeCriterion]) -> JudgeCriterion:
    options: dict = {}
    if criterion_class.name == "pointwise_metric":
        options = {"criteria": {"helpful": "the reply helps"}, "rating_rubric": {"1": "no help", "5": "helps"}}
    elif criterion_class.name == "pairwise_metric":
        options = {"criteria": {"helpful": "the reply helps"}}
    return make_criterion(criterion_class, 0.5, **options)


def judged_classes() -> list[type[JudgeCriterion]]:
    classes = [CRITERIA.get(name) for name in CRITERIA.names()]
    return [c for c in classes if c is not None and c.uses_judge]


@pytest.mark.parametrize("criterion_class", judged_classes(), ids=lambda c: c.name)
def test_every_judged_criterion_hashes_its_prompt_text(criterion_class):
    criterion = built(criterion_class)
    identity = criterion.prompt_identity()
    assert all(identity) and sum(map(len, identity)) > 200, "declare prompt_templates or prompt_identity()"
    provenance = criterion.provenance()
    assert provenance["judge_model"] == "gemini-2.5-flash" and len(provenance["prompt_hash"]) == 16
    assert built(criterion_class).provenance() == provenance  # the same for every case and every run


def test_the_hash_follows_what_the_judge_is_asked_not_the_model_or_pacing():
    base = frm().provenance()["prompt_hash"]
    assert frm(judge_model="gemini-2.5-pro").provenance()["prompt_hash"] == base
    assert frm(parallelism_limit=4).provenance()["prompt_hash"] == base
    assert frm(calibration={"file": "c.json", "min_kappa": 0.5}).provenance()["prompt_hash"] == base
    assert frm(0.9).provenance()["prompt_hash"] == base  # the threshold is checked on its own
    changed = {
        frm(num_samples=3).provenance()["prompt_hash"],
        frm(judge_model_config={"temperature": 0.2}).provenance()["prompt_hash"],
        make_criterion(FinalResponseMatchV2Criterion, 0.5,
                       include_intermediate_responses_in_final=True).provenance()["prompt_hash"],
    }
    assert base not in changed and len(changed) == 3
    rubric = make_criterion(RubricFinalResponseQualityCriterion, 0.5,
                            rubrics=[{"rubric_id": "r1", "rubric_content": {"text_property": "Polite."}}])
    reworded = make_criterion(RubricFinalResponseQualityCriterion, 0.5,
                              rubrics=[{"rubric_id": "r1", "rubric_content": {"text_property": "Very polite."}}])
    assert rubric.provenance()["prompt_hash"] != reworded.provenance()["prompt_hash"]
    own = make_criterion(PointwiseMetricCriterion, 0.5, metric_prompt_template="Rate {response} from 1 to 5.")
    other = make_criterion(PointwiseMetricCriterion, 0.5, metric_prompt_template="Score {response} from 1 to 5.")
    assert own.provenance()["prompt_hash"] != other.provenance()["prompt_hash"]


async def test_each_judged_result_records_its_judge(fake_gemini, judge):
    fake_gemini.when("It is sunny").reply(VALID)
    criterion = frm(num_samples=1)
    ctx = context([turn("Weather?", "It is sunny")], [turn("Weather?", "Sunny.")], judge)
    (result,) = await score_case(ctx, [criterion])
    assert result.status is Status.PASSED and result.score == 1.0
    assert result.details == criterion.provenance()


def calibration_file(tmp_path: Path, **entry) -> Path:
    criterion = frm()
    recorded = {"name": "final_response_match_v2", "n": 40, "kappa": 0.7, "threshold": 0.5,
                **criterion.provenance(), **entry}
    path = tmp_path / "judge.calibration.json"
    path.write_text(json.dumps({"criteria": [recorded]}))
    return path


def reason(criterion: JudgeCriterion, path: Path, min_kappa: float = 0.6) -> str | None:
    return hold_reason(criterion, CalibrationRequirement(file=path.name, min_kappa=min_kappa), path)


def test_a_calibrated_judge_gates(tmp_path):
    assert reason(frm(), calibration_file(tmp_path)) is None


@pytest.mark.parametrize("entry, criterion, words", [
    ({}, frm(judge_model="gemini-2.5-pro"), "judge drift: calibrated with judge_model gemini-2.5-flash, now gemini-2.5-pro"),
    ({}, frm(num_samples=1), "judge drift: the prompt or its options changed"),
    ({}, frm(0.8), "the threshold changed since calibration (0.5, now 0.8)"),
    ({"kappa": 0.55}, frm(), "κ 0.55 with people's labels is below min_kappa 0.6 (40 labels)"),
    ({"kappa": None}, frm(), "κ is undefined over the 40 labels"),
    ({"name": "safety_v1"}, frm(), "has no calibration of final_response_match_v2"),
])
def test_an_unproven_judge_is_held_back_with_the_reason(tmp_path, entry, criterion, words):
    held = reason(criterion, calibration_file(tmp_path, **entry))
    assert held is not None and held.startswith("not gated: ") and words in held


def test_a_missing_calibration_file_holds_back_and_says_how_to_make_it(tmp_path):
    held = reason(frm(), tmp_path / "nowhere.json")
    assert held is not None and "no calibration file" in held and "evalkit calibrate" in held


def test_a_held_back_result_is_not_evaluated_and_keeps_the_judges_verdict():
    criterion = frm()
    criterion.calibration_hold = "not gated: judge drift: …"
    failed = CriterionResult(name=criterion.name, threshold=0.5, score=0.0, status=Status.FAILED)
    held = judged_result(criterion, failed)
    assert held.status is Status.NOT_EVALUATED and held.score is None
    assert held.details == {**criterion.provenance(), "reason": "not gated: judge drift: …",
                            "judge_verdict": "failed", "judge_score": 0.0}
    errored = CriterionResult(name=criterion.name, status=Status.ERROR, error="judge down")
    assert judged_result(criterion, errored).status is Status.ERROR  # a judge failure stays an error


def configured(tmp_path: Path, judge_options: dict) -> list:
    config_file = tmp_path / "eval_config.json"
    config = EvalConfig.model_validate({"criteria": {
        "final_response_match_v2": {"threshold": 0.5, "judge_model_options": judge_options}}})
    return configure_criteria(config, str(config_file))


def test_the_config_resolves_the_file_beside_it_and_decides_once(tmp_path):
    calibration_file(tmp_path)
    (criterion, *_) = configured(tmp_path, {"calibration": {"file": "judge.calibration.json", "min_kappa": 0.6}})
    assert criterion.calibration_hold is None
    (strict, *_) = configured(tmp_path, {"calibration": {"file": "judge.calibration.json", "minKappa": 0.8}})
    assert "below min_kappa 0.8" in strict.calibration_hold
    (plain, *_) = configured(tmp_path, {})
    assert plain.calibration_hold is None and plain.judge_options.calibration is None


@pytest.mark.parametrize("calibration, place, words", [
    ({"file": "c.json"}, "calibration.min_kappa", "field required"),
    ({"file": "c.json", "min_kappa": 2}, "calibration.min_kappa", "less than or equal to 1"),
    ({"fil": "c.json", "min_kappa": 0.5}, "calibration.fil", "unknown"),
    ("c.json", "calibration", "dictionary"),
])
def test_a_malformed_requirement_is_an_input_error_at_its_place(tmp_path, calibration, place, words):
    with pytest.raises(InputError) as caught:
        configured(tmp_path, {"calibration": calibration})
    where = f"criteria.final_response_match_v2.judge_model_options.{place}"
    (problem,) = [p for p in caught.value.problems if p.location == where]
    assert problem.file == str(tmp_path / "eval_config.json") and words in problem.message.lower(), problem


def test_a_malformed_calibration_file_is_an_input_error_naming_it(tmp_path):
    (tmp_path / "c.json").write_text('{"criteria": [{"name": "final_response_match_v2", "n": "many"}]}')
    with pytest.raises(InputError) as caught:
        configured(tmp_path, {"calibration": {"file": "c.json", "min_kappa": 0.5}})
    first, second = caught.value.problems
    assert first.file == str(tmp_path / "c.json") and first.location == "criteria[0].n"
    assert second.location == "criteria.final_response_match_v2.judge_model_options.calibration.file"
