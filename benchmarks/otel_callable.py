"""The scripted weather agent of `scripted_callable.py`, telling its tool call only through
OpenTelemetry spans (GenAI conventions), for `bench_otel.py`: its replies hold the answer alone."""

from __future__ import annotations

import json

from opentelemetry import trace
from scripted_callable import _answers

_tracer = trace.get_tracer("bench.weather")


def agent(turn):
    last_city = turn.state.get("city")
    tool, args, result, text, city = _answers.answer(turn.user_text, last_city)
    turn.state["city"] = city
    said = json.dumps([{"role": "user", "parts": [{"type": "text", "content": turn.user_text}]}])
    with _tracer.start_as_current_span("invoke_agent weather", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather", "gen_ai.input.messages": said}):
        with _tracer.start_as_current_span("chat scripted", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "scripted-1", "gen_ai.input.messages": said,
                "gen_ai.usage.input_tokens": 12, "gen_ai.usage.output_tokens": 4,
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                    {"type": "tool_call", "id": "c1", "name": tool, "arguments": args}]}])}):
            pass
        with _tracer.start_as_current_span(f"execute_tool {tool}", attributes={
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool, "gen_ai.tool.call.id": "c1",
                "gen_ai.tool.call.arguments": json.dumps(args), "gen_ai.tool.call.result": json.dumps(result)}):
            pass
    return {"final_response": text}
