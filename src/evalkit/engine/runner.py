"""Run eval cases against the agent: cases concurrently, turns in order, each turn timed out.

A pool of workers pulls cases from a queue, so memory and task count stay flat however
many cases there are; an `AdaptiveLimit` (evalkit.foundation.concurrency) decides how many of them
hold a case at once: a fixed `--jobs N`, or `auto`, which follows the agent's
throughput and latency. A case that failed because the agent's side answered 429/503
(RESOURCE_EXHAUSTED) is not a result: the level backs off and the case runs again, from
a fresh session, up to `OVERLOAD_RERUNS` times. Each finished case is scored at once
and handed to `on_case_done`; nothing else about it is kept here.
"""

from __future__ import annotations

import asyncio
import time
import traceback
import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from evalkit.agents.base import Agent, AgentSession, SessionSpec
from evalkit.criteria.base import EvalContext
from evalkit.foundation.concurrency import AdaptiveLimit
from evalkit.foundation.overloads import Overload, listen_for_upstream_overloads, overload_of
from evalkit.engine.jobs import CaseJob
from evalkit.engine.scoring import score_case
from evalkit.errors import AgentError, AgentTimeout, EvalkitError
from evalkit.schema.case_extras import Exercised, SimulationEnd, ToolCallSource, UnmatchedToolCall
from evalkit.schema.content import Content
from evalkit.schema.evalset import EvalCase, Invocation
from evalkit.schema.results import CaseResult, InvocationRecord, Status, case_status
from evalkit.settings import RunSettings

if TYPE_CHECKING:
    from evalkit.cassettes.mcp_misses import MissWatch
    from evalkit.engine.budget import Ledger
    from evalkit.engine.telemetry import RunTelemetry
    from evalkit.judge.service import JudgeService
    from evalkit.telemetry.turn_spans import TracedTurn

OVERLOAD_RERUNS = 8  # a case rate-limited this many times in a row keeps its error


@dataclass
class _Attempt:
    result: CaseResult
    overload: Overload | None = None
    turn_latency: float | None = None  # mean seconds per agent turn, for the controller


