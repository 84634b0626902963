"""The rubric-based judges end to end through the fake Gemini server (adk-reference.md §2.6–§2.9)."""

from __future__ import annotations

import pytest

from evalkit.criteria.adk.rubric_final_response import RubricFinalResponseQualityCriterion
from evalkit.criteria.adk.rubric_multi_turn import RubricMultiTurnTrajectoryCriterion
from evalkit.criteria.adk.rubric_tool_use import RubricToolUseQualityCriterion
from evalkit.criteria.adk.rubrics import check_rubrics
from evalkit.errors import InputError
from evalkit.schema.evalset import AgentDetails, AppDetails, EvalCase, InvocationEvent
from evalkit.schema.results import Status

from tests.criteria.judge_support import (  # noqa: F401
    context,
    fake_gemini,
    judge,
    make_criterion,
    rubric,
    text,
    tool_event,
    turn,
    verdicts,
)

C1_C2 = [rubric("c1", "property c1"), rubric("c2", "property c2")]


def final_response_criterion(threshold: float, num_samples: int, rubrics=C1_C2):
    return make_criterion(
        RubricFinalResponseQualityCriterion, threshold,
        judge_model_options={"num_samples": num_samples}, rubrics=[r.model_dump() for r in rubrics],
    )


async def test_worked_example_gives_three_quarters(fake_gemini, judge) -> None:
    fake_gemini.when("first answer").reply(
        verdicts(("c1", "yes"), ("c2", "no")), verdicts(("c1", "yes"), ("c2", "yes")), verdicts(("c1", "no"), ("c2", "no"))
    )
    fake_gemini.when("second answer").reply(
        verdicts(("c1", "yes"), ("c2", "yes")), verdicts(("c1", "yes"), ("c2", "no")), verdicts(("c1", "no"), ("c2", "yes"))
    )
    actual = [turn("q1", "first answer"), turn("q2", "second answer")]
    outcome = await final_response_criterion(0.6, 3).evaluate(context(actual, judge=judge))

    assert [(t.score, t.status) for t in outcome.invocations] == [(0.5, Status.FAILED), (1.0, Status.PASSED)]
    first = outcome.invocations[0].details["rubric_scores"]
    assert [(r["rubric_id"], r["score"]) for r in first] == [("c1", 1.0), ("c2", 0.0)]
    assert len(outcome.invocations[0].details["judge_replies"]) == 3
    assert (outcome.score, outcome.status) == (0.75, Status.PASSED)
    assert outcome.details["rubric_scores"] == [{"rubric_id": "c1", "score": 1.0}, {"rubric_id": "c2", "score": 0.5}]
    assert fake_gemini.call_count == 6


async def test_a_split_vote_counts_as_no(fake_gemini, judge) -> None:
    fake_gemini.when("").reply(verdicts(("c1", "yes")), verdicts(("c1", "no")))
    outcome = await final_response_criterion(0.5, 2, [rubric("c1", "property c1")]).evaluate(
        context([turn("q", "answer")], judge=judge)
    )
    assert (outcome.score, outcome.status) == (0.0, Status.FAILED)


async def test_case_score_weighs_every_rubric_entry(fake_gemini, judge) -> None:
    # Turn 1 has three rubrics (all yes), turn 2 one (no): the mean over entries is 3/4,
    # not the mean of the turn scores (1/2).
    fake_gemini.when("answer one").reply(verdicts(("c1", "yes"), ("t1", "yes"), ("t2", "yes")))
    fake_gemini.when("answer two").reply(verdicts(("c1", "no")))
    typed = "FINAL_RESPONSE_QUALITY"
    expected = [
        turn("q1", "ref", rubrics=[rubric("t1", "p t1", typed), rubric("t2", "p t2", typed)]),
        turn("q2", "ref"),
    ]
    actual = [turn("q1", "answer one"), turn("q2", "answer two")]
    outcome = await final_response_criterion(0.5, 1, [rubric("c1", "property c1")]).evaluate(
        context(actual, expected, judge)
    )
    assert [t.score for t in outcome.invocations] == [1.0, 0.0]
    assert outcome.score == 0.75


