"""Budgets (`max`) on the report-only metrics, and cost_v1: the worked numbers in docs/criteria.md."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from evalkit.criteria.base import EvalContext
from evalkit.criteria.adk.efficiency import InvocationDuration, TokenUsage, ToolCallCount
from evalkit.criteria.extended.budget import BudgetOptions, DurationBudgetOptions
from evalkit.criteria.extended.cost import CostCriterion, CostOptions
from evalkit.schema.evalset import EvalCase, Invocation
from evalkit.schema.results import Status


def turn(events=None, **timing):
    data = {"user_content": {"parts": [{"text": "q"}]}, **timing}
    if events is not None:
        data["intermediate_data"] = {"invocation_events": events}
    return Invocation.model_validate(data)


def usage(prompt, output, model=None, thoughts=None):
    return {"author": "a", "model_version": model,
            "usage_metadata": {"prompt_token_count": prompt, "candidates_token_count": output,
                               "thoughts_token_count": thoughts}}


def call(name):
    return {"author": "a", "content": {"parts": [{"function_call": {"name": name, "args": {}}}]}}


def evaluate(criterion, turns):
    case = EvalCase(eval_id="x", conversation=turns)
    return asyncio.run(criterion.evaluate(EvalContext(case=case, actual=turns, expected=turns)))


# ADK's worked example: 116, 55 and a turn without usage; ADK's case value 57.0 (171 / 3).
TOKENS = [turn([usage(100, 10, thoughts=6)]), turn([usage(50, 5)]), turn()]


@pytest.mark.parametrize(("bound", "status", "checked"), [
    (200, Status.PASSED, ("total", 171.0)),
    (170, Status.FAILED, ("total", 171.0)),
    ({"mean": 57}, Status.PASSED, ("mean", 57.0)),
    ({"mean": 56.9}, Status.FAILED, ("mean", 57.0)),
    ({"turn": 115}, Status.FAILED, ("turn", 116.0)),
])
def test_token_budget(bound, status, checked):
    outcome = evaluate(TokenUsage(None, BudgetOptions(max=bound)), TOKENS)
    assert outcome.status is status
    assert outcome.score == 57.0  # the score stays ADK's case value
    assert (outcome.details["budget"][0]["statistic"], outcome.details["budget"][0]["value"]) == checked


def test_without_max_the_metric_stays_report_only_and_unchanged():
    plain = evaluate(TokenUsage(None), TOKENS)
    assert plain.status is Status.INFORMATIONAL and plain.score == 57.0 and "budget" not in plain.details


def test_tool_call_budget_per_case():
    turns = [turn([call("a"), call("b")]), turn([call("c")])]
    assert evaluate(ToolCallCount(None, BudgetOptions(max=3)), turns).status is Status.PASSED
    over = evaluate(ToolCallCount(None, BudgetOptions(max=2)), turns)
    assert over.status is Status.FAILED and over.details["reason"] == "total 3 > max 2"


def test_duration_percentiles():
    # Turn durations 1, 2, 3, 4, 10 s: p50 3.0, p90 7.6 (linear interpolation), max 10.
    turns = [turn(duration=d) for d in (1.0, 2.0, 3.0, 4.0, 10.0)]
    outcome = evaluate(InvocationDuration(None, DurationBudgetOptions(max={"p50": 3, "p90": 8, "max": 9})), turns)
    values = {c["statistic"]: c["value"] for c in outcome.details["budget"]}
    assert values == {"p50": 3.0, "p90": pytest.approx(7.6), "max": 10.0}
    assert outcome.status is Status.FAILED and outcome.details["reason"] == "max 10 > max 9"
    assert evaluate(InvocationDuration(None, DurationBudgetOptions(max=10)), turns).status is Status.PASSED


def test_unmeasured_statistic_is_not_evaluated():
    outcome = evaluate(InvocationDuration(None, DurationBudgetOptions(max=1)), [turn()])
    assert outcome.status is Status.NOT_EVALUATED and outcome.details["reason"] == "no turn measured max"


def test_unknown_statistic_gets_a_hint():
    with pytest.raises(ValidationError, match="did you mean 'p90'"):
        DurationBudgetOptions.model_validate({"max": {"p09": 1}})
    with pytest.raises(ValidationError, match="unknown statistic 'p90'"):
        BudgetOptions.model_validate({"max": {"p90": 1}})


PRICES = {"gemini-2.5-flash": {"input": 0.30, "output": 2.50}, "gemini-2.5-pro": {"input": 1.25, "output": 10.0}}


def test_cost_worked_example():
    # Turn 1: flash-001, 10,000 in / 2,000 out (1,500 + 500 thoughts) = 0.003 + 0.005 = 0.008.
    # Turn 2: pro, 4,000 in / 1,000 out = 0.005 + 0.010 = 0.015. Case total 0.023.
    turns = [turn([usage(10_000, 1_500, "gemini-2.5-flash-001", thoughts=500)]),
             turn([usage(4_000, 1_000, "gemini-2.5-pro")])]
    report = evaluate(CostCriterion(None, CostOptions(prices=PRICES)), turns)
    assert [t.score for t in report.invocations] == [pytest.approx(0.008), pytest.approx(0.015)]
    assert report.score == pytest.approx(0.023) and report.status is Status.INFORMATIONAL
    gated = evaluate(CostCriterion(None, CostOptions(prices=PRICES, max=0.02)), turns)
    assert gated.status is Status.FAILED and gated.details["reason"] == "total 0.023 > max 0.02"
    per_turn = evaluate(CostCriterion(None, CostOptions(prices=PRICES, max={"turn": 0.015})), turns)
    assert per_turn.status is Status.PASSED


def test_unpriced_model_leaves_cost_unknown():
    turns = [turn([usage(1000, 100, "gpt-4o")])]
    outcome = evaluate(CostCriterion(None, CostOptions(prices=PRICES, max=1)), turns)
    assert outcome.score is None and outcome.status is Status.NOT_EVALUATED
    assert outcome.details["reason"] == "no price for model 'gpt-4o' in cost_v1.prices"
    fallback = {**PRICES, "*": {"input": 1.0, "output": 1.0}}
    assert evaluate(CostCriterion(None, CostOptions(prices=fallback)), turns).score == pytest.approx(0.0011)
