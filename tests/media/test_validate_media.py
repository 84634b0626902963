"""`validate` (and `run`, before anything runs) checks each media part: exit 2 naming the file, case and part."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.in_process import invoke_evalkit
from tests.media.evalsets import file_part, inline_part, media_case, write_evalset
from tests.media.samples import png_bytes, wav_bytes


@pytest.fixture
def media_folder(tmp_path: Path) -> Path:
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "receipt.png").write_bytes(png_bytes())
    (tmp_path / "note.wav").write_bytes(wav_bytes())
    return tmp_path


def test_good_media_validates(media_folder: Path) -> None:
    evalset = write_evalset(media_folder,
                            media_case("relative", file_part("img/receipt.png", "image/png")),
                            media_case("audio", file_part("note.wav", "audio/wav")),
                            media_case("inline", inline_part(png_bytes(), "image/png")),
                            media_case("absolute", file_part(str(media_folder / "note.wav"), "audio/x-wav")),
                            media_case("file-uri", file_part((media_folder / "note.wav").as_uri(), "audio/wav")))
    result = invoke_evalkit("validate", str(evalset), cwd=media_folder.parent)
    assert result.returncode == 0, result.stderr


def test_file_uri_is_read_from_the_evalset_folder_not_the_working_folder(media_folder: Path, tmp_path: Path) -> None:
    sub = media_folder / "sets"
    sub.mkdir()
    evalset = write_evalset(sub, media_case("c", file_part("../img/receipt.png", "image/png")))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert invoke_evalkit("validate", str(evalset), cwd=elsewhere).returncode == 0
    wrong = write_evalset(sub, media_case("c", file_part("img/receipt.png", "image/png")), name="wrong.evalset.json")
    result = invoke_evalkit("validate", str(wrong), cwd=media_folder)  # exists from the cwd, not from the set's folder
    assert result.returncode == 2
    assert "no such file" in result.stderr


BAD = {
    "missing": (file_part("img/nothing.png", "image/png"),
                ["'img/nothing.png'", "no such file", "put the file there or correct the path"]),
    "mismatch": (file_part("note.wav", "image/png"),
                 ["'note.wav'", "declared image/png", "a WAV recording (audio/wav)", "correct its mime_type"]),
    "unrecognised": (file_part("notes.bin", "application/octet-stream"),
                     ["'notes.bin'", "cannot recognise its type", "docs/media.md"]),
    "gs": (file_part("gs://bucket/receipt.png", "image/png"),
           ["'gs://bucket/receipt.png'", "cannot read gs:// URIs", "download the file beside the eval set"]),
    "https": (file_part("https://example.com/a.png", "image/png"), ["cannot read https:// URIs"]),
    "inline-mismatch": (inline_part(png_bytes(), "image/jpeg"),
                        ["inline_data is declared image/jpeg but its first bytes are a PNG image (image/png)"]),
    "no-mime": (file_part("note.wav", ""), ["has no mime_type"]),
}


@pytest.mark.parametrize("case_id", list(BAD))
def test_each_bad_media_part_is_exit_2_naming_file_case_and_part(media_folder: Path, case_id: str) -> None:
    (media_folder / "notes.bin").write_bytes(b"\x00\x01\x02 not a known format")
    part, expected = BAD[case_id]
    evalset = write_evalset(media_folder, media_case(case_id, part))
    result = invoke_evalkit("validate", str(evalset), cwd=media_folder)
    assert result.returncode == 2, result.stderr
    line = result.stderr.strip().splitlines()[-1] if len(result.stderr.strip().splitlines()) == 1 else result.stderr
    assert f"{evalset}: eval case {case_id!r}, turn 1, user_content.parts[1]: " in line
    for fragment in expected:
        assert fragment in line
    assert "Traceback" not in result.stderr


def test_every_media_problem_is_reported_at_once(media_folder: Path) -> None:
    evalset = write_evalset(media_folder, media_case("a", file_part("gone.png", "image/png")),
                            media_case("b", file_part("note.wav", "audio/wav"), file_part("gs://b/x.png", "image/png")))
    result = invoke_evalkit("validate", str(evalset), cwd=media_folder)
    assert result.returncode == 2
    assert "eval case 'a', turn 1, user_content.parts[1]" in result.stderr
    assert "eval case 'b', turn 1, user_content.parts[2]" in result.stderr
    assert "eval case 'b', turn 1, user_content.parts[1]" not in result.stderr


def test_size_limit_is_20_mib_and_evalkit_media_max_mb_changes_it(media_folder: Path) -> None:
    big = png_bytes() + b"\x00" * (21 * 1024 * 1024)  # a PNG's bytes first, then padding past 20 MiB
    (media_folder / "big.png").write_bytes(big)
    evalset = write_evalset(media_folder, media_case("big", file_part("big.png", "image/png")))
    result = invoke_evalkit("validate", str(evalset), cwd=media_folder)
    assert result.returncode == 2
    assert "'big.png' is 21.0 MiB, over the 20 MiB limit" in result.stderr
    assert "EVALKIT_MEDIA_MAX_MB" in result.stderr
    assert invoke_evalkit("validate", str(evalset), cwd=media_folder,
                          env={"EVALKIT_MEDIA_MAX_MB": "22"}).returncode == 0
    small = invoke_evalkit("validate", str(evalset), cwd=media_folder, env={"EVALKIT_MEDIA_MAX_MB": "0.5"})
    assert "over the 0.5 MiB limit" in small.stderr


def test_bad_media_max_mb_names_the_variable(media_folder: Path) -> None:
    evalset = write_evalset(media_folder, media_case("c", file_part("note.wav", "audio/wav")))
    result = invoke_evalkit("validate", str(evalset), cwd=media_folder, env={"EVALKIT_MEDIA_MAX_MB": "lots"})
    assert result.returncode == 2
    assert "EVALKIT_MEDIA_MAX_MB=lots" in result.stderr


def test_run_checks_media_before_anything_runs(media_folder: Path) -> None:
    agent = media_folder / "agent.py"
    marker = media_folder / "ran"
    agent.write_text(f"def agent(turn):\n    open({str(marker)!r}, 'w').write('x')\n    return 'ok'\n")
    evalset = write_evalset(media_folder, media_case("ok", file_part("note.wav", "audio/wav")),
                            media_case("bad", file_part("gs://bucket/a.wav", "audio/wav")))
    result = invoke_evalkit("run", str(evalset), "--agent", f"{agent}:agent", cwd=media_folder)
    assert result.returncode == 2
    assert "eval case 'bad', turn 1, user_content.parts[1]" in result.stderr
    assert not marker.exists()


def test_yaml_eval_sets_are_checked_the_same_way(media_folder: Path) -> None:
    (media_folder / "set.evalset.yaml").write_text(
        "eval_set_id: y\neval_cases:\n- eval_id: y1\n  conversation:\n  - user_content:\n      parts:\n"
        "      - text: what is this\n      - file_data: {mime_type: image/png, file_uri: note.wav}\n")
    result = invoke_evalkit("validate", str(media_folder / "set.evalset.yaml"), cwd=media_folder)
    assert result.returncode == 2
    assert "eval case 'y1', turn 1, user_content.parts[1]" in result.stderr
    assert "a WAV recording" in result.stderr


def test_inline_data_that_is_not_base64_names_its_place(media_folder: Path) -> None:
    evalset = write_evalset(media_folder, media_case("c", {"inline_data": {"mime_type": "image/png", "data": "@@not base64@@"}}))
    result = invoke_evalkit("validate", str(evalset), cwd=media_folder)
    assert result.returncode == 2
    assert "eval_cases[0].conversation[0].user_content.parts[1].inline_data.data" in result.stderr
    assert "expected base64 data" in result.stderr
