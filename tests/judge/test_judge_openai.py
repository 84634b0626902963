"""The OpenAI-compatible backend (`openai/<model>`) against a fake chat-completions server."""

from __future__ import annotations

import pytest

from evalkit.errors import JudgeError
from evalkit.judge import JudgeRequest, JudgeService
from evalkit.judge.openai_backend import chat_completions_body
from evalkit.testing import FakeOpenAI, token_count

MODEL = "openai/llama3.1:8b"


async def test_reply_usage_and_request_shape(fake_openai: FakeOpenAI, fast_retry, tmp_path) -> None:
    fake_openai.when("grade").reply("Final verdict: valid")
    prompt = "please grade this answer"
    config = {"temperature": 0.1, "max_output_tokens": 32, "thinking_config": {"thinking_budget": 0}}
    async with JudgeService(cache_dir=tmp_path, retry=fast_retry) as service:
        reply = await service.generate(JudgeRequest(MODEL, prompt, config))
        again = await service.generate(JudgeRequest(MODEL, prompt, config))
        stats = service.stats

    assert reply.text == "Final verdict: valid"
    assert (reply.input_tokens, reply.output_tokens) == (token_count(prompt), token_count(reply.text))
    assert again.from_cache and fake_openai.call_count == 1
    assert (stats.calls, stats.cache_hits) == (1, 1)
    [request] = fake_openai.requests
    assert request.path == "/v1/chat/completions"
    assert request.body == {
        "model": "llama3.1:8b",
        "messages": [{"role": "user", "content": prompt}],
        "temperature": 0.1,
        "max_tokens": 32,
    }
    assert "authorization" not in request.headers  # local servers need no key


async def test_api_key_is_sent_but_never_shown(
    fake_openai: FakeOpenAI, fast_retry, monkeypatch, marker_key
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", marker_key)
    fake_openai.fail_next(1, status=401)
    async with JudgeService(use_cache=False, retry=fast_retry) as service:
        with pytest.raises(JudgeError) as caught:
            await service.generate(JudgeRequest(MODEL, "who am I"))
    assert fake_openai.requests[0].headers["authorization"] == f"Bearer {marker_key}"
    assert fake_openai.call_count == 1  # 401 is not retried
    message = str(caught.value)
    assert fake_openai.base_url in message and "401" in message
    assert marker_key not in message


async def test_rate_limits_and_outages_are_retried(fake_openai: FakeOpenAI, fast_retry) -> None:
    fake_openai.fail_next(1, status=429, retry_after=0.01)
    fake_openai.fail_next(1, status=502)
    fake_openai.drop_next(1)
    fake_openai.malformed_next(1)
    async with JudgeService(use_cache=False, retry=fast_retry) as service:
        reply = await service.generate(JudgeRequest(MODEL, "eventually"))
        assert service.stats.retries == 4
    assert reply.text == "default reply"

    fake_openai.fail_always(503)
    async with JudgeService(use_cache=False, retry=fast_retry) as service:
        with pytest.raises(JudgeError, match=r"\(model openai/llama3.1:8b\) failed after 5 attempts: 503"):
            await service.generate(JudgeRequest(MODEL, "down"))


async def test_inline_thinking_is_not_part_of_the_reply(fake_openai: FakeOpenAI, fast_retry) -> None:
    fake_openai.when("reason").reply("valid", thought="The answer matches the reference.")
    async with JudgeService(use_cache=False, retry=fast_retry) as service:
        reply = await service.generate(JudgeRequest(MODEL, "reason about it"))
    assert reply.text == "valid"


def test_json_mime_type_asks_for_a_json_object() -> None:
    config = {"response_mime_type": "application/json", "stop_sequences": ["END"]}
    body = chat_completions_body("m", "p", config)
    assert body["response_format"] == {"type": "json_object"}
    assert body["stop"] == ["END"]


async def test_base_url_without_scheme_fails_at_once(monkeypatch, fast_retry) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "localhost:11434/v1")
    async with JudgeService(use_cache=False, retry=fast_retry) as service:
        with pytest.raises(JudgeError, match="OPENAI_BASE_URL='localhost:11434/v1' is not an http"):
            await service.generate(JudgeRequest(MODEL, "x"))
        assert (service.stats.calls, service.stats.failures) == (0, 1)
