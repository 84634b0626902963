"""Scenarios against a real ADK agent (run by ADK's Runner through the ADK adapter), and
the simulator's history summary compared with ADK's own on the same agent's events."""

from __future__ import annotations

import pytest

pytest.importorskip("google.adk")

from evalkit.agents.adk_agent import AdkAgent  # noqa: E402
from evalkit.agents.base import SessionSpec  # noqa: E402
from evalkit.judge import JudgeService  # noqa: E402
from evalkit.engine.jobs import CaseJob
from evalkit.engine.runner import Runner
from evalkit.settings import RunSettings  # noqa: E402
from evalkit.schema.content import Content  # noqa: E402
from evalkit.schema.evalset import EvalCase, Invocation  # noqa: E402
from evalkit.schema.results import Status  # noqa: E402
from evalkit.schema.views import final_text, tool_calls, user_text  # noqa: E402
from evalkit.simulation.history import simulator_history  # noqa: E402
from tests.conftest import FIXTURES  # noqa: E402
from tests.simulation.support import (  # noqa: E402
    FAST_RETRY,
    block,
    criterion,
    fake,  # noqa: F401 - fixture
    scenario_case,
    script,
    simulator_prompts,
)

AGENT_DIR = FIXTURES / "adk_agents" / "llm_tool_agent"
MESSAGES = ["What is the weather in Paris?", "Thanks. And the weather in Rome?"]


async def adk_own_summary(include_function_calls: bool) -> str:
    """ADK's simulator summary of the events ADK's Runner records for MESSAGES."""
    from google.adk.evaluation.simulation.llm_backed_user_simulator import LlmBackedUserSimulator
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    agent = AdkAgent.from_directory(AGENT_DIR)
    runner = InMemoryRunner(agent=agent.root_agent, app_name="parity")
    session = await runner.session_service.create_session(app_name="parity", user_id="u")
    for message in MESSAGES:
        content = types.Content(role="user", parts=[types.Part(text=message)])
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=content):
            pass
    session = await runner.session_service.get_session(app_name="parity", user_id="u", session_id=session.id)
    return LlmBackedUserSimulator._summarize_conversation(session.events, include_function_calls)


async def adapter_invocations() -> list[Invocation]:
    agent = AdkAgent.from_directory(AGENT_DIR)
    case = EvalCase.model_validate({"eval_id": "c", "conversation_scenario": {
        "starting_prompt": MESSAGES[0], "conversation_plan": "Ask about the weather."}})
    session = await agent.open_session(SessionSpec.for_case(case, "evalkit-parity"))
    try:
        return [await session.run_turn(Content.of_text(m, role="user"), i) for i, m in enumerate(MESSAGES)]
    finally:
        await session.close()
        await agent.aclose()


@pytest.mark.parametrize("include_function_calls", [False, True])
async def test_the_history_summary_matches_adks_for_a_real_adk_agent(include_function_calls):
    ours = simulator_history(await adapter_invocations(), include_function_calls)
    assert ours == await adk_own_summary(include_function_calls)
    if include_function_calls:
        assert "weather_assistant called tool 'get_weather' with args: {'city': 'Paris'}" in ours
        assert "Tool 'get_weather' returned: {'city': 'Paris', 'condition': 'rainy'}" in ours


async def test_a_scenario_runs_against_an_adk_agent(fake):
    script(fake, user=["Thanks. And the weather in Rome?", "Great, bye </finished>"], judge={})
    agent = AdkAgent.from_directory(AGENT_DIR)
    case = scenario_case(starting_prompt=MESSAGES[0], plan="Ask for the weather in Paris, then in Rome.")
    async with JudgeService(use_cache=False, retry=FAST_RETRY) as judge:
        runner = Runner(agent, RunSettings(jobs=1, timeout=30), judge=judge)
        try:
            result = await runner.run_case(CaseJob("set", case, [
                criterion("per_turn_user_simulator_quality_v1", 1.0, judge_model_options={"num_samples": 1})]))
        finally:
            await agent.aclose()
    assert result.status is Status.PASSED, result.error
    conversation = [Invocation.model_validate(r.actual) for r in result.invocations]
    assert [user_text(t) for t in conversation] == MESSAGES
    assert [final_text(t) for t in conversation] == ["The weather in Paris is rainy.", "The weather in Rome is rainy."]
    assert [[c.args for c in tool_calls(t)] for t in conversation] == [[{"city": "Paris"}], [{"city": "Rome"}]]
    history = block(simulator_prompts(fake)[0], "CONVERSATION")
    assert history == "user: What is the weather in Paris?\n\nweather_assistant: The weather in Paris is rainy."
    assert result.criteria[0].score == 1.0
