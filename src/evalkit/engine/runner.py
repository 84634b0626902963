"""Run eval cases against the agent: cases concurrently, turns in order, each turn timed out.

A fixed pool of `jobs` workers pulls cases from a queue, so memory and task count stay
flat however many cases there are. Each finished case is scored at once and handed to
`on_case_done`; nothing else about it is kept here.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from evalkit.agents.base import Agent, AgentSession, SessionSpec
from evalkit.criteria.base import EvalContext
from evalkit.engine.jobs import CaseJob
from evalkit.engine.scoring import score_case
from evalkit.errors import AgentError, AgentTimeout, EvalkitError
from evalkit.schema.content import Content
from evalkit.schema.evalset import Invocation
from evalkit.schema.results import CaseResult, InvocationRecord, Status, case_status
from evalkit.settings import RunSettings


@dataclass
class Runner:
    agent: Agent
    settings: RunSettings = field(default_factory=RunSettings)
    judge: object | None = None  # a JudgeService when any criterion or simulator needs one
    on_case_done: Callable[[CaseResult], None] | None = None

    async def run(self, jobs: Iterable[CaseJob]) -> None:
        queue: asyncio.Queue[CaseJob] = asyncio.Queue()
        for job in jobs:
            queue.put_nowait(job)
        workers = [asyncio.create_task(self._worker(queue)) for _ in range(max(1, min(self.settings.jobs, queue.qsize())))]
        try:
            await asyncio.gather(*workers)
        finally:
            for worker in workers:
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)

    async def _worker(self, queue: asyncio.Queue[CaseJob]) -> None:
        while not queue.empty():
            job = queue.get_nowait()
            result = await self.run_case(job)
            if self.on_case_done:
                self.on_case_done(result)

    async def run_case(self, job: CaseJob) -> CaseResult:
        started = time.perf_counter()
        spec = SessionSpec.for_case(job.case, f"evalkit-{uuid.uuid4().hex[:12]}", eval_set_id=job.eval_set_id)
        if job.run_index and job.case.session_input and job.case.session_input.session_id:
            spec.session_id += f"-run{job.run_index + 1}"  # a pinned id, once per repeated run
        actual: list[Invocation] = []
        error: str | None = None
        simulation: dict | None = None
        try:
            session = await self.agent.open_session(spec)
            try:
                simulation = await self._converse(job, session, actual)
            finally:
                await _quietly(session.close())
        except EvalkitError as failure:
            error = str(failure)
        except Exception as failure:  # an adapter or simulator bug must not take other cases down
            error = f"case {job.case.eval_id!r}: {type(failure).__name__}: {failure}"
        expected = job.case.conversation
        result = CaseResult(
            eval_set_id=job.eval_set_id,
            eval_id=job.case.eval_id,
            status=Status.ERROR,
            error=error,
            source_file=job.source_file,
            session_id=spec.session_id,
            simulation=simulation,
        )
        if error is None:
            context = EvalContext(case=job.case, actual=actual, expected=expected, judge=self.judge)
            result.criteria = await score_case(context, job.criteria)
            result.status = case_status([c.status for c in result.criteria])
        result.invocations = _records(actual, expected)
        result.duration_s = round(time.perf_counter() - started, 3)
        return result

    async def _converse(self, job: CaseJob, session: AgentSession, actual: list[Invocation]) -> dict | None:
        """Play the case's turns; for a scenario, return how the simulated conversation ended."""
        case = job.case
        if case.conversation_scenario is not None:
            from evalkit.simulation.conversation import simulate_conversation

            outcome = await simulate_conversation(job, session, self.play_turn, self.judge, actual)
            return outcome.to_dict()
        for index, expected in enumerate(case.conversation or ()):
            actual.append(await self.play_turn(session, expected.user_content, index, case.eval_id))

    async def play_turn(self, session: AgentSession, user_content: Content, index: int, case_id: str) -> Invocation:
        """One user message → one actual invocation, within the per-turn timeout."""
        started = time.perf_counter()
        try:
            invocation = await asyncio.wait_for(session.run_turn(user_content, index), self.settings.timeout)
        except asyncio.TimeoutError:
            raise AgentTimeout(
                f"case {case_id!r}, turn {index + 1}: no reply within {self.settings.timeout:g} s (per-turn timeout)"
            ) from None
        except EvalkitError:
            raise
        except Exception as error:  # an adapter bug must not take other cases down
            raise AgentError(f"case {case_id!r}, turn {index + 1}: {type(error).__name__}: {error}") from error
        if invocation.duration is None:
            invocation.duration = round(time.perf_counter() - started, 3)
        return invocation


def _records(actual: list[Invocation], expected: list[Invocation] | None) -> list[InvocationRecord]:
    count = max(len(actual), len(expected or ()))
    return [
        InvocationRecord(
            actual=_dump(actual[i]) if i < len(actual) else None,
            expected=_dump(expected[i]) if expected is not None and i < len(expected) else None,
        )
        for i in range(count)
    ]


def _dump(invocation: Invocation) -> dict:
    return invocation.model_dump(mode="json", exclude_none=True)


async def _quietly(closing) -> None:
    try:
        await closing
    except Exception:  # closing a broken session must not hide the turn's own error
        pass
