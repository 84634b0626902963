"""response_checks_v1: plain checks of the final responses, per case (config or eval case) and per turn."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import ValidationError

from evalkit.criteria.base import EvalContext
from evalkit.criteria.extended.response_checks import ResponseChecksCriterion, ResponseChecksOptions
from evalkit.errors import InputError
from evalkit.schema.evalset import EvalCase
from evalkit.schema.results import Status


def evaluate(answers: list[str], checks: list[dict] | None = None, threshold: float = 1.0, **case: Any):
    turns = [{"user_content": {"parts": [{"text": f"q{i}"}]}, "final_response": {"parts": [{"text": a}]}}
             for i, a in enumerate(answers)]
    eval_case = EvalCase.model_validate({"eval_id": "c", "conversation": turns, **case})
    criterion = ResponseChecksCriterion(threshold, ResponseChecksOptions.model_validate({"checks": checks or []}))
    return asyncio.run(criterion.evaluate(EvalContext(case=eval_case, actual=eval_case.conversation,
                                                      expected=eval_case.conversation)))


ORDER = "Your refund for order ORD-123 is on its way."

# one check, the answer → None (passes) or the failure's words
TABLE = [
    ({"contains": "ORD-123"}, ORDER, None),
    ({"contains": "ord-123"}, ORDER, "contains 'ord-123': not found"),
    ({"contains": "ord-123", "case_sensitive": False}, ORDER, None),
    ({"contains": ["refund", "ORD-999"]}, ORDER, "contains 'refund', 'ORD-999': not found: 'ORD-999'"),
    ({"contains": r"ORD-\d+", "regex": True}, ORDER, None),
    ({"contains": r"ORD-\d{4}", "regex": True}, ORDER, r"contains /ORD-\d{4}/: not found"),
    ({"not_contains": "as an AI"}, "As an AI, I cannot.", None),
    ({"not_contains": "as an AI", "case_sensitive": False}, "Well, As an AI, I cannot.",
     "not_contains 'as an AI' (any case): found 'As an AI' at character 6"),
    ({"not_contains": [r"\bsorry\b", "apolog"], "regex": True, "case_sensitive": False}, "Sorry!",
     r"not_contains /\bsorry\b/i, /apolog/i: found 'Sorry' at character 0"),
    ({"max_chars": 10}, "short", None),
    ({"max_chars": 4}, "short", "max_chars 4: the answer has 5 characters"),
    ({"max_chars": 4, "name": "brief"}, "short", "brief: the answer has 5 characters"),
]


@pytest.mark.parametrize(("check", "answer", "failure"), TABLE)
def test_each_check(check, answer, failure):
    outcome = evaluate([answer], [check])
    assert outcome.invocations[0].details.get("failed_checks", [None]) == [failure]
    assert outcome.status is (Status.PASSED if failure is None else Status.FAILED)


SCHEMA = {"type": "object", "required": ["order_id", "amount"],
          "properties": {"order_id": {"type": "string", "pattern": "^ORD-"}, "amount": {"type": "number"}}}


@pytest.mark.parametrize(("answer", "failure"), [
    ('{"order_id": "ORD-1", "amount": 12.5}', None),
    ('```json\n{"order_id": "ORD-1", "amount": 3}\n```', None),  # one fenced block is read too
    ('{"order_id": "ORD-1", "amount": "12"}', "json_schema: at $.amount: '12' is not of type 'number'"),
    ('{"order_id": "X-1"}', "json_schema: at $: 'amount' is a required property (and 1 more)"),
    ("Sure! Here it is.", "json_schema: the answer is not JSON (Expecting value: line 1 column 1 (char 0)): "
                          "'Sure! Here it is.'"),
])
def test_json_schema(answer, failure):
    outcome = evaluate([answer], [{"json_schema": SCHEMA}])
    assert outcome.invocations[0].details.get("failed_checks", [None]) == [failure]


def test_a_turn_scores_the_share_of_its_checks_and_names_every_failed_one():
    checks = [{"contains": "ORD-123"}, {"not_contains": "order"}, {"max_chars": 5}, {"contains": "refund"}]
    outcome = evaluate([ORDER], checks, threshold=0.5)
    turn = outcome.invocations[0]
    assert turn.score == 0.5 and outcome.score == 0.5 and outcome.status is Status.PASSED
    assert turn.details == {"checks": 4, "passed": 2, "failed_checks": [
        "not_contains 'order': found 'order' at character 16", "max_chars 5: the answer has 44 characters"]}


def test_per_turn_checks_and_the_cases_own_checks():
    checks = [{"contains": "hello", "invocation_indexes": [0]}]
    own = [{"contains": "ORD-123", "invocation_indexes": [1]}, {"max_chars": 100}]
    outcome = evaluate(["hello there", ORDER, "bye"], checks, response_checks=own)
    assert [turn.score for turn in outcome.invocations] == [1.0, 1.0, 1.0]
    assert [turn.details["checks"] for turn in outcome.invocations] == [2, 2, 1]
    failed = evaluate(["hi", "no order here", "bye"], checks, response_checks=own)
    assert [turn.status for turn in failed.invocations] == [Status.FAILED, Status.FAILED, Status.PASSED]
    assert failed.score == pytest.approx(2 / 3) and failed.status is Status.FAILED


def test_nothing_to_check_is_not_evaluated_with_the_reason():
    outcome = evaluate(["hi"], [{"contains": "x", "invocation_indexes": [3]}])
    assert outcome.status is Status.NOT_EVALUATED and "no check applies" in outcome.details["reason"]


@pytest.mark.parametrize(("check", "words"), [
    ({"contains": "a", "max_chars": 3}, "exactly one of contains, not_contains, json_schema, max_chars (this one has contains and max_chars)"),
    ({}, "(this one has none)"),
    ({"contains": "(", "regex": True}, "not a regular expression: '('"),
    ({"max_chars": 3, "regex": True}, "'regex' applies to contains and not_contains only"),
    ({"json_schema": {"type": "nonsense"}}, "not a valid JSON Schema"),
    ({"contians": "x"}, "Extra inputs are not permitted"),
])
def test_a_malformed_check_is_refused_before_the_run(check, words):
    with pytest.raises(ValidationError) as error:
        ResponseChecksOptions.model_validate({"checks": [check]})
    assert words in str(error.value)


def test_a_malformed_check_in_an_eval_case_names_the_case_and_the_place():
    with pytest.raises(InputError) as error:
        evaluate(["hi"], response_checks=[{"contains": "a"}, {"max_chars": -1}])
    assert "eval case 'c', response_checks[1].max_chars: Input should be greater than or equal to 0" in str(error.value)


def test_a_run_with_the_criterion_names_every_failed_check(tmp_path):
    import json

    from tests.conftest import ROOT
    from tests.in_process import invoke_evalkit

    config = tmp_path / "checks.json"
    config.write_text(json.dumps({"criteria": {"response_checks_v1": {"threshold": 1.0, "checks": [
        {"not_contains": "looks", "case_sensitive": False}, {"max_chars": 25}, {"contains": "°C"}]}}}))
    done = invoke_evalkit("run", str(ROOT / "evalsets" / "weather.evalset.json"), "--config", str(config),
                          "--agent", str(ROOT / "examples" / "weather_agent" / "regressed_agent.py") + ":weather_agent",
                          "--json", str(tmp_path / "out.json"), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert ("✗ weather/paris: response_checks_v1 0.3333 < 1\n"
            "    turn 1: not_contains 'looks' (any case): found 'Looks' at character 0\n"
            "    turn 1: contains '°C': not found\n") in done.stdout
    paris = json.loads((tmp_path / "out.json").read_text())["cases"][0]["criteria"][0]
    assert paris["invocations"][0]["details"]["failed_checks"] == [
        "not_contains 'looks' (any case): found 'Looks' at character 0", "contains '°C': not found"]


def test_a_malformed_check_in_the_config_is_exit_2_naming_its_place(tmp_path):
    import json

    from tests.conftest import ROOT
    from tests.in_process import invoke_evalkit

    config = tmp_path / "checks.json"
    config.write_text(json.dumps({"criteria": {"response_checks_v1": {"threshold": 1.0, "checks": [
        {"max_chars": 25}, {"contains": "(", "regex": True}]}}}))
    done = invoke_evalkit("run", str(ROOT / "evalsets" / "weather.evalset.json"), "--config", str(config), cwd=tmp_path)
    assert done.returncode == 2
    assert "checks.json: criteria.response_checks_v1.checks[1]: not a regular expression" in done.stderr and "not a regular expression: '('" in done.stderr
