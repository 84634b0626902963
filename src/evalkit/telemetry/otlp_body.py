"""An OTLP/HTTP export's body → spans: protobuf or JSON, gzip or not, within a size limit.

Protobuf is read with the OpenTelemetry project's own message classes (opentelemetry-proto),
JSON with the reader `evalkit import otel` uses for files (evalkit.traces.otlp_json), so a
span reads the same whichever way it came. Every problem is a `BadExport` carrying the HTTP
status the receiver answers with (400 malformed, 413 too large, 415 an unknown encoding).
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from evalkit.errors import InputError
from evalkit.traces.otlp_json import RawSpan, spans_of_document

MAX_BODY_BYTES = 32 * 1024 * 1024  # an export larger than this (decompressed, too) is refused with 413
PROTOBUF, JSON = "application/x-protobuf", "application/json"
STATUS_ERROR = 2  # Status.StatusCode.STATUS_CODE_ERROR


class BadExport(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def decompressed(body: bytes, encoding: str) -> bytes:
    """The body as sent before `Content-Encoding` (gzip, deflate or none), never over the limit."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding not in ("gzip", "deflate"):
        raise BadExport(415, f"Content-Encoding {encoding!r} is not read here; send gzip or no encoding")
    # wbits: 16+ reads a gzip header, 32+ either zlib or gzip; raw deflate is what some clients send as deflate.
    unpacker = zlib.decompressobj(16 + zlib.MAX_WBITS if encoding == "gzip" else 32 + zlib.MAX_WBITS)
    try:
        whole = unpacker.decompress(body, MAX_BODY_BYTES + 1)
    except zlib.error as error:
        raise BadExport(400, f"the body is not valid {encoding}: {error}") from None
    if len(whole) > MAX_BODY_BYTES or unpacker.unconsumed_tail:
        raise BadExport(413, f"the export is over {MAX_BODY_BYTES // (1024 * 1024)} MiB once decompressed; "
                        "export in smaller batches")
    return whole


def spans_of_body(body: bytes, content_type: str) -> list[RawSpan]:
    """The spans of one export request's (decompressed) body."""
    media = content_type.split(";")[0].strip().lower()
    if media == JSON or (not media and body[:1] == b"{"):
        return _json_spans(body)
    if media in (PROTOBUF, "application/protobuf", "application/octet-stream", ""):
        return _protobuf_spans(body)
    raise BadExport(415, f"Content-Type {media!r} is not OTLP; send {PROTOBUF} or {JSON}")


def _json_spans(body: bytes) -> list[RawSpan]:
    try:
        document = json.loads(body)
    except (ValueError, RecursionError) as error:
        raise BadExport(400, f"the body is not JSON: {error}") from None
    try:
        return list(spans_of_document(document, "the export"))
    except InputError as error:
        raise BadExport(400, str(error)) from None


def _protobuf_spans(body: bytes) -> list[RawSpan]:
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(body)
    except (DecodeError, RecursionError) as error:
        raise BadExport(400, f"the body is not an OTLP protobuf export: {error}") from None
    spans: list[RawSpan] = []
    for resource_spans in request.resource_spans:
        service = str(_attributes(resource_spans.resource.attributes).get("service.name", ""))
        for scope_spans in resource_spans.scope_spans:
            scope = scope_spans.scope.name
            for span in scope_spans.spans:
                if len(span.trace_id) != 16 or len(span.span_id) != 8:
                    raise BadExport(400, f"span {span.name!r} has no valid traceId or spanId")
                spans.append(RawSpan(
                    trace_id=span.trace_id.hex(), span_id=span.span_id.hex(), parent_id=span.parent_span_id.hex(),
                    name=span.name, start_ns=span.start_time_unix_nano, end_ns=span.end_time_unix_nano,
                    attributes=_attributes(span.attributes),
                    events=[(event.name, _attributes(event.attributes)) for event in span.events],
                    service=service, scope=scope, failed=span.status.code == STATUS_ERROR,
                    status_message=span.status.message))
    return spans


def _attributes(items: Any) -> dict[str, Any]:
    return {item.key: _value(item.value) for item in items}


def _value(value: Any) -> Any:
    """An AnyValue as the JSON reader gives it: lists, dicts, and bytes as base64 text."""
    which = value.WhichOneof("value")
    if which == "array_value":
        return [_value(v) for v in value.array_value.values]
    if which == "kvlist_value":
        return {kv.key: _value(kv.value) for kv in value.kvlist_value.values}
    if which == "bytes_value":
        import base64

        return base64.b64encode(value.bytes_value).decode("ascii")
    return getattr(value, which) if which else None
