"""Turns settled through a real `RunTelemetry`, one scenario a process (`python -m tests.telemetry.settling NAME`):
the run takes the process's global tracer provider, which stays set for the rest of a process. Each
scenario asserts, and prints "settled" at its end; test_waiting.py runs them."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import types
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from opentelemetry import trace

from evalkit.engine.telemetry import RunTelemetry
from evalkit.schema.evalset import Invocation, InvocationEvents
from evalkit.settings import RunSettings
from evalkit.telemetry.turn_spans import NOT_NEEDED

IN_PROCESS, ELSEWHERE = "agent.py:agent", "cmd:python agent.py"
SAID = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "weather in Paris"}]}])
ANSWER = {"invocation_id": "i", "user_content": {"role": "user", "parts": [{"text": "weather in Paris"}]},
          "final_response": {"role": "model", "parts": [{"text": "sunny"}]}}
CALL = {"invocation_events": [{"author": "weather", "content": {"role": "model", "parts": [
    {"function_call": {"name": "get_weather", "args": {"city": "Paris"}}}]}}]}


async def turn(telemetry: RunTelemetry, number: int, bound: float, reply: dict[str, Any] = ANSWER,
               agent: Callable[[], None] = lambda: None, after: Callable[[Any], None] = lambda trace: None) -> Invocation:
    """One turn: the agent runs in its trace, answers with `reply`, `after` runs with the turn's trace, and
    the turn settles within `bound` seconds (or the scenario fails)."""
    into: list[Any] = []
    with telemetry.turn(types.SimpleNamespace(session_id=f"s{number}"), into) as traced:
        agent()
    telemetry.answered(traced)
    after(traced.trace)
    invocation = Invocation.model_validate(reply)
    await asyncio.wait_for(telemetry.settle(into, [invocation]), bound)
    return invocation


def otlp_json(trace_id: str, spans: list[tuple[str, str, str, dict[str, str], int, int]]) -> dict[str, Any]:
    """An OTLP JSON export of (span id, parent id, name, attributes, start, end) spans of one trace."""
    return {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "helper"}, "spans": [
        {"traceId": trace_id, "spanId": span_id, "parentSpanId": parent, "name": name,
         "startTimeUnixNano": str(start), "endTimeUnixNano": str(end),
         "attributes": [{"key": key, "value": {"stringValue": text}} for key, text in attributes.items()]}
        for span_id, parent, name, attributes, start, end in spans]}]}]}


def export_later(telemetry: RunTelemetry) -> Callable[[Any], None]:
    """A helper process of the agent's exporting, a moment after the answer, an agent span under the turn's
    with the user's message and its tool call under it."""
    agent = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather", "gen_ai.input.messages": SAID}
    tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "c1",
            "gen_ai.tool.call.arguments": json.dumps({"city": "Paris"}),
            "gen_ai.tool.call.result": json.dumps({"sky": "sunny"})}

    def after(turn_trace: Any) -> None:
        body = otlp_json(turn_trace.trace_id, [
            ("00000000000000a2", "00000000000000a1", "execute_tool get_weather", tool, 2, 3),
            ("00000000000000a1", turn_trace.span_id, "invoke_agent weather", agent, 1, 4)])
        threading.Timer(0.3, lambda: httpx.post(telemetry.receiver.url, json=body)).start()

    return after


def calls_of(invocation: Invocation) -> list[tuple[str | None, Any]]:
    data = invocation.intermediate_data
    assert isinstance(data, InvocationEvents), data
    return [(part.function_call.name, part.function_call.args) for event in data.invocation_events
            for part in (event.content.parts or [] if event.content else []) if part.function_call is not None]


