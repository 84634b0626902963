"""Vertex AI's tool-call metrics: `tool_call_valid`, `tool_name_match`,
`tool_parameter_key_match` and `tool_parameter_kv_match`.

Vertex scores one predicted tool call against one reference call and, as its
documentation says, inspects only the first tool call of each. evalkit does the same
per turn: the agent's first call of the turn against the expected turn's first call.
A turn where neither side calls a tool has nothing to score and is left out of the
case mean; a call on one side only scores 0.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from evalkit.criteria.adk.trajectory import format_call
from evalkit.criteria.base import Criterion, CriterionOptions, EvalContext, NoOptions, OptionsT, Outcome
from evalkit.criteria.values import values_match
from evalkit.schema.content import FunctionCall
from evalkit.schema.evalset import Invocation
from evalkit.schema.views import tool_calls


def first_call(invocation: Invocation) -> FunctionCall | None:
    calls = tool_calls(invocation)
    return calls[0] if calls else None


def call_is_valid(call: FunctionCall) -> bool:
    """Vertex's validity rule for a structured call: a non-empty name and an arguments object."""
    return isinstance(call.name, str) and bool(call.name.strip()) and isinstance(call.args, dict)


def parameter_key_match(actual: dict[str, Any], expected: dict[str, Any]) -> float:
    """Shared parameter names over all parameter names named by either call (1.0 when both have none)."""
    names = set(actual) | set(expected)
    if not names:
        return 1.0
    return len(set(actual) & set(expected)) / len(names)


def parameter_kv_match(actual: dict[str, Any], expected: dict[str, Any], strict: bool = False) -> float:
    """Parameters present in both calls with equal values, over all parameter names (1.0 when none)."""
    names = set(actual) | set(expected)
    if not names:
        return 1.0
    same = sum(1 for name in set(actual) & set(expected) if values_match(actual[name], expected[name], strict))
    return same / len(names)


class ToolCallValidCriterion(Criterion):
    name = "tool_call_valid"
    description = "Vertex tool_call_valid: 1 when the turn's first tool call has a name and an arguments object, else 0"

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        scores: list[float | None] = []
        details: list[dict] = []
        for index, actual in enumerate(ctx.actual):
            call = first_call(actual)
            expected_calls = bool(ctx.expected and index < len(ctx.expected) and tool_calls(ctx.expected[index]))
            if call is None:
                # A missing call is only a failure when the expected turn asked for one.
                scores.append(0.0 if expected_calls else None)
                details.append({"problem": "no tool call"} if expected_calls else {})
                continue
            valid = call_is_valid(call)
            scores.append(1.0 if valid else 0.0)
            details.append({} if valid else {"problem": f"malformed call: name={call.name!r}, args={call.args!r}"})
        return self.mean_outcome(scores, details)


class _FirstCallComparison(Criterion[OptionsT]):
    """Per turn: the agent's first call against the expected turn's first call."""

    requires_expected = True

    def compare(self, actual: FunctionCall, expected: FunctionCall) -> tuple[float, dict]:
        raise NotImplementedError

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        assert ctx.expected is not None
        scores: list[float | None] = []
        details: list[dict] = []
        for actual_turn, expected_turn in zip(ctx.actual, ctx.expected):
            actual, expected = first_call(actual_turn), first_call(expected_turn)
            if actual is None and expected is None:
                scores.append(None)
                details.append({})
            elif actual is None or expected is None:
                scores.append(0.0)
                details.append({"expected": format_call(expected) if expected else "no tool call",
                                "actual": format_call(actual) if actual else "no tool call"})
            else:
                score, detail = self.compare(actual, expected)
                scores.append(score)
                details.append(detail)
        return self.mean_outcome(scores, details)


class ToolNameMatchCriterion(_FirstCallComparison[NoOptions]):
    name = "tool_name_match"
    description = "Vertex tool_name_match: 1 when the turn's first tool call names the expected tool, else 0"

    def compare(self, actual: FunctionCall, expected: FunctionCall) -> tuple[float, dict]:
        if actual.name == expected.name:
            return 1.0, {}
        return 0.0, {"expected": expected.name, "actual": actual.name}


def _args(call: FunctionCall) -> dict[str, Any]:
    return call.args or {}


class ToolParameterKeyMatchCriterion(_FirstCallComparison[NoOptions]):
    name = "tool_parameter_key_match"
    description = "Vertex tool_parameter_key_match: share of parameter names the first call has in common with the expected call"

    def compare(self, actual: FunctionCall, expected: FunctionCall) -> tuple[float, dict]:
        got, wanted = _args(actual), _args(expected)
        score = parameter_key_match(got, wanted)
        if score == 1.0:
            return score, {}
        return score, {"missing": sorted(set(wanted) - set(got)), "unexpected": sorted(set(got) - set(wanted))}


class KvMatchOptions(CriterionOptions):
    use_strict_string_match: bool = Field(
        default=False,
        description="compare parameter values exactly, types included; by default strings are compared "
        "trimmed and case-insensitively and numeric strings equal their numbers",
    )


class ToolParameterKvMatchCriterion(_FirstCallComparison[KvMatchOptions]):
    name = "tool_parameter_kv_match"
    description = "Vertex tool_parameter_kv_match: share of parameters the first call has with the expected name and value"
    Options = KvMatchOptions

    def compare(self, actual: FunctionCall, expected: FunctionCall) -> tuple[float, dict]:
        options = self.options
        got, wanted = _args(actual), _args(expected)
        score = parameter_kv_match(got, wanted, options.use_strict_string_match)
        if score == 1.0:
            return score, {}
        differing = sorted(
            name for name in set(got) & set(wanted)
            if not values_match(got[name], wanted[name], options.use_strict_string_match)
        )
        return score, {
            "missing": sorted(set(wanted) - set(got)),
            "unexpected": sorted(set(got) - set(wanted)),
            "different_values": {name: {"expected": wanted[name], "actual": got[name]} for name in differing},
        }
