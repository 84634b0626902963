"""Overload signals: recognising 429/503/RESOURCE_EXHAUSTED in failures, and a hook for a model proxy.

The runner asks `overload_of` whether a failed case failed because the agent's side was
saturated (then the case runs again and the level backs off, see
`evalkit.foundation.concurrency`). Code between the agent and its model, which sees the
model's 429s itself, calls `report_upstream_overload` (docs/agents.md).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evalkit.foundation.concurrency import AdaptiveLimit

#: HTTP statuses that mean "too much at once": the agent's model or server is saturated.
OVERLOAD_STATUSES = frozenset({429, 503})
_OVERLOAD_WORDS = ("RESOURCE_EXHAUSTED", "429 Too Many Requests", "Too Many Requests")


@dataclass(frozen=True)
class Overload:
    """A sign that the agent's side is saturated, and how long it asked us to wait."""

    retry_after: float | None = None


# -- recognising overloads ----------------------------------------------------------------


def overload_of(error: BaseException | None) -> Overload | None:
    """An overload signal in `error` or its causes: 429/503 statuses, RESOURCE_EXHAUSTED.

    Reads the attributes the common clients set (httpx's `response.status_code`,
    google-genai's `code`/`status`, evalkit's `AgentOverloaded`) and, as a last resort,
    the message text, which is all a subprocess agent's failure carries.
    """
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        found = _overload_in(error)
        if found is not None:
            return found
        error = error.__cause__ or error.__context__
    return None


def _overload_in(error: BaseException) -> Overload | None:
    from evalkit.errors import AgentOverloaded

    if isinstance(error, AgentOverloaded):
        return Overload(error.retry_after)
    response = getattr(error, "response", None)
    for status in (getattr(error, "status_code", None), getattr(error, "code", None),
                   getattr(response, "status_code", None)):
        if isinstance(status, int) and status in OVERLOAD_STATUSES:
            return Overload(_retry_after_header(response))
    if getattr(error, "status", None) == "RESOURCE_EXHAUSTED" or any(w in str(error) for w in _OVERLOAD_WORDS):
        return Overload(_retry_after_header(response))
    return None


def _retry_after_header(response: object) -> float | None:
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    from evalkit.foundation.retry_after import parse_retry_after

    try:
        return parse_retry_after(headers.get("retry-after"))
    except Exception:  # a response object of an unknown shape
        return None


# -- the hook for the model proxy ---------------------------------------------------------


@dataclass
class _Listener:
    limit: AdaptiveLimit
    loop: asyncio.AbstractEventLoop


_listeners: list[_Listener] = []
_listeners_lock = threading.Lock()


def listen_for_upstream_overloads(limit: AdaptiveLimit) -> Callable[[], None]:
    """Route `report_upstream_overload` to `limit` (on the running loop); returns the undo."""
    listener = _Listener(limit, asyncio.get_running_loop())
    with _listeners_lock:
        _listeners.append(listener)

    def stop() -> None:
        with _listeners_lock:
            if listener in _listeners:
                _listeners.remove(listener)

    return stop


def report_upstream_overload(retry_after: float | None = None) -> int:
    """Tell the running cases' controller that the agent's model answered 429/503.

    For code that sits between the agent and its model (the model proxy): call it from
    any thread whenever the upstream model answers 429, 503 or RESOURCE_EXHAUSTED, with
    the `Retry-After` seconds if it sent them. Returns how many runs were told.
    """
    with _listeners_lock:
        listeners = list(_listeners)
    for listener in listeners:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is listener.loop:
            listener.limit.overloaded(None, retry_after)
        elif not listener.loop.is_closed():
            listener.loop.call_soon_threadsafe(listener.limit.overloaded, None, retry_after)
    return len(listeners)
