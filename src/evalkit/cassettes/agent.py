"""The agent under test, wrapped so the proxy knows which case each model call belongs to.

`CassetteAgent` delegates everything to the real agent and tells the `CassetteDeck`
when a case starts, which user message each turn sends (how the proxy tells
concurrent cases apart: evalkit.cassettes.routing) and when the case finishes (when
its cassette is written). A turn during which the proxy could not replay a model call
fails with the proxy's explanation, whatever the agent made of the 404 it got.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING, Any

from evalkit.agents.base import Agent, AgentSession, SessionSpec
from evalkit.cassettes.deck import CassetteDeck
from evalkit.cassettes.routing import CaseState
from evalkit.cassettes.tool_calls import RUNNING_CASE, CaseTools
from evalkit.errors import AgentError
from evalkit.schema.content import Content, content_text
from evalkit.schema.coverage import Inventory
from evalkit.schema.evalset import Invocation

if TYPE_CHECKING:
    from evalkit.cassettes.model_layer import InProcessModels


class CassetteAgent(Agent):
    def __init__(self, inner: Agent, deck: CassetteDeck, in_process: InProcessModels | None = None):
        self.inner = inner
        self.deck = deck
        self.in_process = in_process  # an in-process ADK agent's models, answered without HTTP
        self.description = inner.description

    async def open_session(self, spec: SessionSpec) -> AgentSession:
        if self.in_process is not None:
            self.in_process.attach()  # in the run's event loop, where ADK builds its models
        key, state = self.deck.open_case(spec.eval_set_id, spec.case.eval_id)
        try:
            session = await self.inner.open_session(spec)
        except BaseException:
            self.deck.close_case(key, save=False)
            raise
        # An in-process ADK agent's tool calls are recorded beside its model calls (tool_calls).
        tools = CaseTools(state, self.deck.mode) if self.in_process is not None else None
        return CassetteSession(session, self.deck, key, state, tools)

    async def check_ready(self) -> None:
        await self.inner.check_ready()

    async def inventory(self) -> Inventory | None:
        return await self.inner.inventory()

    async def aclose(self) -> None:
        await self.inner.aclose()


class CassetteSession(AgentSession):
    def __init__(self, inner: AgentSession, deck: CassetteDeck, key: str, state: CaseState, tools: CaseTools | None):
        self.inner = inner
        self.deck = deck
        self.key = key
        self.state = state
        self.tools = tools
        self.no_state_reason = inner.no_state_reason

    async def run_turn(self, user_content: Content, index: int) -> Invocation:
        self.deck.tracker.user_turn(self.key, index + 1, content_text(user_content))
        # The agent's tool calls and MCP listings find their case through this (tool_calls.RUNNING_CASE).
        running = RUNNING_CASE.set(self.tools)
        try:
            invocation = await self.inner.run_turn(user_content, index)
        except Exception:
            self._raise_miss()
            raise
        finally:
            RUNNING_CASE.reset(running)
        self._raise_miss()
        return invocation

    def recorded_turns(self) -> list[Invocation] | None:
        return self.inner.recorded_turns()

    @property
    def serving_process(self) -> int | None:
        return self.inner.serving_process

    def unmatched_tool_calls(self) -> list[dict[str, Any]]:
        return self.inner.unmatched_tool_calls()

    def tool_calls(self) -> list[dict[str, Any]]:
        return self.inner.tool_calls()

    async def final_state(self) -> dict[str, Any] | None:
        return await self.inner.final_state()

    def exercised(self) -> dict[str, Any] | None:
        return self.inner.exercised()

    def _raise_miss(self) -> None:
        if self.state.misses:
            raise AgentError(self.state.misses[0]) from None

    async def close(self) -> None:
        interrupted = _being_cancelled()
        try:
            await self.inner.close()
        finally:
            # A case cut short by Ctrl-C keeps its old cassette: only finished cases are written.
            self.deck.close_case(self.key, save=not interrupted)


def _being_cancelled() -> bool:
    """Whether the running task is being cancelled (Ctrl-C, SIGTERM), from the `finally` that closes a session.

    Python 3.10 has no `Task.cancelling()`; there, the CancelledError under way says it.
    """
    if sys.version_info >= (3, 11):
        task = asyncio.current_task()
        return task is not None and task.cancelling() > 0
    return isinstance(sys.exc_info()[1], asyncio.CancelledError)
