"""Matching spans to turns: by trace id, by the conversation the agent records, by time only with one
turn in flight; a guess is never made with two turns in flight, and what matched nothing is counted."""

from __future__ import annotations

import asyncio
import time

from evalkit.foundation.trace_context import TurnTrace
from evalkit.telemetry.turn_spans import NOT_NEEDED, PLUMBING, UNMATCHED_LATE, UNMATCHED_OVERLAP, UNREADABLE, TurnSpans
from evalkit.traces.otlp_json import RawSpan
from evalkit.traces.spans import AGENT, OTHER, TOOL, SlimSpan


def _span(trace_id: str, span_id: str, parent: str = "", kind: str = TOOL, conversation: str | None = None,
          start_ns: int | None = None) -> tuple[SlimSpan, None]:
    start = time.time_ns() if start_ns is None else start_ns
    return SlimSpan(trace_id, span_id, parent, kind, start, start + 1, conversation=conversation), None


def test_spans_of_a_turns_own_trace_are_its_and_its_top_span_ends_the_wait():
    spans = TurnSpans()
    turn = spans.begin(TurnTrace.new(), lambda: "case-a")
    spans.add([_span(turn.trace.trace_id, "s1", "s0"), _span(turn.trace.trace_id, "s0", turn.trace.span_id, AGENT)])
    spans.answered(turn)
    assert set(turn.spans) == {"s1", "s0"} and turn.complete
    assert spans.wait_state(turn, 2.0) is None


def test_a_trace_the_agent_started_goes_to_the_case_whose_conversation_it_records():
    spans = TurnSpans()
    first, second = spans.begin(TurnTrace.new(), lambda: "case-a"), spans.begin(TurnTrace.new(), lambda: "case-b")
    spans.add([_span("t" * 32, "s1", "", AGENT, conversation="case-b")])
    assert set(second.spans) == {"s1"} and not first.spans
    assert spans.matched_by == {"conversation": 1}


def test_with_two_turns_in_flight_a_trace_without_conversation_is_counted_not_guessed():
    spans = TurnSpans()
    first, second = spans.begin(TurnTrace.new(), lambda: "case-a"), spans.begin(TurnTrace.new(), lambda: "case-b")
    spans.add([_span("u" * 32, "s1", "", AGENT), _span("u" * 32, "s2", "s1")])
    spans.answered(second)  # one turn left in flight: the trace began while two were, so it still is not guessed
    spans.finish([second])
    spans.close()
    assert not first.spans and not second.spans
    assert spans.unmatched == {UNMATCHED_OVERLAP: 2}


def test_with_one_turn_in_flight_a_trace_without_conversation_is_matched_by_time():
    spans = TurnSpans()
    turn = spans.begin(TurnTrace.new(), lambda: "case-a")
    spans.add([_span("v" * 32, "s1", "", AGENT)])
    assert set(turn.spans) == {"s1"} and spans.matched_by == {"time": 1}


def test_late_spans_and_plumbing_are_counted_apart():
    spans = TurnSpans()
    turn = spans.begin(TurnTrace.new(), lambda: "case-a")
    spans.answered(turn)
    spans.finish([turn])
    spans.add([_span(turn.trace.trace_id, "late", turn.trace.span_id), _span("w" * 32, "http", "", OTHER)])
    spans.close()
    assert spans.unmatched == {UNMATCHED_LATE: 1, PLUMBING: 1}


def test_the_same_span_twice_is_kept_once():
    spans = TurnSpans()
    turn = spans.begin(TurnTrace.new(), lambda: "case-a")
    same = _span(turn.trace.trace_id, "s1", turn.trace.span_id, AGENT)
    spans.add([same])
    spans.add([same])
    assert len(turn.spans) == 1 and spans.received == 2


def test_a_trace_recording_the_conversation_the_agent_answered_with_binds_when_that_turn_answers():
    spans = TurnSpans()
    conversations = {"a": "case-a", "b": "case-b"}
    first = spans.begin(TurnTrace.new(), lambda: conversations["a"])
    second = spans.begin(TurnTrace.new(), lambda: conversations["b"])
    spans.add([_span("x" * 32, "s1", "", AGENT, conversation="ctx-9")])  # an id no case has yet: not guessed
    assert not first.spans and not second.spans
    conversations["b"] = "ctx-9"  # the agent answered the second case with its own context id
    spans.answered(second)
    assert set(second.spans) == {"s1"} and not first.spans
    assert spans.matched_by == {"conversation": 1}


