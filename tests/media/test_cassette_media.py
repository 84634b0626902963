"""Model calls carrying media are recorded with the media kept by hash in `DIR/media/SHA256`, and replay
offline: the replayed request (image included) matches the recording, the answer is the recorded one."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from evalkit.cassettes.media_refs import with_blobs, without_blobs
from evalkit.testing import FakeGemini
from evalkit.testing.fake_gemini import FOREIGN_ENVIRONMENT
from tests.in_process import invoke_evalkit
from tests.media.evalsets import file_part, media_case, write_evalset
from tests.media.samples import png_bytes, sha256

AGENT = '''
from google import genai
from google.genai import types

CLIENT = []


def agent(turn):
    if not CLIENT:  # made on the first turn: it reads GOOGLE_GEMINI_BASE_URL then (the proxy's)
        CLIENT.append(genai.Client())
    parts = [types.Part(text=p["text"]) if "text" in p else
             types.Part(inline_data=types.Blob(mime_type=p["inline_data"]["mime_type"], data=p["inline_data"]["data"]))
             for p in turn.user_content["parts"]]
    answer = CLIENT[0].models.generate_content(model="gemini-2.0-flash",
                                                     contents=[types.Content(role="user", parts=parts)])
    return answer.text
'''


def run(tmp_path: Path, mode: str, env: dict[str, str]) -> dict:
    out = tmp_path / f"{mode}.json"
    done = invoke_evalkit("run", str(tmp_path / "media.evalset.json"), "--agent", f"{tmp_path / 'agent.py'}:agent",
                          "--cassettes", str(tmp_path / "cassettes"), "--cassette-mode", mode, "--json", str(out),
                          cwd=tmp_path, env=env)
    assert out.exists(), done.stderr
    case, = json.loads(out.read_text())["cases"]
    assert case["status"] == "passed", (done.stdout, done.stderr)
    return case


def test_media_in_model_calls_are_kept_by_hash_and_replay_offline(tmp_path: Path) -> None:
    image = png_bytes(padding=40_000)
    (tmp_path / "receipt.png").write_bytes(image)
    (tmp_path / "agent.py").write_text(AGENT)
    write_evalset(tmp_path, media_case("receipt", file_part("receipt.png", "image/png"), answer="A receipt."))
    with FakeGemini(default_reply="A receipt.") as fake:
        env = {**dict.fromkeys(FOREIGN_ENVIRONMENT, ""), "GOOGLE_API_KEY": "test-key",
               "GOOGLE_GEMINI_BASE_URL": fake.base_url}
        run(tmp_path, "record", env)
        calls = fake.call_count
        assert calls == 1
        fake.stop()
        run(tmp_path, "replay", env)  # the image's request matched its recording with the upstream gone
        assert fake.call_count == calls

    cassette_text = (tmp_path / "cassettes" / "media" / "receipt.cassette.json").read_text()
    assert base64.b64encode(image).decode()[:200] not in cassette_text
    [exchange] = json.loads(cassette_text)["exchanges"]
    blob = exchange["request"]["contents"][0]["parts"][1]["inlineData"]
    assert blob["data"]["evalkit_media"] == sha256(image)  # google-genai writes URL-safe base64: noted beside it
    assert (tmp_path / "cassettes" / "media" / sha256(image)).read_bytes() == image


def test_references_give_back_the_very_text_recorded(tmp_path: Path) -> None:
    image = png_bytes(padding=5_000)
    standard = base64.b64encode(image).decode()
    url_safe = base64.urlsafe_b64encode(image).decode().rstrip("=")
    body = {"contents": [{"parts": [{"inline_data": {"mime_type": "image/png", "data": standard}},
                                    {"inlineData": {"data": url_safe, "mimeType": "image/png"}}]}],
            "messages": [{"content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64," + standard}},
                                      {"type": "input_audio", "input_audio": {"data": standard, "format": "wav"}}]}],
            "note": "short text stays", "tiny": {"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgo="}}}
    kept = without_blobs(body, tmp_path / "media")
    assert standard not in json.dumps(kept) and "short text stays" in json.dumps(kept)
    assert [p.name for p in (tmp_path / "media").iterdir()] == [sha256(image)]  # one blob for four references
    assert json.dumps(with_blobs(kept, tmp_path / "media")) == json.dumps(body)  # same text, same key order


def test_an_adk_agents_model_calls_with_media_are_kept_by_hash_in_the_model_layer(tmp_path: Path) -> None:
    import pytest

    pytest.importorskip("google.adk")
    from tests.cassettes.agents_support import write_adk_agent

    image = png_bytes(padding=40_000)
    (tmp_path / "receipt.png").write_bytes(image)
    agent = write_adk_agent(tmp_path, "Describe what the user shows you.")
    write_evalset(tmp_path, media_case("receipt", file_part("receipt.png", "image/png"), answer="A receipt."))

    def run_adk(mode: str, env: dict[str, str]) -> None:
        out = tmp_path / f"adk-{mode}.json"
        done = invoke_evalkit("run", str(tmp_path / "media.evalset.json"), "--agent", agent, "--cassettes",
                              str(tmp_path / "cassettes"), "--cassette-mode", mode, "--json", str(out),
                              cwd=tmp_path, env=env)
        case, = json.loads(out.read_text())["cases"]
        assert case["status"] == "passed", (done.stdout, done.stderr)

    with FakeGemini(default_reply="A receipt.") as fake:
        env = {**dict.fromkeys(FOREIGN_ENVIRONMENT, ""), "GOOGLE_API_KEY": "test-key",
               "GOOGLE_GEMINI_BASE_URL": fake.base_url}
        run_adk("record", env)
        calls = fake.call_count
        fake.stop()
        run_adk("replay", env)
        assert fake.call_count == calls == 1

    [exchange] = json.loads((tmp_path / "cassettes" / "media" / "receipt.cassette.json").read_text())["exchanges"]
    sent = [part for content in exchange["request"]["contents"] for part in content["parts"] if "inlineData" in part]
    assert [part["inlineData"]["data"]["evalkit_media"] for part in sent] == [sha256(image)]
    assert (tmp_path / "cassettes" / "media" / sha256(image)).read_bytes() == image
