"""How long `run --otel` waits for a turn's spans after its answer.

- An agent in evalkit's own process hands its spans over as it ends them, so its turns are
  not waited for (2 s a turn, by default, for spans that cannot come later), unless
  `--otel-wait` is given for spans its helpers in other processes export. An agent that
  records no span is told how to record one, not where to point an exporter.
- An agent elsewhere that exports nowhere would cost every turn the whole wait: on the
  default wait, the run stops waiting once three turns waited it out with not one span
  received, and waits again as soon as any span arrives.

Each check is a real process: the run takes the process's global tracer provider, which
stays set for the rest of a process."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.conftest import ROOT, run_evalkit
from tests.telemetry.weather_cases import weather_case, write_evalset

SPANLESS_AGENT = '''
def agent(turn):
    return {"final_response": "It is sunny in Paris."}
'''

# Turns of an in-process agent, settled under a one-second bound that waiting the default 2 s would
# break; then, with --otel-wait given, a span another process exports after the answer is still taken.
SETTLING = '''
import asyncio, json, threading, types
import httpx
from evalkit.engine.telemetry import RunTelemetry
from evalkit.schema.content import Content, Part
from evalkit.schema.evalset import Invocation
from evalkit.settings import RunSettings


def reply():
    return Invocation(invocation_id="i", user_content=Content(role="user", parts=[Part(text="weather in Paris")]),
                      final_response=Content(role="model", parts=[Part(text="sunny")]))


def agent_spans(trace):
    """An agent span under the turn's, with the user's message, and its tool call under it (OTLP JSON)."""
    said = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "weather in Paris"}]}])
    agent = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather", "gen_ai.input.messages": said}
    tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "c1",
            "gen_ai.tool.call.arguments": json.dumps({"city": "Paris"}),
            "gen_ai.tool.call.result": json.dumps({"sky": "sunny"})}

    def span(span_id, parent, name, attributes, start, end):
        return {"traceId": trace.trace_id, "spanId": span_id, "parentSpanId": parent, "name": name,
                "startTimeUnixNano": str(start), "endTimeUnixNano": str(end),
                "attributes": [{"key": key, "value": {"stringValue": text}} for key, text in attributes.items()]}

    spans = [span("00000000000000a2", "00000000000000a1", "execute_tool get_weather", tool, 2, 3),
             span("00000000000000a1", trace.span_id, "invoke_agent weather", agent, 1, 4)]
    return {"resourceSpans": [{"resource": {"attributes": []},
                               "scopeSpans": [{"scope": {"name": "helper"}, "spans": spans}]}]}


async def turn(telemetry, number, exported_later=False):
    into = []
    with telemetry.turn(types.SimpleNamespace(session_id=f"s{number}"), into) as traced:
        pass
    telemetry.answered(traced)
    if exported_later:  # a helper process of the agent's, exporting a moment after the answer
        body = agent_spans(traced.trace)
        threading.Timer(0.3, lambda: httpx.post(telemetry.receiver.url, json=body)).start()
    invocation = reply()
    await asyncio.wait_for(telemetry.settle(into, [invocation]), 1.0 if not exported_later else 20.0)
    return invocation


async def main():
    telemetry = RunTelemetry(RunSettings(otel=True), "agent.py:agent", announce=False).start()
    try:
        for number in range(3):
            await turn(telemetry, number)
    finally:
        telemetry.stop()
    assert telemetry.turns_without_spans == 3, telemetry.turns_without_spans
    waiting = RunTelemetry(RunSettings(otel=True, otel_wait=15), "agent.py:agent", announce=False).start()
    try:
        invocation = await turn(waiting, 9, exported_later=True)
    finally:
        waiting.stop()
    calls = [part.function_call for event in invocation.intermediate_data.invocation_events
             for part in event.content.parts if part.function_call is not None]
    assert [(call.name, call.args) for call in calls] == [("get_weather", {"city": "Paris"})], calls
    print("settled")

asyncio.run(main())
'''


def test_an_in_process_agents_turns_are_not_waited_for_unless_otel_wait_is_given():
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(SETTLING)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0 and "settled" in done.stdout, done.stdout + done.stderr


def test_an_in_process_agent_that_records_no_span_is_told_how_to_record_one(tmp_path):
    (tmp_path / "agent.py").write_text(SPANLESS_AGENT, encoding="utf-8")
    evalset = write_evalset(tmp_path, [weather_case(f"case{n}", ("Paris", "Paris")) for n in range(3)])
    result = run_evalkit("run", str(evalset), "--agent", str(tmp_path / "agent.py") + ":agent", "--otel",
                         "--json", str(tmp_path / "out.json"), timeout=240)
    assert result.returncode == 1, result.stdout + result.stderr  # the expected calls were never made
    note = " ".join(result.stderr.split())
    assert "runs in evalkit's process and recorded no span in any turn" in note, result.stderr
    assert "global tracer provider" in note and "--otel-wait SECONDS" in note, result.stderr
    assert "no span arrived" not in note, result.stderr


GIVING_UP = '''
import asyncio, types
import httpx
from evalkit.engine.telemetry import RunTelemetry
from evalkit.schema.content import Content, Part
from evalkit.schema.evalset import Invocation
from evalkit.settings import RunSettings


async def turn(telemetry, number, bound):
    into = []
    with telemetry.turn(types.SimpleNamespace(session_id=f"s{number}"), into) as traced:
        pass
    telemetry.answered(traced)
    invocation = Invocation(invocation_id="i", user_content=Content(role="user", parts=[Part(text="hi")]),
                            final_response=Content(role="model", parts=[Part(text="sunny")]))
    await asyncio.wait_for(telemetry.settle(into, [invocation]), bound)


async def main():
    telemetry = RunTelemetry(RunSettings(otel=True), "cmd:python agent.py", announce=False).start()
    try:
        await asyncio.gather(*(turn(telemetry, number, 20.0) for number in range(3)))  # each waits the 2 s out
        assert telemetry.gave_up
        await turn(telemetry, 3, 1.0)  # not waited for
        note = telemetry.notes()[0]
        assert "no span arrived from the agent cmd:python agent.py" in note, note
        assert "stopped waiting after 3 turns" in note, note
        httpx.post(telemetry.receiver.url, json={"resourceSpans": []})  # an export, but no span: still nothing
        assert telemetry.gave_up
        span = {"traceId": "ab" * 16, "spanId": "cd" * 8, "name": "GET /", "startTimeUnixNano": "1",
                "endTimeUnixNano": "2"}
        httpx.post(telemetry.receiver.url, json={"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})
        assert not telemetry.gave_up  # a span arrived: the exporter works, the turns wait again
    finally:
        telemetry.stop()
    given = RunTelemetry(RunSettings(otel=True, otel_wait=0.2), "cmd:python agent.py", announce=False).start()
    try:
        for number in range(4):
            await turn(given, number, 20.0)
        assert not given.gave_up  # a wait the user gave is always waited
    finally:
        given.stop()
    print("settled")

asyncio.run(main())
'''


def test_on_the_default_wait_the_run_stops_waiting_for_an_agent_that_exports_nowhere():
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(GIVING_UP)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0 and "settled" in done.stdout, done.stdout + done.stderr


# An agent in evalkit's process whose reply reports its tool call but no usage: its spans are read only
# when one of them records tokens (usage is then all they can add); otherwise they are counted, unread.
USAGE_ALONE = '''
import asyncio, types
from opentelemetry import trace
from evalkit.engine.telemetry import RunTelemetry
from evalkit.schema.evalset import Invocation
from evalkit.settings import RunSettings
from evalkit.telemetry.turn_spans import NOT_NEEDED

REPLY = {"invocation_id": "i", "user_content": {"role": "user", "parts": [{"text": "weather in Paris"}]},
         "final_response": {"role": "model", "parts": [{"text": "sunny"}]},
         "intermediate_data": {"invocation_events": [{"author": "weather", "content": {"role": "model", "parts": [
             {"function_call": {"name": "get_weather", "args": {"city": "Paris"}}}]}}]}}


async def turn(telemetry, number, tokens):
    into = []
    tracer = trace.get_tracer("agent")
    with telemetry.turn(types.SimpleNamespace(session_id=f"s{number}"), into) as traced:
        with tracer.start_as_current_span("invoke_agent weather", attributes={
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather",
                "gen_ai.input.messages": \'[{"role": "user", "parts": [{"type": "text", "content": "weather in Paris"}]}]\'}):
            with tracer.start_as_current_span("chat m", attributes={
                    "gen_ai.operation.name": "chat", "gen_ai.request.model": "m",
                    **({"gen_ai.usage.input_tokens": 12, "gen_ai.usage.output_tokens": 4} if tokens else {})}):
                pass
    telemetry.answered(traced)
    invocation = Invocation.model_validate(REPLY)
    await telemetry.settle(into, [invocation])
    return [(event.usage_metadata.prompt_token_count, event.usage_metadata.candidates_token_count)
            for event in invocation.intermediate_data.invocation_events if event.usage_metadata is not None]


async def main():
    telemetry = RunTelemetry(RunSettings(otel=True), "agent.py:agent", announce=False).start()
    try:
        assert await turn(telemetry, 0, tokens=False) == []
        assert telemetry.spans.unmatched[NOT_NEEDED] == 2, telemetry.spans.unmatched  # both, unread
        assert await turn(telemetry, 1, tokens=True) == [(12, 4)]
        assert telemetry.spans.unmatched[NOT_NEEDED] == 2, telemetry.spans.unmatched
    finally:
        telemetry.stop()
    print("settled")

asyncio.run(main())
'''


def test_an_in_process_turn_lacking_only_usage_reads_its_spans_only_when_one_records_tokens():
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(USAGE_ALONE)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0 and "settled" in done.stdout, done.stdout + done.stderr
