"""`evalkit import otel`: filters, duplicates, redaction, what is not placed, and bad input.

The spans come from real instrumentation: the GenAI-conventions agent of
`tests/fixtures/traced_agents.py` through the OpenTelemetry SDK, and ADK's own telemetry.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

pytest.importorskip("google.adk")
pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("opentelemetry.exporter.otlp.proto.common")

from evalkit.commands.import_otel import import_otel_command
from evalkit.errors import InputError, UsageError
from evalkit.importers.otel.importer import import_otel
from evalkit.testing import FakeGemini
from tests.in_process import invoke_evalkit
from tests.fixtures import traced_agents
from tests.importers import otel_support


@pytest.fixture(scope="module")
def gemini():
    with FakeGemini() as fake:
        fake.responder(traced_agents.respond)
        with pytest.MonkeyPatch.context() as patch:
            for name, value in fake.environment().items():
                patch.delenv(name, raising=False) if value is None else patch.setenv(name, value)
            yield fake


def bot_spans(service: str, conversations: dict[str, list[str]]) -> list:
    provider, exporter = otel_support.local_provider(service)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(traced_agents, "PROVIDER", provider)
        for conversation, texts in conversations.items():
            otel_support.run_bot_conversation(conversation, texts)
    return list(exporter.get_finished_spans())


@pytest.fixture(scope="module")
def day(gemini, tmp_path_factory) -> tuple[Path, dict[str, int]]:
    """Four conversations of two services (conv-d says what conv-a said), and when each began."""
    spans = bot_spans("bot-eu", {"conv-a": ["weather in Oslo"], "conv-b": ["weather in Paris", "hi"]})
    spans += bot_spans("bot-us", {"conv-c": ["hi there"], "conv-d": ["weather in Oslo"]})
    began = {}
    for span in spans:
        if span.name.startswith("invoke_agent"):
            conversation = span.attributes["gen_ai.conversation.id"]
            began[conversation] = min(began.get(conversation, span.start_time), span.start_time)
    path = otel_support.write_collector_file(spans, tmp_path_factory.mktemp("day") / "day.jsonl", batch=3)
    return path, began


def ids(day: tuple[Path, dict], tmp_path: Path, **options) -> list[str]:
    import_otel_command([day[0]], tmp_path / "out.evalset.json", **options)
    return [case["eval_id"] for case in json.loads((tmp_path / "out.evalset.json").read_text())["eval_cases"]]


def iso(nanos: int) -> str:
    """The microsecond at or before `nanos`, in ISO 8601."""
    return (datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(microseconds=nanos // 1000)).isoformat()


def test_filters_choose_conversations_and_duplicates_collapse(day, tmp_path):
    began = day[1]

    assert ids(day, tmp_path) == ["conv-a", "conv-b", "conv-c"]  # conv-d said and called what conv-a did
    assert ids(day, tmp_path, services=["bot-us"]) == ["conv-c", "conv-d"]
    assert ids(day, tmp_path, conversations=["conv-b", "conv-c"]) == ["conv-b", "conv-c"]
    assert ids(day, tmp_path, max_cases=2) == ["conv-a", "conv-b"]
    assert ids(day, tmp_path, since=iso(began["conv-b"]), until=iso(began["conv-c"])) == ["conv-b"]
    # Filters come first: conv-d duplicates conv-a, which --since leaves out, so conv-d is kept.
    assert ids(day, tmp_path, since=iso(began["conv-c"])) == ["conv-c", "conv-d"]


def test_sample_keeps_the_documented_hash_fraction(day, tmp_path):
    def sampled(conversation: str, seed: int, fraction: float) -> bool:
        digest = hashlib.sha256(f"{seed}:{conversation}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64 < fraction

    chosen = {}
    for seed in range(20):
        expected = [c for c in ("conv-a", "conv-b", "conv-c", "conv-d") if sampled(c, seed, 0.5)]
        if expected and expected != ["conv-d"] and len(expected) < 4:
            chosen[seed] = [c for c in expected if c != "conv-d" or "conv-a" not in expected]
    assert len(chosen) >= 3
    for seed, expected in list(chosen.items())[:3]:
        assert ids(day, tmp_path, sample=0.5, seed=seed) == expected
    assert ids(day, tmp_path, sample=1.0) == ["conv-a", "conv-b", "conv-c"]
    with pytest.raises(UsageError, match=r"--sample 1\.5"):
        import_otel_command([day[0]], tmp_path / "x.evalset.json", sample=1.5)
    with pytest.raises(UsageError, match="--since yesterday: not a date or time"):
        import_otel_command([day[0]], tmp_path / "x.evalset.json", since="yesterday")


def test_secrets_are_redacted_with_the_cassette_rules(gemini, monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")
    said = ("weather in Oslo? my key is sk-test-0123456789, see https://example.com/v1?key=AIzaSyLEAKED&alt=sse "
            'with x-goog-api-key: "AIzaSyQUOTED"')
    spans = bot_spans("bot", {"conv-secret": [said]})
    path = otel_support.write_collector_file(spans, tmp_path / "secret.jsonl")

    import_otel([path], tmp_path / "secret.evalset.json")

    written = (tmp_path / "secret.evalset.json").read_text()
    assert "sk-test-0123456789" not in written and "AIzaSyLEAKED" not in written and "AIzaSyQUOTED" not in written
    assert "my key is [redacted], see https://example.com/v1?key=[redacted]&alt=sse" in written


def test_what_cannot_be_placed_is_listed_never_guessed(gemini, tmp_path):
    provider, exporter = otel_support.local_provider("bot")
    tracer = provider.get_tracer("hand-made")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(traced_agents, "PROVIDER", provider)
        otel_support.run_bot_conversation("conv-kept", ["weather in Oslo"])
        otel_support.run_bot_conversation("conv-lost", ["weather in Paris"])
    with tracer.start_as_current_span("invoke_agent planner") as agent:
        agent.set_attributes({"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "conv-odd"})
        with tracer.start_as_current_span("plan") as plan:
            plan.set_attribute("gen_ai.operation.name", "make_plan")
    with tracer.start_as_current_span("chat gemini-2.5-flash") as chat:
        chat.set_attribute("gen_ai.operation.name", "chat")
    lost_root = next(s for s in exporter.get_finished_spans()
                     if s.name.startswith("invoke_agent") and s.attributes["gen_ai.conversation.id"] == "conv-lost")
    spans = [s for s in exporter.get_finished_spans() if s is not lost_root]
    path = otel_support.write_collector_file(spans, tmp_path / "gaps.jsonl")

    lines = import_otel_command([path], tmp_path / "gaps.evalset.json")

    text = "\n".join(lines)
    assert "(1 eval case: conv-kept)" in text
    assert f"not placed: 3 spans whose parent span is not in the file (e.g. trace {lost_root.context.trace_id:032x})" in text
    assert "not placed: 1 spans of an unknown operation 'make_plan'" in text
    assert "not placed: 1 model spans outside any agent invocation" in text
    # conv-odd's turn has no user message at all: not guessed, and the variables that record it are named
    assert "not placed: 1 conversations whose traces do not record the user's message (e.g. conv-odd): set " \
           "OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental" in text


def test_adk_traces_without_content_say_which_variables_to_set(gemini, monkeypatch, tmp_path):
    exporter = otel_support.global_exporter()
    files = {}

    async def talk() -> None:
        for schema, settings in (("semconv", {}), ("legacy", {"ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN": "1",
                                                              "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS": "false"})):
            with monkeypatch.context() as patch:
                patch.delenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", raising=False)
                for name, value in settings.items():
                    patch.setenv(name, value)
                exporter.clear()
                await otel_support.run_adk_conversations(traced_agents.weather_desk, [["weather in Paris"]])
                files[schema] = otel_support.write_collector_file(exporter.get_finished_spans(),
                                                                  tmp_path / f"{schema}.jsonl")

    asyncio.run(talk())

    with pytest.raises(InputError) as semconv:
        import_otel([files["semconv"]], tmp_path / "a.evalset.json")
    with pytest.raises(InputError) as legacy:
        import_otel([files["legacy"]], tmp_path / "b.evalset.json")
    assert "no conversation could be placed" in str(semconv.value)
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY" in str(semconv.value)
    assert "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=false" in str(legacy.value)
    assert not (tmp_path / "a.evalset.json").exists()


def test_base64_ids_read_as_hex_ids(day, tmp_path):
    spans_file = day[0]
    base64_file = tmp_path / "base64.jsonl"
    documents = [json.loads(line) for line in spans_file.read_text().splitlines()]
    import base64

    for document in documents:
        for resource in document["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if span.get(key):
                            span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    base64_file.write_text("\n".join(json.dumps(d) for d in documents))

    hex_result = import_otel([spans_file], tmp_path / "hex.evalset.json")
    base64_result = import_otel([base64_file], tmp_path / "b64.evalset.json")

    assert base64_result.case_ids == hex_result.case_ids == ["conv-a", "conv-b", "conv-c"]


def test_bad_input_is_exit_2_naming_the_file_and_line(day, tmp_path):
    good = day[0].read_text().splitlines()[0]
    broken = tmp_path / "broken.jsonl"
    broken.write_text(good + "\n" + good[:40] + "\n" + good + "\n")  # a broken line with more after it
    not_otlp = tmp_path / "cases.json"
    not_otlp.write_text(json.dumps({"eval_set_id": "x", "eval_cases": []}, indent=2))
    logs = tmp_path / "logs.jsonl"
    logs.write_text(json.dumps({"resourceLogs": []}) + "\n")

    done = invoke_evalkit("import", "otel", str(broken), cwd=tmp_path)

    assert done.returncode == 2, done.stdout + done.stderr
    assert f"evalkit: {broken}: line 2: broken JSON" in done.stderr
    assert "Traceback" not in done.stderr
    for path, message in ((not_otlp, f"{not_otlp}: line 1: not OTLP JSON traces"),
                          (logs, f"{logs}: line 1: holds OpenTelemetry logs, not traces"),
                          (tmp_path / "missing.jsonl", "no such file")):
        with pytest.raises(InputError, match=message.replace(".", r"\.")):
            import_otel([path], tmp_path / "x.evalset.json")


def test_a_trace_spread_over_several_files_is_put_together(day, tmp_path):
    lines = day[0].read_text().splitlines()
    first, second = tmp_path / "part-1.jsonl", tmp_path / "part-2.jsonl.gz"
    first.write_text("\n".join(lines[1::2]) + "\n")  # odd batches here, even ones in a gzipped file
    import gzip

    second.write_bytes(gzip.compress(("\n".join(lines[0::2]) + "\n").encode()))

    together = import_otel([second, first], tmp_path / "parts.evalset.json")

    assert together.case_ids == ["conv-a", "conv-b", "conv-c"]
    assert json.loads((tmp_path / "parts.evalset.json").read_text())["eval_cases"] == \
        json.loads(import_otel_and_read(day[0], tmp_path))["eval_cases"]


def import_otel_and_read(path: Path, tmp_path: Path) -> str:
    import_otel([path], tmp_path / "whole.evalset.json")
    return (tmp_path / "whole.evalset.json").read_text()