async def test_each_turn_is_judged_against_its_own_rubrics(fake_gemini, judge) -> None:
    # ADK resolves every reply against the last turn's rubrics (E11); evalkit does not.
    typed = "FINAL_RESPONSE_QUALITY"
    fake_gemini.when("answer one").reply("Property: Rubric A\nRationale: ok\nVerdict: yes")
    fake_gemini.when("answer two").reply("Property: Rubric B\nRationale: ok\nVerdict: no")
    expected = [turn("q1", "r", rubrics=[rubric("a", "Rubric A", typed)]), turn("q2", "r", rubrics=[rubric("b", "Rubric B", typed)])]
    actual = [turn("q1", "answer one"), turn("q2", "answer two")]
    outcome = await final_response_criterion(0.5, 1, []).evaluate(context(actual, expected, judge))
    assert [(t.score, t.details["rubric_scores"][0]["rubric_id"]) for t in outcome.invocations] == [(1.0, "a"), (0.0, "b")]
    first_prompt, second_prompt = sorted(fake_gemini.prompts, key=lambda p: "answer two" in p)
    assert "[id: a] Rubric A" in first_prompt and "Rubric B" not in first_prompt
    assert "[id: b] Rubric B" in second_prompt and "Rubric A" not in second_prompt


async def test_only_rubrics_of_the_criterion_type_apply(fake_gemini, judge) -> None:
    fake_gemini.when("").reply(verdicts(("mine", "yes")))
    case_rubrics = [
        rubric("mine", "typed for this criterion", "FINAL_RESPONSE_QUALITY"),
        rubric("other", "typed for tool use", "TOOL_USE_QUALITY"),
        rubric("untyped", "no type at all"),
    ]
    outcome = await final_response_criterion(0.5, 1, []).evaluate(
        context([turn("q", "answer")], judge=judge, rubrics=case_rubrics)
    )
    prompt = fake_gemini.prompts[0]
    assert "[id: mine] typed for this criterion" in prompt
    assert "typed for tool use" not in prompt and "no type at all" not in prompt
    assert outcome.score == 1.0


async def test_unreadable_and_unmatched_replies_make_the_turn_an_error(fake_gemini, judge) -> None:
    fake_gemini.when("").reply("Verdict: yes", "ID: zz\nProperty: unknown property\nRationale: r\nVerdict: yes")
    outcome = await final_response_criterion(0.5, 2, [rubric("c1", "property c1")]).evaluate(
        context([turn("q", "answer")], judge=judge)
    )
    assert (outcome.score, outcome.status) == (None, Status.ERROR)  # no readable verdict (docs/criteria.md)
    assert outcome.invocations[0].details["unmatched_properties"] == ["unknown property"]


async def test_final_response_prompt_shows_instructions_tools_steps_and_answer(fake_gemini, judge) -> None:
    fake_gemini.when("").reply(verdicts(("c1", "yes")))
    app = AppDetails(agent_details={"root": AgentDetails(
        name="root", instructions="Always answer in French.", tool_declarations=[{"function_declarations": [{"name": "get_weather"}]}]
    )})
    events = tool_event("root", "get_weather", {"city": "Paris"}, {"sky": "clear"})
    actual = [turn("Weather in Paris?", "Il fait beau.", events=events, app_details=app)]
    await final_response_criterion(0.5, 1, [rubric("c1", "property c1")]).evaluate(context(actual, judge=judge))
    prompt = fake_gemini.prompts[0]
    assert "<<<BEGIN DEVELOPER INSTRUCTIONS>>>\nAlways answer in French.\n<<<END DEVELOPER INSTRUCTIONS>>>" in prompt
    assert '"get_weather"' in prompt.split("<<<BEGIN AVAILABLE TOOLS>>>")[1].split("<<<END AVAILABLE TOOLS>>>")[0]
    steps = prompt.split("<<<BEGIN TOOL STEPS>>>")[1].split("<<<END TOOL STEPS>>>")[0]
    assert '"tool_calls_and_response"' in steps and '"sky": "clear"' in steps and '"step": 0' in steps
    assert "No grounding metadata was provided." in prompt
    assert "<<<BEGIN FINAL ANSWER>>>\nIl fait beau.\n<<<END FINAL ANSWER>>>" in prompt
    assert "*  [id: c1] property c1" in prompt


