"""adk-reference.md §2.1: every row of the observed trajectory table, in all three modes."""

from __future__ import annotations

import asyncio

import pytest

from evalkit.criteria.base import EvalContext
from evalkit.criteria.adk.trajectory import MatchType, ToolTrajectoryCriterion, TrajectoryOptions, trajectory_matches
from evalkit.schema.content import Content, FunctionCall
from evalkit.schema.evalset import EvalCase, IntermediateData, Invocation
from evalkit.schema.results import Status

A = FunctionCall(name="a", args={"x": 1})
B = FunctionCall(name="b", args={"y": 2})
C = FunctionCall(name="c", args={})


def call(name="a", **args):
    return FunctionCall(name=name, args=args)


# (actual, expected, EXACT, IN_ORDER, ANY_ORDER)
TABLE = [
    ([A, B], [A, B], 1, 1, 1),
    ([B, A], [A, B], 0, 0, 1),
    ([A, C, B], [A, B], 0, 1, 1),
    ([A], [A, B], 0, 0, 0),
    ([], [], 1, 1, 1),
    ([A], [], 0, 1, 1),
    ([], [A], 0, 0, 0),
    ([A], [A, A], 0, 0, 0),
    ([A, A], [A], 0, 1, 1),
    ([call(x=1)], [call(x=2)], 0, 0, 0),
    ([call(x=1, y=2)], [FunctionCall(name="a", args={"y": 2, "x": 1})], 1, 1, 1),
    ([call(x=1)], [call(x=1.0)], 1, 1, 1),
    ([call(x=True)], [call(x=1)], 1, 1, 1),
    ([call(x="1")], [call(x=1)], 0, 0, 0),
    ([call("A")], [call("a")], 0, 0, 0),
    ([call("a ")], [call("a")], 0, 0, 0),
    ([FunctionCall(name="a", args=None)], [FunctionCall(name="a", args={})], 0, 0, 0),
    ([call(l=[1, 2])], [call(l=[2, 1])], 0, 0, 0),
    ([B, A, B], [A, B], 0, 1, 1),
    ([A, B], [B, A, A], 0, 0, 0),
]


@pytest.mark.parametrize(("actual", "expected", "exact", "in_order", "any_order"), TABLE)
def test_table_row(actual, expected, exact, in_order, any_order):
    assert trajectory_matches(actual, expected, MatchType.EXACT) is bool(exact)
    assert trajectory_matches(actual, expected, MatchType.IN_ORDER) is bool(in_order)
    assert trajectory_matches(actual, expected, MatchType.ANY_ORDER) is bool(any_order)


@pytest.mark.parametrize("mode", list(MatchType))
def test_ignore_args_compares_names_only(mode):
    assert trajectory_matches([call(x=1)], [call(x=2)], mode, ignore_args=True)


@pytest.mark.parametrize(("spelling", "mode"), [
    ("in_order", MatchType.IN_ORDER), ("ANY-ORDER", MatchType.ANY_ORDER), ("any order", MatchType.ANY_ORDER),
    (" exact ", MatchType.EXACT), (0, MatchType.EXACT), (1, MatchType.IN_ORDER), (2, MatchType.ANY_ORDER),
])
def test_lenient_match_type_spellings(spelling, mode):
    assert TrajectoryOptions.model_validate({"match_type": spelling}).match_type is mode


def _turn(calls):
    return Invocation(user_content=Content.of_text("q", "user"), intermediate_data=IntermediateData(tool_uses=calls))


def test_three_turns_average_to_two_thirds_and_gate_both_ways():
    actual = [_turn([A]), _turn([B]), _turn([C])]
    expected = [_turn([A]), _turn([A]), _turn([C])]
    case = EvalCase(eval_id="x", conversation=expected)
    context = EvalContext(case=case, actual=actual, expected=expected)
    strict = asyncio.run(ToolTrajectoryCriterion(1.0).evaluate(context))
    assert strict.score == pytest.approx(2 / 3) and strict.status is Status.FAILED
    assert [t.status for t in strict.invocations] == [Status.PASSED, Status.FAILED, Status.PASSED]
    assert strict.invocations[1].details["difference"] == "call 1: expected a(x=1), got b(y=2)"
    lenient = asyncio.run(ToolTrajectoryCriterion(0.6).evaluate(context))
    assert lenient.status is Status.PASSED
