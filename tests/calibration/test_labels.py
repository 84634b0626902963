"""The labels file: read, upsert, written atomically as JSON or YAML; malformed ones named by file and place."""

from __future__ import annotations

import json

import pytest
import yaml

from evalkit.calibration.labels import Label, load_labels, save_label
from evalkit.errors import InputError


def label(eval_id: str, verdict: str = "pass", criterion: str = "final_response_match_v2", **extra) -> Label:
    return Label(eval_set_id="weather", eval_id=eval_id, criterion=criterion, verdict=verdict, **extra)


def test_a_missing_or_empty_file_holds_no_labels(tmp_path):
    assert load_labels(tmp_path / "labels.json") == []
    (tmp_path / "empty.yaml").write_text("\n")
    assert load_labels(tmp_path / "empty.yaml") == []


@pytest.mark.parametrize("name", ["labels.json", "labels.yaml", "labels.yml"])
def test_save_adds_then_replaces_by_case_and_criterion(tmp_path, name):
    path = tmp_path / "nested" / name
    save_label(path, label("paris", "pass"))
    save_label(path, label("london", "fail", note="misses the second city"))
    save_label(path, label("paris", "pass", criterion="safety_v1"))
    save_label(path, label("paris", "fail", note="changed my mind"))  # replaces the first, in place
    assert load_labels(path) == [
        label("paris", "fail", note="changed my mind"),
        label("london", "fail", note="misses the second city"),
        label("paris", "pass", criterion="safety_v1"),
    ]
    text = path.read_text()
    data = json.loads(text) if name.endswith(".json") else yaml.safe_load(text)
    assert data["labels"][2] == {"eval_set_id": "weather", "eval_id": "paris", "criterion": "safety_v1",
                                 "verdict": "pass"}  # no note: no key
    assert sorted(p.name for p in path.parent.iterdir()) == [name]  # no temporary file left behind


@pytest.mark.parametrize("text, place, words", [
    ('{"labels": [{"eval_set_id": "s", "eval_id": "a", "criterion": "c", "verdict": "maybe"}]}',
     "labels[0].verdict", "'pass' or 'fail'"),
    ('{"labels": [{"eval_set_id": "s", "eval_id": "a", "criterion": "c", "verdict": "pass", "nots": "x"}]}',
     "labels[0].nots", "unknown"),
    ('{"labels": [{"eval_set_id": "s", "eval_id": "a", "verdict": "pass"}]}', "labels[0].criterion", "required"),
    (('{"labels": [{"eval_set_id": "s", "eval_id": "a", "criterion": "c", "verdict": "pass"},'
      ' {"eval_set_id": "s", "eval_id": "a", "criterion": "c", "verdict": "fail"}]}'), "labels[1]", "again"),
    ('{"labels": {"a": 1}}', "labels", "not a labels file"),
    ('[1, 2]', "", "not a labels file"),
    ('{"labels": [], "extra": 1}', "extra", "unknown key"),
    ('{"labels": [', "line 1 column", "invalid JSON"),
])
def test_a_malformed_file_is_an_input_error_naming_file_and_place(tmp_path, text, place, words):
    path = tmp_path / "labels.json"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_labels(path)
    problem = caught.value.problems[0]
    assert problem.file == str(path) and problem.location.startswith(place) and words in problem.message, problem
    with pytest.raises(InputError):
        save_label(path, label("paris"))  # never overwrites a file it cannot read
    assert path.read_text() == text


def test_yaml_syntax_errors_give_line_and_column(tmp_path):
    path = tmp_path / "labels.yaml"
    path.write_text("labels:\n  - eval_id: [unclosed\n")
    with pytest.raises(InputError) as caught:
        load_labels(path)
    assert caught.value.problems[0].location.startswith("line ")
