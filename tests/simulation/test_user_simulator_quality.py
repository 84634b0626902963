"""per_turn_user_simulator_quality_v1 against adk-reference.md §2.11's observed numbers.

The judge is the fake Gemini server reached through google-genai; each judged user
message gets a scripted verdict ("V" valid, "I" invalid, "?" unreadable).
"""

from __future__ import annotations

import pytest

from evalkit.criteria.base import EvalContext
from evalkit.criteria.adk.user_simulator_quality import parse_is_valid
from evalkit.judge import JudgeService
from evalkit.schema.content import Content
from evalkit.schema.evalset import Invocation
from evalkit.schema.results import Status
from tests.simulation.support import (
    FAST_RETRY,
    INVALID,
    VALID,
    block,
    criterion,
    fake,  # noqa: F401 - fixture
    scenario_case,
)

REPLIES = {"V": VALID, "I": INVALID, "?": "I would rather not say."}


def turn(user: str, agent: str = "ok") -> Invocation:
    return Invocation(user_content=Content.of_text(user, role="user"), final_response=Content.of_text(agent))


async def score(fake, conversation: list[Invocation], verdicts: dict[str, str], *, threshold: float = 1.0,
                samples: int = 1, starting_prompt: str = "hi", persona=None, **options):
    """Judge `conversation`; `verdicts` maps each judged message (and "STOP") to V/I/? (or a V/I string per sample)."""
    positions: dict[str, int] = {}

    def respond(prompt: str, body) -> str | None:
        if "You evaluate a user simulator" not in prompt:
            return None
        message = block(prompt, "USER MESSAGE")
        key = "STOP" if message == options.get("stop_signal", "</finished>") else message
        sequence = verdicts[key]
        position = positions.get(key, 0)
        positions[key] = position + 1
        return REPLIES[sequence[position % len(sequence)]]

    fake.responder(respond)
    case = scenario_case(starting_prompt=starting_prompt, plan="Say hi, then ask for the time.", persona=persona)
    judge_options = {"judge_model_options": {"num_samples": samples}, **options}
    metric = criterion("per_turn_user_simulator_quality_v1", threshold, **judge_options)
    async with JudgeService(use_cache=False, retry=FAST_RETRY) as judge:
        return await metric.evaluate(EvalContext(case=case, actual=conversation, expected=None, judge=judge))


async def test_all_valid_scores_one(fake):
    outcome = await score(fake, [turn("hi"), turn("what time is it?")], {"what time is it?": "V", "STOP": "V"})
    assert outcome.score == 1.0 and outcome.status is Status.PASSED
    assert [t.score for t in outcome.invocations] == [1.0, 1.0]


async def test_turns_valid_then_invalid_with_a_valid_stop_score_two_thirds(fake):
    outcome = await score(fake, [turn("hi"), turn("a"), turn("b")], {"a": "V", "b": "I", "STOP": "V"})
    assert outcome.score == pytest.approx(2 / 3) and outcome.status is Status.FAILED
    assert [t.status for t in outcome.invocations] == [Status.PASSED, Status.PASSED, Status.FAILED]


async def test_a_failed_stop_check_replaces_the_last_turn(fake):
    outcome = await score(fake, [turn("hi"), turn("a"), turn("b")], {"a": "V", "b": "V", "STOP": "I"})
    assert outcome.score == pytest.approx(2 / 3) and outcome.status is Status.FAILED
    last = outcome.invocations[-1]
    assert last.score == 0.0 and last.details["stop_check"] is True
    assert outcome.details["stop_check"] == "failed"


async def test_a_first_turn_that_is_not_the_starting_prompt_scores_half(fake):
    outcome = await score(fake, [turn("hello"), turn("a")], {"a": "V", "STOP": "V"})
    assert outcome.score == 0.5
    assert outcome.invocations[0].score == 0.0 and outcome.invocations[0].details == {"starting_prompt_matches": False}


async def test_an_unreadable_verdict_is_an_error_not_a_zero(fake):
    # ADK counts it as a turn that did not pass; evalkit says the judge gave no verdict (docs/adk-differences.md).
    outcome = await score(fake, [turn("hi"), turn("a")], {"a": "?", "STOP": "?"})
    assert outcome.score is None and outcome.status is Status.ERROR
    assert outcome.invocations[1].status is Status.ERROR and outcome.invocations[1].details["no_verdict"] is True


async def test_the_starting_prompt_is_compared_without_surrounding_spaces(fake):
    outcome = await score(fake, [turn("hi")], {"STOP": "V"}, starting_prompt="  hi ")
    assert outcome.score == 1.0 and [t.score for t in outcome.invocations] == [1.0]


