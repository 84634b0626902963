"""Per-turn rubrics: a criterion rubric naming `invocation_indexes` is asked of those turns only."""

from __future__ import annotations


from evalkit.criteria.adk.rubric_final_response import RubricFinalResponseQualityCriterion
from evalkit.criteria.adk.rubrics import check_rubrics
from evalkit.schema.evalset import EvalCase
from evalkit.schema.results import Status

from tests.criteria.judge_support import context, fake_gemini, judge, make_criterion, turn, verdicts  # noqa: F401

RUBRICS = [
    {"rubric_id": "greets", "rubric_content": {"text_property": "The answer greets the user."},
     "invocation_indexes": [0]},
    {"rubric_id": "books", "rubric_content": {"text_property": "The answer confirms the booking."},
     "invocation_indexes": [1, 2]},
    {"rubric_id": "polite", "rubric_content": {"text_property": "The answer is polite."}},
]


def criterion(rubrics=RUBRICS):
    return make_criterion(RubricFinalResponseQualityCriterion, 0.5, judge_model_options={"num_samples": 1},
                          rubrics=rubrics)


async def test_each_turn_is_judged_on_its_own_rubrics(fake_gemini, judge) -> None:
    fake_gemini.when("hello there").reply(verdicts(("greets", "yes"), ("polite", "yes")))
    fake_gemini.when("booked").reply(verdicts(("books", "yes"), ("polite", "no")))
    fake_gemini.when("done").reply(verdicts(("books", "no"), ("polite", "no")))
    actual = [turn("hi", "hello there"), turn("book it", "booked"), turn("thanks", "done")]
    outcome = await criterion().evaluate(context(actual, judge=judge))
    asked = [r["rubric_id"] for t in outcome.invocations for r in t.details["rubric_scores"]]
    assert asked == ["greets", "polite", "books", "polite", "books", "polite"]
    assert [t.score for t in outcome.invocations] == [1.0, 0.5, 0.0]
    # Case score: mean over every (turn, rubric) verdict = 3 / 6.
    assert outcome.score == 0.5 and outcome.status is Status.PASSED
    first_prompt = next(p for p in fake_gemini.prompts if "hello there" in p)
    assert "greets the user" in first_prompt and "confirms the booking" not in first_prompt


async def test_turns_named_by_no_rubric_are_not_judged(fake_gemini, judge) -> None:
    fake_gemini.when("booked").reply(verdicts(("books", "yes")))
    only_second = [RUBRICS[1] | {"invocation_indexes": [1]}]
    outcome = await criterion(only_second).evaluate(context([turn("hi", "hello"), turn("go", "booked")], judge=judge))
    assert [(t.score, t.status) for t in outcome.invocations] == [(None, Status.NOT_EVALUATED), (1.0, Status.PASSED)]
    assert fake_gemini.call_count == 1


def test_an_index_beyond_the_conversation_is_an_input_problem() -> None:
    case = EvalCase.model_validate({"eval_id": "c", "conversation": [
        {"user_content": {"parts": [{"text": "hi"}]}}, {"user_content": {"parts": [{"text": "go"}]}}]})
    problems = check_rubrics(case, [criterion([RUBRICS[1]])])
    assert problems == ["rubric_based_final_response_quality_v1: rubric 'books' names invocation index 2, "
                        "but the case has 2 turns (indexes from 0)"]
