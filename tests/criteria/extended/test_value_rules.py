"""Value rules shared by tool_trajectory_match_v1 and final_session_state_v1: the table in docs/criteria.md."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from evalkit.criteria.extended.value_rules import ValueRules, differences, matches

# (expected, actual, rules, matches?)
TABLE = [
    ({"city": "Paris"}, {"city": "Paris"}, {}, True),
    ({"city": "Paris"}, {"city": "paris"}, {}, False),
    ({"city": "Paris"}, {"city": "paris"}, {"case_insensitive": True}, True),
    ({"city": "Paris"}, {"city": "Paris", "units": "C"}, {}, False),
    ({"city": "Paris"}, {"city": "Paris", "units": "C"}, {"subset": True}, True),
    ({"city": "Paris", "id": "r-1"}, {"city": "Paris", "id": "r-9"}, {"ignore": ["id"]}, True),
    ({"city": "Paris"}, {"city": "Paris", "id": "r-9"}, {"ignore": ["id"]}, True),
    ({"q": {"from": "A", "ts": 1}}, {"q": {"from": "A", "ts": 2}}, {"ignore": ["q.ts"]}, True),
    ({"temp": 20.0}, {"temp": 20.4}, {"tolerance": {"abs": 0.5}}, True),
    ({"temp": 20.0}, {"temp": 20.6}, {"tolerance": {"abs": 0.5}}, False),
    ({"price": 200}, {"price": 203}, {"tolerance": {"rel": 0.02}}, True),   # allowed 4.0
    ({"price": 200}, {"price": 205}, {"tolerance": {"rel": 0.02}}, False),  # 5 > 4.0
    ({"price": 200}, {"price": 205}, {"tolerance": {"abs": 5, "rel": 0.02}}, True),  # max(5, 4.0)
    ({"date": "x"}, {"date": "2024-05-01"}, {"regex": {"date": r"\d{4}-\d{2}-\d{2}"}}, True),
    ({"date": "x"}, {"date": "May 1st"}, {"regex": {"date": r"\d{4}-\d{2}-\d{2}"}}, False),
    ({"date": "x"}, {"date": "2024-05-01T10:00"}, {"regex": {"date": r"\d{4}-\d{2}-\d{2}"}}, False),  # full match
    ({"q": "x"}, {"q": "WEATHER in Paris"}, {"regex": {"q": "weather.*"}, "case_insensitive": True}, True),
    ({"n": 1}, {"n": True}, {}, False),  # unlike ADK, True is not 1
    ({"n": 1}, {"n": 1.0}, {}, True),
    ({"l": [1, 2]}, {"l": [2, 1]}, {}, False),
    ({"l": [{"a": 1}]}, {"l": [{"a": 1, "b": 2}]}, {"subset": True}, True),
    ({"city": "Paris"}, {}, {"subset": True}, False),
]


@pytest.mark.parametrize(("expected", "actual", "rules", "ok"), TABLE)
def test_table_row(expected, actual, rules, ok):
    assert matches(expected, actual, ValueRules.model_validate(rules)) is ok


def test_differences_name_each_path_and_reason():
    found = differences({"city": "Paris", "days": 3, "q": {"x": 1}}, {"city": "Lyon", "q": {"x": 2}, "extra": 0})
    assert [(d.path, d.reason) for d in found] == [
        ("city", "differs"), ("days", "missing"), ("q.x", "differs"), ("extra", "unexpected")
    ]
    assert found[0].describe() == "city: expected 'Paris', got 'Lyon'"


def test_bad_regex_and_negative_tolerance_are_refused():
    with pytest.raises(ValidationError, match="does not compile"):
        ValueRules.model_validate({"regex": {"date": "("}})
    with pytest.raises(ValidationError):
        ValueRules.model_validate({"tolerance": {"abs": -1}})
