"""How a golden turn's expectations are checked against what the agent did in that turn.

Shared by the CES criteria, so `ces_tool_parameter_correctness`, `ces_tool_invocation`
and `ces_expectations` agree on which actual call answers which expected call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evalkit.schema.ces import GoldenExpectation, ToolCall
from evalkit.criteria.values import values_match
from evalkit.schema.content import FunctionCall, FunctionResponse
from evalkit.schema.evalset import Invocation, InvocationEvents
from evalkit.schema.views import tool_calls, tool_responses

TRANSFER_TOOL = "transfer_to_agent"  # how ADK records a hand-over to another agent


def parameter_correctness(actual: dict[str, Any] | None, expected: dict[str, Any]) -> float:
    """Share of the expected parameters the call has, with the expected value (1.0 if none expected).

    Values are compared as JSON values with their types: the string "2" is not the
    number 2, though 2 and 2.0 are equal. Parameters the call adds are not counted.
    """
    if not expected:
        return 1.0
    got = actual or {}
    right = sum(1 for name, value in expected.items() if name in got and values_match(got[name], value, strict=True))
    return right / len(expected)


@dataclass
class CallMatch:
    """An expected call, the actual call that answers it (None if none did) and its correctness."""

    expectation: GoldenExpectation
    actual: FunctionCall | None
    correctness: float

    @property
    def expected(self) -> ToolCall:
        assert self.expectation.tool_call is not None
        return self.expectation.tool_call


@dataclass
class TurnCalls:
    matches: list[CallMatch]
    extra: list[FunctionCall]


def expected_calls(expectations: list[GoldenExpectation]) -> list[GoldenExpectation]:
    return [e for e in expectations if e.tool_call is not None and not e.skip_evaluation]


def match_calls(expectations: list[GoldenExpectation], invocation: Invocation) -> TurnCalls:
    """Pair each expected call with an actual call of the same tool, best parameters first.

    Expected calls are taken in order; each picks, among the actual calls of its tool
    not yet taken, the one with the highest parameter correctness (the earliest on a
    tie). Actual calls left over are extra, except calls of tools the turn expects a
    response from or mocks, and hand-overs the turn expects.
    """
    remaining = list(tool_calls(invocation))
    matches: list[CallMatch] = []
    for expectation in expected_calls(expectations):
        wanted = expectation.tool_call
        assert wanted is not None
        best_index, best_score = None, -1.0
        for index, call in enumerate(remaining):
            if call.name != wanted.tool_name:
                continue
            score = parameter_correctness(call.args, wanted.args)
            if score > best_score:
                best_index, best_score = index, score
        if best_index is None:
            matches.append(CallMatch(expectation, None, 0.0))
        else:
            matches.append(CallMatch(expectation, remaining.pop(best_index), best_score))
    tolerated = tolerated_tools(expectations)
    return TurnCalls(matches, [call for call in remaining if call.name not in tolerated])


def tolerated_tools(expectations: list[GoldenExpectation]) -> set[str]:
    names: set[str] = set()
    for expectation in expectations:
        for response in (expectation.tool_response, expectation.mock_tool_response):
            if response is not None:
                names.add(response.tool_name)
        if expectation.agent_transfer is not None:
            names.add(TRANSFER_TOOL)
    return names


def _unwrap(value: Any) -> Any:
    # CES writes a tool's result under "output"; evalkit wraps a non-object result as {"result": …}.
    while isinstance(value, dict) and len(value) == 1 and next(iter(value)) in ("output", "result"):
        value = next(iter(value.values()))
    return value


def response_matches(actual: dict[str, Any] | None, expected: dict[str, Any]) -> bool:
    """The tool returned what was expected: every expected field, with its value (extra fields allowed)."""
    got, wanted = _unwrap(actual), _unwrap(expected)
    if isinstance(wanted, dict) and isinstance(got, dict):
        return all(key in got and values_match(got[key], value, strict=True) for key, value in wanted.items())
    return values_match(got, wanted, strict=True)


def responses_of(invocation: Invocation, tool: str) -> list[FunctionResponse]:
    return [r for r in tool_responses(invocation) if r.name == tool]


def transferred_to(invocation: Invocation, agent: str) -> bool:
    """The turn handed over to `agent`: a transfer call naming it, or an event written by it."""
    for call in tool_calls(invocation):
        if call.name == TRANSFER_TOOL and (call.args or {}).get("agent_name") == agent:
            return True
    data = invocation.intermediate_data
    return isinstance(data, InvocationEvents) and any(event.author == agent for event in data.invocation_events)


def describe(expectation: GoldenExpectation, turn_index: int) -> str:
    """The expectation's note, or a readable stand-in when it has none."""
    if expectation.note:
        return expectation.note
    kind = expectation.kind
    if expectation.tool_call is not None:
        subject = f" {expectation.tool_call.tool_name}"
    elif expectation.tool_response is not None:
        subject = f" {expectation.tool_response.tool_name}"
    elif expectation.agent_transfer is not None:
        subject = f" {expectation.agent_transfer.agent_name}"
    else:
        subject = ""
    return f"turn {turn_index + 1} {kind}{subject}"
