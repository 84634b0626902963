"""Real spans for the trace-import tests, written as the OpenTelemetry Collector writes them.

Spans come from real instrumentation (ADK's telemetry, or the SDK calls of
`tests/fixtures/traced_agents.py`) into an in-memory exporter; they are encoded by the
SDK's own OTLP encoder into `opentelemetry-proto` messages and written with protobuf's
JSON mapping, with the two changes the OTLP JSON encoding makes to it (and so the
Collector's file exporter): trace and span ids in hex rather than base64, enums as numbers.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_GLOBAL_EXPORTER: Any = None


def global_exporter() -> Any:
    """An in-memory exporter on the global tracer provider (set once per process: ADK traces through it)."""
    global _GLOBAL_EXPORTER
    if _GLOBAL_EXPORTER is None:
        from opentelemetry import trace
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
            InMemorySpanExporter,
        )

        _GLOBAL_EXPORTER = InMemorySpanExporter()
        provider = TracerProvider(resource=Resource.create({"service.name": "weather-desk"}))
        provider.add_span_processor(SimpleSpanProcessor(_GLOBAL_EXPORTER))
        trace.set_tracer_provider(provider)
    return _GLOBAL_EXPORTER


def local_provider(service: str) -> tuple[Any, Any]:
    """A tracer provider of its own (not the global one) and its in-memory exporter."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
        InMemorySpanExporter,
    )

    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def otlp_document(spans: Sequence[Any], *, hex_ids: bool = True) -> dict:
    """One ExportTraceServiceRequest as JSON: what one line of the Collector's file exporter holds."""
    from google.protobuf.json_format import MessageToJson
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    document = json.loads(MessageToJson(encode_spans(spans), use_integers_for_enums=True))
    if hex_ids:
        for resource_spans in document.get("resourceSpans", []):
            for scope_spans in resource_spans.get("scopeSpans", []):
                for span in scope_spans.get("spans", []):
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if span.get(key):
                            span[key] = base64.b64decode(span[key]).hex()
    return document


def write_collector_file(spans: Sequence[Any], path: Path, *, batch: int = 4, gzipped: bool = False,
                         hex_ids: bool = True) -> Path:
    """One document per line, `batch` spans each (an exporter's batches), in the order they ended."""
    lines = [json.dumps(otlp_document(spans[i:i + batch], hex_ids=hex_ids)) for i in range(0, len(spans), batch)]
    text = "\n".join(lines) + "\n"
    if gzipped:
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


async def run_adk_conversations(agent: Any, conversations: Sequence[Sequence[str]], user: str = "ada") -> list[str]:
    """Talk to an ADK agent through ADK's Runner, one session per conversation; the session ids."""
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    runner = InMemoryRunner(agent=agent, app_name="weather_desk")
    ids = []
    for texts in conversations:
        session = await runner.session_service.create_session(app_name="weather_desk", user_id=user)
        for text in texts:
            message = types.Content(role="user", parts=[types.Part(text=text)])
            async for _ in runner.run_async(user_id=user, session_id=session.id, new_message=message):
                pass
        ids.append(session.id)
    return ids


class BotTurn:
    """The turn-protocol request fields genai_weather_bot reads."""

    def __init__(self, session_id: str, user_text: str, history: list[dict]):
        self.session_id, self.user_text, self.history = session_id, user_text, history


def run_bot_conversation(session_id: str, texts: Sequence[str]) -> None:
    from tests.fixtures import traced_agents

    history: list[dict] = []
    for text in texts:
        reply = traced_agents.genai_weather_bot(BotTurn(session_id, text, list(history)))
        history.append({"user_text": text, "final_response": reply["final_response"]})
