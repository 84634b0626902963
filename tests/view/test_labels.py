"""The labels file the viewer writes: upserted by case and criterion, JSON or YAML, errors with their place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from evalkit.calibration.labels import Label, load_labels, save_label
from evalkit.errors import InputError


@pytest.mark.parametrize("name", ["labels.json", "labels.yaml"])
def test_a_label_is_added_then_replaced_for_the_same_case_and_criterion(tmp_path: Path, name: str):
    path = tmp_path / name
    assert load_labels(path) == []
    save_label(path, Label(eval_set_id="s", eval_id="a", criterion="c", verdict="pass"))
    save_label(path, Label(eval_set_id="s", eval_id="b", criterion="c", verdict="fail", note="made up a city"))
    save_label(path, Label(eval_set_id="s", eval_id="a", criterion="c", verdict="fail"))
    labels = load_labels(path)
    assert [(label.eval_id, label.verdict) for label in labels] == [("a", "fail"), ("b", "fail")]
    raw = yaml.safe_load(path.read_text()) if name.endswith("yaml") else json.loads(path.read_text())
    assert raw["labels"][1] == {"eval_set_id": "s", "eval_id": "b", "criterion": "c", "verdict": "fail",
                                "note": "made up a city"}


def test_a_malformed_label_names_the_file_and_the_place(tmp_path: Path):
    path = tmp_path / "labels.json"
    path.write_text(json.dumps({"labels": [{"eval_set_id": "s", "eval_id": "a", "criterion": "c", "verdict": "ok"}]}))
    with pytest.raises(InputError) as raised:
        load_labels(path)
    assert str(path) in str(raised.value) and "verdict" in str(raised.value) and "0" in str(raised.value)
    path.write_text("[]")
    with pytest.raises(InputError, match="labels"):
        load_labels(path)


def test_only_criteria_a_judge_decided_can_be_labelled():
    from evalkit.view.data import judged_criteria

    criteria = [{"name": "response_match_score", "details": {}},  # ROUGE: no judge
                {"name": "final_response_match_v2", "details": {"judge_model": "gemini-2.5-flash"}},
                {"name": "safety_v1", "details": {}},  # a result file from before judges were recorded
                {"name": "my_custom_metric", "details": {"judge_model": "my-judge"}}]
    assert judged_criteria({"criteria": criteria}) == ["final_response_match_v2", "safety_v1", "my_custom_metric"]
    assert judged_criteria({"criteria": [{"details": {}}, "junk"]}) == []
