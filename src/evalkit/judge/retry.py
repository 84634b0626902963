"""Retrying judge calls: exponential backoff with full jitter, within a fixed budget.

A judge that is down must end the run in bounded time, so every call gets at most
`max_attempts` attempts of at most `attempt_timeout` seconds each, and waits between
them are capped by `max_delay` (also when a server asks for a longer `Retry-After`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, fields
from email.utils import parsedate_to_datetime
from datetime import datetime, timezone
from typing import TypeVar

from evalkit.errors import InputError, JudgeError
from evalkit.judge.base import TransientJudgeError

T = TypeVar("T")

#: Environment variables that override the defaults, by RetryPolicy field.
ENV_OVERRIDES = {
    "max_attempts": "EVALKIT_JUDGE_MAX_ATTEMPTS",
    "attempt_timeout": "EVALKIT_JUDGE_TIMEOUT",
    "base_delay": "EVALKIT_JUDGE_RETRY_BASE_DELAY",
    "max_delay": "EVALKIT_JUDGE_RETRY_MAX_DELAY",
}

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

    max_attempts: int = 5
    attempt_timeout: float = 60.0
    base_delay: float = 1.0
    max_delay: float = 60.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.attempt_timeout <= 0:
            raise ValueError("attempt_timeout must be positive")
        if self.base_delay < 0 or self.max_delay < 0:
            raise ValueError("retry delays must not be negative")

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> RetryPolicy:
        """The defaults, overridden by the EVALKIT_JUDGE_* variables that are set."""
        env = os.environ if environ is None else environ
        values: dict[str, float | int] = {}
        for field in fields(cls):
            name = ENV_OVERRIDES[field.name]
            raw = env.get(name, "").strip()
            if not raw:
                continue
            try:
                values[field.name] = int(raw) if field.name == "max_attempts" else float(raw)
            except ValueError:
                raise InputError(f"{name}={raw!r}: not a number") from None
        try:
            return cls(**values)  # type: ignore[arg-type]
        except ValueError as error:
            raise InputError(f"judge retry settings: {error}") from None

    def delay_before_retry(
        self, retry_number: int, retry_after: float | None, rng: random.Random
    ) -> float:
        """Seconds to wait before retry `retry_number` (1 for the first retry)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay)
        ceiling = min(self.max_delay, self.base_delay * 2 ** (retry_number - 1))
        return rng.uniform(0.0, ceiling)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a `Retry-After` header: delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max((when - datetime.now(timezone.utc)).total_seconds(), 0.0)


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
) -> T:
    """Run `attempt` until it succeeds, fails for good, or the budget is spent.

    `gate` (a semaphore) is held during each attempt only, never while waiting to
    retry, so a backing-off call does not take a slot from calls that could run.
    The per-attempt timeout starts once the gate is passed. `TransientJudgeError`
    and timeouts are retried; any other `JudgeError` is raised at once. `on_transient`
    sees each transient failure while the gate is still held. After the
    last attempt a `JudgeError` names `endpoint` and the last reason.
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
        await asyncio.sleep(delay)
    attempts = "attempt" if policy.max_attempts == 1 else "attempts"
    raise JudgeError(
        f"judge {endpoint} failed after {policy.max_attempts} {attempts}: {last_reason}"
    )
