"""Whole simulated conversations: the fake Gemini server plays the user and the judges,
a Python callable agent answers, and the real runner scores the case."""

from __future__ import annotations

import pytest

from evalkit.schema.evalset import Invocation
from evalkit.schema.results import Status
from evalkit.schema.views import final_text, tool_calls, user_text
from evalkit.schema.case_extras import SimulationEnd
from evalkit.simulation.transcript import conversation_lines
from tests.simulation.support import (
    INVALID,
    VALID,
    block,
    criterion,
    fake,  # noqa: F401 - fixture
    run_case,
    scenario_case,
    script,
    simulator_prompts,
    travel_agent,
)

ONE_SAMPLE = {"judge_model_options": {"num_samples": 1}}


def turns(result) -> list[Invocation]:
    return [Invocation.model_validate(record.actual) for record in result.invocations]


def by_name(result, name: str):
    return next(c for c in result.criteria if c.name == name)


async def test_the_stop_signal_ends_the_conversation_and_every_turn_is_scored(fake):
    script(fake, user=["SFO to LAX next Tuesday, please.", "Perfect, thanks! </finished>"], judge={},
           conversation_judge="\n".join(
               f"ID: {i}\nProperty: p\nRationale: fine.\nVerdict: yes"
               for i in ("understood_goals", "goals_accomplished", "truthful_outcome", "no_unwanted_actions")))
    result = await run_case(travel_agent, scenario_case(), [
        criterion("per_turn_user_simulator_quality_v1", 1.0, **ONE_SAMPLE),
        criterion("multi_turn_task_success_v1", 0.5, **ONE_SAMPLE),
    ])

    assert result.status is Status.PASSED, result
    conversation = turns(result)
    assert [user_text(t) for t in conversation] == ["I need a flight.", "SFO to LAX next Tuesday, please."]
    assert [final_text(t) for t in conversation] == ["Where would you like to fly?", "Booked: SFO to LAX on Tuesday, 8:05."]
    assert [c.name for c in tool_calls(conversation[1])] == ["book_flight"]
    # The starting prompt needs no model; two simulator calls: one message, one stop.
    prompts = simulator_prompts(fake)
    assert len(prompts) == 2
    assert block(prompts[0], "CONVERSATION") == "user: I need a flight.\n\nagent: Where would you like to fly?"
    assert "Fly from SFO to LAX next Tuesday." in prompts[0] and "</finished>" in prompts[0]
    assert "book_flight" not in block(prompts[1], "CONVERSATION")  # tool calls are hidden by default

    quality = by_name(result, "per_turn_user_simulator_quality_v1")
    assert [t.score for t in quality.invocations] == [1.0, 1.0]
    assert quality.score == 1.0 and quality.status is Status.PASSED
    success = by_name(result, "multi_turn_task_success_v1")
    assert [(t.score, t.status) for t in success.invocations] == [(None, Status.NOT_EVALUATED), (1.0, Status.PASSED)]
    assert success.score == 1.0


async def test_text_before_the_stop_signal_is_not_sent_and_the_signal_is_case_insensitive(fake):
    script(fake, user=["Great, thanks!</FINISHED>"])
    result = await run_case(travel_agent, scenario_case(), [])
    assert [user_text(t) for t in turns(result)] == ["I need a flight."]
    assert len(simulator_prompts(fake)) == 1


async def test_the_turn_limit_ends_the_conversation_without_an_error(fake):
    script(fake, user=lambda prompt, count: f"Question number {count + 1}?", judge={})
    result = await run_case(travel_agent, scenario_case(), [criterion("per_turn_user_simulator_quality_v1", 1.0,
                                                                      **ONE_SAMPLE)],
                            simulator_config={"max_allowed_invocations": 3})
    assert result.status is Status.PASSED and result.error is None
    assert [user_text(t) for t in turns(result)] == ["I need a flight.", "Question number 2?", "Question number 3?"]
    # The limit counts the starting prompt: 3 messages, of which 2 came from the model.
    assert len(simulator_prompts(fake)) == 2


