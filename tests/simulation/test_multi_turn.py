"""The whole-conversation criteria: one judge call per sample, the last turn carries the score."""

from __future__ import annotations

import pytest

from evalkit.criteria.base import EvalContext
from evalkit.criteria.adk.multi_turn import (
    MultiTurnTaskSuccessCriterion,
    MultiTurnToolUseQualityCriterion,
    MultiTurnTrajectoryQualityCriterion,
)
from evalkit.judge import JudgeService
from evalkit.schema.content import Content, FunctionCall, FunctionResponse, Part
from evalkit.schema.evalset import EvalCase, Invocation, InvocationEvent, InvocationEvents
from evalkit.schema.results import Status
from tests.simulation.support import FAST_RETRY, block, criterion, fake, scenario_case  # noqa: F401

CONVERSATION_JUDGE = "You evaluate a whole conversation"


def verdicts(criterion_class, *answers: str) -> str:
    ids = [p.rubric_id for p in criterion_class.properties]
    return "\n\n".join(
        f"Thinking about it.\nID: {i}\nProperty: {p.rubric_content.text_property}\nRationale: see turn 2.\nVerdict: {a}"
        for i, p, a in zip(ids, criterion_class.properties, answers)
    )


def conversation() -> list[Invocation]:
    events = [
        InvocationEvent(author="agent", content=Content(role="model", parts=[
            Part(function_call=FunctionCall(id="c1", name="book_flight", args={"to": "LAX"}))])),
        InvocationEvent(author="agent", content=Content(role="user", parts=[
            Part(function_response=FunctionResponse(id="c1", name="book_flight", response={"status": "ok"}))])),
    ]
    return [
        Invocation(user_content=Content.of_text("I need a flight.", "user"), final_response=Content.of_text("Where to?")),
        Invocation(user_content=Content.of_text("LAX please.", "user"), final_response=Content.of_text("Booked."),
                   intermediate_data=InvocationEvents(invocation_events=events)),
        Invocation(user_content=Content.of_text("Thanks!", "user"), final_response=Content.of_text("Bye!")),
    ]


async def evaluate(case: EvalCase, name: str, threshold: float, samples: int = 1):
    metric = criterion(name, threshold, judge_model_options={"num_samples": samples})
    async with JudgeService(use_cache=False, retry=FAST_RETRY) as judge:
        return await metric.evaluate(EvalContext(case=case, actual=conversation(), expected=None, judge=judge))


async def test_task_success_scores_the_share_of_satisfied_properties_on_the_last_turn(fake):
    fake.when(CONVERSATION_JUDGE).reply(verdicts(MultiTurnTaskSuccessCriterion, "yes", "yes", "no", "yes"))
    outcome = await evaluate(scenario_case(), "multi_turn_task_success_v1", 0.7)
    assert outcome.score == 0.75 and outcome.status is Status.PASSED
    assert [(t.score, t.status) for t in outcome.invocations] == [
        (None, Status.NOT_EVALUATED), (None, Status.NOT_EVALUATED), (0.75, Status.PASSED)]
    assert {s["rubric_id"]: s["score"] for s in outcome.details["rubric_scores"]}["truthful_outcome"] == 0.0
    (prompt,) = fake.prompts
    assert block(prompt, "USER GOAL") == "Fly from SFO to LAX next Tuesday."
    dialogue = block(prompt, "CONVERSATION")
    assert "USER TURN 2: LAX please." in dialogue
    assert 'AGENT (agent) TURN 2 (tool call): book_flight({"to": "LAX"})' in dialogue
    assert 'AGENT (agent) TURN 2 (tool output): book_flight -> {"status": "ok"}' in dialogue
    assert '"id": "goals_accomplished"' in prompt


async def test_verdicts_are_voted_across_samples(fake):
    yes = verdicts(MultiTurnTrajectoryQualityCriterion, *["yes"] * 5)
    mixed = verdicts(MultiTurnTrajectoryQualityCriterion, "no", "no", "yes", "yes", "yes")
    fake.when(CONVERSATION_JUDGE).reply(yes, mixed, mixed)
    outcome = await evaluate(scenario_case(), "multi_turn_trajectory_quality_v1", 0.7, samples=3)
    # Per property: two "no" of three for the first two, so 3 of 5 properties hold.
    assert outcome.score == pytest.approx(0.6) and outcome.status is Status.FAILED
    assert len(outcome.invocations[-1].details["judge_replies"]) == 3


async def test_a_fixed_conversation_can_be_judged_too(fake):
    fake.when(CONVERSATION_JUDGE).reply(verdicts(MultiTurnToolUseQualityCriterion, *["yes"] * 5))
    case = EvalCase.model_validate({"eval_id": "fixed", "conversation": [t.model_dump() for t in conversation()]})
    outcome = await evaluate(case, "multi_turn_tool_use_quality_v1", 1.0)
    assert outcome.score == 1.0
    assert block(fake.prompts[0], "USER GOAL") == ""


async def test_an_unreadable_reply_and_a_failing_judge_are_both_errors(fake):
    fake.when(CONVERSATION_JUDGE).reply("I cannot judge this.")
    outcome = await evaluate(scenario_case(), "multi_turn_task_success_v1", 0.5)
    assert outcome.score is None and outcome.status is Status.ERROR
    assert outcome.invocations[-1].details["no_verdict"] is True
    fake.fail_always(503)
    broken = await evaluate(scenario_case(), "multi_turn_task_success_v1", 0.5)
    assert broken.status is Status.ERROR and broken.score is None
    assert broken.invocations[-1].status is Status.ERROR and "503" in broken.details["error"]
