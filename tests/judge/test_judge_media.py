"""Judged criteria show the judge the case's media: real judge clients against fake servers that decode them.

The Gemini judge (google-genai) sends bytes parts, the OpenAI-compatible judge image data
URLs and `input_audio`; a type the judge cannot be sent leaves the criterion
`not_evaluated` without a call; the cache tells requests apart by each part's sha256.
"""

from __future__ import annotations

import base64
import json
import sqlite3
from pathlib import Path

import pytest

from evalkit.judge import JudgeRequest, JudgeService
from evalkit.schema.media_parts import MediaPart
from evalkit.testing import FakeGemini, FakeOpenAI
from tests.conftest import ROOT
from tests.in_process import invoke_evalkit
from tests.media.samples import png_bytes, wav_bytes
from tests.media.evalsets import inline_part

AGENT = "tests/fixtures/agents_py/agents.py:echo"
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
VALID = json.dumps({"reasoning": "same as the reference", "is_the_agent_response_valid": "valid"})


def eval_set(tmp_path: Path, *media: tuple[str, bytes]) -> Path:
    parts = [{"text": "What colour is this picture?"}, *(inline_part(data, mime) for mime, data in media)]
    case = {"eval_id": "picture", "conversation": [{
        "user_content": {"role": "user", "parts": parts},
        "final_response": {"role": "model", "parts": [{"text": "you said: What colour is this picture?"}]},
    }]}
    path = tmp_path / "media.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "media", "eval_cases": [case]}))
    return path


def judged_run(tmp_path: Path, evalset: Path, judge_model: str, env: dict[str, str]) -> tuple[object, dict]:
    config = tmp_path / "judge.json"
    config.write_text(json.dumps({"criteria": {"final_response_match_v2": {
        "threshold": 0.5, "judge_model_options": {"judge_model": judge_model, "num_samples": 1}}}}))
    out = tmp_path / "result.json"
    done = invoke_evalkit("run", str(evalset), "--agent", AGENT, "--config", str(config), "--json", str(out),
                          env={"EVALKIT_CACHE_DIR": str(tmp_path / "cache"), "GEMINI_API_KEY": "",
                               "EVALKIT_JUDGE_RETRY_BASE_DELAY": "0.001", **env})
    return done, json.loads(out.read_text()) if out.exists() else {}


def criterion(result: dict) -> dict:
    return result["cases"][0]["criteria"][0]


def test_gemini_judge_sees_the_image_and_the_sound_byte_for_byte(tmp_path):
    image, sound = png_bytes(), wav_bytes()
    with FakeGemini(default_reply=VALID) as fake:
        env = {"GOOGLE_GEMINI_BASE_URL": fake.base_url, "GOOGLE_API_KEY": "k"}
        done, result = judged_run(tmp_path, eval_set(tmp_path, ("image/png", image), ("audio/wav", sound)),
                                  "gemini-2.5-flash", env)
        plain_dir = tmp_path / "plain"
        plain_dir.mkdir()
        judged_run(plain_dir, eval_set(plain_dir), "gemini-2.5-flash", env)
        with_media, without_media = fake.requests
    assert done.returncode == 0, done.stdout + done.stderr
    assert criterion(result)["status"] == "passed"
    assert [(m.kind, m.mime_type, m.data) for m in with_media.media] == [
        ("inlineData", "image/png", image), ("inlineData", "audio/wav", sound)]
    # The prompt's text is the one the same case without media gets (ADK's prompt, unchanged).
    assert with_media.prompt == without_media.prompt and without_media.media == ()
    [content] = with_media.body["contents"]
    assert list(content["parts"][0]) == ["text"] and [list(p) for p in content["parts"][1:]] == [["inlineData"]] * 2


def test_openai_judge_gets_a_data_url_and_input_audio(tmp_path):
    image, sound = png_bytes(), wav_bytes()
    with FakeOpenAI(default_reply=VALID) as fake:
        done, result = judged_run(tmp_path, eval_set(tmp_path, ("image/png", image), ("audio/wav", sound)),
                                  "openai/llava", {"OPENAI_BASE_URL": fake.base_url})
        [request] = fake.requests
    assert done.returncode == 0, done.stdout + done.stderr
    assert criterion(result)["status"] == "passed"
    assert [(m.kind, m.mime_type, m.data) for m in request.media] == [
        ("image_url", "image/png", image), ("input_audio", "wav", sound)]
    [message] = request.body["messages"]
    assert [part["type"] for part in message["content"]] == ["text", "image_url", "input_audio"]
    assert message["content"][1]["image_url"]["url"].startswith("data:image/png;base64,iVBORw0KGgo")


