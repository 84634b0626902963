"""Agents' OpenTelemetry spans → turns: what `evalkit import otel` and a run reading spans live share.

`otlp_json` reads OTLP JSON documents into `RawSpan`s, `readers` reduce each span to a
`SlimSpan` in whatever vocabulary it was written, `turns` finds a trace's turns and
`turn_events` builds each (docs/traces.md).
"""
