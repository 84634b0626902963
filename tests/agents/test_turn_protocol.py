"""Replies of callable, subprocess and HTTP agents: keys checked with a hint, tool calls as ADK keeps them."""

from __future__ import annotations

import pytest

from evalkit.agents.turn_protocol import parse_reply, reply_to_invocation
from evalkit.criteria.adk.trajectory import MatchType, trajectory_matches
from evalkit.errors import AgentError
from evalkit.schema.content import Content, FunctionCall
from evalkit.schema.views import tool_calls


@pytest.mark.parametrize("reply, hint", [
    ({"final_answer": "x"}, "final_answer: unknown key 'final_answer'; did you mean 'final_response'?"),
    ({"tool_call": []}, "tool_call: unknown key 'tool_call'; did you mean 'tool_calls'?"),
    ({"tool_calls": [{"name": "f", "arg": {}}]}, "tool_calls[0].arg: unknown key 'arg'; did you mean 'args'?"),
])
def test_an_unknown_reply_key_gets_a_did_you_mean(reply, hint):
    with pytest.raises(AgentError) as caught:
        parse_reply(reply, "case 'c', turn 1")
    assert str(caught.value).startswith(f"case 'c', turn 1: invalid reply: {hint}")
    assert "docs/agents.md" in str(caught.value)


def calls_of(reply: dict) -> list[FunctionCall]:
    return tool_calls(reply_to_invocation(parse_reply(reply, "w"), Content.of_text("hi"), 0))


@pytest.mark.parametrize("call", [{"name": "now"}, {"name": "now", "args": None}])
def test_a_call_without_args_is_accepted_and_differs_from_empty_args_as_in_adk(call):
    [actual] = calls_of({"tool_calls": [call]})
    assert actual.name == "now" and actual.args is None
    exact = MatchType.EXACT
    assert trajectory_matches([actual], [FunctionCall(name="now")], exact)
    assert not trajectory_matches([actual], [FunctionCall(name="now", args={})], exact)
    [empty] = calls_of({"tool_calls": [{"name": "now", "args": {}}]})
    assert trajectory_matches([empty], [FunctionCall(name="now", args={})], exact)
    assert not trajectory_matches([empty], [FunctionCall(name="now")], exact)


def test_adk_compares_function_calls_the_same_way():
    from google.genai import types

    assert types.FunctionCall(name="now") != types.FunctionCall(name="now", args={})
    assert types.FunctionCall(name="now").args is None
