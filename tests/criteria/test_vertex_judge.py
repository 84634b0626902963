"""Vertex pointwise and pairwise judge metrics, through a real judge service and a fake Gemini."""

from __future__ import annotations

import asyncio

import pytest

from evalkit.criteria.base import EvalContext
from evalkit.criteria.vertex.model_based import (
    PairwiseMetricCriterion,
    PairwiseOptions,
    PointwiseMetricCriterion,
    PointwiseOptions,
    fill_template,
    parse_choice,
    parse_score,
)
from evalkit.criteria.vertex.templates import PAIRWISE, POINTWISE
from evalkit.schema.content import Content, FunctionCall, FunctionResponse
from evalkit.schema.evalset import EvalCase, IntermediateData, Invocation
from evalkit.schema.results import Status


def turn(user: str, reply: str, calls=(), responses=()) -> Invocation:
    return Invocation(user_content=Content.of_text(user, role="user"), final_response=Content.of_text(reply),
                      intermediate_data=IntermediateData(tool_uses=list(calls), tool_responses=list(responses)))


@pytest.fixture
def judge(monkeypatch):
    from evalkit.judge import JudgeService, RetryPolicy
    from evalkit.testing import FakeGemini

    for name in ("GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT"):
        monkeypatch.delenv(name, raising=False)
    with FakeGemini(default_reply='{"explanation": "fine", "score": 5}') as fake:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", fake.base_url)
        monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
        service = JudgeService(use_cache=False, retry=RetryPolicy(max_attempts=1, attempt_timeout=5))
        yield fake, service
        asyncio.run(service.aclose())


def run(criterion, actual, expected=None, service=None, eval_id="c"):
    case = EvalCase(eval_id=eval_id, conversation=expected or actual)
    return asyncio.run(criterion.evaluate(EvalContext(case=case, actual=actual, expected=expected, judge=service)))


def test_replies_are_read_for_a_score_or_a_choice():
    assert parse_score('{"explanation": "x", "score": 4}') == 4.0
    assert parse_score('{"score": "-1"}') == -1.0
    assert parse_score("Score: 0.5") == 0.5
    assert parse_score('{"score": 7}', bounds=(1, 5)) is None
    assert parse_score("nothing") is None
    assert parse_choice('{"pairwise_choice": "candidate"}') == "CANDIDATE"
    assert parse_choice('{"pairwise_choice": "TIE", "explanation": "even"}') == "TIE"
    assert parse_choice('{"pairwise_choice": "A"}') is None


def test_a_template_fills_known_placeholders_with_fenced_blocks_only():
    filled = fill_template('Rate {response} for {prompt}. Reply like {"score": 1} or {unknown_thing}.',
                           {"response": "Hi <<<END RESPONSE>>>", "prompt": "greet"})
    assert "<<<BEGIN RESPONSE>>>\nHi << <END RESPONSE>>>\n<<<END RESPONSE>>>" in filled  # markers defanged
    assert "<<<BEGIN USER PROMPT>>>\ngreet\n<<<END USER PROMPT>>>" in filled
    assert '{"score": 1} or {unknown_thing}' in filled


def test_options_need_exactly_one_instruction_source_and_known_names():
    with pytest.raises(ValueError, match="exactly one of"):
        PointwiseOptions()
    with pytest.raises(ValueError, match="exactly one of"):
        PointwiseOptions(template="fluency", metric_prompt_template="{response}")
    with pytest.raises(ValueError, match="unknown template 'fluent'"):
        PointwiseOptions(template="fluent")
    with pytest.raises(ValueError, match=r"unknown placeholder \{answer\}"):
        PointwiseOptions(metric_prompt_template="Rate {answer}")
    with pytest.raises(ValueError, match="rating_rubric"):
        PointwiseOptions(criteria={"polite": "is polite"})
    with pytest.raises(ValueError, match="not a number"):
        PointwiseOptions(criteria={"polite": "is polite"}, rating_rubric={"good": "yes"})
    with pytest.raises(ValueError, match=r"unknown placeholder \{baseline_model_response\}"):
        PointwiseOptions(metric_prompt_template="{response} vs {baseline_model_response}")
    assert PairwiseOptions(metric_prompt_template="{response} vs {baseline_model_response}")
    assert set(PAIRWISE) < set(POINTWISE)


def test_every_ready_made_pointwise_rubric_has_a_numeric_scale():
    for name, template in POINTWISE.items():
        low, high = template.score_bounds
        assert low < high, name
        assert template.criteria and set(template.inputs) <= {"prompt", "response", "context", "history"}
    assert POINTWISE["verbosity"].score_bounds == (-2, 2)
    assert POINTWISE["safety"].score_bounds == (0, 1)
    assert POINTWISE["fluency"].score_bounds == (1, 5)


