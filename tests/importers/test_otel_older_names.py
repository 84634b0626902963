"""OpenLLMetry's attribute names from before the GenAI conventions' messages (`gen_ai.prompt.N.*`,
`gen_ai.completion.N.*`), as its earlier versions write them on chat spans.

No framework installed here writes them any more (the versions in tests/fixtures/otel_frameworks
write the newer attributes), so the spans are made with the OpenTelemetry SDK, under the names
those versions used.
"""

from __future__ import annotations

import json

import pytest

from evalkit.importers.otel.importer import import_otel

pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("opentelemetry.exporter.otlp.proto.common")

from tests.importers import otel_support  # noqa: E402


def test_numbered_prompt_and_completion_attributes_are_read(tmp_path):
    provider, exporter = otel_support.local_provider("bot")
    tracer = provider.get_tracer("opentelemetry.instrumentation.langchain")
    with tracer.start_as_current_span("weather_agent.workflow") as agent:
        agent.set_attributes({"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather_agent",
                              "traceloop.association.properties.thread_id": "thread-7"})
        with tracer.start_as_current_span("ChatOpenAI.chat") as chat:
            chat.set_attributes({
                "gen_ai.operation.name": "chat",
                "gen_ai.prompt.0.role": "system", "gen_ai.prompt.0.content": "You answer questions about the weather.",
                "gen_ai.prompt.1.role": "user", "gen_ai.prompt.1.content": "weather in Paris",
                "gen_ai.completion.0.role": "assistant",
                "gen_ai.completion.0.tool_calls.0.id": "call_1",
                "gen_ai.completion.0.tool_calls.0.name": "get_weather",
                "gen_ai.completion.0.tool_calls.0.arguments": '{"city": "Paris"}'})
        with tracer.start_as_current_span("get_weather.tool") as tool:
            tool.set_attributes({"traceloop.span.kind": "tool", "traceloop.entity.name": "get_weather"})
        with tracer.start_as_current_span("ChatOpenAI.chat") as chat:
            chat.set_attributes({
                "gen_ai.operation.name": "chat",
                "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "weather in Paris",
                "gen_ai.prompt.1.role": "assistant", "gen_ai.prompt.1.tool_calls.0.name": "get_weather",
                "gen_ai.prompt.2.role": "tool", "gen_ai.prompt.2.content": "sunny", "gen_ai.prompt.2.tool_call_id": "call_1",
                "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "It is sunny in Paris."})
    path = otel_support.write_collector_file(list(exporter.get_finished_spans()), tmp_path / "older.jsonl")
    out = tmp_path / "older.evalset.json"

    result = import_otel([path], out)

    assert result.case_ids == ["thread-7"]
    turn = json.loads(out.read_text())["eval_cases"][0]["conversation"][0]
    assert turn["user_content"]["parts"] == [{"text": "weather in Paris"}]
    parts = [p for e in turn["intermediate_data"]["invocation_events"] for p in (e.get("content") or {}).get("parts", [])]
    assert {"function_call": {"id": "call_1", "name": "get_weather", "args": {"city": "Paris"}}} in parts
    assert {"function_response": {"id": "call_1", "name": "get_weather", "response": {"result": "sunny"}}} in parts
    assert turn["final_response"]["parts"] == [{"text": "It is sunny in Paris."}]
