"""`evalkit import otel` on files as they are really left: BOM, CRLF, blank lines, a last line
still being written, and every malformed shape, which is exit 2 naming the file and the place.

The base file is a real trace (LangGraph with OpenInference, tests/fixtures/otel_frameworks).
"""

from __future__ import annotations

import json
from contextlib import nullcontext

import pytest

from evalkit.commands.import_otel import import_otel_command
from evalkit.importers.otel.importer import import_otel
from tests.conftest import FIXTURES
from tests.in_process import invoke_evalkit

TRACE = FIXTURES / "otel_frameworks" / "langgraph_openinference.otlp.jsonl"
CASES = ["conv-paris", "conv-hello", "conv-atlantis"]


def lines() -> list[str]:
    return TRACE.read_text().splitlines()


def test_a_bom_crlf_line_ends_and_blank_lines_are_read_as_meant(tmp_path):
    messy = tmp_path / "messy.jsonl"
    messy.write_bytes(("\ufeff" + "\r\n\r\n".join(lines()) + "\r\n\r\n").encode())

    assert import_otel([messy], tmp_path / "messy.evalset.json").case_ids == CASES


def test_a_one_document_file_with_a_bom_is_read(tmp_path):
    spans = [span for line in lines() for resource in json.loads(line)["resourceSpans"]
             for scope in resource["scopeSpans"] for span in scope["spans"]]
    whole = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {"name": "x"}, "spans": spans}]}]}
    path = tmp_path / "whole.json"
    path.write_bytes(("\ufeff" + json.dumps(whole, indent=2)).encode())

    assert import_otel([path], tmp_path / "whole.evalset.json").case_ids == CASES


def test_a_last_line_still_being_written_is_skipped_with_a_warning_naming_it(tmp_path):
    written = lines()
    growing = tmp_path / "growing.jsonl"
    growing.write_text("\n".join(written) + "\n" + written[0][:120])

    said = import_otel_command([growing], tmp_path / "growing.evalset.json")

    assert any(line.startswith(f"warning: {growing}: line {len(written) + 1}: skipped, cut short") for line in said)
    assert "(3 eval cases: conv-paris, conv-hello, conv-atlantis)" in said[0]


def _document(change) -> str:
    document = json.loads(lines()[0])
    change(document)
    return json.dumps(document)


def _first_span(document: dict) -> dict:
    return document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]


SPAN = "line 1, resourceSpans[0].scopeSpans[0].spans[0]: "
MALFORMED = {
    "resource as a string": (lambda d: d["resourceSpans"][0].update(resource="service-a"),
                             "line 1, resourceSpans[0]: resource must be an object, not str"),
    "scope as a string": (lambda d: d["resourceSpans"][0]["scopeSpans"][0].update(scope="lib"),
                          "line 1, resourceSpans[0].scopeSpans[0]: scope must be an object, not str"),
    "spans as a string": (lambda d: d["resourceSpans"][0]["scopeSpans"][0].update(spans="none"),
                          "line 1, resourceSpans[0].scopeSpans[0]: spans must be a list of objects"),
    "attributes as an object": (lambda d: _first_span(d).update(attributes={"a": 1}),
                                SPAN + "attributes must be a list of {key, value}"),
    "events as a string": (lambda d: _first_span(d).update(events="x"), SPAN + "events must be a list of objects"),
    "status as a list": (lambda d: _first_span(d).update(status=[2]), SPAN + "status must be an object, not list"),
    "a time as text": (lambda d: _first_span(d).update(startTimeUnixNano="noon"),
                       SPAN + "a time must be nanoseconds since 1970"),
}


@pytest.mark.parametrize("shape", sorted(MALFORMED))
def test_a_malformed_shape_is_exit_2_naming_the_file_and_the_place(shape, tmp_path):
    change, message = MALFORMED[shape]
    path = tmp_path / "bad.jsonl"
    path.write_text(_document(change) + "\n")

    done = invoke_evalkit("import", "otel", str(path), "--out", str(tmp_path / "x.evalset.json"), cwd=tmp_path)

    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{path}: {message}" in done.stderr
    assert "Traceback" not in done.stderr


def test_odd_values_inside_attributes_are_read_as_nothing_not_a_crash(tmp_path):
    def odd(document: dict) -> None:
        _first_span(document)["attributes"] += [{"key": "x", "value": {"arrayValue": [1, 2]}},
                                                 {"key": "y", "value": {"kvlistValue": "z"}},
                                                 {"key": "z", "value": "plain"}]
    path = tmp_path / "odd.jsonl"
    path.write_text("\n".join([_document(odd), *lines()[1:]]) + "\n")

    assert import_otel([path], tmp_path / "odd.evalset.json").case_ids == CASES