async def test_a_single_turn_conversation_is_judged_by_its_stop_check(fake):
    outcome = await score(fake, [turn("hi")], {"STOP": "I"})
    assert outcome.score == 0.0 and outcome.invocations[0].details["stop_check"] is True


async def test_samples_are_voted_and_a_tie_is_invalid(fake):
    outcome = await score(fake, [turn("hi"), turn("a"), turn("b")], {"a": "VVI", "b": "VI", "STOP": "V"}, samples=3)
    # "a": 2 valid of 3 → valid; "b": the third sample repeats the cycle (V, I, V) → valid.
    assert [t.score for t in outcome.invocations] == [1.0, 1.0, 1.0]
    assert outcome.invocations[1].details["votes"] == ["valid", "valid", "invalid"]


async def test_a_tie_between_samples_is_invalid(fake):
    tie = await score(fake, [turn("hi"), turn("c")], {"c": "VI", "STOP": "V"}, samples=2)
    assert [t.score for t in tie.invocations] == [1.0, 0.0] and tie.score == 0.5


async def test_a_lower_threshold_lets_a_zero_stop_check_pass_without_replacing(fake):
    # At threshold 0 a 0.0 verdict still passes, so the stop check does not replace the last turn.
    outcome = await score(fake, [turn("hi"), turn("a")], {"a": "V", "STOP": "I"}, threshold=0.0)
    assert outcome.invocations[-1].details.get("stop_check") is None
    assert outcome.score == 1.0


async def test_a_custom_stop_signal_is_what_the_judge_is_told(fake):
    outcome = await score(fake, [turn("hi"), turn("a")], {"a": "V", "STOP": "V"}, stop_signal="[DONE]")
    assert outcome.score == 1.0
    prompts = [p for p in fake.prompts if "You evaluate a user simulator" in p]
    assert all("[DONE]" in p and "</finished>" not in p for p in prompts)


async def test_the_judge_sees_the_history_before_the_turn_and_the_persona(fake):
    await score(fake, [turn("hi", "Hello!"), turn("a", "It is noon.")], {"a": "V", "STOP": "V"}, persona="NOVICE")
    first, stop = [p for p in fake.prompts if "You evaluate a user simulator" in p]
    assert block(first, "CONVERSATION") == "user: hi\n\nmodel: Hello!"
    assert block(stop, "CONVERSATION") == "user: hi\n\nmodel: Hello!\n\nuser: a\n\nmodel: It is noon."
    assert "A novice has a problem" in first and "Answer every question" in first


@pytest.mark.parametrize(("reply", "expected"), [
    ('{"is_valid": true}', 1.0),
    ('{"is_valid": True}', 1.0),
    ('{\n  "criteria": [],\n  "is_valid": "valid"\n}', 1.0),
    ('"is_valid": ["Valid"],\n', 1.0),
    ('```json\n{"is_valid": false}\n```', 0.0),
    ('{"is_valid": "almost"}', 0.0),
    ('{"is_valid": "partially valid"}', 0.0),
    ('{"is_valid": "INVALID", "criteria": []}', 0.0),
    ('{"is_valid": "maybe"}', None),
    ('{"is_valid": true', None),  # no closing brace, comma or newline after the value
    ("{'is_valid': true}", None),
    ("no json at all", None),
])
def test_is_valid_is_read_as_adk_reads_it(reply, expected):
    assert parse_is_valid(reply) == expected


def test_is_valid_parsing_agrees_with_adk_on_tricky_replies():
    adk = pytest.importorskip("google.adk.evaluation.simulation.per_turn_user_simulator_quality_v1")
    from google.adk.evaluation.llm_as_judge_utils import Label

    as_score = {Label.VALID: 1.0, Label.INVALID: 0.0, Label.NOT_FOUND: None}
    replies = [
        '{"is_valid": true}', '{"is_valid": True}', '"is_valid": "VALID"}', '"is_valid":\n  [\n "valid" \n ]\n}',
        '"is_valid": true, "x": 1}', '"is_valid": partially_valid}', '"is_valid": "partially valid",',
        '"is_valid": "Almost"\n', '"is_valid": yes}', '"is_valid": true', '"is_valid": }', '"is_valid": "t,r,u,e"}',
        '{"criteria": [{"passes": false}], "is_valid": false }',
    ]
    for reply in replies:
        assert parse_is_valid(reply) == as_score[adk._parse_llm_response(reply)], reply
