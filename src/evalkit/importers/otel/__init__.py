"""`evalkit import otel`: OpenTelemetry traces (OTLP JSON) → an eval set (docs/traces.md)."""
