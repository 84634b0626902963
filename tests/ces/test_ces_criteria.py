"""The CES criteria on hand-built turns: which call answers which expectation, thresholds
and their overrides, extra calls, and each expectation reported by its note."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from evalkit.agents.turn_protocol import AgentReply, reply_to_invocation
from evalkit.criteria.ces.checks import match_calls, parameter_correctness, response_matches
from evalkit.schema.ces_case import ces_data
from evalkit.criteria.base import EvalContext
from evalkit.criteria.ces.expectations import CesExpectationsCriterion, ExpectationsOptions
from evalkit.criteria.ces.semantic_similarity import (
    CesSemanticSimilarityCriterion,
    combine_samples,
    parse_similarity,
)
from evalkit.criteria.ces.tools import (
    CesToolInvocationCriterion,
    CesToolParameterCorrectnessCriterion,
    ToolInvocationOptions,
)
from evalkit.schema.content import Content
from evalkit.schema.evalset import EvalCase, Invocation, InvocationEvent, InvocationEvents
from evalkit.schema.results import Status


def agent_turn(index: int = 0, text: str = "ok", calls: list[dict] | None = None,
               responses: list[dict] | None = None) -> Invocation:
    reply = AgentReply.model_validate({"final_response": text, "tool_calls": calls or [],
                                       "tool_responses": responses or []})
    return reply_to_invocation(reply, Content.of_text("user says", role="user"), index)


def case_with(*turns: list[dict], **ces: Any) -> EvalCase:
    conversation = [{"user_content": {"role": "user", "parts": [{"text": "user says"}]}} for _ in turns]
    data = {"turns": [{"expectations": list(t)} for t in turns], **ces}
    return EvalCase.model_validate({"eval_id": "c", "conversation": conversation, "ces": data})


def run(criterion, case: EvalCase, actual: list[Invocation], judge=None):
    context = EvalContext(case=case, actual=actual, expected=case.conversation, judge=judge)
    return asyncio.run(criterion.evaluate(context))


def tool_call(tool: str, note: str | None = None, **args) -> dict:
    return {"note": note, "toolCall": {"tool": f"projects/p/locations/l/apps/a/tools/{tool}", "args": args}}


# ---- matching ------------------------------------------------------------------------


def test_parameter_correctness_is_the_share_of_expected_parameters_right():
    assert parameter_correctness({"a": 1, "b": "y", "c": 3}, {"a": 1, "b": "x"}) == 0.5
    assert parameter_correctness({"a": 1.0}, {"a": 1}) == 1.0
    assert parameter_correctness({"a": "1"}, {"a": 1}) == 0.0       # types count
    assert parameter_correctness({"a": True}, {"a": 1}) == 0.0
    assert parameter_correctness(None, {"a": 1}) == 0.0
    assert parameter_correctness({"anything": 1}, {}) == 1.0       # nothing expected, nothing wrong


def test_each_expected_call_takes_the_best_matching_call_and_the_rest_are_extra():
    case = case_with([tool_call("pay", amount=5), tool_call("pay", amount=7),
                      {"toolResponse": {"tool": "apps/a/tools/log", "response": {}}}])
    actual = agent_turn(calls=[{"name": "pay", "args": {"amount": 7}}, {"name": "pay", "args": {"amount": 5}},
                               {"name": "pay", "args": {"amount": 9}}, {"name": "log", "args": {}},
                               {"name": "email", "args": {}}])
    turn = match_calls(ces_data(case).turn(0).expectations, actual)
    assert [(m.actual.args, m.correctness) for m in turn.matches] == [({"amount": 5}, 1.0), ({"amount": 7}, 1.0)]
    # "log" is tolerated: the turn expects a response from it
    assert [(c.name, c.args) for c in turn.extra] == [("pay", {"amount": 9}), ("email", {})]


def test_tool_responses_match_field_by_field_through_output_and_result_wrappers():
    assert response_matches({"output": {"balance": 1, "currency": "EUR"}}, {"output": {"balance": 1}})
    assert response_matches({"balance": 1}, {"output": {"balance": 1}})
    assert response_matches({"result": "done"}, {"output": "done"})
    assert not response_matches({"output": {"balance": 2}}, {"output": {"balance": 1}})
    assert not response_matches({"output": {}}, {"output": {"balance": 1}})


# ---- ces_tool_parameter_correctness -------------------------------------------------------


def test_parameter_correctness_fails_any_call_under_its_threshold():
    case = case_with([tool_call("pay", "Pay", account="42", card="4242"), tool_call("notify", "Notify", to="me")],
                     [tool_call("lookup", "Lookup", q="x")])
    actual = [agent_turn(0, calls=[{"name": "pay", "args": {"account": "42", "card": "1111"}}]),
              agent_turn(1, calls=[{"name": "lookup", "args": {"q": "x"}}])]
    outcome = run(CesToolParameterCorrectnessCriterion(1.0), case, actual)
    first, second = outcome.invocations
    assert [c["score"] for c in first.details["calls"]] == [0.5, 0.0]
    assert [c["actual"] for c in first.details["calls"]] == ["pay(account='42', card='1111')", "not called"]
    assert first.score == 0.25 and first.status is Status.FAILED
    assert second.score == 1.0 and second.status is Status.PASSED
    assert outcome.score == pytest.approx((0.5 + 0.0 + 1.0) / 3)
    assert outcome.status is Status.FAILED
    assert first.details["difference"].startswith("Pay: expected pay(account='42', card='4242'), got pay(")


def test_parameter_threshold_overrides_expectation_then_evaluation():
    loose = {**tool_call("pay", "Pay", account="42", card="4242"),
             "expectationLevelMetricsThresholdsOverride": {"toolInvocationParameterCorrectnessThreshold": 0.5}}
    actual = [agent_turn(calls=[{"name": "pay", "args": {"account": "42", "card": "1111"}}])]
    assert run(CesToolParameterCorrectnessCriterion(1.0), case_with([loose]), actual).status is Status.PASSED
    evaluation_wide = {"goldenEvaluationMetricsThresholds": {
        "expectationLevelMetricsThresholds": {"toolInvocationParameterCorrectnessThreshold": 0.5}}}
    case = case_with([tool_call("pay", account="42", card="4242")], thresholds=evaluation_wide)
    assert run(CesToolParameterCorrectnessCriterion(1.0), case, actual).status is Status.PASSED
    case = case_with([tool_call("pay", account="42", card="4242")])
    assert run(CesToolParameterCorrectnessCriterion(1.0), case, actual).status is Status.FAILED


def test_turns_without_expected_calls_are_not_scored():
    outcome = run(CesToolParameterCorrectnessCriterion(1.0), case_with([]), [agent_turn()])
    assert outcome.score is None and outcome.status is Status.NOT_EVALUATED


# ---- ces_tool_invocation ---------------------------------------------------------------


def test_extra_calls_count_against_the_turn_unless_allowed():
    case = case_with([tool_call("pay", amount=5)], [])
    actual = [agent_turn(0, calls=[{"name": "pay", "args": {"amount": 5}}, {"name": "refund", "args": {}}]),
              agent_turn(1, calls=[{"name": "lookup", "args": {}}])]
    failing = run(CesToolInvocationCriterion(1.0), case, actual)
    assert [t.score for t in failing.invocations] == [0.5, 0.0]
    assert failing.status is Status.FAILED
    assert failing.invocations[0].details["difference"] == "unexpected call refund()"
    allowing = run(CesToolInvocationCriterion(1.0, ToolInvocationOptions(extra_tool_call_behavior="ALLOW")), case, actual)
    assert [t.score for t in allowing.invocations] == [1.0, None]
    assert allowing.score == 1.0 and allowing.status is Status.PASSED
    # the evaluation's own toolMatchingSettings win over the option
    allow_in_file = case_with([tool_call("pay", amount=5)], [], thresholds={
        "goldenEvaluationMetricsThresholds": {"toolMatchingSettings": {"extraToolCallBehavior": "ALLOW"}}})
    assert run(CesToolInvocationCriterion(1.0), allow_in_file, actual).status is Status.PASSED


def test_overall_threshold_per_turn_override():
    case = case_with([tool_call("a"), tool_call("b", x=1)])
    case_data = case.model_extra["ces"]
    case_data["turns"][0]["thresholds"] = {"overallToolInvocationCorrectnessThreshold": 0.5}
    actual = [agent_turn(calls=[{"name": "a", "args": {}}, {"name": "b", "args": {"x": 2}}])]
    outcome = run(CesToolInvocationCriterion(1.0), case, actual)
    assert outcome.invocations[0].score == 0.5
    assert outcome.invocations[0].details["threshold"] == 0.5
    assert outcome.status is Status.PASSED


# ---- ces_expectations ------------------------------------------------------------------


def test_every_expectation_is_reported_by_its_note():
    case = case_with(
        [tool_call("get_balance", "Check_Balance_Tool_Called", account="42"),
         {"note": "Balance_Returned", "toolResponse": {"tool": "t/get_balance", "response": {"output": {"balance": 5}}}},
         {"note": "Says_Balance", "agentResponse": {"chunks": [{"text": "5 EUR"}]}, "comparisonType": "CONTAINS"},
         {"note": "Mocked", "mockToolResponse": {"tool": "t/get_balance", "response": {"output": {"balance": 5}}}}],
        [tool_call("make_payment", "Check_Payment_Tool_Called", card="4242"),
         {"note": "Exact_Words", "agentResponse": {"chunks": [{"text": "Paid."}]}, "comparisonType": "EQUALS"},
         {"note": "Skipped", "noToolCalls": True, "skipEvaluation": True}],
        [{"note": "Handed_Over", "agentTransfer": {"targetAgent": "projects/p/apps/a/agents/human"}},
         {"note": "No_Tools", "noToolCalls": True},
         {"note": "Tier_Set", "updatedVariables": {"tier": "gold"}},
         tool_call("lookup", None)],
    )
    actual = [
        agent_turn(0, "Your balance is 5 eur.", calls=[{"name": "get_balance", "args": {"account": "42"}}],
                   responses=[{"name": "get_balance", "response": {"output": {"balance": 5, "currency": "EUR"}}}]),
        agent_turn(1, "Paid!", calls=[{"name": "make_payment", "args": {"card": "1111"}}]),
        agent_turn(2, "One moment.", calls=[{"name": "transfer_to_agent", "args": {"agent_name": "human"}}]),
    ]
    outcome = run(CesExpectationsCriterion(1.0), case, actual)
    assert outcome.details["outcomes"] == [
        "Check_Balance_Tool_Called: PASS",
        "Balance_Returned: PASS",
        "Says_Balance: PASS",
        "Check_Payment_Tool_Called: FAIL",
        "Exact_Words: FAIL",
        "Handed_Over: PASS",
        "No_Tools: PASS",  # a hand-over is not a tool call
        "Tier_Set: NOT_EVALUATED",
        "turn 3 tool_call lookup: FAIL",
    ]
    assert outcome.score == pytest.approx(5 / 8) and outcome.status is Status.FAILED
    assert [t.status for t in outcome.invocations] == [Status.PASSED, Status.FAILED, Status.FAILED]
    second = outcome.invocations[1]
    assert second.details["difference"] == ("Check_Payment_Tool_Called: FAIL (parameter correctness 0 (needs 1)); "
                                            "Exact_Words: FAIL (expected 'Paid.', got 'Paid!')")


def test_a_transfer_is_also_seen_in_the_events_of_the_agent_it_went_to():
    case = case_with([{"note": "To_Sales", "agentTransfer": {"targetAgent": "apps/a/agents/sales", "displayName": "sales"}}])
    invocation = agent_turn()
    invocation.intermediate_data = InvocationEvents(invocation_events=[
        InvocationEvent(author="sales", content=Content.of_text("Sales here."))])
    assert run(CesExpectationsCriterion(1.0), case, [invocation]).details["outcomes"] == ["To_Sales: PASS"]


def test_scenario_expectations_are_checked_over_the_whole_conversation():
    scenario = EvalCase.model_validate({
        "eval_id": "s",
        "conversation_scenario": {"starting_prompt": "Hello.", "conversation_plan": "get a refund"},
        "ces": {"scenario_expectations": [
            {"toolExpectation": {"expectedToolCall": {"tool": "t/refund", "args": {"order": "A-17"}}}},
            {"toolExpectation": {"expectedToolCall": {"tool": "t/cancel", "args": {}}}},
        ]},
    })
    actual = [agent_turn(0, "Which order?"), agent_turn(1, "Done.", calls=[{"name": "refund", "args": {"order": "A-17"}}])]
    outcome = asyncio.run(CesExpectationsCriterion(1.0).evaluate(EvalContext(case=scenario, actual=actual, expected=None)))
    assert outcome.details["outcomes"] == ["scenario expectation 1 (refund): PASS", "scenario expectation 2 (cancel): FAIL"]
    assert outcome.invocations[0].status is Status.NOT_EVALUATED
    assert outcome.invocations[1].status is Status.FAILED and outcome.score == 0.5


# ---- semantic similarity, through a real judge service and a fake Gemini server -------------


def test_similarity_replies_are_read_leniently():
    assert parse_similarity('{"explanation": "close", "score": 3}') == 3
    assert parse_similarity('```json\n{"score": "4", "explanation": "x"}\n```') == 4
    assert parse_similarity("Explanation: differs.\nScore: 1") == 1
    assert parse_similarity('{"score": 7}') is None
    assert parse_similarity("no idea") is None
    assert combine_samples([4, None, 2, 3]) == 3.0
    assert combine_samples([4, 2]) == 2.0  # the lower middle: a tie does not round up
    assert combine_samples([None]) is None


@pytest.fixture
def judge(monkeypatch, tmp_path):
    from evalkit.judge import JudgeService, RetryPolicy
    from evalkit.testing import FakeGemini

    for name in ("GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT"):
        monkeypatch.delenv(name, raising=False)
    with FakeGemini(default_reply='{"explanation": "same", "score": 4}') as fake:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", fake.base_url)
        monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
        service = JudgeService(use_cache=False, retry=RetryPolicy(max_attempts=1, attempt_timeout=5))
        yield fake, service
        asyncio.run(service.aclose())


def test_semantic_similarity_scores_each_turn_on_the_0_to_4_scale(judge):
    fake, service = judge
    fake.when("Your order ships Monday").reply('{"explanation": "different day", "score": 2}')
    case = case_with([{"agentResponse": {"chunks": [{"text": "It ships on Monday."}]}}],
                     [{"agentResponse": {"chunks": [{"text": "It ships on Friday."}]}}],
                     [{"agentResponse": {"chunks": [{"text": "Bye"}]}, "comparisonType": "EQUALS"}])
    actual = [agent_turn(0, "Monday is the shipping day."), agent_turn(1, "Your order ships Monday."),
              agent_turn(2, "Bye")]
    outcome = run(CesSemanticSimilarityCriterion(3), case, actual, judge=service)
    assert [t.score for t in outcome.invocations] == [4.0, 2.0, None]  # EQUALS replies are not judged
    assert [t.status for t in outcome.invocations] == [Status.PASSED, Status.FAILED, Status.NOT_EVALUATED]
    assert outcome.score == 3.0 and outcome.status is Status.FAILED
    assert fake.call_count == 2
    prompt = fake.prompts[1]
    assert "<<<BEGIN EXPECTED REPLY>>>\nIt ships on Friday.\n<<<END EXPECTED REPLY>>>" in prompt
    assert "<<<BEGIN ACTUAL REPLY>>>\nYour order ships Monday.\n<<<END ACTUAL REPLY>>>" in prompt


def test_semantic_expectations_use_the_judge_and_a_turn_threshold_override(judge):
    fake, service = judge
    fake.when("ACTUAL REPLY>>>\nsort of").reply('{"explanation": "partly", "score": 2}')
    case = case_with([{"note": "Greets", "agentResponse": {"chunks": [{"text": "Hello!"}]}}],
                     [{"note": "Explains", "agentResponse": {"chunks": [{"text": "Because of X."}]}}])
    case.model_extra["ces"]["turns"][1]["thresholds"] = {"semanticSimilaritySuccessThreshold": 2}
    actual = [agent_turn(0, "Hi there!"), agent_turn(1, "sort of because of X")]
    outcome = run(CesExpectationsCriterion(1.0, ExpectationsOptions()), case, actual, judge=service)
    assert outcome.details["outcomes"] == ["Greets: PASS", "Explains: PASS"]
    assert outcome.invocations[1].details["expectations"][0]["reason"] == "similarity 2 of 4 (needs 2)"


def test_a_judge_that_fails_makes_the_criterion_an_error_not_a_verdict(judge):
    fake, service = judge
    fake.fail_always(status=500)
    case = case_with([{"note": "Greets", "agentResponse": {"chunks": [{"text": "Hello!"}]}}])
    outcome = run(CesSemanticSimilarityCriterion(3), case, [agent_turn(0, "Hi")], judge=service)
    assert outcome.status is Status.ERROR and outcome.score is None
    expectations = run(CesExpectationsCriterion(1.0), case, [agent_turn(0, "Hi")], judge=service)
    assert expectations.status is Status.ERROR
    assert expectations.details["outcomes"] == ["Greets: ERROR"]