def test_a_turn_is_woken_by_its_spans_only_while_it_waits_for_them():
    async def scenario() -> tuple[bool, bool]:
        spans = TurnSpans()
        turn = spans.begin(TurnTrace.new(), lambda: "case-a")
        assert turn.arrived is not None
        spans.add([_span(turn.trace.trace_id, "s1", "s0")])  # before the answer: nobody waits, the loop is left alone
        await asyncio.sleep(0)
        woken_before = turn.arrived.is_set()
        spans.answered(turn)
        assert spans.wait_state(turn, 2.0) is not None  # no top span yet: the case waits
        spans.add([_span(turn.trace.trace_id, "s0", turn.trace.span_id, AGENT)])
        await asyncio.wait_for(turn.arrived.wait(), 2.0)
        return woken_before, spans.wait_state(turn, 2.0) is None

    woken_before, done = asyncio.run(scenario())
    assert not woken_before and done


class _Reader:
    """Reads a RawSpan into the SlimSpan its name says (kind:parent), and remembers what it read."""

    def __init__(self) -> None:
        self.read: list[str] = []

    def __call__(self, raw: RawSpan) -> tuple[SlimSpan, None] | None:
        self.read.append(raw.span_id)
        if raw.name == "unreadable":
            return None
        kind, parent = raw.name.split(":")
        return SlimSpan(raw.trace_id, raw.span_id, parent, kind, raw.start_ns, raw.end_ns), None


def _raw(trace_id: str, span_id: str, name: str) -> RawSpan:
    now = time.time_ns()
    return RawSpan(trace_id, span_id, "", name, now, now + 1, {})


def test_spans_of_a_turns_trace_are_read_only_when_the_turn_needs_them():
    async def scenario() -> None:
        reader = _Reader()
        spans = TurnSpans(read=reader)
        turn = spans.begin(TurnTrace.new(), lambda: "case-a")
        trace_id, top = turn.trace.trace_id, turn.trace.span_id
        spans.arrive([_raw(trace_id, "s1", f"{TOOL}:s0"), _raw(trace_id, "s0", f"{AGENT}:{top}"),
                      _raw(trace_id, "s2", "unreadable")])
        assert reader.read == [] and spans.received == 3  # kept as they came: the agent's thread reads nothing
        spans.answered(turn)
        assert spans.wait_state(turn, 2.0) == 0.0  # unread spans: read them before deciding to wait
        spans.read_arrived(turn)
        assert reader.read == ["s1", "s0", "s2"] and set(turn.spans) == {"s1", "s0"} and turn.complete
        assert spans.wait_state(turn, 2.0) is None
        assert spans.unmatched == {UNREADABLE: 1}

    asyncio.run(scenario())


def test_a_span_of_no_known_turn_is_read_at_once_to_be_matched():
    reader = _Reader()
    spans = TurnSpans(read=reader)
    turn = spans.begin(TurnTrace.new(), lambda: "case-a")
    spans.arrive([_raw("y" * 32, "s1", f"{AGENT}:")])  # a trace of the agent's own, one turn in flight
    assert reader.read == ["s1"] and set(turn.spans) == {"s1"} and spans.matched_by == {"time": 1}


def test_a_turn_that_needs_nothing_reads_nothing_and_its_late_spans_are_no_loss():
    reader = _Reader()
    spans = TurnSpans(read=reader)
    turn = spans.begin(TurnTrace.new(), lambda: "case-a")
    trace_id = turn.trace.trace_id
    spans.arrive([_raw(trace_id, "s1", f"{TOOL}:s0")])
    spans.answered(turn)
    spans.not_needed(turn)
    spans.finish([turn])
    spans.arrive([_raw(trace_id, "s0", f"{AGENT}:{turn.trace.span_id}")])  # ends after the answer: read, counted
    spans.close()
    assert not turn.spans and reader.read == ["s0"]
    assert spans.unmatched == {NOT_NEEDED: 2}
