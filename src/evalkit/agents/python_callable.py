"""A plain Python function as the agent: `fn(turn)` or `async fn(turn)`.

Sync functions run on daemon threads, at most `max_threads` at once, so a slow agent
does not stall other cases, and a turn abandoned after `--timeout` (or Ctrl-C) cannot
keep the process alive: Python would wait for a pool thread at exit, not for a daemon.
"""

from __future__ import annotations

import asyncio
import inspect
import contextvars
import threading
from typing import Any
from collections.abc import Callable

from evalkit.agents.turn_protocol import Turn, TurnProtocolAgent
from evalkit.defaults import DEFAULT_JOBS
from evalkit.foundation.concurrency import most_in_flight
from evalkit.errors import AgentError
from evalkit.schema.content import Content


class CallableAgent(TurnProtocolAgent):
    shares_state = True  # `turn.state` is the session's dict: the agent's changes are seen

    def __init__(self, fn: Callable[[Turn], Any], name: str, max_threads: int = most_in_flight(DEFAULT_JOBS)):
        self.fn = fn
        self.description = name
        self._is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
            getattr(fn, "__call__", None)  # noqa: B004  (an object whose __call__ is async)
        )
        self._max_threads = max_threads
        self._slots: asyncio.Semaphore | None = None

    def content_for_agent(self, content: Content) -> dict[str, Any]:
        """genai-shaped, in this process: media as `inline_data` holding the bytes themselves (a
        `file_data` part's file read into it), one kind of data per part as genai allows."""
        return content.for_model().model_dump(exclude_none=True)

    async def send(self, turn: Turn, where: str) -> Any:
        try:
            if self._is_async:
                return await self.fn(turn)
            return await self._in_daemon_thread(turn)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the agent's own bug: report it, keep the run going
            raise AgentError(f"{where}: the agent raised {type(error).__name__}: {error}") from error

    async def _in_daemon_thread(self, turn: Turn) -> Any:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self._max_threads)
        async with self._slots:
            loop = asyncio.get_running_loop()
            future: asyncio.Future[Any] = loop.create_future()

            def settle(outcome: Any, failed: bool) -> None:
                if not future.done():
                    future.set_exception(outcome) if failed else future.set_result(outcome)

            def work() -> None:
                try:
                    outcome, failed = self.fn(turn), False
                except BaseException as error:  # handed to the awaiting task, raised there
                    outcome, failed = error, True
                if not loop.is_closed():
                    loop.call_soon_threadsafe(settle, outcome, failed)

            # In the turn's context (its trace under `run --otel`), as asyncio.to_thread would run it.
            threading.Thread(target=contextvars.copy_context().run, args=(work,), name="evalkit-agent",
                             daemon=True).start()
            return await future
