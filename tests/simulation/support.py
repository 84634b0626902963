"""Scripting a fake Gemini server to play the simulated user and the judges, by prompt content.

Replies depend only on what a prompt contains (never on call order), so retried calls
and concurrent cases get the same answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from evalkit.agents.python_callable import CallableAgent
from evalkit.criteria.registry import CRITERIA
from evalkit.criteria.base import Criterion
from evalkit.judge import JudgeService, RetryPolicy
from evalkit.engine.jobs import CaseJob
from evalkit.engine.runner import Runner
from evalkit.settings import RunSettings
from evalkit.schema.evalset import EvalCase
from evalkit.schema.results import CaseResult
from evalkit.testing import FakeGemini
from tests.conftest import point_genai_at
from tests.simulation.scenario_agent import travel_agent  # noqa: F401 - re-exported for the tests

SIMULATOR_MARK = "You are playing the user in a test of an AI agent"
USER_JUDGE_MARK = "You evaluate a user simulator"
CONVERSATION_JUDGE_MARK = "You evaluate a whole conversation"

FAST_RETRY = RetryPolicy(max_attempts=2, attempt_timeout=5.0, base_delay=0.001, max_delay=0.01)
VALID = '{"criteria": [], "is_valid": true}'
INVALID = '{"criteria": [{"name": "STOP_CONDITION_FOLLOWED", "reasoning": "too early", "passes": false}], "is_valid": false}'


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path) -> Iterator[FakeGemini]:
    with FakeGemini(default_reply="(unscripted prompt)") as server:
        point_genai_at(server, monkeypatch, tmp_path)
        yield server


def block(prompt: str, name: str) -> str:
    """The content of the `<<<BEGIN name>>>` block of a prompt."""
    match = re.search(rf"<<<BEGIN {name}>>>\n(.*?)\n<<<END {name}>>>", prompt, re.S)
    assert match is not None, f"no {name} block in the prompt"
    return match.group(1)


def user_messages_so_far(prompt: str) -> int:
    return len(re.findall(r"^user: ", block(prompt, "CONVERSATION"), re.M))


def simulator_prompts(server: FakeGemini) -> list[str]:
    return [p for p in server.prompts if SIMULATOR_MARK in p]


def script(
    server: FakeGemini,
    *,
    user: Callable[[str, int], str] | list[str] | None = None,
    judge: Callable[[str], str] | dict[str, str] | None = None,
    conversation_judge: str | None = None,
) -> None:
    """Answer the simulator, the per-turn judge and the whole-conversation judges.

    `user`: the simulator's reply given (plan text, number of user messages so far), or a
    list indexed by that number minus one. `judge`: the per-turn judge's reply given the
    judged user message (a dict falls back to VALID). `conversation_judge`: the reply of
    the multi-turn criteria.
    """

    def respond(prompt: str, body: dict[str, Any]) -> str | None:
        if SIMULATOR_MARK in prompt and user is not None:
            count = user_messages_so_far(prompt)
            if callable(user):
                return user(prompt, count)
            return user[count - 1]
        if USER_JUDGE_MARK in prompt and judge is not None:
            message = block(prompt, "USER MESSAGE")
            return judge(message) if callable(judge) else judge.get(message, VALID)
        if CONVERSATION_JUDGE_MARK in prompt and conversation_judge is not None:
            return conversation_judge
        return None

    server.responder(respond)


def criterion(name: str, threshold: float, **options: Any) -> Criterion:
    criterion_class = CRITERIA.get(name)
    assert criterion_class is not None
    return criterion_class(threshold, criterion_class.Options.model_validate(options))


def scenario_case(eval_id: str = "trip", starting_prompt: str = "I need a flight.",
                  plan: str = "Fly from SFO to LAX next Tuesday.", persona: Any = None) -> EvalCase:
    scenario: dict[str, Any] = {"starting_prompt": starting_prompt, "conversation_plan": plan}
    if persona is not None:
        scenario["user_persona"] = persona
    return EvalCase.model_validate({"eval_id": eval_id, "conversation_scenario": scenario})


async def run_case(agent_fn: Callable, case: EvalCase, criteria: list[Criterion],
                   simulator_config: dict | None = None, timeout: float = 10.0) -> CaseResult:
    """One case through the real runner: a callable agent, the fake server as every model."""
    async with JudgeService(use_cache=False, retry=FAST_RETRY) as judge:
        agent = CallableAgent(agent_fn, "test agent")
        runner = Runner(agent, RunSettings(jobs=1, timeout=timeout), judge=judge)
        try:
            return await runner.run_case(CaseJob("set", case, criteria, simulator_config=simulator_config))
        finally:
            await agent.aclose()
