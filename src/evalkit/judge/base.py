"""The judge protocol: how a `JudgeService` reaches judge models of one family (`JudgeBackend`).

Criteria never build a model client. They hand a `JudgeRequest` to the run's judge (a
`JudgeService`), which picks a `JudgeBackend` by the model name, and get a `JudgeReply`;
the request and the reply are defined with the criteria's view of a judge in
`evalkit.schema.judging`, so that criteria need nothing of this package.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from evalkit.errors import JudgeError
from evalkit.schema.judging import JudgeReply, JudgeRequest

__all__ = ["OPENAI_PREFIX", "JudgeBackend", "JudgeReply", "JudgeRequest", "JudgeUnavailable", "TransientJudgeError",
           "config_dict"]

#: Model names starting with this prefix go to an OpenAI-compatible server.
OPENAI_PREFIX = "openai/"


def config_dict(config: Any) -> dict[str, Any]:
    """A request's config as a plain dict; a pydantic config model is accepted too."""
    if config is None:
        return {}
    if isinstance(config, Mapping):
        return dict(config)
    if hasattr(config, "model_dump"):
        return dict(config.model_dump(exclude_none=True))
    raise TypeError(f"judge config must be a mapping, not {type(config).__name__}")


class TransientJudgeError(JudgeError):
    """A judge call failed in a way that may succeed if tried again.

    429, 408 and 5xx replies, timeouts, refused or dropped connections and garbled
    bodies. `retry_after` is the server's `Retry-After` in seconds, when it sent one.
    `reason` is short and already free of credentials.
    """

    def __init__(self, reason: str, *, retry_after: float | None = None, status: int | None = None):
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.status = status  # the HTTP status, when the server answered with one


class JudgeUnavailable(JudgeError):
    """The judge endpoint cannot answer during this run, however often it is asked.

    Unreachable (DNS failure, connection refused), credentials refused (401, 403), an
    unknown model (404), or a client that cannot be set up. `JudgeService` stops
    calling that endpoint after the first one: see docs/criteria.md, "LLM-judge criteria".
    """


@runtime_checkable
class JudgeBackend(Protocol):
    """A way to reach judge models of one family.

    `generate` makes exactly one attempt: it raises `TransientJudgeError` for
    failures worth retrying and `JudgeError` for the others. Retries, caching and
    concurrency limits belong to `JudgeService`, not to backends.

    Backends may also define `async start()` (slow one-time setup, run before the
    first attempt so it does not eat into the attempt timeout) and
    `describe_endpoint(model) -> str` (where calls go, for error messages; never
    holding a key); evalkit's own backends also take `use_endpoints(endpoints)`, the
    run's judge servers (judge/endpoints.py). `JudgeService` uses them when present.

    A backend that can show its model media (`request.media`) says which types with
    `can_read(mime_type) -> bool`; the service never hands it a request holding another
    type (the criterion is `not_evaluated` instead), and a backend without `can_read` is
    never handed media at all.
    """

    async def generate(self, request: JudgeRequest) -> JudgeReply: ...

    async def aclose(self) -> None: ...