async def test_function_calls_are_shown_to_the_simulator_when_asked(fake):
    script(fake, user=["To LAX.", "Thanks </finished>"])
    await run_case(travel_agent, scenario_case(), [], simulator_config={"include_function_calls": True})
    history = block(simulator_prompts(fake)[1], "CONVERSATION")
    assert history.split("\n\n") == [
        "user: I need a flight.",
        "agent: Where would you like to fly?",
        "user: To LAX.",
        "agent called tool 'book_flight' with args: {'origin': 'SFO', 'destination': 'LAX'}",
        "Tool 'book_flight' returned: {'status': 'confirmed', 'flight': 'UA 101'}",
        "agent: Booked: SFO to LAX on Tuesday, 8:05.",
    ]


async def test_the_simulator_uses_the_configured_model_and_configuration(fake):
    script(fake, user=["</finished>"])
    config = {"model": "gemini-test-sim", "modelConfiguration": {"temperature": 0.25}}
    await run_case(travel_agent, scenario_case(), [], simulator_config=config)
    (request,) = [r for r in fake.requests if "You are playing the user" in r.prompt]
    assert request.model == "gemini-test-sim"
    assert request.config.get("temperature") == 0.25


async def test_the_default_configuration_lets_the_simulator_think_and_hides_its_thoughts(fake):
    fake.when("You are playing the user").reply("To LAX.", thought="Maybe I should write </finished> here.")
    result = await run_case(travel_agent, scenario_case(), [], simulator_config={"max_allowed_invocations": 3})
    # The stop signal in the thought neither ends the conversation nor reaches the agent.
    assert [user_text(t) for t in turns(result)] == ["I need a flight.", "To LAX.", "To LAX."]
    request = fake.requests[0]
    assert request.model == "gemini-2.5-flash"
    thinking = {key.replace("_", "").lower(): value for key, value in request.config["thinkingConfig"].items()}
    assert thinking == {"includethoughts": True, "thinkingbudget": 10240}


async def test_a_persona_shapes_the_simulator_and_the_judge(fake):
    script(fake, user=["Flights to LAX?", "</finished>"], judge={})
    await run_case(travel_agent, scenario_case(persona="EXPERT"),
                   [criterion("per_turn_user_simulator_quality_v1", 1.0, **ONE_SAMPLE)])
    simulator = simulator_prompts(fake)[0]
    assert "An expert knows exactly what they want" in simulator
    assert "Professional tone" in simulator and "{{" not in simulator
    judge = next(p for p in fake.prompts if "You evaluate a user simulator" in p)
    assert "Point out the agent's mistakes" in judge and "CONVERSATION_PLAN_FOLLOWED" not in judge


async def test_custom_instructions_are_rendered_with_the_persona(fake):
    template = (
        "Plan: {{ conversation_plan }}\nSo far:\n{{ conversation_history }}\nStop with {{ stop_signal }}.\n"
        "Be: {{ persona.description }}\n"
        "{% for b in persona.behaviors %}- {{ b.name }}\n{{ b.get_behavior_instructions_str() }}\n{% endfor %}"
    )
    fake.when("Plan: Fly").reply("</finished>")
    persona = {"id": "TERSE", "description": "Says little.",
               "behaviors": [{"name": "Short", "description": "d", "behavior_instructions": ["End with {{ stop_signal }}."],
                              "violation_rubrics": []}]}
    result = await run_case(travel_agent, scenario_case(persona=persona), [],
                            simulator_config={"custom_instructions": template})
    assert result.error is None
    (prompt,) = fake.prompts
    assert prompt.startswith("Plan: Fly from SFO to LAX next Tuesday.\nSo far:\nuser: I need a flight.")
    assert "Stop with </finished>." in prompt and "Be: Says little." in prompt
    assert "- Short\n  * End with </finished>." in prompt


async def test_an_empty_simulator_reply_ends_the_case_as_an_error_keeping_the_turns_so_far(fake):
    script(fake, user=["To LAX.", ""])
    result = await run_case(travel_agent, scenario_case(), [])
    assert result.status is Status.ERROR
    assert "empty reply" in result.error and "turn 3" in result.error
    assert [user_text(t) for t in turns(result)] == ["I need a flight.", "To LAX."]