async def in_process() -> None:
    """An in-process agent's turns settle at once (the default wait would take 2 s each); with --otel-wait
    given, a span another process exports after the answer is still taken."""
    telemetry = RunTelemetry(RunSettings(otel=True), IN_PROCESS, announce=False).start()
    try:
        for number in range(3):
            await turn(telemetry, number, 1.0)
    finally:
        telemetry.stop()
    assert telemetry.turns_without_spans == 3, telemetry.turns_without_spans
    waiting = RunTelemetry(RunSettings(otel=True, otel_wait=15), IN_PROCESS, announce=False).start()
    try:
        invocation = await turn(waiting, 9, 20.0, after=export_later(waiting))
    finally:
        waiting.stop()
    assert calls_of(invocation) == [("get_weather", {"city": "Paris"})], calls_of(invocation)


async def giving_up() -> None:
    """On the default wait, after three turns with not one span the run stops waiting, until a span arrives;
    a wait the user gave is always waited."""
    telemetry = RunTelemetry(RunSettings(otel=True), ELSEWHERE, announce=False).start()
    try:
        await asyncio.gather(*(turn(telemetry, number, 20.0) for number in range(3)))  # each waits the 2 s out
        assert telemetry.gave_up
        await turn(telemetry, 3, 1.0)  # not waited for
        note = telemetry.notes()[0]
        assert f"no span arrived from the agent {ELSEWHERE}" in note, note
        assert "stopped waiting after 3 turns" in note, note
        httpx.post(telemetry.receiver.url, json={"resourceSpans": []})  # an export, but no span: still nothing
        assert telemetry.gave_up
        httpx.post(telemetry.receiver.url, json=otlp_json("ab" * 16, [("cd" * 8, "", "GET /", {}, 1, 2)]))
        assert not telemetry.gave_up  # a span arrived: the exporter works, the turns wait again
    finally:
        telemetry.stop()
    given = RunTelemetry(RunSettings(otel=True, otel_wait=0.2), ELSEWHERE, announce=False).start()
    try:
        for number in range(4):
            await turn(given, number, 20.0)
        assert not given.gave_up
    finally:
        given.stop()


async def usage_alone() -> None:
    """An in-process turn whose reply holds its call but no usage reads its spans only when one records tokens."""
    tracer = trace.get_tracer("agent")

    def agent(tokens: bool) -> Callable[[], None]:
        counted = {"gen_ai.usage.input_tokens": 12, "gen_ai.usage.output_tokens": 4} if tokens else {}

        def run() -> None:
            with tracer.start_as_current_span("invoke_agent weather", attributes={
                    "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather",
                    "gen_ai.input.messages": SAID}), \
                    tracer.start_as_current_span("chat m", attributes={
                        "gen_ai.operation.name": "chat", "gen_ai.request.model": "m", **counted}):
                pass
        return run

    def usage(invocation: Invocation) -> list[tuple[int | None, int | None]]:
        data = invocation.intermediate_data
        assert isinstance(data, InvocationEvents), data
        return [(event.usage_metadata.prompt_token_count, event.usage_metadata.candidates_token_count)
                for event in data.invocation_events if event.usage_metadata is not None]

    telemetry = RunTelemetry(RunSettings(otel=True), IN_PROCESS, announce=False).start()
    try:
        with_call = {**ANSWER, "intermediate_data": CALL}
        assert usage(await turn(telemetry, 0, 20.0, with_call, agent(tokens=False))) == []
        assert telemetry.spans.unmatched[NOT_NEEDED] == 2, telemetry.spans.unmatched  # both, unread
        assert usage(await turn(telemetry, 1, 20.0, with_call, agent(tokens=True))) == [(12, 4)]
        assert telemetry.spans.unmatched[NOT_NEEDED] == 2, telemetry.spans.unmatched
    finally:
        telemetry.stop()


SCENARIOS: dict[str, Callable[[], Awaitable[None]]] = {
    "in_process": in_process, "giving_up": giving_up, "usage_alone": usage_alone}

if __name__ == "__main__":
    asyncio.run(SCENARIOS[sys.argv[1]]())
    print("settled")
