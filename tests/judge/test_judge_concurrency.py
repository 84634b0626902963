"""The global limit on judge calls in flight, measured where it matters: at the server."""

from __future__ import annotations

import asyncio

from evalkit.judge import JudgeRequest, JudgeService
from evalkit.testing import FakeGemini

MODEL = "gemini-2.5-flash"


async def _flood(service: JudgeService, count: int) -> None:
    async with service:
        await asyncio.gather(*(service.generate(JudgeRequest(MODEL, f"prompt {i}")) for i in range(count)))


async def test_global_limit_holds_at_the_server(fake_gemini: FakeGemini, fast_retry) -> None:
    fake_gemini.latency = 0.05
    await _flood(JudgeService(max_concurrency=4, use_cache=False, retry=fast_retry), 40)
    assert fake_gemini.call_count == 40
    assert fake_gemini.max_in_flight == 4  # reached, never exceeded


async def test_limit_holds_while_calls_are_retried(fake_gemini: FakeGemini, fast_retry) -> None:
    fake_gemini.latency = 0.02
    fake_gemini.fail_randomly(0.4, statuses=(503,), seed=3, at_most_in_a_row=4)
    service = JudgeService(max_concurrency=3, use_cache=False, retry=fast_retry)
    await _flood(service, 30)
    assert service.stats.retries > 0 and service.stats.failures == 0
    assert fake_gemini.max_in_flight == 3


async def test_limit_of_one_serialises_calls(fake_gemini: FakeGemini, fast_retry) -> None:
    fake_gemini.latency = 0.01
    await _flood(JudgeService(max_concurrency=1, use_cache=False, retry=fast_retry), 8)
    assert fake_gemini.max_in_flight == 1
