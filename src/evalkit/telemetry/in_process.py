"""An in-process agent's spans, taken from the global OpenTelemetry tracer provider.

A Python or ADK agent loaded into evalkit's process records through the global tracer
provider: evalkit adds a span processor to it (installing an SDK provider when none is set)
that hands each ended span to the run as it is (`EndedSpan`, on the agent's thread, where
every microsecond is the agent's), to be turned into the `RawSpan` an OTLP export becomes
only when its turn needs it. Each turn runs with its trace as the current context
(`turn_context`), so the agent's spans are children of it. Without opentelemetry-sdk there
is nothing to take: `install` says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

from evalkit.foundation.trace_context import TurnTrace
from evalkit.traces.otlp_json import RawSpan

ERROR = "ERROR"


class EndedSpan:
    """An SDK span as it ended: its trace id (what matching needs at once) and the span, read later."""

    __slots__ = ("span", "trace_id")

    def __init__(self, span: Any):
        self.trace_id = format(span.context.trace_id, "032x")
        self.span = span

    def raw(self) -> RawSpan:
        return raw_span(self.span)

    @property
    def attributes(self) -> Any:
        """The SDK's attributes as they are (a mapping), for a look that needs no copy."""
        return self.span.attributes


def as_raw(span: EndedSpan | RawSpan) -> RawSpan:
    """A span as the readers take it: an in-process one copied now, an exported one as it is."""
    return span.raw() if isinstance(span, EndedSpan) else span


def install(deliver: Callable[[list[EndedSpan]], None]) -> Callable[[], None] | None:
    """Hand every span the process ends from now on to `deliver`; return how to stop (None: no SDK)."""
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
    except ImportError:
        return None

    class ToTheRun(SpanProcessor):
        active = True

        def on_end(self, span: Any) -> None:
            if self.active:
                deliver([EndedSpan(span)])

    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):  # the API's default: nothing set yet
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
        provider = trace.get_tracer_provider()  # set only once per process: whatever won
    if not hasattr(provider, "add_span_processor"):
        return None
    processor = ToTheRun()
    provider.add_span_processor(processor)

    def stop() -> None:
        processor.active = False  # a provider cannot drop a processor; this one stops passing spans on

    return stop


def raw_span(span: Any) -> RawSpan:
    """An SDK `ReadableSpan` as a `RawSpan`."""
    context = span.context
    parent = span.parent
    resource = span.resource
    scope = span.instrumentation_scope
    status = span.status
    events = span.events  # (a fresh tuple at each look: looked at once)
    return RawSpan(
        trace_id=format(context.trace_id, "032x"), span_id=format(context.span_id, "016x"),
        parent_id=format(parent.span_id, "016x") if parent is not None else "",
        name=span.name, start_ns=span.start_time or 0, end_ns=span.end_time or 0,
        attributes=_plain(span.attributes),
        events=[(event.name, _plain(event.attributes)) for event in events] if events else [],
        service=str(resource.attributes.get("service.name", "")) if resource is not None else "",
        scope=scope.name if scope is not None else "",
        failed=status.status_code.name == ERROR, status_message=status.description or "")


def _plain(attributes: Any) -> dict[str, Any]:
    """The attributes as a dict, OpenTelemetry's tuples (its sequences) as the lists a file's reader gives."""
    if not attributes:
        return {}
    plain = dict(attributes.items())  # (one pass: `dict(mapping)` looks each key up again)
    for key, value in plain.items():
        if value.__class__ is tuple:
            plain[key] = list(value)
    return plain


@contextmanager
def turn_context(trace_of_turn: TurnTrace) -> Iterator[None]:
    """The turn's trace as OpenTelemetry's current context (a remote parent, as `traceparent` gives)."""
    api = _api()
    if api is None:
        yield
        return
    context, trace, NonRecordingSpan, SpanContext, sampled = api
    parent = SpanContext(int(trace_of_turn.trace_id, 16), int(trace_of_turn.span_id, 16), True, sampled)
    token = context.attach(trace.set_span_in_context(NonRecordingSpan(parent)))
    try:
        yield
    finally:
        context.detach(token)


@cache
def _api() -> tuple[Any, ...] | None:
    """OpenTelemetry's API, imported once (None without it): every turn makes a context with it."""
    try:
        from opentelemetry import context, trace
        from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags
    except ImportError:
        return None
    return context, trace, NonRecordingSpan, SpanContext, TraceFlags(TraceFlags.SAMPLED)
