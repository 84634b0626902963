"""Atomic writes keep devices and pipes what they are: `--json /dev/stdout` must not replace the device."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

from evalkit.foundation.files import write_pieces_atomically, write_text_atomically


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

    write_pieces_atomically(fifo, ['{"cases": ', "[]}"])

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

    write_text_atomically(link, "report")

    reader.join(timeout=10)
    assert received == ["report"]
    assert link.is_symlink()
    assert stat.S_ISFIFO(os.stat(link).st_mode)


def test_a_regular_file_is_still_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "result.json"
    target.write_text("old", encoding="utf-8")
    inode_before = os.stat(target).st_ino

    write_text_atomically(target, "new")

    assert target.read_text(encoding="utf-8") == "new"
    assert os.stat(target).st_ino != inode_before  # renamed into place, not rewritten in place
