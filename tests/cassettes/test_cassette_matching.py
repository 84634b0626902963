"""Request normalisation, matching keys, the 'what differs' message, and what a cassette keeps."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import httpx

from evalkit.cassettes.deck import _recorded_path
from evalkit.cassettes.matching import closest_difference, request_key
from evalkit.cassettes.protocols import GEMINI, OPENAI, protocol_for
from evalkit.cassettes.store import cassette_path
from evalkit.testing import FakeGemini
from evalkit.testing.fake_gemini import FOREIGN_ENVIRONMENT

PATH = "/v1beta/models/gemini-2.0-flash:generateContent"


def gemini_body(system: str = "Be brief.", call_id: str = "adk-1") -> dict:
    return {
        "contents": [
            {"role": "user", "parts": [{"text": "weather in Paris"}]},
            {"role": "model", "parts": [{"functionCall": {"id": call_id, "name": "get_weather", "args": {"city": "Paris"}}}]},
        ],
        "systemInstruction": {"parts": [{"text": system}]},
        "labels": {"run": "42"},
    }


def key(path: str, body: dict) -> str:
    protocol = protocol_for(path)
    return request_key(protocol.name, protocol.normalise(path, body))


def test_volatile_ids_and_labels_do_not_change_the_key():
    assert key(PATH, gemini_body(call_id="adk-1")) == key(PATH, gemini_body(call_id="adk-2"))


def test_api_version_and_vertex_paths_match_the_same_recording():
    vertex = "/v1beta1/projects/p/locations/us-central1/publishers/google/models/gemini-2.0-flash:generateContent"
    assert key(PATH, gemini_body()) == key(vertex, gemini_body()) == key(PATH.replace("v1beta", "v1"), gemini_body())


def test_streaming_and_content_changes_change_the_key():
    stream = PATH.replace("generateContent", "streamGenerateContent") + "?alt=sse"
    assert key(PATH, gemini_body()) != key(stream, gemini_body())
    assert key(PATH, gemini_body()) != key(PATH, gemini_body(system="Be chatty."))


def test_the_difference_names_the_field_and_both_values():
    recorded = GEMINI.normalise(PATH, gemini_body())
    now = GEMINI.normalise(PATH, gemini_body(system="Be chatty."))
    message = closest_difference(now, [recorded])
    assert message == ("closest recorded request differs at systemInstruction.parts[0].text: "
                       "recorded 'Be brief.' → now 'Be chatty.'")


def test_a_difference_past_the_excerpt_shows_the_text_around_it():
    preamble = "You answer questions about the weather in European capitals, briefly and politely. "
    recorded = GEMINI.normalise(PATH, gemini_body(system=preamble + "Always call get_weather first; never guess."))
    now = GEMINI.normalise(PATH, gemini_body(system=preamble + "Always call get_forecast first; never guess."))
    message = closest_difference(now, [recorded])
    before, after = message.split(": recorded ", 1)[1].split(" → now ")
    assert before != after  # the two excerpts differ: each shows where the texts part
    assert "get_weather" in before and "get_forecast" in after
    assert before.startswith("'…") and after.startswith("'…")  # cut at the front, where both agree
    assert len(before) < 100 and len(after) < 100


def test_a_difference_near_the_end_of_a_long_text_keeps_the_end_in_view():
    recorded = {"model": "m", "stop": ["x" * 100 + "a"]}
    now = {"model": "m", "stop": ["x" * 100 + "b"]}
    before, after = closest_difference(now, [recorded]).split(": recorded ", 1)[1].split(" → now ")
    assert before.endswith("a'") and after.endswith("b'")


def test_the_closest_of_several_recordings_is_compared():
    first = {"model": "m", "messages": [{"role": "user", "content": "a"}]}
    second = {"model": "m", "messages": [{"role": "user", "content": "b"}], "temperature": 0}
    now = {"model": "m", "messages": [{"role": "user", "content": "b"}], "temperature": 1}
    message = closest_difference(OPENAI.normalise("", now), [OPENAI.normalise("", first), OPENAI.normalise("", second)])
    assert "temperature: recorded 0 → now 1" in message


def test_a_key_in_the_query_is_never_kept():
    assert _recorded_path("/v1beta/models/m:streamGenerateContent?alt=sse&key=SECRET") == \
        "/v1beta/models/m:streamGenerateContent?alt=sse"
    assert _recorded_path("/v1beta/models/m:generateContent?key=SECRET") == "/v1beta/models/m:generateContent"


def test_case_ids_become_safe_distinct_file_names(tmp_path):
    assert cassette_path(tmp_path, "weather", "paris") == tmp_path / "weather" / "paris.cassette.json"
    assert cassette_path(tmp_path, "weather", "paris", run=2).name == "paris.run2.cassette.json"
    a, b = cassette_path(tmp_path, "s", "a/b"), cassette_path(tmp_path, "s", "a b")
    assert a != b and a.parent == tmp_path / "s" and "/" not in a.name


def test_the_standalone_proxy_records_then_replays_for_an_agent_started_by_hand(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in FOREIGN_ENVIRONMENT}
    body = {"contents": [{"role": "user", "parts": [{"text": "Hello there"}]}]}
    with FakeGemini(default_reply="General Kenobi") as fake:
        env["GOOGLE_GEMINI_BASE_URL"] = fake.base_url
        answer = _through_proxy(tmp_path, env, "record", body)
        assert fake.call_count == 1
        fake.stop()
        replayed = _through_proxy(tmp_path, env, "replay", body)
    assert answer == replayed and answer["candidates"][0]["content"]["parts"][0]["text"] == "General Kenobi"
    (cassette,) = (tmp_path / "cassettes").rglob("*.cassette.json")
    assert "SECRET" not in cassette.read_text()


def _through_proxy(tmp_path, env, mode: str, body: dict) -> dict:
    process = subprocess.Popen(
        [sys.executable, "-m", "evalkit", "proxy", "--cassettes", str(tmp_path / "cassettes"), "--cassette-mode", mode],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    try:
        exports = dict(process.stdout.readline().removeprefix("export ").strip().split("=", 1) for _ in range(3))
        base = exports["GOOGLE_GEMINI_BASE_URL"]
        response = httpx.post(f"{base}/v1beta/models/gemini-2.0-flash:generateContent?key=SECRET",
                              json=body, headers={"x-goog-api-key": "SECRET"}, timeout=10)
        assert response.status_code == 200, response.text
        return json.loads(response.text)
    finally:
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=10)
        assert "Traceback" not in stderr