async def test_a_simulator_outage_ends_the_case_as_an_error_keeping_the_turns_so_far(fake):
    def user(prompt: str, count: int) -> str:
        if count >= 2:
            raise RuntimeError("simulated outage")  # the fake answers 500, every time
        return "To LAX."

    script(fake, user=user)
    result = await run_case(travel_agent, scenario_case(), [criterion("per_turn_user_simulator_quality_v1", 1.0)])
    assert result.status is Status.ERROR
    assert "user simulator failed" in result.error and "500" in result.error
    assert [user_text(t) for t in turns(result)] == ["I need a flight.", "To LAX."]
    assert result.criteria == []  # nothing is scored on a broken conversation


async def test_a_judge_outage_while_scoring_makes_the_case_an_error(fake):
    def judge(message: str) -> str:
        if message == "</finished>":
            raise RuntimeError("judge down")
        return VALID

    script(fake, user=["To LAX.", "</finished>"], judge=judge)
    result = await run_case(travel_agent, scenario_case(), [criterion("per_turn_user_simulator_quality_v1", 1.0,
                                                                      **ONE_SAMPLE)])
    assert result.status is Status.ERROR
    quality = by_name(result, "per_turn_user_simulator_quality_v1")
    assert quality.status is Status.ERROR and quality.score is None and "500" in quality.error
    assert len(result.invocations) == 2


async def test_an_agent_failure_mid_conversation_keeps_the_turns_so_far(fake):
    def fragile(turn):
        if turn.invocation_index == 1:
            raise ValueError("the booking backend is down")
        return "Where to?"

    script(fake, user=["To LAX."])
    result = await run_case(fragile, scenario_case(), [])
    assert result.status is Status.ERROR and "booking backend is down" in result.error
    assert [user_text(t) for t in turns(result)] == ["I need a flight."]


async def test_the_conversation_reads_turn_by_turn(fake):
    script(fake, user=["To LAX.", "</finished>"])
    result = await run_case(travel_agent, scenario_case(), [])
    result.simulation = SimulationEnd(ended_by="stop_signal", simulator_calls=3)
    assert conversation_lines(result) == [
        "Turn 1",
        "  user:  I need a flight.",
        "  agent: Where would you like to fly?",
        "Turn 2",
        "  user:  To LAX.",
        "  agent called book_flight(origin='SFO', destination='LAX')",
        "  agent: Booked: SFO to LAX on Tuesday, 8:05.",
        "(conversation ended by stop signal)",
    ]


@pytest.mark.parametrize("reply", [INVALID])
async def test_judge_verdicts_reach_the_case_status(fake, reply):
    script(fake, user=["To LAX.", "</finished>"], judge={"To LAX.": reply})
    result = await run_case(travel_agent, scenario_case(), [criterion("per_turn_user_simulator_quality_v1", 1.0,
                                                                      **ONE_SAMPLE)])
    quality = by_name(result, "per_turn_user_simulator_quality_v1")
    assert [t.score for t in quality.invocations] == [1.0, 0.0]
    assert quality.score == 0.5 and result.status is Status.FAILED


async def test_replaying_a_recorded_scenario_run_reuses_its_user_messages(fake):
    from evalkit.agents.replay import ReplayAgent
    from evalkit.judge import JudgeService
    from evalkit.engine.jobs import CaseJob
    from evalkit.engine.runner import Runner
    from evalkit.settings import RunSettings
    from tests.simulation.support import FAST_RETRY

    script(fake, user=["To LAX.", "</finished>"], judge={})
    recorded = await run_case(travel_agent, scenario_case(), [])
    simulator_calls = len(simulator_prompts(fake))

    replay = ReplayAgent({("set", "trip"): [r.actual for r in recorded.invocations]}, "earlier.json")
    async with JudgeService(use_cache=False, retry=FAST_RETRY) as judge:
        runner = Runner(replay, RunSettings(jobs=1, timeout=5), judge=judge)
        rescored = await runner.run_case(CaseJob("set", scenario_case(), [
            criterion("per_turn_user_simulator_quality_v1", 1.0, **ONE_SAMPLE)]))
    assert [user_text(t) for t in turns(rescored)] == ["I need a flight.", "To LAX."]
    assert len(simulator_prompts(fake)) == simulator_calls  # the simulator was not asked again
    assert by_name(rescored, "per_turn_user_simulator_quality_v1").score == 1.0
