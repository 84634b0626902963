"""`import otel` keeps the user's media of GenAI-convention spans: `blob` → inline_data, `uri` and
`file` → file_data (spans written through the OpenTelemetry SDK, read back from its OTLP JSON)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk")

from tests.importers import otel_support  # noqa: E402
from tests.in_process import invoke_evalkit  # noqa: E402
from tests.media.samples import png_bytes  # noqa: E402


def test_blob_uri_and_file_parts_become_inline_data_and_file_data(tmp_path: Path) -> None:
    provider, exporter = otel_support.local_provider("receipts")
    tracer = provider.get_tracer("test")
    image = base64.b64encode(png_bytes()).decode()
    asked = [{"role": "user", "parts": [
        {"type": "text", "content": "What is the total?"},
        {"type": "blob", "modality": "image", "mime_type": "image/png", "content": image},
        {"type": "uri", "modality": "image", "mime_type": "image/jpeg", "uri": "https://example.com/r.jpg"},
        {"type": "file", "modality": "document", "mime_type": "application/pdf", "file_id": "file-abc123"},
    ]}]
    answered = [{"role": "assistant", "parts": [{"type": "text", "content": "It is 12.50."}],
                 "finish_reason": "stop"}]
    agent_span = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "receipts",
                  "gen_ai.conversation.id": "conv-1"}
    model_span = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gemini-2.5-flash",
                  "gen_ai.input.messages": json.dumps(asked), "gen_ai.output.messages": json.dumps(answered)}
    with tracer.start_as_current_span("invoke_agent receipts", attributes=agent_span), \
            tracer.start_as_current_span("chat gemini", attributes=model_span):
        pass
    traces = tmp_path / "traces.json"
    traces.write_text(json.dumps(otel_support.otlp_document(exporter.get_finished_spans())))
    out = tmp_path / "imported.evalset.json"

    done = invoke_evalkit("import", "otel", str(traces), "--out", str(out), cwd=tmp_path)

    assert done.returncode == 0, done.stdout + done.stderr
    # the eval set is written; what evalkit cannot read yet is a warning naming the part and what to do
    warned = done.stdout + done.stderr
    assert "user_content.parts[2]: file_data.file_uri 'https://example.com/r.jpg': evalkit cannot read https://" in warned
    assert "user_content.parts[3]: file_data.file_uri 'file-abc123': no such file" in warned
    assert "until then evalkit validate and run stop at it" in warned
    [case] = json.loads(out.read_text())["eval_cases"]
    parts = case["conversation"][0]["user_content"]["parts"]
    assert parts == [
        {"text": "What is the total?"},
        {"inline_data": {"mime_type": "image/png", "data": image}},
        {"file_data": {"mime_type": "image/jpeg", "file_uri": "https://example.com/r.jpg"}},
        {"file_data": {"mime_type": "application/pdf", "file_uri": "file-abc123"}},
    ]
