"""What the judge said, picked out of its replies for the console and the viewer (results/reasoning.py)."""

from __future__ import annotations

from evalkit.report.console import failure_lines
from evalkit.results.reasoning import judge_reasoning
from evalkit.schema.results import CaseResult, CriterionResult, InvocationScore, Status


def test_the_reasoning_of_the_replies_that_voted_against():
    details = {"votes": ["valid", "invalid", "not_found"],
               "judge_replies": ['{"reasoning": "Fine.", "is_the_agent_response_valid": "valid"}',
                                 'Sure:\n```json\n{"reasoning": "It never gives the  order\\nnumber.",'
                                 ' "is_the_agent_response_valid": "invalid"}\n```', "no JSON here"]}
    assert judge_reasoning(details) == ["It never gives the order number."]


def test_rubrics_said_no_and_unsupported_sentences():
    rubrics = {"rubric_scores": [{"rubric_id": "polite", "score": 1.0, "rationale": "yes"},
                                 {"rubric_id": "cites_policy", "score": 0.0, "rationale": "No policy is named."}]}
    assert judge_reasoning(rubrics) == ["cites_policy: No policy is named."]
    steps = {"steps": [{"sentences": [{"sentence": "Open at 9.", "label": "supported", "rationale": "ok"},
                                      {"sentence": "Entry is free.", "label": "contradictory",
                                       "rationale": "The context says 12 euros."}]}]}
    assert judge_reasoning(steps) == ["'Entry is free.' is contradictory: The context says 12 euros."]
    assert judge_reasoning({"judge_replies": [None, "garbled {"]}) == []


def test_the_console_says_what_the_judge_said_instead_of_a_bare_score():
    turn = InvocationScore(score=0.0, status=Status.FAILED, details={
        "votes": ["invalid"], "judge_replies": ['{"reasoning": "The refund was never issued.", '
                                                '"is_the_agent_response_valid": "invalid"}']})
    criterion = CriterionResult(name="final_response_match_v2", threshold=0.8, score=0.0, status=Status.FAILED,
                                invocations=[turn])
    case = CaseResult(eval_set_id="refunds", eval_id="order_123", status=Status.FAILED, criteria=[criterion])
    assert failure_lines([case]) == ["✗ refunds/order_123: final_response_match_v2 0 < 0.8\n"
                                     "    turn 1: the judge: The refund was never issued."]
