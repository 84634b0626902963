"""Shared pieces of the judge-criteria tests: a fake Gemini server, a judge service, turns.

Fixtures are imported by the test modules that use them (`from ... import fake_gemini`),
so pytest finds them without a conftest shared with unrelated tests.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from evalkit.criteria.base import Criterion, EvalContext
from evalkit.judge import JudgeService, RetryPolicy
from evalkit.schema.content import Content, FunctionCall, FunctionResponse, Part
from evalkit.schema.evalset import EvalCase, Invocation, InvocationEvent, InvocationEvents, Rubric, RubricContent
from evalkit.testing import FakeGemini
from tests.conftest import point_genai_at

DUMMY_KEY = "dummy-test-key"


FAST_RETRY = RetryPolicy(max_attempts=2, attempt_timeout=5.0, base_delay=0.001, max_delay=0.01)


@pytest.fixture
def fake_gemini(monkeypatch: pytest.MonkeyPatch, tmp_path) -> Iterator[FakeGemini]:
    with FakeGemini(default_reply="no verdict here") as fake:
        point_genai_at(fake, monkeypatch, tmp_path, DUMMY_KEY)
        yield fake


@pytest.fixture
async def judge(fake_gemini: FakeGemini) -> AsyncIterator[JudgeService]:
    async with JudgeService(use_cache=False, retry=FAST_RETRY) as service:
        yield service


def make_criterion(criterion_class: type[Criterion], threshold: float, **options: Any) -> Criterion:
    return criterion_class(threshold, criterion_class.Options.model_validate(options))


def text(value: str, role: str = "model") -> Content:
    return Content(role=role, parts=[Part(text=value)])


def turn(user: str, answer: str | None, *, events: list[InvocationEvent] | None = None, **fields: Any) -> Invocation:
    return Invocation(
        user_content=text(user, "user"),
        final_response=text(answer) if answer is not None else None,
        intermediate_data=InvocationEvents(invocation_events=events) if events is not None else None,
        **fields,
    )


def tool_event(author: str, name: str, args: dict, response: dict, call_id: str = "c1") -> list[InvocationEvent]:
    return [
        InvocationEvent(author=author, content=Content(role="model", parts=[
            Part(function_call=FunctionCall(id=call_id, name=name, args=args))])),
        InvocationEvent(author=author, content=Content(role="user", parts=[
            Part(function_response=FunctionResponse(id=call_id, name=name, response=response))])),
    ]


def rubric(rubric_id: str, property_text: str, rubric_type: str | None = None) -> Rubric:
    return Rubric(rubric_id=rubric_id, rubric_content=RubricContent(text_property=property_text), type=rubric_type)


def context(
    actual: list[Invocation],
    expected: list[Invocation] | None = None,
    judge: JudgeService | None = None,
    rubrics: list[Rubric] | None = None,
) -> EvalContext:
    case = EvalCase(eval_id="case", conversation=expected if expected is not None else actual, rubrics=rubrics)
    return EvalContext(case=case, actual=actual, expected=expected, judge=judge)


def verdicts(*pairs: tuple[str, str]) -> str:
    """A rubric judge reply giving (rubric id, yes/no) verdicts."""
    return "\n\n".join(
        f"ID: {rubric_id}\nProperty: property {rubric_id}\nRationale: because.\nVerdict: {verdict}"
        for rubric_id, verdict in pairs
    )
