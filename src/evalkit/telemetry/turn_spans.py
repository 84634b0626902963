"""Spans → the turns in flight: by trace id, else by the conversation the agent records, else by time.

Each turn of a run with `--otel` has a trace of its own (`TurnTrace`), which the agent
continues when it reads `traceparent`: those spans are matched by their trace id. A trace
the agent started itself is bound, whole, to one turn: the turn of the case whose
conversation id (its session id, or the A2A contextId the agent answered with) the trace
records (`gen_ai.conversation.id`, `session.id`, a thread id), else the one turn that was in
flight when the trace began. With two or more turns in flight and no conversation to go by,
the trace is never guessed: its spans are counted (`unmatched`), as are spans that arrive
when no turn is in flight and spans of a turn that was already scored.

A span of a trace already bound to a turn (an in-process agent's always are, and those of
any agent that continues `traceparent`) is kept as it came and read only when its turn needs it
(`read_arrived`). A turn of an agent in evalkit's own process whose reply already reports
its tool calls and usage takes nothing from telemetry: its spans are never read, nor
waited for (`not_needed`), and late ones are no loss.

Spans arrive on the receiver's thread (and on whatever thread an in-process agent ends
them), turns are played on the run's event loop: the matching is under one lock, held
for what one batch of spans or one turn's step touches, never for the whole run's spans
(a span goes to its turn through an index by trace id; a pending trace is looked at again
only when something it could bind by changes). A turn's waiter is woken through its loop,
and only while it waits: an in-process agent's spans, which arrive before its answer,
cost the loop nothing.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from evalkit.foundation.trace_context import TurnTrace
from evalkit.telemetry.usage import ModelUsage
from evalkit.traces.spans import OTHER, SlimSpan

Received = tuple[SlimSpan, ModelUsage | None]  # a span as read, with its model call's usage


class Arrived(Protocol):
    """A span as it arrived, unread: an OTLP export's `RawSpan`, or an in-process agent's span."""

    trace_id: str

    @property
    def attributes(self) -> Mapping[str, Any]: ...


Read = Callable[[Arrived], "Received | None"]  # None: no reader could read it (counted, never raised)

BY_TRACE, BY_CONVERSATION, BY_TIME = "trace", "conversation", "time"
UNMATCHED_OVERLAP = "two or more turns were in flight when its trace began"
UNMATCHED_IDLE = "no turn was in flight when its trace began"
UNMATCHED_LATE = "it arrived after its turn was scored (raise --otel-wait)"
# A trace of a server's or framework's own workings (HTTP handling, queues), with no agent,
# model or tool span: never guessed, counted apart, and not worth a note.
PLUMBING = "it records no agent, model or tool operation"
UNREADABLE = "a reader could not read it"
# Spans of a turn whose reply reported everything telemetry could add: nothing was lost.
NOT_NEEDED = "its turn's reply already reported its tool calls and usage"


@dataclass(eq=False)
class TracedTurn:
    """One turn's trace and the spans matched to it so far."""

    trace: TurnTrace
    conversation: Callable[[], str]  # the case's conversation id as the agent knows it now (it may answer with its own)
    started_ns: int
    answered_ns: int | None = None
    answered_at: float | None = None  # monotonic, for --otel-wait
    last_arrival: float | None = None  # monotonic
    spans: dict[str, SlimSpan] = field(default_factory=dict)
    usage: dict[str, ModelUsage] = field(default_factory=dict)  # span id → its model call's usage
    unread: list[Arrived] = field(default_factory=list)  # arrived on a trace bound to it, not read yet
    traces: set[str] = field(default_factory=set)  # the trace ids bound to it: its own and the agent's
    tops: set[str] = field(default_factory=set)  # traces whose top span arrived (the one under evalkit's, or a root)
    working: set[str] = field(default_factory=set)  # traces holding an agent, model or tool span
    loop: asyncio.AbstractEventLoop | None = None
    arrived: asyncio.Event | None = None
    how: set[str] = field(default_factory=set)  # BY_TRACE, BY_CONVERSATION, BY_TIME
    waiting: bool = False  # its case waits for more of its spans: an arrival wakes it
    needed: bool = True  # False: its reply reported all telemetry could add (`not_needed`)

    @property
    def complete(self) -> bool:
        """A trace of the agent's work arrived whole (its top span ends last): nothing more is waited for.
        A top span of plumbing alone (a server's span, the agent's work in another trace) is not enough."""
        return not self.tops.isdisjoint(self.working)

    def in_flight_at(self, moment_ns: int) -> bool:
        return self.started_ns <= moment_ns and (self.answered_ns is None or moment_ns <= self.answered_ns)