async def test_an_answering_agent_missing_from_app_details_is_not_evaluated(fake_gemini, judge) -> None:
    app = AppDetails(agent_details={"root": AgentDetails(name="root", instructions="x")})
    events = [InvocationEvent(author="helper", content=text("thinking"))]
    actual = [turn("q", "answer", events=events, app_details=app)]
    outcome = await final_response_criterion(0.5, 1, [rubric("c1", "property c1")]).evaluate(context(actual, judge=judge))
    assert outcome.status is Status.NOT_EVALUATED and "'helper'" in outcome.details["reason"]
    assert fake_gemini.call_count == 0


async def test_tool_use_judge_sees_the_calls_and_scores_them(fake_gemini, judge) -> None:
    fake_gemini.when("lookup_order").reply(verdicts(("t1", "yes"), ("t2", "Not applicable")))
    events = tool_event("root", "lookup_order", {"order_id": "A17"}, {"status": "shipped"})
    actual = [turn("Where is order A17?", "Shipped.", events=events)]
    criterion = make_criterion(
        RubricToolUseQualityCriterion, 0.5, judge_model_options={"num_samples": 1},
        rubrics=[{"rubric_id": "t1", "rubric_content": {"text_property": "calls lookup_order"}},
                 {"rubricId": "t2", "rubricContent": {"textProperty": "passes the order id"}}],
    )
    outcome = await criterion.evaluate(context(actual, judge=judge))
    prompt = fake_gemini.prompts[0]
    assert "<<<BEGIN USER INPUT>>>\nWhere is order A17?\n<<<END USER INPUT>>>" in prompt
    assert '"order_id": "A17"' in prompt and "Agent has no tools." in prompt
    assert "Shipped." not in prompt  # the final answer is not part of tool use
    assert outcome.score == 0.5  # "Not applicable" contains "no" (E12)


async def test_multi_turn_judges_the_whole_conversation_once(fake_gemini, judge) -> None:
    fake_gemini.when("").reply(verdicts(("m1", "yes")))
    app = AppDetails(agent_details={"root": AgentDetails(
        name="root", instructions="Book tables.",
        tool_declarations=[{"function_declarations": [{"name": "book_table", "description": "Books a table."}]}],
    )})
    events = tool_event("root", "book_table", {"day": "Monday"}, {"ok": True})
    actual = [
        turn("Book a table for Monday", "Shall I book Monday?", app_details=app),
        turn("Yes please", "Booked.", events=events, app_details=app),
    ]
    criterion = make_criterion(RubricMultiTurnTrajectoryCriterion, 0.5, judge_model_options={"num_samples": 1})
    outcome = await criterion.evaluate(context(actual, judge=judge, rubrics=[rubric("m1", "confirms first", "TRAJECTORY_QUALITY")]))

    assert [(t.score, t.status) for t in outcome.invocations] == [(None, Status.NOT_EVALUATED), (1.0, Status.PASSED)]
    assert (outcome.score, outcome.status) == (1.0, Status.PASSED)
    [prompt] = fake_gemini.prompts
    conversation = prompt.split("<<<BEGIN CONVERSATION>>>\n")[1].split("\n<<<END CONVERSATION>>>")[0]
    assert conversation.splitlines() == [
        "USER TURN 1: Book a table for Monday",
        "AGENT (agent) TURN 1: Shall I book Monday?",
        "USER TURN 2: Yes please",
        'AGENT (root) TURN 2 (tool call): book_table({"day": "Monday"})',
        'AGENT (root) TURN 2 (tool output): book_table -> {"ok": true}',
        "AGENT (root) TURN 2: Booked.",
    ]
    assert "Agent root Instructions:\nBook tables." in prompt
    assert "- book_table: Books a table." in prompt  # dict tools work (ADK's E16 is not copied)
    assert '"id": "m1"' in prompt and '"type": "TRAJECTORY_QUALITY"' in prompt


