"""Retrying judge calls: exponential backoff with full jitter, within a fixed budget.

A judge that is down must end the run in bounded time, so every call gets at most
`max_attempts` attempts of at most `attempt_timeout` seconds each, and waits between
them are capped by `max_delay` (also when a server asks for a longer `Retry-After`).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TypeVar

from evalkit.errors import JudgeError
from evalkit.defaults import (DEFAULT_JUDGE_ATTEMPT_TIMEOUT_S, DEFAULT_JUDGE_MAX_ATTEMPTS,
                               DEFAULT_JUDGE_RETRY_BASE_DELAY_S, DEFAULT_JUDGE_RETRY_MAX_DELAY_S)
from evalkit.judge.base import TransientJudgeError
from evalkit.settings import Environment

T = TypeVar("T")

#: HTTP statuses worth another attempt: rate limits, request timeouts, server errors.
RETRYABLE_STATUSES = frozenset({408, 429}) | frozenset(range(500, 600))


#: HTTP statuses that will not change during a run: bad credentials, an unknown model.
PERMANENT_STATUSES = frozenset({401, 403, 404})


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUSES


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try one judge call.

    The n-th retry waits a random time in [0, min(max_delay, base_delay * 2**(n-1))]
    ("full jitter", which spreads out callers that failed together), or the server's
    `Retry-After` capped at `max_delay` when it sent one.
    """

    max_attempts: int = DEFAULT_JUDGE_MAX_ATTEMPTS
    attempt_timeout: float = DEFAULT_JUDGE_ATTEMPT_TIMEOUT_S
    base_delay: float = DEFAULT_JUDGE_RETRY_BASE_DELAY_S
    max_delay: float = DEFAULT_JUDGE_RETRY_MAX_DELAY_S

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.attempt_timeout <= 0:
            raise ValueError("attempt_timeout must be positive")
        if self.base_delay < 0 or self.max_delay < 0:
            raise ValueError("retry delays must not be negative")

    @classmethod
    def of(cls, environment: Environment) -> RetryPolicy:
        """The policy the EVALKIT_JUDGE_* variables ask for (read by `evalkit.settings.Environment`)."""
        return cls(max_attempts=environment.judge_max_attempts, attempt_timeout=environment.judge_timeout,
                   base_delay=environment.judge_retry_base_delay, max_delay=environment.judge_retry_max_delay)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RetryPolicy:
        """The policy of the process's environment (or of `environ`)."""
        return cls.of(Environment.read(environ))

    def delay_before_retry(
        self, retry_number: int, retry_after: float | None, rng: random.Random
    ) -> float:
        """Seconds to wait before retry `retry_number` (1 for the first retry)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay)
        ceiling = min(self.max_delay, self.base_delay * 2 ** (retry_number - 1))
        return rng.uniform(0.0, ceiling)


async def call_with_retries(
    attempt: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    endpoint: str,
    gate: AbstractAsyncContextManager[object] | None = None,
    on_attempt: Callable[[], None] | None = None,
    on_retry: Callable[[str, float], None] | None = None,
    on_transient: Callable[[TransientJudgeError], None] | None = None,
    rng: random.Random | None = None,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
) -> T:
    """Run `attempt` until it succeeds, fails for good, or the budget is spent.

    `gate` (a semaphore) is held during each attempt only, never while waiting to
    retry, so a backing-off call does not take a slot from calls that could run.
    The per-attempt timeout starts once the gate is passed. `TransientJudgeError`
    and timeouts are retried; any other `JudgeError` is raised at once. `on_transient`
    sees each transient failure while the gate is still held. After the
    last attempt a `JudgeError` names `endpoint` and the last reason. `sleep` waits
    between attempts (tests pass a clock of their own).
    """
    rng = rng or random.Random()
    last_reason = "no attempt made"
    for attempt_number in range(1, policy.max_attempts + 1):
        retry_after: float | None = None
        async with gate if gate is not None else contextlib.nullcontext():
            if on_attempt is not None:
                on_attempt()
            try:
                return await asyncio.wait_for(attempt(), policy.attempt_timeout)
            except asyncio.TimeoutError:
                last_reason = f"no reply within {policy.attempt_timeout:g} s"
            except TransientJudgeError as error:
                last_reason = error.reason
                retry_after = error.retry_after
                if on_transient is not None:
                    on_transient(error)
        if attempt_number == policy.max_attempts:
            break
        delay = policy.delay_before_retry(attempt_number, retry_after, rng)
        if on_retry is not None:
            on_retry(last_reason, delay)
        await sleep(delay)
    attempts = "attempt" if policy.max_attempts == 1 else "attempts"
    raise JudgeError(
        f"judge {endpoint} failed after {policy.max_attempts} {attempts}: {last_reason}"
    )
