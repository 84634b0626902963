"""A run's media folder: each medium written once by hash, the records left with references only."""

from __future__ import annotations

import base64

from evalkit.results.media_folder import MediaFolder, hashes_in, media_refs, read_media, shown_as
from evalkit.schema.results import CaseResult, InvocationRecord, Status
from tests.media.samples import png_bytes, wav_bytes

IMAGE, SOUND = png_bytes(), wav_bytes()


def content(*blobs: tuple[str, str]) -> dict:
    return {"role": "user", "parts": [{"text": "look"}, *({"inline_data": {"mime_type": m, "data": d}} for m, d in blobs)]}


def case_with(actual: dict, expected: dict | None = None, runs: list[CaseResult] | None = None) -> CaseResult:
    return CaseResult(eval_set_id="s", eval_id="c", status=Status.PASSED, runs=runs,
                      invocations=[InvocationRecord(actual={"user_content": actual}, expected=expected and
                                                    {"user_content": expected})])


def test_each_medium_is_written_once_and_the_record_keeps_its_hash(tmp_path):
    standard, url_safe = base64.b64encode(IMAGE).decode(), base64.urlsafe_b64encode(IMAGE).decode()
    shelf = MediaFolder(tmp_path / "media")
    repeated = case_with(content(("image/png", standard)), content(("image/png", url_safe)))
    case = shelf.shelve(case_with(content(("image/png", standard), ("audio/wav", base64.b64encode(SOUND).decode())),
                                  runs=[repeated]))
    refs = list(media_refs(case.invocations[0].actual["user_content"]))
    assert [(r.mime_type, r.size) for r in refs] == [("image/png", len(IMAGE)), ("audio/wav", len(SOUND))]
    assert '"data":' not in case.model_dump_json() and standard not in case.model_dump_json()
    assert sorted(p.name for p in (tmp_path / "media").iterdir()) == sorted(r.sha256 for r in refs)
    assert [read_media(tmp_path / "media", r.sha256) for r in refs] == [IMAGE, SOUND]
    assert list(hashes_in(case.model_dump(mode="json")["runs"])) == [refs[0].sha256, refs[0].sha256]


def test_what_is_not_base64_stays_as_it_was_for_its_reader_to_report(tmp_path):
    case = MediaFolder(tmp_path / "media").shelve(case_with(content(("image/png", "not base64!"))))
    assert case.invocations[0].actual["user_content"]["parts"][1]["inline_data"]["data"] == "not base64!"
    assert not (tmp_path / "media").exists()


def test_a_folder_that_cannot_be_written_leaves_the_media_inline(tmp_path):
    (tmp_path / "media").write_text("a file where the folder should be")
    shelf = MediaFolder(tmp_path / "media")
    case = shelf.shelve(case_with(content(("image/png", base64.b64encode(IMAGE).decode()))))
    assert "data" in case.invocations[0].actual["user_content"]["parts"][1]["inline_data"]
    assert shelf.trouble is not None and "media" in shelf.trouble


def test_only_listed_types_are_shown_and_names_that_are_not_hashes_read_nothing(tmp_path):
    assert shown_as("IMAGE/PNG") == ("img", "image/png") and shown_as("audio/mp3") == ("audio", "audio/mpeg")
    assert [shown_as(t) for t in ("text/html", "image/svg+xml", "application/pdf", None)] == [None] * 4
    assert read_media(tmp_path, "../../etc/passwd") is None