@pytest.mark.parametrize("layout", ["line", "whole file"])
def test_json_nested_100k_deep_is_exit_2(layout, tmp_path):
    deep = '{"resourceSpans": ' + "[" * 100_000 + "]" * 100_000 + "}"
    path = tmp_path / "deep.jsonl"
    path.write_text(lines()[0] + "\n" + deep + "\n" if layout == "line" else deep)

    done = invoke_evalkit("import", "otel", str(path), cwd=tmp_path)

    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{path}: line {2 if layout == 'line' else 1}: JSON nested too deeply" in done.stderr


def test_a_broken_line_followed_by_more_is_exit_2(tmp_path):
    written = lines()
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join([written[0], written[1][:50], *written[2:]]) + "\n")

    done = invoke_evalkit("import", "otel", str(path), cwd=tmp_path)

    assert done.returncode == 2
    assert f"{path}: line 2: broken JSON" in done.stderr


def test_framework_bookkeeping_is_counted_apart_from_what_is_not_placed(tmp_path):
    said = "\n".join(import_otel_command([TRACE], tmp_path / "a.evalset.json"))

    assert "38 spans are frameworks' bookkeeping with no conversation content" in said
    assert "not placed" not in said


def test_a_run_that_crashed_is_listed_with_its_error_not_imported(tmp_path):
    pytest.importorskip("opentelemetry.sdk")
    from tests.importers import otel_support

    provider, exporter = otel_support.local_provider("bot")
    tracer = provider.get_tracer("bot")
    for conversation, fails in (("conv-ok", False), ("conv-crash", True)):
        with pytest.raises(RuntimeError) if fails else nullcontext(), tracer.start_as_current_span("invoke_agent bot") as agent:
            agent.set_attributes({"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "bot",
                                  "gen_ai.conversation.id": conversation})
            with tracer.start_as_current_span("chat m") as chat:
                chat.set_attributes({"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(
                    [{"role": "user", "parts": [{"type": "text", "content": "hi"}]}])})
                if fails:
                    raise RuntimeError("the model server is unreachable")
                chat.set_attribute("gen_ai.output.messages", json.dumps(
                    [{"role": "assistant", "parts": [{"type": "text", "content": "hello"}]}]))
    path = otel_support.write_collector_file(list(exporter.get_finished_spans()), tmp_path / "crash.jsonl")

    said = "\n".join(import_otel_command([path], tmp_path / "crash.evalset.json"))

    assert "(1 eval case: conv-ok)" in said
    assert "not placed: 1 conversations with a run that crashed (e.g. conv-crash: RuntimeError: the model server " \
           "is unreachable)" in said


def test_the_hint_for_missing_content_names_the_frameworks_own_setting(tmp_path):
    """Agent Framework's trace with its content taken out, as it is without sensitive data enabled."""
    stripped = tmp_path / "no-content.jsonl"
    documents = [json.loads(line) for line in
                 (FIXTURES / "otel_frameworks" / "agent_framework.otlp.jsonl").read_text().splitlines()]
    for document in documents:
        for resource in document["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    span["attributes"] = [a for a in span["attributes"] if "messages" not in a["key"]]
    stripped.write_text("\n".join(json.dumps(d) for d in documents) + "\n")

    done = invoke_evalkit("import", "otel", str(stripped), cwd=tmp_path)

    assert done.returncode == 2
    assert "do not record the user's message" in done.stderr
    assert "ENABLE_SENSITIVE_DATA=true" in done.stderr




def test_a_lone_surrogate_escape_is_kept_as_its_six_characters_not_an_internal_error(tmp_path):
    # In the document itself (a plain attribute text) and inside the JSON text an attribute holds.
    broken = [line.replace("Paris", "Pa\\ud800ris").replace("Oslo", "Os\\\\udfffl") for line in lines()]
    path = tmp_path / "surrogates.jsonl"
    path.write_text("\n".join(broken) + "\n")

    done = invoke_evalkit("import", "otel", str(path), "--out", str(tmp_path / "s.evalset.json"))

    assert done.returncode == 0, done.stdout + done.stderr
    written = json.loads((tmp_path / "s.evalset.json").read_text(encoding="utf-8"))
    said = [turn["user_content"]["parts"][0]["text"] for case in written["eval_cases"] for turn in case["conversation"]]
    assert "weather in Pa\\ud800ris" in said and "and in Os\\udfffl?" in said, said
