"""For `bench_otel.py`'s runs of an agent whose tracing is already on: on this folder's PYTHONPATH, Python
imports this module at start-up, and it sets an OpenTelemetry SDK tracer provider for the process
(recording spans and exporting them nowhere), as an application that traces itself has set one."""

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

trace.set_tracer_provider(TracerProvider())
