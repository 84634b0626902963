"""Which media go with which judge prompt: a turn's own for per-turn criteria, the conversation's otherwise.

The real google-genai client against the fake Gemini server, which decodes every
`inlineData` part it receives; the agent's answer's media are shown as the user's are.
"""

from __future__ import annotations

import base64

from evalkit.criteria.adk.final_response_match_v2 import FinalResponseMatchV2Criterion
from evalkit.criteria.adk.multi_turn import MultiTurnTaskSuccessCriterion
from evalkit.engine.scoring import score_case
from evalkit.schema.content import Content, Part
from evalkit.schema.evalset import Invocation
from evalkit.schema.media_parts import turn_media
from evalkit.schema.results import Status
from tests.criteria.judge_support import context, fake_gemini, judge, make_criterion, text  # noqa: F401
from tests.media.samples import png_bytes, wav_bytes

VALID = '{"reasoning": "matches", "is_the_agent_response_valid": "valid"}'
RED, BLUE, SOUND = png_bytes(rgb=(255, 0, 0)), png_bytes(rgb=(0, 0, 255)), wav_bytes()


def blob(mime_type: str, data: bytes, *, url_safe: bool = False, camel: bool = False) -> Part:
    encode = base64.urlsafe_b64encode if url_safe else base64.b64encode
    return Part(inline_data={"mimeType" if camel else "mime_type": mime_type, "data": encode(data).decode()})


def media_turn(question: str, user_media: list[Part], answer: str, answer_media: list[Part] = ()) -> Invocation:
    return Invocation(user_content=Content(role="user", parts=[Part(text=question), *user_media]),
                      final_response=Content(role="model", parts=[Part(text=answer), *answer_media]))


def test_a_turn_s_media_are_the_user_s_then_the_answer_s_in_any_base64_spelling() -> None:
    turn = media_turn("draw", [blob("image/png", RED, url_safe=True), blob("Audio/WAV", SOUND, camel=True)],
                      "here", [blob("image/png", BLUE)])
    assert [(m.mime_type, m.data) for m in turn_media(turn)] == [
        ("image/png", RED), ("audio/wav", SOUND), ("image/png", BLUE)]


async def test_each_turn_s_prompt_carries_that_turn_s_media_and_the_answer_s(fake_gemini, judge) -> None:
    fake_gemini.responder(lambda prompt, body: VALID)
    actual = [media_turn("first?", [blob("image/png", RED)], "one"),
              media_turn("second?", [], "two", [blob("image/png", BLUE)])]
    expected = [media_turn("first?", [], "one"), media_turn("second?", [], "two")]
    outcome = await make_criterion(FinalResponseMatchV2Criterion, 0.5,
                                   judge_model_options={"num_samples": 1}).evaluate(context(actual, expected, judge))
    assert outcome.status is Status.PASSED
    seen = {("first?" in r.prompt): [m.data for m in r.media] for r in fake_gemini.requests}
    assert seen == {True: [RED], False: [BLUE]}


async def test_a_whole_conversation_prompt_carries_every_turn_s_media_in_order(fake_gemini, judge) -> None:
    actual = [media_turn("first?", [blob("image/png", RED)], "one"),
              media_turn("second?", [blob("audio/wav", SOUND)], "two", [blob("image/png", BLUE)])]
    criterion = make_criterion(MultiTurnTaskSuccessCriterion, 0.5, judge_model_options={"num_samples": 1})
    await criterion.evaluate(context(actual, None, judge))
    [request] = fake_gemini.requests
    assert [m.data for m in request.media] == [RED, SOUND, BLUE]


async def test_media_that_cannot_be_read_leave_the_criterion_unjudged_naming_the_part(fake_gemini, judge) -> None:
    # Validation refuses such a part (an eval set saying so is exit 2); built unchecked, as a caller's own
    # objects may be, the judge side still names it rather than judging without it.
    broken = Part.model_construct(inline_data={"mime_type": "image/png", "data": "not base64!"})
    actual = [media_turn("first?", [], "one"), media_turn("second?", [broken], "two")]
    criterion = make_criterion(FinalResponseMatchV2Criterion, 0.5, judge_model_options={"num_samples": 1})
    [result] = await score_case(context(actual, [media_turn("first?", [], "one"), media_turn("second?", [], "two")],
                                        judge), [criterion])
    assert result.status is Status.NOT_EVALUATED
    assert result.details["reason"] == "user_content.parts[1]: inline_data.data is not base64"
    assert fake_gemini.call_count == 0


async def test_a_file_data_part_is_never_left_out_silently(fake_gemini, judge) -> None:
    linked = Part(file_data={"mime_type": "image/png", "file_uri": "gs://bucket/receipt.png"})
    actual = [media_turn("what is this?", [linked], "a receipt")]
    criterion = make_criterion(MultiTurnTaskSuccessCriterion, 0.5, judge_model_options={"num_samples": 1})
    [result] = await score_case(context(actual, None, judge), [criterion])
    assert result.status is Status.NOT_EVALUATED and "gs://bucket/receipt.png" in result.details["reason"]
    assert fake_gemini.call_count == 0


def test_text_parts_alone_are_no_media() -> None:
    assert turn_media(Invocation(user_content=text("hi", "user"), final_response=text("hello"))) == ()