class TurnSpans:
    """The run's turns with traces, and every span received, matched or counted."""

    def __init__(self, read: Read | None = None, clock: Callable[[], float] = time.monotonic):
        self._lock = threading.Lock()
        self._read = read
        self._clock = clock
        self._turns: dict[str, TracedTurn] = {}  # trace id → turn, for the turns not yet scored
        self._open: list[TracedTurn] = []  # the turns not yet scored, in the order they began
        self._pending: dict[str, list[Received]] = {}  # traces bound to no turn yet
        self._scored: set[str] = set()  # trace ids of scored turns: their late spans are counted
        self._unneeded: set[str] = set()  # those of them whose turn needed nothing: their late spans lose nothing
        self._why_pending: dict[str, str] = {}  # pending trace id → why no turn took it (UNMATCHED_*)
        self._by_conversation: dict[str, set[str]] = {}  # conversation id → pending traces recording it
        self.unmatched: Counter[str] = Counter()  # reason → spans
        self.received = 0
        self.matched_by: Counter[str] = Counter()  # BY_* → traces

    def begin(self, trace: TurnTrace, conversation: Callable[[], str]) -> TracedTurn:
        turn = TracedTurn(trace, conversation, time.time_ns(), traces={trace.trace_id})
        try:
            turn.loop, turn.arrived = asyncio.get_running_loop(), asyncio.Event()
        except RuntimeError:  # no loop (a test driving this directly): nobody waits
            pass
        with self._lock:
            self._turns[trace.trace_id] = turn
            self._open.append(turn)
        return turn

    def answered(self, turn: TracedTurn) -> None:
        with self._lock:
            turn.answered_ns, turn.answered_at = time.time_ns(), self._clock()
            # The agent may have answered with its own conversation id: the traces recording it can
            # bind now. Nothing else changes at an answer (the turn was in flight when they began).
            woken = self._bind_pending(self._by_conversation.get(turn.conversation(), set()))
        _wake(woken)

    def arrive(self, raws: Sequence[Arrived]) -> None:
        """Spans as they arrive, unread (any thread): those of a trace bound to a turn wait in it to be
        read when the turn needs them; the others are read now, to be matched."""
        woken: set[TracedTurn] = set()
        elsewhere: list[Arrived] = []
        with self._lock:
            for raw in raws:
                turn = self._turns.get(raw.trace_id)
                if turn is None:
                    elsewhere.append(raw)
                    continue
                self.received += 1
                turn.unread.append(raw)
                turn.last_arrival = self._clock()
                if turn.waiting:
                    woken.add(turn)
        _wake(woken)
        if elsewhere:
            self.add(self._read_all(elsewhere))

    def read_arrived(self, turn: TracedTurn) -> None:
        """Read the spans waiting in `turn` (on its case's side, outside the lock: reading takes a while)."""
        with self._lock:
            raws, turn.unread = turn.unread, []
        if not raws:
            return
        received = self._read_all(raws)
        with self._lock:
            for span in received:
                self._attach(turn, span, set(), arrived=False)

    def nothing_read_and_none_unread(self, turn: TracedTurn, holds: Callable[[Mapping[str, Any]], bool]) -> bool:
        """Whether no span of the turn was read yet and no unread one has attributes that `holds`: a look
        at the attributes alone, cheaper than reading the spans."""
        with self._lock:
            return not turn.spans and not any(holds(raw.attributes) for raw in turn.unread)

    def not_needed(self, turn: TracedTurn) -> None:
        """The turn takes nothing from telemetry: what waits in it is counted, unread."""
        with self._lock:
            self.unmatched[NOT_NEEDED] += len(turn.unread) + len(turn.spans)
            turn.unread, turn.needed = [], False

    def _read_all(self, raws: list[Arrived]) -> list[Received]:
        assert self._read is not None, "arrive() needs TurnSpans(read=...)"
        received = [found for raw in raws if (found := self._read(raw)) is not None]
        if len(received) < len(raws):
            with self._lock:
                self.unmatched[UNREADABLE] += len(raws) - len(received)
        return received

    def add(self, spans: list[Received]) -> None:
        """Spans as they arrive, read (any thread)."""
        woken: set[TracedTurn] = set()
        touched: set[str] = set()
        with self._lock:
            self.received += len(spans)
            for received in spans:
                span = received[0]
                turn = self._turns.get(span.trace_id)
                if turn is not None:
                    self._attach(turn, received, woken)
                elif span.trace_id in self._scored:
                    late = NOT_NEEDED if span.trace_id in self._unneeded else UNMATCHED_LATE
                    self.unmatched[late if span.kind != OTHER else PLUMBING] += 1
                else:
                    self._pending.setdefault(span.trace_id, []).append(received)
                    touched.add(span.trace_id)
                    if span.conversation:
                        self._by_conversation.setdefault(span.conversation, set()).add(span.trace_id)
            if touched:
                woken |= self._bind_pending(touched)
        _wake(woken)

    def _attach(self, turn: TracedTurn, received: Received, woken: set[TracedTurn], arrived: bool = True) -> None:
        span, usage = received
        if span.span_id in turn.spans:
            return  # the same span twice (an in-process agent that also exports): kept once
        turn.spans[span.span_id] = span
        if usage is not None:
            turn.usage[span.span_id] = usage
        if arrived:  # (read later: its arrival was noted when it came)
            turn.last_arrival = self._clock()
        if span.parent_id == turn.trace.span_id or (span.trace_id != turn.trace.trace_id and not span.parent_id):
            turn.tops.add(span.trace_id)
        if span.kind != OTHER:
            turn.working.add(span.trace_id)
        if turn.waiting:
            woken.add(turn)

    def _bind_pending(self, traces: set[str]) -> set[TracedTurn]:
        """Bind each of these pending traces that can be bound now (under the lock)."""
        woken: set[TracedTurn] = set()
        for trace_id in list(traces):
            spans = self._pending.get(trace_id)
            if spans is None:
                continue
            # Overlap is remembered: once the other turns are scored, time still does not pick one.
            overlapped = self._why_pending.get(trace_id) == UNMATCHED_OVERLAP
            turn, how = self._owner(spans, by_time=not overlapped)
            if turn is None:
                if not overlapped:
                    self._why_pending[trace_id] = how
                continue
            self._why_pending.pop(trace_id, None)
            del self._pending[trace_id]
            self._forget_conversations(trace_id, spans)
            turn.traces.add(trace_id)
            turn.how.add(how)
            self.matched_by[how] += 1
            self._turns[trace_id] = turn
            for received in spans:
                self._attach(turn, received, woken)
        return woken

    def _owner(self, spans: list[Received], by_time: bool) -> tuple[TracedTurn | None, str]:
        if all(span.kind == OTHER for span, _ in spans):
            return None, PLUMBING  # until a span of the agent's own says whose it is
        began = min(span.start_ns for span, _ in spans)
        conversations = {span.conversation for span, _ in spans if span.conversation}
        if conversations:
            case_turns = [turn for turn in self._open if turn.conversation() in conversations]
            if case_turns:  # turns of one case follow one another: the one in flight then, else the last begun before
                during = [turn for turn in case_turns if turn.in_flight_at(began)]
                before = [turn for turn in case_turns if turn.started_ns <= began]
                chosen = (during or before or case_turns)[-1]
                return chosen, BY_CONVERSATION
        if not by_time:
            return None, UNMATCHED_OVERLAP
        in_flight = [turn for turn in self._open if turn.in_flight_at(began)]
        if len(in_flight) == 1:
            return in_flight[0], BY_TIME
        return None, UNMATCHED_OVERLAP if in_flight else UNMATCHED_IDLE

    def _forget_conversations(self, trace_id: str, spans: list[Received]) -> None:
        for conversation in {span.conversation for span, _ in spans if span.conversation}:
            traces = self._by_conversation.get(conversation)
            if traces is not None:
                traces.discard(trace_id)
                if not traces:
                    del self._by_conversation[conversation]

    def wait_state(self, turn: TracedTurn, wait_s: float) -> float | None:
        """Seconds left to wait for the turn's spans, or None: done (complete, or past its wait); 0 while
        spans arrived that were not read yet (`read_arrived` them, then ask again). While there is time
        left the turn counts as waiting, and its `arrived` is cleared here, under the lock, so that a
        span arriving from now on wakes it."""
        with self._lock:
            if turn.unread:
                return 0.0
            left = None
            if not turn.complete and turn.answered_at is not None:
                last = max(turn.answered_at, turn.last_arrival or 0.0)
                left = last + wait_s - self._clock()
            turn.waiting = left is not None and left > 0
            if not turn.waiting:
                return None
            if turn.arrived is not None:
                turn.arrived.clear()
            return left

    def finish(self, turns: list[TracedTurn]) -> None:
        """The case's turns are scored: their traces take no more spans (late ones are counted)."""
        with self._lock:
            for turn in turns:
                for trace_id in turn.traces:
                    self._turns.pop(trace_id, None)
                    self._scored.add(trace_id)
                    if not turn.needed:
                        self._unneeded.add(trace_id)
                if turn in self._open:
                    self._open.remove(turn)

    def close(self) -> None:
        """The run ended: what is still pending matched nothing, counted by why."""
        with self._lock:
            for trace_id, spans in self._pending.items():
                self.unmatched[self._why_pending.get(trace_id, UNMATCHED_IDLE)] += len(spans)
            self._pending.clear()
            self._why_pending.clear()
            self._by_conversation.clear()


def _wake(turns: set[TracedTurn]) -> None:
    for turn in turns:
        if turn.loop is not None and turn.arrived is not None and not turn.loop.is_closed():
            turn.loop.call_soon_threadsafe(turn.arrived.set)
