"""`tool_trajectory_avg_score`: did the agent call the expected tools (docs/adk-parity.md)?

Calls are compared with Python equality of name and args, as ADK does: key order is
irrelevant, list order matters, 1 == 1.0 == True, and `args: null` differs from `{}`.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import Field, field_validator

from evalkit.criteria.base import Criterion, CriterionOptions, EvalContext, Outcome
from evalkit.results.notation import call_text
from evalkit.schema.content import FunctionCall
from evalkit.schema.views import tool_calls


class MatchType(str, Enum):
    EXACT = "EXACT"
    IN_ORDER = "IN_ORDER"
    ANY_ORDER = "ANY_ORDER"


_BY_NUMBER = {0: MatchType.EXACT, 1: MatchType.IN_ORDER, 2: MatchType.ANY_ORDER}


class TrajectoryOptions(CriterionOptions):
    match_type: MatchType = Field(
        default=MatchType.EXACT,
        description="EXACT (same calls, same order), IN_ORDER (expected calls appear in order, "
        "extras allowed) or ANY_ORDER (expected calls appear, any order, extras allowed)",
    )
    ignore_args: bool = Field(default=False, description="compare tool names only")
    include_intermediate_responses_in_final: bool = Field(
        default=False, description="accepted for ADK compatibility; unused by this criterion"
    )

    @field_validator("match_type", mode="before")
    @classmethod
    def _lenient_spelling(cls, value: Any) -> Any:
        # ADK accepts 0/1/2 and normalises strings: "in_order", "ANY-ORDER", "any order".
        if isinstance(value, int) and not isinstance(value, bool):
            if value in _BY_NUMBER:
                return _BY_NUMBER[value]
            raise ValueError(f"match_type {value} is not 0 (EXACT), 1 (IN_ORDER) or 2 (ANY_ORDER)")
        if isinstance(value, str):
            normalised = value.strip().upper().replace("-", "_").replace(" ", "_")
            if normalised not in MatchType.__members__:
                raise ValueError(f"unknown match_type {value!r}; use EXACT, IN_ORDER or ANY_ORDER")
            return MatchType[normalised]
        return value


def _same_call(actual: FunctionCall, expected: FunctionCall, ignore_args: bool) -> bool:
    return actual.name == expected.name and (ignore_args or actual.args == expected.args)


def trajectory_matches(
    actual: list[FunctionCall], expected: list[FunctionCall], match_type: MatchType, ignore_args: bool = False
) -> bool:
    if match_type is MatchType.EXACT:
        return len(actual) == len(expected) and all(
            _same_call(a, e, ignore_args) for a, e in zip(actual, expected)
        )
    if not expected:
        return True  # ADK: an empty expected list matches anything in the lenient modes (E6)
    if match_type is MatchType.IN_ORDER:
        # Greedy subsequence scan: advance through `expected` on every matching actual call.
        position = 0
        for call in actual:
            if position < len(expected) and _same_call(call, expected[position], ignore_args):
                position += 1
        return position == len(expected)
    # ANY_ORDER: multiset containment; each actual call satisfies at most one expected call.
    remaining = list(actual)
    for wanted in expected:
        for index, call in enumerate(remaining):
            if _same_call(call, wanted, ignore_args):
                del remaining[index]
                break
        else:
            return False
    return True


def first_difference(actual: list[FunctionCall], expected: list[FunctionCall]) -> str | None:
    """A short human description of where two trajectories part ways."""
    for index, (a, e) in enumerate(zip(actual, expected)):
        if a.name != e.name or a.args != e.args:
            return f"call {index + 1}: expected {format_call(e)}, got {format_call(a)}"
    if len(expected) > len(actual):
        return f"missing call: {format_call(expected[len(actual)])}"
    if len(actual) > len(expected):
        return f"unexpected call: {format_call(actual[len(expected)])}"
    return None


def format_call(call: FunctionCall) -> str:
    return call_text(call.name, call.args)


class ToolTrajectoryCriterion(Criterion[TrajectoryOptions]):
    name = "tool_trajectory_avg_score"
    description = "Share of turns whose tool calls match the expected ones (EXACT / IN_ORDER / ANY_ORDER)"
    Options = TrajectoryOptions
    requires_expected = True

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        assert ctx.expected is not None
        options = self.options
        scores: list[float | None] = []
        details: list[dict] = []
        for actual, expected in zip(ctx.actual, ctx.expected):
            got, wanted = tool_calls(actual), tool_calls(expected)
            ok = trajectory_matches(got, wanted, options.match_type, options.ignore_args)
            scores.append(1.0 if ok else 0.0)
            details.append({} if ok else {"difference": first_difference(got, wanted) or "order differs"})
        return self.mean_outcome(scores, details)