@dataclass
class Runner:
    agent: Agent
    settings: RunSettings = field(default_factory=RunSettings)
    judge: JudgeService | None = None  # when any criterion or simulator needs one
    on_case_done: Callable[[CaseResult], None] | None = None
    limit: AdaptiveLimit | None = None  # made from settings.jobs unless given
    reruns: int = 0  # cases run again after an overload
    misses: MissWatch | None = None  # tool calls `evalkit mcp` could not answer, told by its stand-ins
    telemetry: RunTelemetry | None = None  # `--otel`: each turn traced, its spans read into it
    ledger: Ledger | None = None  # the run's budgets (engine/budget.py): asked before each case starts
    not_started: list[CaseJob] = field(default_factory=list)  # the jobs a reached budget kept from starting
    _traced: dict[int, tuple[SessionSpec, list[TracedTurn]]] = field(default_factory=dict)  # by id(session)

    def __post_init__(self) -> None:
        if self.limit is None:
            self.limit = AdaptiveLimit(self.settings.jobs)

    async def run(self, jobs: Iterable[CaseJob]) -> None:
        queue: asyncio.Queue[tuple[CaseJob, int]] = asyncio.Queue()
        for job in jobs:
            queue.put_nowait((job, 0))
        limit = self.limit
        assert limit is not None  # __post_init__ made one when none was given
        count = max(1, min(limit.maximum, queue.qsize()))
        stop_listening = listen_for_upstream_overloads(limit)
        workers = [asyncio.create_task(self._worker(queue)) for _ in range(count)]
        cancelled = False
        try:
            await asyncio.gather(*workers)
        except asyncio.CancelledError:
            cancelled = True
            raise
        finally:
            stop_listening()
            # Once is enough: when the run itself was cancelled (Ctrl-C, SIGTERM), gather has
            # already cancelled each worker, and a second cancel would cut short the clean-up
            # under way (closing sessions, reaping agent processes) before the loop closes.
            if not cancelled:
                for worker in workers:
                    worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)

    async def _worker(self, queue: asyncio.Queue[tuple[CaseJob, int]]) -> None:
        limit = self.limit
        assert limit is not None  # __post_init__ made one when none was given
        while not queue.empty():
            slot = await limit.acquire()
            if queue.empty():  # the others took the rest while this one waited
                limit.release(slot, completed=False)
                return
            job, reruns = queue.get_nowait()
            if self.ledger is not None and not self.ledger.may_start():  # the one place a case starts
                limit.release(slot, completed=False)
                self.not_started.append(job)
                while not queue.empty():
                    self.not_started.append(queue.get_nowait()[0])
                return
            try:
                attempt = await self._attempt(job)
            except BaseException:
                limit.release(slot, completed=False)
                raise
            if attempt.overload is not None and reruns < OVERLOAD_RERUNS:
                limit.overloaded(slot, attempt.overload.retry_after)
                limit.release(slot, completed=False)
                self.reruns += 1
                queue.put_nowait((job, reruns + 1))
                continue
            limit.release(slot, attempt.turn_latency)
            if self.on_case_done:
                self.on_case_done(attempt.result)

    async def run_case(self, job: CaseJob) -> CaseResult:
        return (await self._attempt(job)).result

    async def _attempt(self, job: CaseJob) -> _Attempt:
        started = time.perf_counter()
        job = job.unpacked()
        case = job.case
        assert isinstance(case, EvalCase)  # unpacked() above made it whole
        spec = SessionSpec.for_case(case, f"evalkit-{uuid.uuid4().hex[:12]}", eval_set_id=job.eval_set_id)
        if job.run_index and case.session_input and case.session_input.session_id:
            spec.session_id += f"-run{job.run_index + 1}"  # a pinned id, once per repeated run
        actual: list[Invocation] = []
        error: str | None = None
        overload: Overload | None = None
        error_detail: str | None = None
        simulation: SimulationEnd | None = None
        unmatched: list[dict[str, Any]] = []
        tool_calls: list[dict[str, Any]] = []
        final_state: dict[str, Any] | None = None
        exercised: dict[str, Any] | None = None
        no_state_reason = ""
        traced: list[TracedTurn] = []
        try:
            job.read_media()  # a media file changed since the check is this case's error, not the run's
            session = await self.agent.open_session(spec)
            self._traced[id(session)] = (spec, traced)
            try:
                simulation = await self._converse(job, case, session, actual)
                if self.telemetry is not None:
                    await self.telemetry.settle(traced, actual)
                final_state, no_state_reason = await _final_state(session)
            finally:
                del self._traced[id(session)]
                if self.telemetry is not None:
                    self.telemetry.spans.finish(traced)
                unmatched = session.unmatched_tool_calls()
                tool_calls = session.tool_calls()
                exercised = session.exercised()
                await _quietly(session.close())
        except EvalkitError as failure:
            error, error_detail, overload = str(failure), failure_detail(failure), overload_of(failure)
        except Exception as failure:  # an adapter or simulator bug must not take other cases down
            error = f"case {case.eval_id!r}: {type(failure).__name__}: {failure}"
            error_detail, overload = failure_detail(failure), overload_of(failure)
        if self.ledger is not None:  # what the agent's turns spent, however the case ended
            self.ledger.record_turns(actual)
        expected = case.conversation
        result = CaseResult(
            eval_set_id=job.eval_set_id,
            eval_id=job.case.eval_id,
            status=Status.ERROR,
            error=error,
            error_detail=error_detail,
            source_file=job.source_file,
            session_id=spec.session_id,
            simulation=simulation,
            # The agent's session reports them as plain objects (its interface, docs/agents.md).
            unmatched_tool_calls=[UnmatchedToolCall.model_validate(c) for c in unmatched] or None,
            final_state=final_state,
            tool_calls=[ToolCallSource.model_validate(c) for c in tool_calls] or None,
            exercised=None if exercised is None else Exercised.model_validate(exercised),
        )
        if error is None:
            context = EvalContext(case=case, actual=actual, expected=expected, judge=self.judge,
                                  final_state=final_state, no_state_reason=no_state_reason)
            result.criteria = await score_case(context, job.criteria)
            result.status = case_status([c.status for c in result.criteria])
        result.invocations = _records(actual, expected)
        result.duration_s = round(time.perf_counter() - started, 3)
        durations = [i.duration for i in actual if i.duration is not None]
        return _Attempt(result, overload, sum(durations) / len(durations) if durations and error is None else None)

    async def _converse(self, job: CaseJob, case: EvalCase, session: AgentSession,
                        actual: list[Invocation]) -> SimulationEnd | None:
        """Play the case's turns; for a scenario, return how the simulated conversation ended."""
        if case.conversation_scenario is not None:
            from evalkit.simulation.conversation import simulate_conversation

            outcome = await simulate_conversation(case, job.simulator_config, session, self.play_turn, self.judge,
                                                  actual)
            return SimulationEnd.model_validate(outcome.to_dict())
        for index, expected in enumerate(case.conversation or ()):
            actual.append(await self.play_turn(session, expected.user_content, index, case.eval_id))
        return None

    async def play_turn(self, session: AgentSession, user_content: Content, index: int, case_id: str) -> Invocation:
        """One user message → one actual invocation, within the per-turn timeout. A tool call that
        an `evalkit mcp` stand-in of the agent could not answer meanwhile is the turn's error,
        whatever the agent made of it (evalkit.cassettes.mcp_misses)."""
        if self.misses is None:
            return await self._play_turn(session, user_content, index, case_id)
        where = f"case {case_id!r}, turn {index + 1}"
        with self.misses.turn(where, session.serving_process) as in_flight:
            try:
                invocation = await self._play_turn(session, user_content, index, case_id)
            except AgentError as failure:
                if in_flight.misses:
                    raise _missed(where, in_flight.misses) from failure
                raise
            if in_flight.misses:
                raise _missed(where, in_flight.misses)
            return invocation

    async def _play_turn(self, session: AgentSession, user_content: Content, index: int, case_id: str) -> Invocation:
        started = time.perf_counter()
        case_turns = self._traced.get(id(session)) if self.telemetry is not None else None
        traced: TracedTurn | None = None
        if self.telemetry is not None and case_turns is not None:
            with self.telemetry.turn(*case_turns) as traced:  # the task below starts inside the turn's trace
                turn = asyncio.ensure_future(session.run_turn(user_content, index))
        else:
            turn = asyncio.ensure_future(session.run_turn(user_content, index))
        # A run cancelled just as the turn failed (Ctrl-C, an agent that cannot start) leaves the
        # turn's error unread by wait_for; reading it here keeps asyncio from logging it at exit.
        turn.add_done_callback(_read_outcome)
        try:
            invocation = await asyncio.wait_for(turn, self.settings.timeout)
        except asyncio.TimeoutError:
            raise AgentTimeout(
                f"case {case_id!r}, turn {index + 1}: no reply within {self.settings.timeout:g} s (per-turn timeout)"
            ) from None
        except EvalkitError:
            raise
        except Exception as error:  # an adapter bug must not take other cases down
            raise AgentError(f"case {case_id!r}, turn {index + 1}: {type(error).__name__}: {error}") from error
        finally:
            if traced is not None and self.telemetry is not None:
                self.telemetry.answered(traced)
        if invocation.duration is None:
            invocation.duration = round(time.perf_counter() - started, 3)
        return invocation