async def test_rubric_judge_failure_is_an_error(fake_gemini, judge) -> None:
    fake_gemini.fail_always(429)
    outcome = await final_response_criterion(0.5, 2, [rubric("c1", "property c1")]).evaluate(
        context([turn("q", "answer")], judge=judge)
    )
    assert outcome.status is Status.ERROR
    assert outcome.invocations[0].status is Status.ERROR and "429" in outcome.invocations[0].details["error"]


async def test_a_turn_without_rubrics_is_an_input_error_at_run_time_too(fake_gemini, judge) -> None:
    with pytest.raises(InputError, match="no rubric for turn 1"):
        await final_response_criterion(0.5, 1, []).evaluate(context([turn("q", "answer")], judge=judge))
    assert fake_gemini.call_count == 0


def test_check_rubrics_reports_duplicates_and_missing_rubrics() -> None:
    typed = "TOOL_USE_QUALITY"
    case = EvalCase(
        eval_id="c",
        conversation=[turn("q1", "a", rubrics=[rubric("r1", "p", typed)]), turn("q2", "a")],
        rubrics=[rubric("shared", "p", "FINAL_RESPONSE_QUALITY")],
    )
    tool_use = make_criterion(RubricToolUseQualityCriterion, 0.5)
    final = make_criterion(RubricFinalResponseQualityCriterion, 0.5, rubrics=[{"rubric_id": "shared", "rubric_content": {"text_property": "x"}}])
    multi = make_criterion(RubricMultiTurnTrajectoryCriterion, 0.5)
    problems = check_rubrics(case, [tool_use, final, multi])
    assert problems == [
        'rubric_based_tool_use_quality_v1 has no rubric for turn 2: list rubrics under the criterion in the config, '
        'or give the case or turn rubrics with "type": "TOOL_USE_QUALITY" (rubrics without that type are ignored)',
        "rubric_based_final_response_quality_v1: rubric id 'shared' is used more than once for turn 1 "
        "(criterion, case and turn rubrics together)",
        "rubric_based_final_response_quality_v1: rubric id 'shared' is used more than once for turn 2 "
        "(criterion, case and turn rubrics together)",
        "rubric_based_multi_turn_trajectory_quality_v1 has no rubric for turn 2: list rubrics under the criterion "
        'in the config, or give the case or turn rubrics with "type": "TRAJECTORY_QUALITY" (rubrics without that '
        "type are ignored)",
    ]
    clashing = EvalCase(eval_id="c", conversation=[turn("q", "a", rubrics=[rubric("x", "p")])], rubrics=[rubric("x", "q")])
    assert check_rubrics(clashing, []) == ["rubric id 'x' is used more than once in turn 1 (case and turn rubrics together)"]
    assert check_rubrics(case, []) == []


def test_criterion_rubrics_with_repeated_ids_are_rejected_when_the_config_loads() -> None:
    with pytest.raises(ValueError, match="rubric id 'a' is used more than once"):
        make_criterion(RubricToolUseQualityCriterion, 0.5, rubrics=[
            {"rubric_id": "a", "rubric_content": {"text_property": "x"}},
            {"rubric_id": "a", "rubric_content": {"text_property": "y"}},
        ])