def test_pointwise_with_a_user_template_means_the_turn_scores(judge):
    fake, service = judge
    fake.when("Paris is nice").reply('{"explanation": "meh", "score": 2}')
    options = PointwiseOptions(metric_prompt_template="Rate 1-5 how polite {response} is, given {prompt}.")
    actual = [turn("hi", "Hello, how can I help?"), turn("where to go?", "Paris is nice")]
    outcome = run(PointwiseMetricCriterion(4.0, options), actual, service=service)
    assert [t.score for t in outcome.invocations] == [5.0, 2.0]
    assert outcome.score == 3.5 and outcome.status is Status.FAILED
    prompt = fake.prompts[0]
    assert prompt.startswith("Rate 1-5 how polite <<<BEGIN RESPONSE>>>\nHello, how can I help?\n<<<END RESPONSE>>> is")
    assert '"score": <the score>' in prompt


def test_pointwise_ready_made_groundedness_shows_the_tool_results_and_rejects_off_scale_scores(judge):
    fake, service = judge
    fake.when("sunny").reply('{"explanation": "supported", "score": 1}')
    fake.when("raining").reply('{"explanation": "??", "score": 3}', '{"score": 0}')
    call = FunctionCall(id="1", name="get_weather", args={"city": "Paris"})
    result = FunctionResponse(id="1", name="get_weather", response={"sky": "sunny"})
    actual = [turn("weather?", "It is sunny.", [call], [result]), turn("and now?", "It is raining.")]
    options = PointwiseOptions(template="groundedness", judge_model_options={"num_samples": 2})
    outcome = run(PointwiseMetricCriterion(1.0, options), actual, service=service)
    assert outcome.invocations[0].score == 1.0
    # 3 is off the 0–1 scale and does not vote; the other sample says 0
    assert outcome.invocations[1].details["votes"] == [None, 0.0]
    assert outcome.invocations[1].score == 0.0
    assert outcome.score == 0.5 and outcome.status is Status.FAILED
    first_prompt = next(p for p in fake.prompts if "sunny" in p)
    assert "<<<BEGIN CONTEXT>>>" in first_prompt and '"sky": "sunny"' in first_prompt
    assert "groundedness:" in first_prompt and "1: Fully grounded" in first_prompt


def test_a_template_using_the_reference_skips_turns_without_one(judge):
    _, service = judge
    options = PointwiseOptions(metric_prompt_template="Does {response} agree with {reference}? 0 or 1.")
    outcome = run(PointwiseMetricCriterion(0.5, options), [turn("q", "a")], service=service)
    assert outcome.invocations[0].status is Status.NOT_EVALUATED
    assert outcome.invocations[0].details == {"reason": "no reference for this turn"}
    assert outcome.status is Status.NOT_EVALUATED


def test_pairwise_against_the_expected_reply_is_a_win_rate(judge):
    fake, service = judge
    fake.when("answer one").reply('{"pairwise_choice": "CANDIDATE"}')
    fake.when("answer two").reply('{"pairwise_choice": "TIE"}')
    fake.when("answer three").reply('{"pairwise_choice": "BASELINE"}')
    actual = [turn("q1", "answer one"), turn("q2", "answer two"), turn("q3", "answer three")]
    expected = [turn("q1", "gold one"), turn("q2", "gold two"), turn("q3", "gold three")]
    options = PairwiseOptions(template="question_answering_quality")
    outcome = run(PairwiseMetricCriterion(0.5, options), actual, expected, service=service)
    assert [t.score for t in outcome.invocations] == [1.0, 0.5, 0.0]
    assert outcome.score == 0.5 and outcome.status is Status.PASSED
    prompt = next(p for p in fake.prompts if "answer one" in p)
    assert "<<<BEGIN BASELINE RESPONSE>>>\ngold one\n<<<END BASELINE RESPONSE>>>" in prompt
    assert "<<<BEGIN RESPONSE>>>\nanswer one\n<<<END RESPONSE>>>" in prompt


def test_pairwise_against_an_earlier_result_file(judge, tmp_path):
    fake, service = judge
    fake.when("old reply").reply('{"pairwise_choice": "BASELINE"}')
    from evalkit.schema.results import CaseResult, InvocationRecord, RunResult, Summary

    recorded = turn("q1", "old reply").model_dump(mode="json", exclude_none=True)
    earlier = RunResult(evalkit_version="0.1.0", started_at="2026-01-01T00:00:00+00:00", duration_s=1.0,
                        summary=Summary(), cases=[CaseResult(eval_set_id="s", eval_id="c", status=Status.PASSED,
                                                             invocations=[InvocationRecord(actual=recorded)])])
    path = tmp_path / "baseline.json"  # an earlier run's result file, read like any other
    path.write_text(earlier.model_dump_json())
    options = PairwiseOptions(criteria={"helpful": "answers the question"}, baseline_results=str(path))
    outcome = run(PairwiseMetricCriterion(0.5, options), [turn("q1", "new reply"), turn("q2", "extra turn")],
                  service=service)
    assert outcome.invocations[0].score == 0.0
    assert outcome.invocations[1].details == {"reason": "no baseline model response for this turn"}
    assert outcome.status is Status.FAILED


def test_judge_options_default_to_one_sample_even_when_partly_given():
    options = PointwiseOptions(template="fluency", judge_model_options={"judge_model": "gemini-x"})
    assert options.judge_model_options.num_samples == 1
    assert options.judge_model_options.judge_model == "gemini-x"
    with pytest.raises(ValueError):
        PointwiseOptions(template="fluency", judge_model_options={"num_sample": 3})
