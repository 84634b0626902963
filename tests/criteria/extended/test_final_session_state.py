"""final_session_state_v1: the case's final_session_state as a subset of the state the agent left."""

from __future__ import annotations

import asyncio
import json

import pytest

from evalkit.criteria.base import EvalContext
from evalkit.criteria.extended.final_session_state import FinalSessionStateCriterion, FinalStateOptions
from evalkit.schema.evalset import EvalCase
from evalkit.schema.results import Status

TURNS = [{"user_content": {"parts": [{"text": "one"}]}}, {"user_content": {"parts": [{"text": "two"}]}}]


def evaluate(expected_state, final_state, options=None, threshold=1.0, reason="cannot say"):
    case = EvalCase.model_validate({"eval_id": "c", "conversation": TURNS, "final_session_state": expected_state})
    criterion = FinalSessionStateCriterion(threshold, FinalStateOptions.model_validate(options or {}))
    context = EvalContext(case=case, actual=case.conversation, expected=case.conversation,
                          final_state=final_state, no_state_reason=reason)
    return asyncio.run(criterion.evaluate(context))


STATE = {"booking": {"id": "B-17", "seats": 2, "total": 199.99}, "user": "Ana", "cart": []}

# expected state, options → score (share of expected top-level keys that match)
TABLE = [
    ({"user": "Ana"}, {}, 1.0),
    ({"user": "ana"}, {}, 0.0),
    ({"user": "ana"}, {"case_insensitive": True}, 1.0),
    ({"booking": {"seats": 2}}, {}, 1.0),                     # nested objects: subset by default
    ({"booking": {"seats": 2}}, {"subset": False}, 0.0),
    ({"booking": {"total": 200}, "user": "Ana"}, {}, 0.5),
    ({"booking": {"total": 200}, "user": "Ana"}, {"tolerance": {"abs": 0.05}}, 1.0),
    ({"booking": {"id": "?"}}, {"regex": {"booking.id": r"B-\d+"}}, 1.0),
    ({"user": "Ana", "cart": ["x"], "missing": 1}, {}, 1 / 3),
    ({"user": "Bob", "session": 9}, {"ignore": ["session"]}, 0.0),
]


@pytest.mark.parametrize(("expected", "options", "want"), TABLE)
def test_table(expected, options, want):
    outcome = evaluate(expected, STATE, options)
    assert outcome.score == pytest.approx(want)
    assert outcome.status is (Status.PASSED if want == 1.0 else Status.FAILED)


def test_verdict_is_carried_by_the_last_turn():
    outcome = evaluate({"user": "Bob"}, STATE, threshold=0.5)
    assert [t.status for t in outcome.invocations] == [Status.NOT_EVALUATED, Status.FAILED]
    assert outcome.invocations[1].details["difference"] == "user: expected 'Bob', got 'Ana'"


def test_unknown_state_is_not_evaluated_with_the_reason():
    outcome = evaluate({"user": "Ana"}, None, reason="the agent's replies carried no `state`")
    assert outcome.status is Status.NOT_EVALUATED and outcome.score is None
    assert outcome.details["reason"] == "the agent's replies carried no `state`"


def test_case_without_expected_state_is_not_evaluated():
    assert evaluate({}, STATE).status is Status.NOT_EVALUATED


def test_adk_loads_an_eval_set_with_evalkits_extension_keys():
    """ADK 2.13's own EvalSet model keeps `optional_tool_calls` (its EvalCase allows extra keys)."""
    eval_set = pytest.importorskip("google.adk.evaluation.eval_set")
    document = {"eval_set_id": "s", "eval_cases": [{
        "eval_id": "c",
        "conversation": [{"invocation_id": "i", "user_content": {"parts": [{"text": "hi"}]},
                          "intermediate_data": {"tool_uses": [{"name": "confirm", "args": {}}]}}],
        "final_session_state": {"user": "Ana"},
        "optional_tool_calls": [{"name": "confirm", "invocation_index": 0}],
    }]}
    loaded = eval_set.EvalSet.model_validate_json(json.dumps(document))
    case = loaded.eval_cases[0]
    assert case.final_session_state == {"user": "Ana"}
    assert case.model_extra == {"optional_tool_calls": [{"name": "confirm", "invocation_index": 0}]}
