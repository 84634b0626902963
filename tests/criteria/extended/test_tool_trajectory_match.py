"""tool_trajectory_match_v1 on whole turns: rules per tool, optional calls, authors, partial credit."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from evalkit.criteria.base import EvalContext
from evalkit.criteria.extended.tool_trajectory_match import ToolTrajectoryMatchCriterion, TrajectoryMatchOptions
from evalkit.schema.evalset import EvalCase, Invocation
from evalkit.schema.results import Status


def form_a(*calls):
    return Invocation.model_validate({
        "user_content": {"parts": [{"text": "q"}]},
        "intermediate_data": {"tool_uses": [{"name": n, "args": a} for n, a in calls]},
    })


def form_b(*calls):
    """Calls as (author, name, args)."""
    events = [{"author": author, "content": {"role": "model", "parts": [{"function_call": {"name": n, "args": a}}]}}
              for author, n, a in calls]
    return Invocation.model_validate({"user_content": {"parts": [{"text": "q"}]},
                                      "intermediate_data": {"invocation_events": events}})


def score(options, actual, expected, threshold=1.0, **case_keys):
    case = EvalCase.model_validate({"eval_id": "c", "conversation": [e.model_dump() for e in expected], **case_keys})
    criterion = ToolTrajectoryMatchCriterion(threshold, TrajectoryMatchOptions.model_validate(options))
    return asyncio.run(criterion.evaluate(EvalContext(case=case, actual=actual, expected=case.conversation)))


WEATHER = ("get_weather", {"city": "Paris", "date": "2024-05-01", "request_id": "r1"})


def test_argument_rules_per_tool():
    actual = [form_a(("get_weather", {"city": "paris", "date": "2024-06-30", "request_id": "zz"}))]
    expected = [form_a(WEATHER)]
    assert score({}, actual, expected).score == 0.0
    rules = {"tools": {"get_weather": {"ignore": ["request_id"], "case_insensitive": True,
                                       "regex": {"date": r"\d{4}-\d{2}-\d{2}"}}}}
    assert score(rules, actual, expected).score == 1.0
    assert score({"tools": {"*": rules["tools"]["get_weather"]}}, actual, expected).score == 1.0


def test_failure_names_the_missed_call_and_marks_the_differing_argument():
    actual = [form_a(("lookup", {"q": "x"}), ("get_weather", {"city": "Lyon", "date": "2024-05-01", "request_id": "r1"}))]
    outcome = score({"mode": "in_order"}, actual, [form_a(WEATHER)])
    turn = outcome.invocations[0]
    assert turn.status is Status.FAILED
    miss = turn.details["unmatched"][0]
    assert miss["expected"] == "get_weather(city='Paris', date='2024-05-01', request_id='r1')"
    assert miss["closest"] == "get_weather(city='Lyon', date='2024-05-01', request_id='r1')"
    assert miss["differences"] == [{"path": "city", "expected": "Paris", "actual": "Lyon", "reason": "differs"}]
    assert turn.details["difference"] == (
        "expected call get_weather(»city='Paris'«, date='2024-05-01', request_id='r1'); closest actual "
        "get_weather(»city='Lyon'«, date='2024-05-01', request_id='r1'): city: expected 'Paris', got 'Lyon'"
    )


def test_optional_call_from_the_eval_case():
    expected = [form_a(("find", {}), ("confirm", {}), ("book", {})), form_a(("confirm", {}))]
    actual = [form_a(("find", {}), ("book", {})), form_a()]
    assert score({}, actual, expected).score == 0.0
    everywhere = score({}, actual, expected, optional_tool_calls=[{"name": "confirm"}])
    assert everywhere.score == 1.0
    first_turn_only = score({}, actual, expected, optional_tool_calls=[{"name": "confirm", "invocation_index": 0}])
    assert [t.score for t in first_turn_only.invocations] == [1.0, 0.0]


def test_agent_restriction_by_author():
    actual = [form_b(("root", "transfer_to_agent", {"agent_name": "booker"}), ("booker", "book", {"id": 7}),
                     ("helper", "book", {"id": 9}))]
    expected = [form_a(("book", {"id": 7}))]
    assert score({}, actual, expected).score == 0.0
    assert score({"agent": "booker"}, actual, expected).score == 1.0
    # A per-tool rule: `book` only counts when the booker made it.
    by_tool = score({"mode": "in_order", "tools": {"book": {"agent": "helper"}}}, actual, expected)
    assert by_tool.score == 0.0
    assert "(agent): expected 'helper', got 'booker'" in by_tool.invocations[0].details["difference"]


def test_partial_credit_two_turns():
    # Turn 1: A B X D vs A B C D → 3/4; turn 2 exact → 1; case mean 0.875, fails 0.9, passes 0.8.
    expected = [form_a(("a", {}), ("b", {}), ("c", {}), ("d", {})), form_a(("a", {}))]
    actual = [form_a(("a", {}), ("b", {}), ("x", {}), ("d", {})), form_a(("a", {}))]
    outcome = score({"partial_credit": True}, actual, expected, threshold=0.9)
    assert [t.score for t in outcome.invocations] == [0.75, 1.0]
    assert outcome.score == pytest.approx(0.875) and outcome.status is Status.FAILED
    assert score({"partial_credit": True}, actual, expected, threshold=0.8).status is Status.PASSED


def test_superset_reports_the_unexpected_call():
    outcome = score({"mode": "superset"}, [form_a(("a", {"n": 1}), ("delete_all", {}))], [form_a(("a", {"n": 1}))])
    assert outcome.score == 0.0
    assert outcome.invocations[0].details["unmatched"][0]["unexpected"] == "delete_all()"


@pytest.mark.parametrize("spelling", ["IN_ORDER", "in-order", "in order"])
def test_mode_spellings(spelling):
    assert TrajectoryMatchOptions.model_validate({"mode": spelling}).mode.value == "in_order"


def test_unknown_mode_is_refused():
    with pytest.raises(ValidationError):
        TrajectoryMatchOptions.model_validate({"mode": "fuzzy"})
