"""`cmd:COMMAND`: an agent in any language, speaking JSON lines on stdin/stdout.

Each turn is one request line (`Turn.to_json()`) answered by one reply line. After a
case the process receives `{"type": "end_session", "session_id": …}` and must not
answer it. Processes are long-lived and serve many sessions one after another, so
they must key their memory by `session_id`.

A session holds one process for its whole life: the process keeps that session's
memory, and no other session's turns interleave with it. The pool may grow to `--jobs`
processes (the most cases in flight), but starts them lazily (see `WorkerPool`).
The command line is split like a POSIX shell does, but no shell runs.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
from dataclasses import dataclass
from typing import Any

from evalkit.agents.base import AgentSession, SessionSpec
from evalkit.agents.turn_protocol import Turn, TurnProtocolAgent, TurnProtocolSession
from evalkit.agents.worker_pool import AgentProcess, WorkerPool
from evalkit.defaults import DEFAULT_JOBS
from evalkit.foundation.concurrency import most_in_flight
from evalkit.errors import AgentError, AgentLoadError
from evalkit.foundation.trace_context import traceparent

# A process that exits this soon after it started, before any process of the agent has
# answered a turn, cannot start at all: the run stops (exit 2) instead of failing every case.
START_UP_CHECK_S = 1.0


def split_command(command_line: str) -> list[str]:
    """The argv for `cmd:COMMAND`, checked before anything runs (a bad one is exit 2)."""
    where = f"cmd:{command_line}"
    try:
        argv = shlex.split(command_line)
    except ValueError as error:
        raise AgentLoadError(where, f"cannot split the command line: {error}") from None
    if not argv:
        raise AgentLoadError(where, "no command given")
    if shutil.which(argv[0]) is None:
        raise AgentLoadError(where, f"command not found or not executable: {argv[0]}")
    return argv


def _agent_environment() -> dict[str, str]:
    # A Python agent that prints without flushing would otherwise sit on its reply in a
    # block buffer (stdout is a pipe) and every turn would time out.
    return {**os.environ, "PYTHONUNBUFFERED": os.environ.get("PYTHONUNBUFFERED", "1")}


@dataclass
class _Lease:
    worker: AgentProcess
    sessions: int = 0  # sessions open under this id (a case may fix its own session_id)


class SubprocessAgent(TurnProtocolAgent):
    def __init__(self, command_line: str, workers: int = most_in_flight(DEFAULT_JOBS)):
        self.command_line = command_line
        self.description = f"cmd:{command_line}"
        self.argv = split_command(command_line)
        self.workers = max(1, workers)
        self._pool = WorkerPool(self.argv, size=self.workers, env=_agent_environment())
        self._leases: dict[str, _Lease] = {}
        self._answered = asyncio.Event()  # some process has answered a turn: the command starts fine

    @property
    def process_count(self) -> int:
        """Agent processes running now (for tests and diagnostics)."""
        return self._pool.process_count

    @property
    def processes_started(self) -> int:
        """Agent processes started so far, replacements included (the pool starts them lazily)."""
        return self._pool.started

    async def open_session(self, spec: SessionSpec) -> AgentSession:
        lease = self._leases.get(spec.session_id)
        if lease is None:
            worker = await self._start_or_reuse(spec)
            lease = self._leases.get(spec.session_id)  # another case with this id may have won
            if lease is None:
                lease = self._leases[spec.session_id] = _Lease(worker)
            else:
                await self._pool.release(worker)
        lease.sessions += 1
        return TurnProtocolSession(self, spec)

    async def _start_or_reuse(self, spec: SessionSpec) -> AgentProcess:
        try:
            return await self._pool.acquire()
        except OSError as error:
            raise AgentError(f"case {spec.case.eval_id!r}: cannot start {self.argv[0]}: {error}") from None

    async def send(self, turn: Turn, where: str) -> Any:
        lease = self._leases.get(turn.session_id)
        if lease is None:
            raise AgentError(f"{where}: session {turn.session_id!r} is not open")
        line = turn.to_json()
        if (trace := traceparent()) is not None:  # run --otel: the turn's trace, for the agent to continue
            line["traceparent"] = trace
        reply = await lease.worker.request(line, where)
        self._answered.set()
        return reply

    async def check_ready(self) -> None:
        """Start one process and watch it: one that exits at once is exit 2, one message, before any case counts."""
        try:
            worker = await AgentProcess.start(self.argv, self._pool.env)
        except OSError as error:
            raise AgentLoadError(self.description, f"cannot start {self.argv[0]}: {error}") from None
        self._pool.watch(worker)  # a run stopped meanwhile (Ctrl-C) still reaps it: aclose()
        exited = await worker.exits_within(START_UP_CHECK_S, unless=self._answered)
        if not exited:
            await self._pool.adopt(worker)
            return
        reason = await worker.exit_reason()
        raise AgentLoadError(self.description, "it stopped as soon as it started, before any case ran: "
                             f"{reason}; run `{self.command_line}` by hand to see why, and fix it "
                             "(a cmd: agent reads turns on stdin until stdin closes: docs/agents.md)")

    def serving_process(self, session_id: str) -> int | None:
        lease = self._leases.get(session_id)
        return lease.worker.pid if lease is not None else None

    async def end_session(self, session_id: str) -> None:
        lease = self._leases.get(session_id)
        if lease is None:
            return
        lease.sessions -= 1
        if lease.sessions > 0:
            return
        del self._leases[session_id]
        try:
            await lease.worker.notify({"type": "end_session", "session_id": session_id})
        finally:
            await self._pool.release(lease.worker)

    async def aclose(self) -> None:
        self._leases.clear()
        await self._pool.aclose()
