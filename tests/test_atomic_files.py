"""Atomic writes keep devices and pipes what they are: `--json /dev/stdout` must not replace the device."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

from evalkit.foundation.files import write_run_file


def _read_fifo_in_background(fifo: Path) -> tuple[threading.Thread, list[str]]:
    received: list[str] = []

    def read() -> None:
        with open(fifo, encoding="utf-8") as pipe:
            received.append(pipe.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader, received


def test_a_pipe_is_written_through_and_stays_a_pipe(tmp_path: Path) -> None:
    fifo = tmp_path / "results.pipe"
    os.mkfifo(fifo)
    reader, received = _read_fifo_in_background(fifo)

    write_run_file(fifo, ['{"cases": ', "[]}"])

    reader.join(timeout=10)
    assert received == ['{"cases": []}']
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["results.pipe"]  # no temporary file left beside it


def test_a_link_to_a_pipe_is_followed_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "target.pipe"
    os.mkfifo(fifo)
    link = tmp_path / "stdout"
    link.symlink_to(fifo)
    reader, received = _read_fifo_in_background(fifo)

    write_run_file(link, "report")

    reader.join(timeout=10)
    assert received == ["report"]
    assert link.is_symlink()
    assert stat.S_ISFIFO(os.stat(link).st_mode)


def test_a_regular_file_is_still_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "result.json"
    target.write_text("old", encoding="utf-8")
    inode_before = os.stat(target).st_ino

    write_run_file(target, "new")

    assert target.read_text(encoding="utf-8") == "new"
    assert os.stat(target).st_ino != inode_before  # renamed into place, not rewritten in place


def test_a_users_file_keeps_its_text_and_a_run_file_is_masked(tmp_path):
    from evalkit.foundation.files import write_user_file
    from evalkit.foundation.redaction import Redaction

    text = "Send Authorization: Bearer demo-token-123 to https://user:pass@host/?key=abcdef and header s3cret-value"
    write_user_file(tmp_path / "cases.evalset.json", text)
    assert (tmp_path / "cases.evalset.json").read_text(encoding="utf-8") == text
    write_run_file(tmp_path / "result.json", [text[:20], text[20:]], Redaction(("s3cret-value",)))
    assert (tmp_path / "result.json").read_text(encoding="utf-8") == (
        "Send Authorization: Bearer [redacted] to https://user:[redacted]@host/?key=[redacted] and header [redacted]")
