"""Vertex AI tool-call metrics, each turn's first call against the expected first call."""

from __future__ import annotations

import asyncio

import pytest

from evalkit.criteria.base import EvalContext
from evalkit.criteria.vertex.tools import (
    KvMatchOptions,
    ToolCallValidCriterion,
    ToolNameMatchCriterion,
    ToolParameterKeyMatchCriterion,
    ToolParameterKvMatchCriterion,
    parameter_key_match,
    parameter_kv_match,
    values_match,
)
from evalkit.schema.content import Content, FunctionCall
from evalkit.schema.evalset import EvalCase, IntermediateData, Invocation
from evalkit.schema.results import Status


def turn(*calls: FunctionCall) -> Invocation:
    return Invocation(
        user_content=Content.of_text("q", role="user"),
        final_response=Content.of_text("done"),
        intermediate_data=IntermediateData(tool_uses=list(calls)),
    )


def call(name: str, args: dict | None = None) -> FunctionCall:
    return FunctionCall(name=name, args=args)


def run(criterion, actual: list[Invocation], expected: list[Invocation] | None):
    case = EvalCase(eval_id="c", conversation=expected or [turn()])
    return asyncio.run(criterion.evaluate(EvalContext(case=case, actual=actual, expected=expected)))


def test_key_match_is_shared_names_over_all_names():
    assert parameter_key_match({"a": 1, "b": 2, "c": 3}, {"a": 0, "b": 0, "d": 0}) == 2 / 4
    assert parameter_key_match({"a": 1}, {"a": 2}) == 1.0
    assert parameter_key_match({}, {"a": 1}) == 0.0
    assert parameter_key_match({"a": 1, "b": 2}, {"a": 1}) == 1 / 2  # an extra parameter costs too
    assert parameter_key_match({}, {}) == 1.0


def test_kv_match_lenient_and_strict():
    got = {"city": " Paris ", "days": "3", "unit": "C"}
    wanted = {"city": "paris", "days": 3, "unit": "F"}
    assert parameter_kv_match(got, wanted) == 2 / 3
    assert parameter_kv_match(got, wanted, strict=True) == 0 / 3
    assert parameter_kv_match({"a": 1, "b": 2}, {"a": 1, "c": 2}, strict=True) == 1 / 3


@pytest.mark.parametrize(
    ("actual", "expected", "lenient", "strict"),
    [
        ("Paris", "Paris", True, True),
        ("Paris", "paris", True, False),
        ("2", 2, True, False),
        ("2.50", 2.5, True, False),
        (2, 2.0, True, True),
        (True, 1, False, False),
        ("true", True, False, False),
        (None, None, True, True),
        ({"x": ["A", "b"]}, {"x": ["a", "B"]}, True, False),
        ([1, 2], [2, 1], False, False),
        ("nan", float("nan"), False, False),
    ],
)
def test_value_matching(actual, expected, lenient, strict):
    assert values_match(actual, expected) is lenient
    assert values_match(actual, expected, strict=True) is strict


def test_tool_call_valid_checks_only_the_first_call():
    actual = [
        turn(call("get_weather", {"city": "Paris"})),
        turn(call("get_weather", None)),             # no arguments object
        turn(call("  ", {})),                        # blank name
        turn(call("ok", {}), call("", None)),        # only the first call is inspected
        turn(),                                      # a call was expected but none made
        turn(),                                      # nothing expected, nothing made: not scored
    ]
    expected = [turn(call("x", {}))] * 5 + [turn()]
    outcome = run(ToolCallValidCriterion(1.0), actual, expected)
    assert [t.score for t in outcome.invocations] == [1.0, 0.0, 0.0, 1.0, 0.0, None]
    assert outcome.score == pytest.approx(2 / 5)
    assert outcome.status is Status.FAILED
    assert outcome.invocations[5].status is Status.NOT_EVALUATED


def test_tool_call_valid_needs_no_expected_turns():
    outcome = run(ToolCallValidCriterion(1.0), [turn(call("a", {"x": 1})), turn()], None)
    assert [t.score for t in outcome.invocations] == [1.0, None]
    assert outcome.score == 1.0 and outcome.status is Status.PASSED


def test_tool_name_match_per_turn_first_call():
    actual = [turn(call("a", {})), turn(call("b", {}), call("a", {})), turn(), turn(call("a", {})), turn()]
    expected = [turn(call("a", {})), turn(call("a", {})), turn(call("a", {})), turn(), turn()]
    outcome = run(ToolNameMatchCriterion(0.5), actual, expected)
    assert [t.score for t in outcome.invocations] == [1.0, 0.0, 0.0, 0.0, None]
    assert outcome.score == pytest.approx(1 / 4) and outcome.status is Status.FAILED
    assert outcome.invocations[1].details == {"expected": "a", "actual": "b"}
    assert outcome.invocations[2].details == {"expected": "a()", "actual": "no tool call"}


def test_tool_parameter_key_match_criterion():
    actual = [turn(call("f", {"a": 1, "b": 2, "c": 3})), turn(call("f", {"a": 1}))]
    expected = [turn(call("f", {"a": 9, "b": 9, "d": 9})), turn(call("f", {"a": 2}))]
    outcome = run(ToolParameterKeyMatchCriterion(0.75), actual, expected)
    assert [t.score for t in outcome.invocations] == [0.5, 1.0]
    assert outcome.score == 0.75 and outcome.status is Status.PASSED
    assert outcome.invocations[0].details == {"missing": ["d"], "unexpected": ["c"]}


def test_tool_parameter_kv_match_criterion_strict_and_lenient():
    actual = [turn(call("book", {"movie": "Dune", "tickets": "2", "theater": "Regal"}))]
    expected = [turn(call("book", {"movie": "dune", "tickets": 2, "time": "7:30"}))]
    lenient = run(ToolParameterKvMatchCriterion(0.5), actual, expected)
    assert lenient.score == 2 / 4 and lenient.status is Status.PASSED
    strict = run(ToolParameterKvMatchCriterion(0.5, KvMatchOptions(use_strict_string_match=True)), actual, expected)
    assert strict.score == 0 / 4 and strict.status is Status.FAILED
    assert strict.invocations[0].details == {
        "missing": ["time"], "unexpected": ["theater"],
        "different_values": {"movie": {"expected": "dune", "actual": "Dune"},
                             "tickets": {"expected": 2, "actual": "2"}},
    }


def test_options_are_validated_like_every_criterion():
    assert KvMatchOptions.model_validate({"useStrictStringMatch": True}).use_strict_string_match
    with pytest.raises(ValueError):
        KvMatchOptions.model_validate({"strict": True})
