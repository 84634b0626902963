"""adk-reference.md §2.13: the informational metrics' worked numbers."""

from __future__ import annotations

import asyncio

from evalkit.criteria.base import EvalContext
from evalkit.criteria.adk.efficiency import InferenceCallCount, InvocationDuration, TokenUsage, ToolCallCount
from evalkit.schema.evalset import EvalCase, Invocation
from evalkit.schema.results import Status


def turn(events=None, **timing):
    data = {"user_content": {"parts": [{"text": "q"}]}, **timing}
    if events is not None:
        data["intermediate_data"] = {"invocation_events": events}
    return Invocation.model_validate(data)


def evaluate(criterion, turns):
    case = EvalCase(eval_id="x", conversation=turns)
    return asyncio.run(criterion.evaluate(EvalContext(case=case, actual=turns, expected=turns)))


def test_token_usage_ignores_reported_total_and_divides_by_all_turns():
    turns = [
        turn([{"author": "a", "usage_metadata": {"prompt_token_count": 100, "candidates_token_count": 10,
                                                  "thoughts_token_count": 6, "total_token_count": 999}}]),
        turn([{"author": "a", "usage_metadata": {"prompt_token_count": 50, "candidates_token_count": 5}}]),
        turn(),
    ]
    outcome = evaluate(TokenUsage(None), turns)
    assert [t.score for t in outcome.invocations] == [116.0, 55.0, None]
    assert outcome.score == 57.0
    assert outcome.status is Status.INFORMATIONAL
    assert all(t.status is Status.INFORMATIONAL for t in outcome.invocations)


def test_duration_parts_average_over_measured_turns_only():
    turns = [turn(duration=1.5, model_duration=1.5, tool_duration=0.2), turn(duration=1.5, model_duration=None)]
    outcome = evaluate(InvocationDuration(None), turns)
    assert outcome.invocations[0].details["duration"]["framework"] == 0.0
    assert outcome.details["duration"] == {"total": 1.5, "model": 1.5, "tool": 0.2, "framework": 0.0}


def test_scenario_example_counts():
    call = {"role": "model", "parts": [{"function_call": {"name": "t", "args": {}}}]}
    first = turn([{"author": "a", "model_version": "m", "usage_metadata": {"prompt_token_count": 100, "candidates_token_count": 10}}])
    second = turn([
        {"author": "a", "content": call, "model_version": "m", "usage_metadata": {"prompt_token_count": 100, "candidates_token_count": 10}},
        {"author": "a", "model_version": "m", "usage_metadata": {"prompt_token_count": 100, "candidates_token_count": 10}},
    ])
    assert evaluate(ToolCallCount(None), [first, second]).score == 0.5
    assert evaluate(InferenceCallCount(None), [first, second]).score == 1.5
    assert evaluate(TokenUsage(None), [first, second]).score == 165.0


def test_inference_count_is_none_for_form_a():
    plain = Invocation.model_validate({"user_content": {"parts": [{"text": "q"}]}, "intermediate_data": {"tool_uses": []}})
    assert evaluate(InferenceCallCount(None), [plain]).score is None
