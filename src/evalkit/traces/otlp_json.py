"""OTLP JSON files → spans, one document at a time (docs/traces.md, "What is read").

Three layouts are read: one `{"resourceSpans": [...]}` document per line (what the
OpenTelemetry Collector's file exporter writes), one document per file (pretty-printed
or not), and either of them gzip-compressed. A line is parsed, its spans handed on and
forgotten, so memory follows the longest line, not the file; a one-document file is
parsed whole.

Robust to how files are really left: a UTF-8 byte-order mark, CRLF line ends and blank
lines are accepted; a last line cut short (a collector still writing) is skipped with a
warning that names it; any other malformed shape (a resource given as a string, JSON
nested too deep to parse) is an input error naming the file and the place.

Ids are read in both spellings: hex (the OTLP JSON encoding the Collector writes) and
base64 (protobuf's own JSON mapping). Attribute values are OTLP `AnyValue`s
(`stringValue`, `intValue` as a string, `arrayValue`, `kvlistValue`, ...), read into
plain Python values.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import io
import json
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from evalkit.errors import InputError, Problem
from evalkit.foundation.text import escape_surrogates

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_HEX_ID = re.compile(r"[0-9a-fA-F]{16}|[0-9a-fA-F]{32}")
OTHER_SIGNALS = {"resourceLogs": "logs", "resourceMetrics": "metrics", "resourceProfiles": "profiles"}


@dataclass
class RawSpan:
    """One span as the file has it, with its resource's service and its scope's name."""

    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (name, attributes)
    service: str = ""
    scope: str = ""
    failed: bool = False  # status code ERROR
    status_message: str = ""


@dataclass
class ReadNotes:
    """What reading skipped, for the summary (a cut-short last line)."""

    warnings: list[str] = field(default_factory=list)


def read_spans(path: Path, notes: ReadNotes | None = None) -> Iterator[RawSpan]:
    """Every span of one file, in file order; a problem is exit 2 naming the file and line."""
    for line, document in _documents(path, notes or ReadNotes()):
        yield from _spans_of(document, _Place(str(path), line))


def spans_of_document(document: Any, source: str) -> Iterator[RawSpan]:
    """Every span of one OTLP JSON document received whole (an OTLP/HTTP export's body);
    a problem is an InputError naming `source` and the place in the document."""
    yield from _spans_of(document, _Place(source, 1))


def _documents(path: Path, notes: ReadNotes) -> Iterator[tuple[int, Any]]:
    if not path.is_file():
        raise InputError(Problem(str(path), "", "no such file"))
    with path.open("rb") as probe:
        magic = probe.read(4)
    if magic.startswith(ZSTD_MAGIC):
        raise InputError(Problem(str(path), "", "zstd-compressed: decompress it first (zstd -d), or export with gzip"))
    try:
        with _open_text(path, gzipped=magic.startswith(GZIP_MAGIC)) as text:
            yield from _parsed(text, path, notes)
    except (EOFError, OSError, zlib.error, UnicodeDecodeError) as error:
        raise InputError(Problem(str(path), "", f"cannot be read ({type(error).__name__}: {error}); "
                                 "is it a complete OTLP JSON file (gzip allowed)?")) from None


def _open_text(path: Path, gzipped: bool) -> IO[str]:
    # utf-8-sig drops a byte-order mark; universal newlines read CRLF files as they are meant
    if gzipped:
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8-sig")
    return path.open("r", encoding="utf-8-sig")


def _loads(text: str, path: Path, where: str) -> Any:
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise InputError(Problem(str(path), where, "JSON nested too deeply to be OTLP traces")) from None
    except ValueError as error:  # an integer past Python's limit on digits
        raise InputError(Problem(str(path), where, f"a number too long to read ({error})")) from None
    # A `\\ud800` escape with no partner (instrumentation that cut text between the halves of a
    # UTF-16 pair) parses into a str no UTF-8 file can hold: kept as its six characters, as a run does.
    if "\\ud" in text or "\\uD" in text:
        return escape_surrogates(document)
    return document


def _parsed(text: IO[str], path: Path, notes: ReadNotes) -> Iterator[tuple[int, Any]]:
    number = 0
    first: str | None = None
    for line in text:
        number += 1
        if line.strip():
            first = line
            break
    if first is None:
        raise InputError(Problem(str(path), "", "empty: no OTLP JSON documents"))
    try:
        document = _loads(first, path, f"line {number}")
    except json.JSONDecodeError:
        document = None
        if first.lstrip()[:1] not in ("{", "["):
            raise InputError(Problem(str(path), f"line {number}", "not JSON; expected OTLP JSON traces "
                                     '(one {"resourceSpans": [...]} document per line)')) from None
    if document is None:  # not a document on its own line: the whole file is one (pretty-printed) document
        rest = first + text.read()
        try:
            yield number, _loads(rest, path, f"line {number}")
        except json.JSONDecodeError as error:
            raise InputError(Problem(str(path), f"line {number + error.lineno - 1}",
                                     f"broken JSON ({error.msg}, column {error.colno})")) from None
        return
    yield number, document
    yield from _lines(text, number, path, notes)


def _lines(text: IO[str], number: int, path: Path, notes: ReadNotes) -> Iterator[tuple[int, Any]]:
    broken: tuple[int, str] | None = None  # a line that did not parse: fatal unless it is the last
    for line in text:
        number += 1
        if not line.strip():
            continue
        if broken is not None:
            raise InputError(Problem(str(path), f"line {broken[0]}",
                                     f"broken JSON ({broken[1]}); every line must be one "
                                     "OTLP JSON document, as the Collector's file exporter writes them"))
        try:
            document = _loads(line, path, f"line {number}")
        except json.JSONDecodeError as error:
            broken = (number, f"{error.msg}, column {error.colno}")
            continue
        yield number, document
    if broken is not None:
        notes.warnings.append(f"{path}: line {broken[0]}: skipped, cut short ({broken[1]}): a collector may "
                              "still be writing the file; import it again once it is complete")


@dataclass(frozen=True)
class _Place:
    """Where a problem is: the file, the line of its document, the path inside the document."""

    file: str
    line: int
    inside: str = ""

    def at(self, inside: str) -> _Place:
        return _Place(self.file, self.line, inside)

    def problem(self, message: str) -> InputError:
        return InputError(Problem(self.file, f"line {self.line}" + (f", {self.inside}" if self.inside else ""), message))


def _spans_of(document: Any, where: _Place) -> Iterator[RawSpan]:
    if not isinstance(document, dict) or "resourceSpans" not in document:
        signal = next((name for key, name in OTHER_SIGNALS.items() if isinstance(document, dict) and key in document),
                      None)
        raise where.problem(f"holds OpenTelemetry {signal}, not traces: export the traces pipeline" if signal
                            else 'not OTLP JSON traces: expected an object with "resourceSpans"')
    for r, resource_spans in enumerate(_list(document, "resourceSpans", where)):
        inside = where.at(f"resourceSpans[{r}]")
        resource = _attributes(_object(resource_spans, "resource", inside).get("attributes"), inside)
        service = str(resource.get("service.name", ""))
        for s, scope_spans in enumerate(_list(resource_spans, "scopeSpans", inside)):
            place = where.at(f"resourceSpans[{r}].scopeSpans[{s}]")
            scope = str(_object(scope_spans, "scope", place).get("name", ""))
            for n, span in enumerate(_list(scope_spans, "spans", place)):
                yield _span(span, service, scope, where.at(f"resourceSpans[{r}].scopeSpans[{s}].spans[{n}]"))


def _span(span: Any, service: str, scope: str, where: _Place) -> RawSpan:
    if not isinstance(span, dict):
        raise where.problem("a span must be an object")
    events = span.get("events") or []
    if not isinstance(events, list):
        raise where.problem("events must be a list of objects")
    status = _object(span, "status", where)
    return RawSpan(
        trace_id=_id(span.get("traceId"), where, "traceId", required=True),
        span_id=_id(span.get("spanId"), where, "spanId", required=True),
        parent_id=_id(span.get("parentSpanId"), where, "parentSpanId", required=False),
        name=str(span.get("name", "")),
        start_ns=_nanos(span.get("startTimeUnixNano"), where),
        end_ns=_nanos(span.get("endTimeUnixNano"), where),
        attributes=_attributes(span.get("attributes"), where),
        events=[(str(event.get("name", "")), _attributes(event.get("attributes"), where))
                for event in events if isinstance(event, dict)],
        service=service,
        scope=scope,
        failed=status.get("code") in (2, "STATUS_CODE_ERROR"),
        status_message=str(status.get("message") or ""),
    )


def _object(holder: dict, key: str, where: _Place) -> dict:
    value = holder.get(key) or {}
    if not isinstance(value, dict):
        raise where.problem(f"{key} must be an object, not {type(value).__name__}")
    return value


def _list(holder: dict, key: str, where: _Place) -> list[dict]:
    value = holder.get(key) or []
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise where.problem(f"{key} must be a list of objects")
    return value


def _id(value: Any, where: _Place, name: str, required: bool) -> str:
    """An id as lowercase hex, from hex (OTLP JSON) or base64 (protobuf's JSON mapping)."""
    if not value:
        if required:
            raise where.problem(f"no {name}")
        return ""
    if not isinstance(value, str):
        raise where.problem(f"{name} must be a string")
    if _HEX_ID.fullmatch(value):
        return value.lower()
    try:
        return base64.b64decode(value, validate=True).hex()
    except (binascii.Error, ValueError):
        raise where.problem(f"{name} {value!r} is neither hex nor base64") from None


def _nanos(value: Any, where: _Place) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        raise where.problem(f"a time must be nanoseconds since 1970, not {value!r}") from None


def _attributes(items: Any, where: _Place) -> dict[str, Any]:
    if not items:
        return {}
    if not isinstance(items, list):
        raise where.problem("attributes must be a list of {key, value}")
    try:
        return {str(item.get("key")): any_value(item.get("value")) for item in items if isinstance(item, dict)}
    except RecursionError:
        raise where.problem("an attribute value is nested too deeply") from None


def any_value(value: Any) -> Any:
    """An OTLP AnyValue → a Python value (unknown shapes become None)."""
    if not isinstance(value, dict):
        return None
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        try:
            return int(value["intValue"])
        except (TypeError, ValueError):
            return None
    if "doubleValue" in value:
        return value["doubleValue"]
    if "boolValue" in value:
        return value["boolValue"]
    if "arrayValue" in value:
        return [any_value(v) for v in _values(value["arrayValue"])]
    if "kvlistValue" in value:
        return {str(kv.get("key")): any_value(kv.get("value")) for kv in _values(value["kvlistValue"])
                if isinstance(kv, dict)}
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def _values(holder: Any) -> list:
    values = holder.get("values") if isinstance(holder, dict) else None
    return values if isinstance(values, list) else []
