"""The agent's own telemetry, received live during a run (`run --otel`; docs/agents.md).

`receiver.py` serves OTLP/HTTP on 127.0.0.1, `otlp_body.py` reads an export's body,
`in_process.py` takes an in-process agent's spans from the global tracer provider,
`turn_spans.py` matches spans to the turns in flight and `filling.py` puts what they hold
into a turn whose reply left it out. The engine puts them together (engine/telemetry.py).
"""
