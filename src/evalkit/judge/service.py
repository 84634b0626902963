"""`JudgeService`: the one way criteria call judge models.

Each request goes: disk cache → global concurrency gate → backend, retried within
the policy's budget → disk cache. One service lives for one run, owns one client
per backend family, and counts what the judges cost.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from evalkit.foundation.concurrency import AUTO, AdaptiveLimit, Held, JobsSetting
from evalkit.foundation.overloads import OVERLOAD_STATUSES
from evalkit.defaults import DEFAULT_JUDGE_JOBS
from evalkit.errors import JudgeError
from evalkit.foundation.registry import PluginLoadError
from evalkit.judge.backends import JUDGE_BACKENDS
from evalkit.judge.base import OPENAI_PREFIX, JudgeBackend, JudgeUnavailable, TransientJudgeError
from evalkit.judge.cache import JudgeCache
from evalkit.judge.endpoints import JudgeEndpoints
from evalkit.judge.retry import RetryPolicy, call_with_retries
from evalkit.schema.judging import JudgeReply, JudgeRequest, MediaNotReadable
from evalkit.schema.results import JudgeStatistics

logger = logging.getLogger(__name__)


# What the judges of one run did and cost: the result file's typed `judge` statistics.
JudgeStats = JudgeStatistics


class JudgeService:
    def __init__(
        self,
        *,
        max_concurrency: JobsSetting = DEFAULT_JUDGE_JOBS,
        use_cache: bool = True,
        cache_dir: Path | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        endpoints: JudgeEndpoints = JudgeEndpoints(),
        on_usage: Callable[[str, int | None, int | None], None] | None = None,
    ):
        if max_concurrency != AUTO and int(max_concurrency) < 1:
            raise ValueError("max_concurrency must be at least 1 or 'auto'")
        self.max_concurrency = max_concurrency
        self.retry_policy = retry if retry is not None else RetryPolicy.from_env()
        self.endpoints = endpoints  # the judges' own servers, if not where the model variables point
        self._on_usage = on_usage  # each model's reply and its tokens, as it comes (a run's budget: engine/budget.py)
        self._cache = JudgeCache(cache_dir) if use_cache else None
        self._limits: dict[str, AdaptiveLimit] = {}  # one budget of calls in flight per endpoint
        self._backends: dict[str, JudgeBackend] = {}
        self._rng = random.Random()
        self._sleep = sleep  # the wait between a judge call's attempts (a test's clock in tests)
        self._stats = JudgeStatistics()
        # Circuit breaker: endpoint → the failure that showed it cannot answer this run.
        self._unavailable: dict[str, JudgeUnavailable] = {}
        # The first call to an endpoint goes alone, so a dead one costs one call, not one per task.
        self._probes: dict[str, asyncio.Lock] = {}
        self._answered: set[str] = set()

    @property
    def stats(self) -> JudgeStats:
        return self._stats

    def limit_for(self, endpoint: str) -> AdaptiveLimit:
        limit = self._limits.get(endpoint)
        if limit is None:
            limit = self._limits[endpoint] = AdaptiveLimit(self.max_concurrency)
        return limit

    def concurrency(self) -> dict[str, dict]:
        """Per judge endpoint: the calls-in-flight figures (`--judge-jobs`)."""
        return {endpoint: limit.summary() for endpoint, limit in self._limits.items()}

    @property
    def cache_path(self) -> Path | None:
        return self._cache.path if self._cache is not None else None

    def _backend_for(self, model: str) -> JudgeBackend:
        family = _family(model)
        backend = self._backends.get(family)
        if backend is None:
            backend = self._backends[family] = _new_backend(family, self.endpoints)
        return backend

    async def generate(self, request: JudgeRequest) -> JudgeReply:
        """The judge's reply to `request`; JudgeError once the retry budget is spent."""
        stats = self._stats
        stats.requests += 1
        if request.media:
            _refuse_unreadable(self._backend_for(request.model), request)
        if self._cache is not None:
            cached = await self._cache.get(request)
            if cached is not None:
                stats.cache_hits += 1
                return cached

        backend = self._backend_for(request.model)
        endpoint = _describe(backend, request.model)
        if endpoint not in self._answered:
            async with self._probes.setdefault(endpoint, asyncio.Lock()):
                if endpoint not in self._answered:
                    try:
                        return await self._call(backend, endpoint, request)
                    finally:  # the waiting calls go next, all at once (or fail at once if it is down)
                        self._answered.add(endpoint)
        return await self._call(backend, endpoint, request)

    async def _call(self, backend: JudgeBackend, endpoint: str, request: JudgeRequest) -> JudgeReply:
        stats = self._stats
        broken = self._unavailable.get(endpoint)
        if broken is not None:
            stats.failures += 1
            raise broken
        start = getattr(backend, "start", None)
        if start is not None:
            try:
                await start()
            except JudgeError as failure:
                self._open_circuit(endpoint, failure)
                stats.failures += 1
                raise

        def count_attempt() -> None:
            stats.calls += 1

        def count_retry(reason: str, delay: float) -> None:
            stats.retries += 1
            logger.info("judge %s: %s; retrying in %.2f s", endpoint, reason, delay)

        gate = Held(self.limit_for(endpoint))

        def note_overload(error: TransientJudgeError) -> None:
            if error.status in OVERLOAD_STATUSES:  # a Retry-After within the policy's cap, as retries wait
                wait = None if error.retry_after is None else min(error.retry_after, self.retry_policy.max_delay)
                gate.overloaded(wait)

        try:
            reply = await call_with_retries(
                lambda: backend.generate(request),
                self.retry_policy,
                endpoint=endpoint,
                gate=gate,
                on_attempt=count_attempt,
                on_retry=count_retry,
                on_transient=note_overload,
                rng=self._rng,
                sleep=self._sleep,
            )
        except JudgeError as failure:
            self._open_circuit(endpoint, failure)
            stats.failures += 1
            raise
        stats.input_tokens += reply.input_tokens or 0
        stats.output_tokens += reply.output_tokens or 0
        if self._on_usage is not None:
            self._on_usage(request.model, reply.input_tokens, reply.output_tokens)
        # An empty reply is a failure to answer, not an answer: keep it out of the cache so
        # a rerun asks again instead of failing the same way forever.
        if self._cache is not None and reply.text.strip():
            await self._cache.put(request, reply)
        return reply

    def _open_circuit(self, endpoint: str, failure: JudgeError) -> None:
        """After a failure that cannot heal, later calls to `endpoint` fail at once with the same reason."""
        if isinstance(failure, JudgeUnavailable):
            self._unavailable.setdefault(endpoint, failure)

    async def aclose(self) -> None:
        backends, self._backends = list(self._backends.values()), {}
        for backend in backends:
            try:
                await backend.aclose()
            except Exception as error:  # closing must not hide the run's own outcome
                logger.debug("closing judge backend failed: %s", error)
        if self._cache is not None:
            await asyncio.to_thread(self._cache.close)

    async def __aenter__(self) -> JudgeService:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()


