"""evalkit.media alone: the sniff table, `file_uri` locations, files read once, the blob folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evalkit.media.blob_store import keep_blob, read_blob
from evalkit.media.digest import content_hash
from evalkit.media.locations import Unreadable, local_path
from evalkit.media.reading import MediaFiles
from evalkit.media.sniff import media_type_problem, sniffed_kind
from tests.media.samples import HEADS, png_bytes, sha256, wav_bytes


@pytest.mark.parametrize("mime_type", list(HEADS))
def test_each_format_is_recognised_as_its_type_and_no_other(mime_type: str) -> None:
    assert media_type_problem(mime_type, HEADS[mime_type]) is None
    others = [other for other in HEADS if other != mime_type and media_type_problem(other, HEADS[mime_type]) is None]
    assert others == []


def test_a_bare_mpeg_frame_is_mp3_and_aliases_and_parameters_match() -> None:
    assert sniffed_kind(b"\xff\xfb\x90\x64") is not None
    assert media_type_problem("audio/mp3", b"\xff\xfb\x90\x64") is None
    assert media_type_problem("audio/x-wav", wav_bytes()) is None
    assert media_type_problem("Image/PNG; foo=bar", png_bytes()) is None
    assert media_type_problem("audio/mp4", HEADS["video/mp4"]) is None


def test_text_types_are_checked_as_utf8() -> None:
    assert media_type_problem("text/plain", "naïve".encode()) is None
    assert "not UTF-8 text" in (media_type_problem("text/plain", b"\xff\xfe\x00") or "")
    assert "cannot recognise" in (media_type_problem("application/zip", b"PK\x03\x04") or "")


def test_locations(tmp_path: Path) -> None:
    assert local_path("a/b.png", tmp_path) == tmp_path / "a" / "b.png"
    assert local_path("/abs/b.png", tmp_path) == Path("/abs/b.png")
    assert local_path("file:///abs/b%20c.png", tmp_path) == Path("/abs/b c.png")
    assert isinstance(local_path("gs://bucket/b.png", tmp_path), Unreadable)
    assert isinstance(local_path("HTTPS://x/b.png", tmp_path), Unreadable)
    assert isinstance(local_path("file://otherhost/b.png", tmp_path), Unreadable)


def test_a_file_is_read_and_hashed_once_until_it_changes(tmp_path: Path) -> None:
    path = tmp_path / "a.png"
    path.write_bytes(png_bytes())
    files = MediaFiles()
    first = files.read(path)
    assert [files.read(path) is first for _ in range(5)] == [True] * 5
    assert (files.reads, files.hashes) == (1, 1)
    assert first.sha256 == sha256(png_bytes())
    path.write_bytes(png_bytes(rgb=(1, 2, 3)))
    os.utime(path, ns=(1, 1))
    assert files.read(path).sha256 == sha256(png_bytes(rgb=(1, 2, 3)))
    assert files.reads == 2


def test_files_past_the_budget_are_let_go(tmp_path: Path) -> None:
    files = MediaFiles(budget_bytes=150)
    paths = []
    for index in range(3):
        paths.append(tmp_path / f"{index}.bin")
        paths[-1].write_bytes(bytes([index]) * 100)
    for path in paths:
        files.read(path)
    files.read(paths[2])  # the newest is kept
    assert files.reads == 3
    files.read(paths[0])  # the oldest was let go
    assert files.reads == 4


def test_blob_folder_writes_each_blob_once_and_checks_it_on_reading(tmp_path: Path) -> None:
    data = png_bytes()
    name = keep_blob(tmp_path / "media", data)
    assert name == content_hash(data) == sha256(data)
    stored = tmp_path / "media" / name
    before = stored.stat().st_mtime_ns
    os.utime(stored, ns=(1, 1))
    assert keep_blob(tmp_path / "media", data) == name
    assert stored.stat().st_mtime_ns == 1 != before  # not written again
    assert read_blob(tmp_path / "media", name) == data
    stored.write_bytes(b"tampered")
    assert read_blob(tmp_path / "media", name) is None
    assert read_blob(tmp_path / "media", "0" * 64) is None
    assert [p.name for p in (tmp_path / "media").iterdir()] == [name]