def _missed(where: str, misses: list[str]) -> AgentError:
    more = f" (and {len(misses) - 1} more tool call(s) it could not answer)" if len(misses) > 1 else ""
    return AgentError(f"{where}: {misses[0]}{more}")


def _read_outcome(turn: asyncio.Future[Invocation]) -> None:
    if not turn.cancelled():
        turn.exception()


def failure_detail(failure: BaseException) -> str | None:
    """What explains a case's error: the adapter's detail, else the traceback of what the agent raised."""
    detail = getattr(failure, "detail", None)
    if detail:
        return detail
    cause = failure.__cause__ if failure.__cause__ is not None else failure
    if isinstance(cause, EvalkitError) and cause.__traceback__ is None:
        return None
    if isinstance(cause, EvalkitError) and cause is failure:
        return None  # evalkit's own message says it all (a timeout, a bad reply)
    return "".join(traceback.format_exception(cause)).rstrip()


def _records(actual: list[Invocation], expected: list[Invocation] | None) -> list[InvocationRecord]:
    count = max(len(actual), len(expected or ()))
    return [
        InvocationRecord(
            actual=_dump(actual[i]) if i < len(actual) else None,
            expected=_dump(expected[i]) if expected is not None and i < len(expected) else None,
        )
        for i in range(count)
    ]


def _dump(invocation: Invocation) -> dict[str, Any]:
    return invocation.model_dump(mode="json", exclude_none=True)


async def _final_state(session: AgentSession) -> tuple[dict[str, Any] | None, str]:
    """The state the session ended with, or None and why (reading it must not fail the case)."""
    try:
        state = await session.final_state()
    except Exception as error:
        return None, f"reading the session state failed: {type(error).__name__}: {error}"
    return state, "" if state is not None else session.no_state_reason


async def _quietly(closing: Awaitable[None]) -> None:
    try:
        await closing
    except Exception:  # closing a broken session must not hide the turn's own error
        pass
