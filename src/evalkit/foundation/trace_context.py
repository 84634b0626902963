"""The W3C trace context of the agent turn in flight (`traceparent`), for adapters to pass on.

With `run --otel`, each turn runs under a trace of its own (evalkit.telemetry): the run
sets `TURN_TRACE` around the turn, and an adapter that speaks to its agent over a wire
sends `traceparent()` with the request (an HTTP header, a field of a `cmd:` turn line).
Without `--otel` nothing is set and adapters send nothing. A context variable, so each
case's task sees its own turn however many are in flight.
"""

from __future__ import annotations

import secrets
from contextvars import ContextVar
from dataclasses import dataclass

TRACEPARENT_HEADER = "traceparent"
SAMPLED = "01"


@dataclass(frozen=True)
class TurnTrace:
    """One turn's trace: its id and the id of the (unexported) span the agent's spans hang under."""

    trace_id: str  # 32 lowercase hex digits
    span_id: str  # 16 lowercase hex digits

    @classmethod
    def new(cls) -> TurnTrace:
        return cls(secrets.token_hex(16), secrets.token_hex(8))

    @property
    def traceparent(self) -> str:
        return f"00-{self.trace_id}-{self.span_id}-{SAMPLED}"


TURN_TRACE: ContextVar[TurnTrace | None] = ContextVar("evalkit_turn_trace", default=None)


def traceparent() -> str | None:
    """The `traceparent` value of the turn in flight here, or None outside a traced turn."""
    trace = TURN_TRACE.get()
    return trace.traceparent if trace is not None else None


def trace_headers() -> dict[str, str]:
    """The headers that carry the turn's trace on an HTTP request (none outside a traced turn)."""
    value = traceparent()
    return {TRACEPARENT_HEADER: value} if value else {}


async def send_turn_trace(request: object) -> None:
    """An httpx request hook: the turn's `traceparent` on every request made for it (an HTTP
    agent's turn, an ADK server's run, an A2A message and its polls)."""
    value = traceparent()
    if value:
        request.headers[TRACEPARENT_HEADER] = value  # type: ignore[attr-defined]  # an httpx.Request
