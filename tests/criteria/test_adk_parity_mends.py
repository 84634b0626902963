"""Three places evalkit now matches ADK 2.13 itself (ADK imported and run side by side)."""

from __future__ import annotations

import asyncio
import warnings

import pytest

from evalkit.criteria.adk.hallucinations import steps_of
from evalkit.schema.evalset import Invocation

adk_eval = pytest.importorskip("google.adk.evaluation")

TURN = {
    "invocation_id": "t1",
    "app_details": {"agent_details": {"root": {
        "name": "root", "instructions": "Antworte auf Deutsch, grüße höflich.",
        "tool_declarations": [{"function_declarations": [{
            "name": "get_time", "description": "Uhrzeit für eine Stadt",
            "parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}}}]}]}}},
    "user_content": {"role": "user", "parts": [{"text": "Wie spät ist es in Zürich?"}]},
    "final_response": {"role": "model", "parts": [{"text": "Es ist 10:30 Uhr in Zürich."}]},
    "intermediate_data": {"invocation_events": [
        {"author": "root", "content": {"role": "model", "parts": [
            {"text": "Ich schaue nach."},
            {"function_call": {"id": "c-1", "name": "get_time", "args": {"city": "Zürich", "n": 1.5, "flag": True}}}]}},
        {"author": "root", "content": {"role": "user", "parts": [
            {"function_response": {"id": "c-1", "name": "get_time", "response": {"time": "10:30", "tz": "MEZ – Zürich"}}}]}},
    ]},
}


def test_hallucinations_context_is_adks_byte_for_byte():
    from google.adk.evaluation.eval_case import Invocation as AdkInvocation
    from google.adk.evaluation.eval_metrics import EvalMetric, HallucinationsCriterion, JudgeModelOptions
    from google.adk.evaluation.hallucinations_v1 import HallucinationsV1Evaluator

    criterion = HallucinationsCriterion(threshold=0.5, evaluate_intermediate_nl_responses=True,
                                        judge_model_options=JudgeModelOptions(judge_model="gemini-2.5-flash"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ADK marks the evaluator experimental
        evaluator = HallucinationsV1Evaluator(EvalMetric(metric_name="hallucinations_v1", threshold=0.5,
                                                         criterion=criterion))
    theirs = evaluator._get_steps_to_evaluate(AdkInvocation.model_validate(TURN))
    ours = steps_of(Invocation.model_validate(TURN), include_intermediate=True)
    assert [(step.nl_response, step.context) for step in theirs] == [(step.text, step.context) for step in ours]
    assert '"id": "c-1",\n    "args": {\n      "city": "Z\\u00fcrich"' in ours[1].context  # ADK's order and escapes


def test_a_null_user_simulator_type_is_llm_backed_as_in_adk():
    from google.adk.evaluation.eval_config import EvalConfig

    from evalkit.simulation.config import LlmBackedUserSimulatorConfig

    given = {"type": None, "max_allowed_invocations": 5}
    theirs = EvalConfig.model_validate({"criteria": {"response_match_score": 0.8}, "user_simulator_config": given})
    ours = LlmBackedUserSimulatorConfig.model_validate(given)
    assert ours.type == theirs.user_simulator_config.type == "llm_backed"
    assert ours.max_allowed_invocations == theirs.user_simulator_config.max_allowed_invocations == 5


def test_response_evaluation_score_is_accepted_and_not_evaluated_with_the_reason(tmp_path):
    """ADK scores it only through Vertex AI's evaluation service (its facade imports the Vertex SDK and
    pandas, and needs Google Cloud credentials): nothing to compare offline, so it is reported unscored."""
    import json

    from evalkit.criteria.registry import CRITERIA
    from evalkit.criteria.base import EvalContext
    from evalkit.schema.evalset import EvalCase
    from evalkit.schema.results import Status
    from tests.conftest import ROOT
    from tests.in_process import invoke_evalkit

    criterion_class = CRITERIA.get("response_evaluation_score")
    assert criterion_class is not None and criterion_class.score_range == (1.0, 5.0)
    case = EvalCase.model_validate({"eval_id": "c", "conversation": [TURN]})
    outcome = asyncio.run(criterion_class(4.0).evaluate(EvalContext(case=case, actual=case.conversation,
                                                                    expected=case.conversation)))
    assert outcome.status is Status.NOT_EVALUATED and outcome.score is None
    assert "Vertex AI's hosted coherence metric" in outcome.details["reason"]
    assert outcome.invocations[0].details["reason"] == outcome.details["reason"]
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"criteria": {"response_evaluation_score": 0.5}}))
    done = invoke_evalkit("run", str(ROOT / "evalsets" / "weather.evalset.json"), "--config", str(config), cwd=tmp_path)
    assert done.returncode == 2
    assert "criteria.response_evaluation_score: threshold 0.5 is outside the score range [1, 5]" in done.stderr