def test_a_pdf_leaves_an_openai_judged_criterion_not_evaluated_without_a_call(tmp_path):
    with FakeOpenAI(default_reply=VALID) as fake:
        done, result = judged_run(tmp_path, eval_set(tmp_path, ("image/png", png_bytes()), ("application/pdf", PDF)),
                                  "openai/llava", {"OPENAI_BASE_URL": fake.base_url})
        calls = fake.call_count
    judged = criterion(result)
    assert judged["status"] == "not_evaluated" and judged["score"] is None
    assert judged["details"]["reason"] == "judge openai/llava cannot read application/pdf"
    assert calls == 0
    assert "judge openai/llava cannot read application/pdf" in done.stdout
    assert done.returncode == 1, done.stdout + done.stderr  # a case not evaluated does not pass (docs/ci.md)


@pytest.mark.parametrize("mime_type", ["application/pdf", "video/mp4", "audio/flac"])
async def test_the_service_refuses_what_an_openai_judge_cannot_be_sent(mime_type, tmp_path):
    from evalkit.schema.judging import MediaNotReadable

    async with JudgeService(cache_dir=tmp_path) as service:
        with pytest.raises(MediaNotReadable, match=f"^judge openai/m cannot read {mime_type}$"):
            await service.generate(JudgeRequest("openai/m", "p", media=(MediaPart(mime_type, b"x"),)))


async def test_the_cache_tells_images_apart_and_keeps_no_bytes(tmp_path, monkeypatch):
    red, blue = png_bytes(rgb=(255, 0, 0)), png_bytes(rgb=(0, 0, 255))
    with FakeGemini() as fake:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", fake.base_url)
        monkeypatch.setenv("GOOGLE_API_KEY", "k")
        fake.responder(lambda prompt, body: "seen")
        async with JudgeService(cache_dir=tmp_path) as service:
            first = await service.generate(JudgeRequest("gemini-x", "which colour?", media=(MediaPart("image/png", red),)))
            other = await service.generate(JudgeRequest("gemini-x", "which colour?", media=(MediaPart("image/png", blue),)))
            again = await service.generate(JudgeRequest("gemini-x", "which colour?", media=(MediaPart("image/png", red),)))
            text_only = await service.generate(JudgeRequest("gemini-x", "which colour?"))
        assert [m.data for r in fake.requests for m in r.media] == [red, blue]
    assert (first.from_cache, other.from_cache, again.from_cache, text_only.from_cache) == (False, False, True, False)
    stored = sqlite3.connect(tmp_path / "judge-cache.sqlite3").execute("SELECT * FROM judge_replies").fetchall()
    assert len(stored) == 3
    blob = repr(stored).encode()
    assert all(marker not in blob for marker in (b"IHDR", b"iVBOR"))


def test_rescore_shows_the_judge_the_media_the_run_kept_by_hash(tmp_path):
    image = png_bytes(rgb=(10, 200, 10))
    with FakeGemini(default_reply=VALID) as fake:
        env = {"GOOGLE_GEMINI_BASE_URL": fake.base_url, "GOOGLE_API_KEY": "k"}
        done, result = judged_run(tmp_path, eval_set(tmp_path, ("image/png", image)), "gemini-2.5-flash", env)
        assert base64.b64encode(image).decode() not in json.dumps(result)  # the result file holds its hash only
        assert "sha256" in json.dumps(result["cases"][0]["invocations"][0]["actual"]["user_content"])
        again = invoke_evalkit("rescore", str(tmp_path / "result.json"), "--config", str(tmp_path / "judge.json"),
                               "--no-cache", "--json", str(tmp_path / "rescored.json"),
                               env={"EVALKIT_CACHE_DIR": str(tmp_path / "cache"), "GEMINI_API_KEY": "", **env})
        first, second = fake.requests
    assert (done.returncode, again.returncode) == (0, 0), again.stdout + again.stderr
    assert [m.data for m in first.media] == [m.data for m in second.media] == [image]
    assert criterion(json.loads((tmp_path / "rescored.json").read_text()))["status"] == "passed"


def test_rescore_from_another_folder_finds_the_media_beside_the_result_file(tmp_path):
    image = png_bytes(rgb=(200, 10, 200))
    made, elsewhere = tmp_path / "made-here", tmp_path / "rescored-there"
    made.mkdir()
    elsewhere.mkdir()
    with FakeGemini(default_reply=VALID) as fake:
        env = {"GOOGLE_GEMINI_BASE_URL": fake.base_url, "GOOGLE_API_KEY": "k", "GEMINI_API_KEY": ""}
        judged_run(made, eval_set(made, ("image/png", image)), "gemini-2.5-flash", env)  # writes judge.json
        done = invoke_evalkit("run", "media.evalset.json", "--agent", f"{ROOT}/{AGENT}", "--config", "judge.json",
                              "--json", "result.json", "--no-cache", cwd=made, env=env)  # its media in made/.evalkit
        again = invoke_evalkit("rescore", str(made / "result.json"), "--config", str(made / "judge.json"),
                               "--no-cache", "--json", "rescored.json", cwd=elsewhere, env=env)
        _, first, second = fake.requests
    assert (done.returncode, again.returncode) == (0, 0), again.stdout + again.stderr
    assert (made / ".evalkit" / "media").is_dir()  # where rescore, run elsewhere, had to read the image from
    assert [m.data for m in first.media] == [m.data for m in second.media] == [image]
