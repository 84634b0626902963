"""A plain Python function as the agent: `fn(turn)` or `async fn(turn)`.

Sync functions run in a thread pool sized to `--jobs`, so a slow or blocking agent
does not stall the other cases.
"""

from __future__ import annotations

import asyncio
import inspect
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from evalkit.agents.turn_protocol import Turn, TurnProtocolAgent
from evalkit.errors import AgentError


class CallableAgent(TurnProtocolAgent):
    def __init__(self, fn: Callable[[Turn], Any], name: str, max_threads: int = 8):
        self.fn = fn
        self.description = name
        self._is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
            getattr(fn, "__call__", None)
        )
        self._pool = None if self._is_async else ThreadPoolExecutor(max_workers=max_threads, thread_name_prefix="agent")

    async def send(self, turn: Turn, where: str) -> Any:
        try:
            if self._is_async:
                return await self.fn(turn)
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._pool, self.fn, turn)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the agent's own bug: report it, keep the run going
            raise AgentError(f"{where}: the agent raised {type(error).__name__}: {error}") from error

    async def aclose(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
