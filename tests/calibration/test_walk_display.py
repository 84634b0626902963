"""What `evalkit label` shows of a case: the turns, and the judge's reasons in its own words."""

from __future__ import annotations

from evalkit.calibration.judged import JudgedCriterion
from evalkit.calibration.labels import Label
from evalkit.calibration.walk import describe, rationale
from evalkit.schema.results import CaseResult, CriterionResult, InvocationRecord, InvocationScore, Status


def turn(user: str, answer: str) -> dict:
    return {"user_content": {"role": "user", "parts": [{"text": user}]},
            "final_response": {"role": "model", "parts": [{"text": answer}]}}


def test_rubric_verdicts_show_each_rubric_with_its_rationale():
    scores = [{"rubric_id": "polite", "score": 1.0, "rationale": "thanks the user"},
              {"rubric_id": "books", "score": 0.0, "rationale": "never confirms the booking"}]
    result = CriterionResult(
        name="rubric_based_final_response_quality_v1", threshold=0.6, score=0.5, status=Status.FAILED,
        invocations=[InvocationScore(score=0.5, status=Status.FAILED, details={"rubric_scores": scores})],
        details={"judge_model": "gemini-2.5-flash", "prompt_hash": "0123456789abcdef"})
    case = CaseResult(eval_set_id="hotel", eval_id="book", status=Status.FAILED, criteria=[result],
                      invocations=[InvocationRecord(actual=turn("Book a room", "Thanks! Anything else?"),
                                                    expected=turn("Book a room", "Booked: room 12."))])
    shown = describe(JudgedCriterion(case, result, "r.json"), 2, 5, Label(
        eval_set_id="hotel", eval_id="book", criterion=result.name, verdict="pass", note="good enough"))
    assert shown == [
        "── 2 of 5 ── hotel / book · rubric_based_final_response_quality_v1",
        "turn 1",
        "  user      Book a room",
        "  agent     Thanks! Anything else?",
        "  expected  Booked: room 12.",
        "  judge     failed (score 0.50)",
        "  judge       [polite] yes: thanks the user",
        "  judge       [books] no: never confirms the booking",
        "judge's verdict: FAILED (score 0.50, threshold 0.6; gemini-2.5-flash)",
        "labelled before: pass (good enough)",
    ]


def test_the_reason_is_read_from_the_judges_json_or_shown_whole():
    assert rationale('```json\n{"reasoning": "no temperature", "is_the_agent_response_valid": "invalid"}\n```') \
        == "no temperature"
    assert rationale('{"explanation": "clear", "score": 4}') == "clear"
    assert rationale("Verdict: yes, because it is polite.") == "Verdict: yes, because it is polite."
