"""The run's OTLP/HTTP receiver: what real exporters send is read, what is broken is refused
with its HTTP status and never stops anything, a taken port is exit 2 before the run."""

from __future__ import annotations

import gzip
import json
import socket
import threading

import httpx
import pytest

from evalkit.telemetry.otlp_body import MAX_BODY_BYTES
from evalkit.telemetry.receiver import OtlpReceiver
from tests.in_process import invoke_evalkit
from tests.telemetry.weather_cases import weather_case, write_evalset

pytest.importorskip("opentelemetry.exporter.otlp.proto.http", reason="the OTLP exporter is a test extra")


class Inbox:
    def __init__(self) -> None:
        self.spans: list = []
        self.arrived = threading.Event()

    def __call__(self, spans: list) -> None:
        self.spans += spans
        self.arrived.set()


@pytest.fixture
def receiver():
    inbox = Inbox()
    serving = OtlpReceiver(inbox).start()
    serving.inbox = inbox
    yield serving
    serving.stop()


def _sdk_spans(exporter) -> None:
    """Two spans of one trace, recorded by the SDK and sent by `exporter` (a real OTLP exporter)."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": "weather"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("test.scope")
    with tracer.start_as_current_span("invoke_agent weather", attributes={"gen_ai.operation.name": "invoke_agent"}), \
            tracer.start_as_current_span("execute_tool get_weather", attributes={
                "gen_ai.tool.name": "get_weather", "gen_ai.usage.input_tokens": 3, "tags": ("a", "b")}):
        pass
    provider.shutdown()


@pytest.mark.parametrize("compression", ["none", "gzip"])
def test_the_sdks_protobuf_exporter_is_read(receiver, compression):
    from opentelemetry.exporter.otlp.proto.http import Compression
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    chosen = Compression.Gzip if compression == "gzip" else Compression.NoCompression
    _sdk_spans(OTLPSpanExporter(endpoint=receiver.url, compression=chosen))
    names = {span.name: span for span in receiver.inbox.spans}
    assert set(names) == {"invoke_agent weather", "execute_tool get_weather"}
    tool, agent = names["execute_tool get_weather"], names["invoke_agent weather"]
    assert tool.parent_id == agent.span_id and tool.trace_id == agent.trace_id and len(tool.trace_id) == 32
    assert tool.attributes == {"gen_ai.tool.name": "get_weather", "gen_ai.usage.input_tokens": 3, "tags": ["a", "b"]}
    assert (tool.service, tool.scope) == ("weather", "test.scope")
    assert receiver.refused == {}


def test_json_bodies_are_read_gzipped_or_not(receiver):
    document = {"resourceSpans": [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "w"}}]},
                "scopeSpans": [{"scope": {"name": "s"}, "spans": [{
                    "traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174", "name": "chat",
                    "startTimeUnixNano": "1", "endTimeUnixNano": "2"}]}]}]}
    body = json.dumps(document).encode()
    plain = httpx.post(receiver.url, content=body, headers={"content-type": "application/json"})
    packed = httpx.post(receiver.url, content=gzip.compress(body),
                        headers={"content-type": "application/json", "content-encoding": "gzip"})
    assert (plain.status_code, plain.json(), packed.status_code) == (200, {}, 200)
    assert [span.name for span in receiver.inbox.spans] == ["chat", "chat"]


def test_broken_exports_are_refused_with_their_status_and_the_receiver_keeps_serving(receiver):
    protobuf = {"content-type": "application/x-protobuf"}
    answers = {
        "garbage protobuf": httpx.post(receiver.url, content=b"\xff\xff\xff\xff", headers=protobuf).status_code,
        "bad json": httpx.post(receiver.url, content=b"{not json", headers={"content-type": "application/json"}).status_code,
        "not traces": httpx.post(receiver.url, json={"resourceLogs": []}).status_code,
        "bad gzip": httpx.post(receiver.url, content=b"not gzip", headers={**protobuf, "content-encoding": "gzip"}).status_code,
        "too large": httpx.post(receiver.url, content=b"\0" * (MAX_BODY_BYTES + 1), headers=protobuf).status_code,
        "a gzip bomb": httpx.post(receiver.url, content=gzip.compress(b"\0" * (MAX_BODY_BYTES + 1)),
                                  headers={**protobuf, "content-encoding": "gzip"}).status_code,
        "another type": httpx.post(receiver.url, content=b"x", headers={"content-type": "text/plain"}).status_code,
        "another path": httpx.post(receiver.url.replace("/v1/traces", "/v1/logs"), content=b"").status_code,
    }
    assert answers == {"garbage protobuf": 400, "bad json": 400, "not traces": 400, "bad gzip": 400,
                       "too large": 413, "a gzip bomb": 413, "another type": 415, "another path": 404}
    assert receiver.refused == {400: 4, 413: 2, 415: 1}
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    _sdk_spans(OTLPSpanExporter(endpoint=receiver.url))
    assert len(receiver.inbox.spans) == 2


def test_a_taken_port_is_exit_2_before_the_run_naming_it(tmp_path):
    evalset = write_evalset(tmp_path, [weather_case("paris", ("Paris",))])
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = invoke_evalkit("run", str(evalset), "--agent", "cmd:definitely-not-started", "--otel",
                                "--otel-port", str(port))
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"--otel-port {port}" in result.stderr and f"127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr and "receiving on" not in result.stderr


def test_otel_port_without_otel_is_refused(tmp_path):
    evalset = write_evalset(tmp_path, [weather_case("paris", ("Paris",))])
    result = invoke_evalkit("run", str(evalset), "--agent", "cmd:x", "--otel-port", "4318")
    assert result.returncode == 2
    assert "--otel-port 4318: only means something with --otel; add --otel" in result.stderr


def test_a_receiver_no_exporter_reached_stops_at_once_and_frees_its_port_for_the_next():
    # An in-process agent's run: nothing connects. Its stop leaves the server's thread to end on its
    # own; a receiver asked for the same port right after waits for that, instead of finding it taken.
    first = OtlpReceiver(lambda spans: None).start()
    port = first.port
    first.stop()
    second = OtlpReceiver(lambda spans: None, port).start()
    try:
        answer = httpx.post(second.url, content=b'{"resourceSpans": []}', timeout=10,
                            headers={"content-type": "application/json"})
        assert answer.status_code == 200
    finally:
        second.stop()
    third = OtlpReceiver(lambda spans: None, port)  # after an exporter was served, stop waits: the port is free
    third.socket.close()
