"""The Gemini backend through the real google-genai client against the fake server."""

from __future__ import annotations

import pytest

from evalkit.errors import JudgeError
from evalkit.judge import JudgeRequest, JudgeService
from evalkit.testing import FakeGemini, token_count

MODEL = "gemini-2.5-flash"


async def test_reply_text_and_token_usage_arrive(fake_gemini: FakeGemini, fast_retry, marker_key) -> None:
    fake_gemini.when("capital of France").reply("Paris")
    prompt = "What is the capital of France?"
    async with JudgeService(use_cache=False, retry=fast_retry) as service:
        reply = await service.generate(JudgeRequest(MODEL, prompt))
        stats = service.stats

    assert reply.text == "Paris"
    assert reply.input_tokens == token_count(prompt)
    assert reply.output_tokens == token_count("Paris")
    assert not reply.from_cache
    assert stats.to_dict() == {
        "requests": 1,
        "calls": 1,
        "cache_hits": 0,
        "retries": 0,
        "failures": 0,
        "input_tokens": token_count(prompt),
        "output_tokens": token_count("Paris"),
    }
    [request] = fake_gemini.requests
    assert request.model == MODEL
    assert request.prompt == prompt
    assert request.body["contents"] == [{"role": "user", "parts": [{"text": prompt}]}]
    assert request.headers["x-goog-api-key"] == marker_key


async def test_config_is_forwarded_and_thoughts_are_not_part_of_the_reply(
    fake_gemini: FakeGemini, fast_retry
) -> None:
    fake_gemini.when("judge this").reply("**Final Answer:** valid", thought="Let me think about it.")
    config = {"temperature": 0.25, "max_output_tokens": 64}
    async with JudgeService(use_cache=False, retry=fast_retry) as service:
        reply = await service.generate(JudgeRequest(MODEL, "please judge this", config))

    assert reply.text == "**Final Answer:** valid"
    [request] = fake_gemini.requests
    assert request.config["temperature"] == 0.25
    assert request.config["maxOutputTokens"] == 64
    # No tools are sent: automatic function calling only shapes the client side.
    assert "tools" not in request.body


async def test_replies_cycle_per_prompt_for_repeated_samples(fake_gemini: FakeGemini, fast_retry) -> None:
    fake_gemini.when("vote").reply("valid", "valid", "invalid")
    fake_gemini.responder(lambda prompt, body: "custom" if prompt.startswith("ask") else None)
    async with JudgeService(use_cache=False, retry=fast_retry) as service:
        first = [
            (await service.generate(JudgeRequest(MODEL, "vote A", sample_index=i))).text
            for i in range(4)
        ]
        other = (await service.generate(JudgeRequest(MODEL, "vote B"))).text
        custom = (await service.generate(JudgeRequest(MODEL, "ask me"))).text
        fallback = (await service.generate(JudgeRequest(MODEL, "anything else"))).text

    assert first == ["valid", "valid", "invalid", "valid"]
    assert other == "valid"  # a new prompt starts its own cycle
    assert custom == "custom"
    assert fallback == "default reply"


async def test_client_error_is_not_retried_and_names_the_endpoint(
    fake_gemini: FakeGemini, fast_retry, marker_key
) -> None:
    fake_gemini.fail_next(1, status=400)
    async with JudgeService(use_cache=False, retry=fast_retry) as service:
        with pytest.raises(JudgeError) as caught:
            await service.generate(JudgeRequest(MODEL, "bad request"))
        assert service.stats.calls == 1
        assert service.stats.failures == 1

    message = str(caught.value)
    assert fake_gemini.base_url in message and MODEL in message
    assert "400" in message and "INVALID_ARGUMENT" in message
    assert marker_key not in message


async def test_invalid_config_is_a_judge_error_without_a_call(fake_gemini: FakeGemini, fast_retry) -> None:
    async with JudgeService(use_cache=False, retry=fast_retry) as service:
        with pytest.raises(JudgeError, match="judge_model_config"):
            await service.generate(JudgeRequest(MODEL, "x", {"temperature": "very hot"}))
    assert fake_gemini.call_count == 0


async def test_missing_credentials_is_a_clear_judge_error(monkeypatch, fast_retry) -> None:
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:9")
    async with JudgeService(use_cache=False, retry=fast_retry) as service:
        with pytest.raises(JudgeError, match="GOOGLE_API_KEY"):
            await service.generate(JudgeRequest(MODEL, "x"))
        assert service.stats.failures == 1


async def test_fake_serves_the_streaming_method_to_the_real_client(fake_gemini: FakeGemini) -> None:
    from google import genai

    fake_gemini.when("stream").reply("streamed text")
    client = genai.Client()
    chunks = [
        chunk.text
        async for chunk in await client.aio.models.generate_content_stream(
            model=MODEL, contents="stream please"
        )
    ]
    await client.aio.aclose()
    assert "".join(chunks) == "streamed text"
    assert fake_gemini.requests[0].path.endswith(":streamGenerateContent?alt=sse")


async def test_config_may_be_a_genai_config_model(fake_gemini: FakeGemini, fast_retry) -> None:
    from google.genai import types

    config = types.GenerateContentConfig(temperature=0.5, candidate_count=1)
    async with JudgeService(use_cache=True, retry=fast_retry) as service:
        await service.generate(JudgeRequest(MODEL, "typed config", config))  # type: ignore[arg-type]
        as_dict = {"temperature": 0.5, "candidate_count": 1}
        cached = await service.generate(JudgeRequest(MODEL, "typed config", as_dict))
    assert fake_gemini.requests[0].config["temperature"] == 0.5
    assert cached.from_cache  # the same settings, spelt as a model or a dict, share an entry
