"""One table of MIME-type aliases (`media/sniff.py`'s ALIASES), read by the check, the pages and the judges.

An alias (`audio/vnd.wave`, `image/jpg`) is accepted by `validate` for the files its usual
type is accepted for, shown by the viewer and the HTML report as its usual type, and sent
to (or refused by) every judge backend as its usual type would be.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

from evalkit.judge.gemini_backend import gemini_can_read
from evalkit.judge.openai_backend import openai_can_read
from evalkit.media.sniff import ALIASES, KINDS, media_type_problem, usual_type
from evalkit.results.media_folder import shown_as
from evalkit.testing import FakeOpenAI
from tests.in_process import invoke_evalkit
from tests.media.evalsets import file_part, inline_part, media_case, write_evalset
from tests.media.samples import HEADS, wav_bytes
from tests.view.support import ViewServer

# First bytes of the formats HEADS leaves out, so that every alias meets a file of its type.
MORE_HEADS = {
    "image/bmp": b"BM\x36\x00\x00\x00\x00\x00\x00\x00\x36\x00",
    "audio/aiff": b"FORM\x00\x00\x00\x2eAIFFCOMM",
    "audio/aac": b"\xff\xf1\x50\x80\x02\x1f\xfc",
    "audio/mp4": b"\x00\x00\x00\x20ftypM4A \x00\x00\x02\x00",
    "video/quicktime": b"\x00\x00\x00\x14ftypqt  \x00\x00\x02\x00",
    "video/x-msvideo": b"RIFF\x00\x10\x00\x00AVI LIST",
}
EVERY_HEAD = {**HEADS, **MORE_HEADS}
JPEG = HEADS["image/jpeg"]
VALID = json.dumps({"reasoning": "same as the reference", "is_the_agent_response_valid": "valid"})


def test_the_table_maps_aliases_to_usual_types_only():
    usual = {mime_type for kind in KINDS for mime_type in kind.mime_types}
    assert not set(ALIASES) & usual  # an alias is never also listed as a usual type
    assert set(ALIASES.values()) <= usual
    assert all(usual_type(mime_type) == mime_type for mime_type in usual)


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_an_alias_is_checked_shown_and_judged_as_its_usual_type(alias: str):
    usual = ALIASES[alias]
    for declared in (alias, alias.upper(), f"{alias}; rate=8000"):
        assert usual_type(declared) == usual
        assert [media_type_problem(declared, head) is None for head in EVERY_HEAD.values()] == \
            [media_type_problem(usual, head) is None for head in EVERY_HEAD.values()]
        assert shown_as(declared) == shown_as(usual)
        assert openai_can_read(declared) == openai_can_read(usual)
        assert gemini_can_read(declared) == gemini_can_read(usual)
    assert any(media_type_problem(alias, head) is None for head in EVERY_HEAD.values())  # a file of its type exists


def test_the_aliases_that_differed_now_agree():
    assert shown_as("audio/vnd.wave") == shown_as("audio/x-wav") == ("audio", "audio/wav")
    assert shown_as("image/jpg") == shown_as("image/pjpeg") == ("img", "image/jpeg")
    assert openai_can_read("image/pjpeg") and openai_can_read("audio/mpeg3")


def test_containers_keep_their_own_audio_or_video_type():
    assert (usual_type("audio/webm"), usual_type("video/webm")) == ("audio/webm", "video/webm")
    assert shown_as("audio/webm") == ("audio", "audio/webm") and shown_as("video/webm") == ("video", "video/webm")
    assert usual_type("video/ogg") == "video/ogg" and shown_as("video/ogg") is None
    assert usual_type("audio/mp4") == "audio/mp4" and media_type_problem("audio/m4a", HEADS["video/mp4"]) is None


def test_a_run_with_aliases_is_checked_judged_reported_and_served_alike(tmp_path: Path):
    sound = wav_bytes()
    (tmp_path / "note.wav").write_bytes(sound)
    evalset = write_evalset(tmp_path, media_case("aliases", file_part("note.wav", "audio/vnd.wave"),
                                                 inline_part(JPEG, "image/jpg"), answer="you said: What is in this?"))
    config = tmp_path / "judge.json"
    config.write_text(json.dumps({"criteria": {"final_response_match_v2": {
        "threshold": 0.5, "judge_model_options": {"judge_model": "openai/llava", "num_samples": 1}}}}))
    runs = tmp_path / ".evalkit" / "runs"
    env = {"EVALKIT_RUNS_DIR": str(runs), "EVALKIT_CACHE_DIR": str(tmp_path / "cache")}
    with FakeOpenAI(default_reply=VALID) as fake:
        done = invoke_evalkit("run", str(evalset), "--agent", "tests/fixtures/agents_py/agents.py:echo",
                              "--config", str(config), "--json", str(tmp_path / "result.json"),
                              "--html", str(tmp_path / "report.html"), env={**env, "OPENAI_BASE_URL": fake.base_url})
        [request] = fake.requests
    assert done.returncode == 0, done.stdout + done.stderr
    assert [(m.kind, m.mime_type, m.data) for m in request.media] == [("input_audio", "wav", sound),
                                                                       ("image_url", "image/jpeg", JPEG)]
    report = (tmp_path / "report.html").read_text()
    parts = json.loads((tmp_path / "result.json").read_text())["cases"][0]["invocations"][0]["actual"]
    wav_hash, jpeg_hash = (parts["user_content"]["parts"][k]["inline_data"]["sha256"] for k in (1, 2))
    assert f'<audio data-media="{wav_hash}" data-type="audio/wav" title="audio/vnd.wave, 1.6 KB"' in report
    assert f'<img data-media="{jpeg_hash}" data-type="image/jpeg"' in report
    assert "data:audio/wav;base64," in report and "data:image/jpeg;base64," in report
    with ViewServer(cwd=tmp_path, env={"EVALKIT_RUNS_DIR": str(runs)}) as server:
        url = f"{server.url.rstrip('/')}/api/media/{wav_hash}?type=audio/vnd.wave"
        with urllib.request.urlopen(url, timeout=10) as served:
            assert (served.status, served.headers["content-type"], served.read()) == (200, "audio/wav", sound)


def test_docs_list_the_table_as_it_is():
    text = (Path(__file__).parents[2] / "docs" / "media.md").read_text()
    section = text.split("### Aliases", 1)[1].split("\n\n", 3)[2]  # the table after the section's first paragraph
    listed = {}
    for row in section.splitlines()[2:]:
        usual, aliases = (cell.strip() for cell in row.strip("|").split("|"))
        listed.update({alias.strip(" `"): usual.strip("`") for alias in aliases.split(",")})
    assert listed == ALIASES
