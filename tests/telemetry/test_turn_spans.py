"""Matching spans to turns: by trace id, by the conversation the agent records, by time only with one
turn in flight; a guess is never made with two turns in flight, and what matched nothing is counted."""

from __future__ import annotations

import asyncio
import time

from evalkit.foundation.trace_context import TurnTrace
from evalkit.telemetry.turn_spans import PLUMBING, UNMATCHED_LATE, UNMATCHED_OVERLAP, TurnSpans
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