def _refuse_unreadable(backend: JudgeBackend, request: JudgeRequest) -> None:
    """MediaNotReadable if the backend cannot send one of the request's media (a backend that does not say, none)."""
    can_read = getattr(backend, "can_read", None)
    for part in request.media:
        if can_read is None or not can_read(part.mime_type):
            raise MediaNotReadable(f"judge {request.model} cannot read {part.mime_type}")


def _describe(backend: JudgeBackend, model: str) -> str:
    describe = getattr(backend, "describe_endpoint", None)
    return describe(model) if describe is not None else model


def _family(model: str) -> str:
    """Which backend serves a model: `openai/...`, a registered or plug-in `PREFIX/...`, else Gemini.

    Plug-ins (entry point group `evalkit.judges`, named by their prefix) are looked up
    only for a prefix that is not built in.
    """
    if model.startswith(OPENAI_PREFIX):
        return "openai"
    prefix, sep, _ = model.partition("/")
    if sep and prefix in JUDGE_BACKENDS:
        return prefix
    return "gemini"


def _new_backend(family: str, endpoints: JudgeEndpoints) -> JudgeBackend:
    try:
        backend = JUDGE_BACKENDS.require(family)()
        use_endpoints = getattr(backend, "use_endpoints", None)  # evalkit's own backends: the run's judge servers
        if use_endpoints is not None:
            use_endpoints(endpoints)
        return backend
    except PluginLoadError as error:
        raise JudgeError(f"judge {family}/...: {error.reason}") from None
    except Exception as error:
        raise JudgeError(f"judge {family}/...: its backend could not be made: {type(error).__name__}: {error}") from None
