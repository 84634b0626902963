"""Retries: what is retried, how long we wait, and how a judge that stays down ends."""

from __future__ import annotations

import asyncio
import logging
import random

import pytest

from evalkit.errors import InputError, JudgeError
from evalkit.judge import JudgeRequest, JudgeService, RetryPolicy
from evalkit.foundation.retry_after import parse_retry_after
from evalkit.testing import FakeGemini

MODEL = "gemini-2.5-flash"


class Waits:
    """The clock the retries wait on: it records each wait and returns at once (no wall-clock in tests)."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.seconds.append(delay)
        await asyncio.sleep(0)


async def test_429_with_retry_after_is_honoured(fake_gemini: FakeGemini) -> None:
    # Backoff alone would wait at most 1 ms; only Retry-After explains a longer wait.
    policy = RetryPolicy(base_delay=0.001, max_delay=1.0, attempt_timeout=2.0)
    fake_gemini.fail_next(2, status=429, retry_after=0.15)
    waits = Waits()
    async with JudgeService(use_cache=False, retry=policy, sleep=waits) as service:
        reply = await service.generate(JudgeRequest(MODEL, "rate limited"))
        assert service.stats.retries == 2
        assert service.stats.calls == 3

    assert reply.text == "default reply"
    assert waits.seconds == [pytest.approx(0.15, abs=0.01)] * 2
    assert [r.outcome for r in fake_gemini.requests] == ["status 429", "status 429", "reply"]


async def test_retry_after_is_capped_by_max_delay(fake_gemini: FakeGemini) -> None:
    policy = RetryPolicy(base_delay=0.001, max_delay=0.05, attempt_timeout=2.0)
    fake_gemini.fail_next(1, status=429, retry_after=30)
    waits = Waits()
    async with JudgeService(use_cache=False, retry=policy, sleep=waits) as service:
        await service.generate(JudgeRequest(MODEL, "asks for a long wait"))
    assert waits.seconds == [0.05]


async def test_503_then_success(fake_gemini: FakeGemini, fast_retry) -> None:
    fake_gemini.when("flaky").reply("finally")
    fake_gemini.fail_next(3, status=503)
    async with JudgeService(use_cache=False, retry=fast_retry) as service:
        reply = await service.generate(JudgeRequest(MODEL, "flaky server"))
        assert service.stats.retries == 3
        assert service.stats.failures == 0
    assert reply.text == "finally"


async def test_dropped_connections_and_garbled_bodies_are_retried(
    fake_gemini: FakeGemini, fast_retry
) -> None:
    fake_gemini.drop_next(1)
    fake_gemini.malformed_next(1)
    fake_gemini.fail_next(1, status=500)
    async with JudgeService(use_cache=False, retry=fast_retry) as service:
        reply = await service.generate(JudgeRequest(MODEL, "rough network"))
    assert reply.text == "default reply"
    assert [r.outcome for r in fake_gemini.requests] == ["dropped", "malformed", "status 500", "reply"]


async def test_slow_replies_time_out_per_attempt(fake_gemini: FakeGemini) -> None:
    policy = RetryPolicy(max_attempts=2, attempt_timeout=0.2, base_delay=0.001, max_delay=0.01)
    fake_gemini.latency = 0.5
    waits = Waits()
    async with JudgeService(use_cache=False, retry=policy, sleep=waits) as service:
        with pytest.raises(JudgeError, match=r"failed after 2 attempts: no reply within 0.2 s"):
            await service.generate(JudgeRequest(MODEL, "slow judge"))
    assert fake_gemini.call_count == 2
    assert len(waits.seconds) == 1 and waits.seconds[0] <= policy.max_delay


async def test_judge_that_stays_down_fails_after_the_budget_without_leaking_the_key(
    fake_gemini: FakeGemini, fast_retry, marker_key, caplog
) -> None:
    caplog.set_level(logging.DEBUG)
    fake_gemini.fail_always(503)
    async with JudgeService(use_cache=False, retry=fast_retry) as service:
        with pytest.raises(JudgeError) as caught:
            await service.generate(JudgeRequest(MODEL, "is anyone there"))
        stats = service.stats

    message = str(caught.value)
    assert caught.value.exit_code == 3
    assert message.startswith(f"judge {fake_gemini.base_url} (model {MODEL}) failed after 5 attempts")
    assert "503 UNAVAILABLE" in message
    assert fake_gemini.call_count == 5
    assert (stats.calls, stats.retries, stats.failures) == (5, 4, 1)
    assert marker_key not in message
    assert marker_key not in caplog.text
    assert "retrying" in caplog.text  # the log was captured, and still holds no key


async def test_unreachable_judge_fails_fast_naming_the_endpoint(monkeypatch, fast_retry, marker_key) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", marker_key)
    with FakeGemini() as fake:
        dead_url = fake.base_url  # a port that is closed once the server stops
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", dead_url)
    waits = Waits()
    async with JudgeService(use_cache=False, retry=fast_retry, sleep=waits) as service:
        with pytest.raises(JudgeError) as caught:
            await service.generate(JudgeRequest(MODEL, "hello?"))
    assert len(waits.seconds) <= fast_retry.max_attempts - 1
    assert all(wait <= fast_retry.max_delay for wait in waits.seconds)
    # google-genai connects with aiohttp when it is installed, else with httpx: either names the failure.
    assert dead_url in str(caught.value)
    assert "ConnectError" in str(caught.value) or "ClientConnectorError" in str(caught.value)
    assert marker_key not in str(caught.value)


async def test_thirty_percent_failures_still_give_every_reply(fake_gemini: FakeGemini, fast_retry) -> None:
    fake_gemini.responder(lambda prompt, body: f"answer to {prompt}")
    fake_gemini.fail_randomly(0.3, statuses=(429, 503), retry_after=0.001, seed=7, at_most_in_a_row=4)
    prompts = [f"question {i}" for i in range(60)]
    async with JudgeService(use_cache=False, retry=fast_retry, max_concurrency=8) as service:
        replies = await asyncio.gather(*(service.generate(JudgeRequest(MODEL, p)) for p in prompts))
        stats = service.stats

    assert [r.text for r in replies] == [f"answer to {p}" for p in prompts]
    assert stats.failures == 0
    assert stats.retries > 5  # the faults really happened
    assert stats.calls == fake_gemini.call_count == 60 + stats.retries


# -- the policy on its own ----------------------------------------------------


def test_backoff_is_full_jitter_under_an_exponential_ceiling() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=5.0)
    rng = random.Random(1)
    for retry_number, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (9, 5.0)]:
        delays = [policy.delay_before_retry(retry_number, None, rng) for _ in range(200)]
        assert all(0.0 <= d <= ceiling for d in delays)
        assert max(delays) > ceiling * 0.8  # spread over the whole range
    assert policy.delay_before_retry(1, 3.0, rng) == 3.0
    assert policy.delay_before_retry(1, 99.0, rng) == 5.0


def test_retry_after_parsing() -> None:
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after(" 0.5 ") == 0.5
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a date in the past


def test_policy_from_environment(monkeypatch) -> None:
    assert RetryPolicy.from_env() == RetryPolicy(max_attempts=5, attempt_timeout=60.0)
    monkeypatch.setenv("EVALKIT_JUDGE_MAX_ATTEMPTS", "3")
    monkeypatch.setenv("EVALKIT_JUDGE_TIMEOUT", "7.5")
    assert RetryPolicy.from_env() == RetryPolicy(max_attempts=3, attempt_timeout=7.5)
    monkeypatch.setenv("EVALKIT_JUDGE_MAX_ATTEMPTS", "many")
    with pytest.raises(InputError, match="EVALKIT_JUDGE_MAX_ATTEMPTS"):
        RetryPolicy.from_env()
    monkeypatch.setenv("EVALKIT_JUDGE_MAX_ATTEMPTS", "0")
    with pytest.raises(InputError, match="max_attempts"):
        RetryPolicy.from_env()
