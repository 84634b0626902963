"""Finished cases on disk, so a run's memory stays flat in the number of cases.

Each finished case is written as one line of JSON to a temporary file, which the
operating system deletes when it is closed; in memory the run keeps only a slim copy,
the part the console, the exit code, a baseline comparison and the summary read. The
result file, the run history and the reports that need every detail read the cases
back from the file, one at a time (docs/performance.md, "Memory").
"""

from __future__ import annotations

import json
import tempfile
from array import array
from collections.abc import Sequence
from typing import BinaryIO

from pydantic_core import PydanticSerializationError

from evalkit.foundation.redaction import EVERY_WRITER, Redaction
from evalkit.foundation.text import escape_surrogates
from evalkit.results.cases_in_order import CasesInOrder
from evalkit.results.media_folder import MediaFolder
from evalkit.schema.results import CaseResult


class CaseStore:
    """Finished cases, each a line of JSON in a temporary file (TMPDIR).

    When that file cannot be made or grown (a full disk, a removed or read-only TMPDIR), the
    cases from then on are kept in memory instead and `trouble` says why: the run goes on,
    loses nothing, and the CLI names the place and exits 3 (docs/reliability.md).
    """

    def __init__(self, redaction: Redaction = EVERY_WRITER, media: MediaFolder | None = None) -> None:
        self.redaction = redaction  # the run's: its own secrets (header values) besides what every writer masks
        self.media = media  # where the cases' images and sounds go, so the records hold only their hashes
        self.trouble: str | None = None
        self._kept: dict[int, CaseResult] = {}  # cases the file could not take, by position
        self._file: BinaryIO | None = None
        try:  # unbuffered: a write that fails, fails in `add`, not in a later read
            self._file = tempfile.TemporaryFile(prefix="evalkit-cases-", suffix=".jsonl", buffering=0)  # noqa: SIM115
        except OSError as error:
            self._note_trouble(error)
        # Where each case is, in finishing order: two arrays of machine integers, not a tuple per case.
        self._offsets = array("q")
        self._lengths = array("q")

    def add(self, result: CaseResult) -> CaseResult:
        """Write `result` (its position for `read` is `len(self) - 1`); return it as stored.

        This is where every finished case, with the text of its agent, eval set and judges,
        enters the run's records: text no file can hold (a lone surrogate) is escaped here,
        and secrets are masked here (the run's `Redaction`), once; the case as stored
        is the one every report, the console and the history are made from. Its media
        go to the run's media folder here too, leaving their hashes in the record.
        """
        if self.media is not None:
            result = self.media.shelve(result)
        try:
            text = result.model_dump_json()
            stored = self.redaction.mask(text)
        except (PydanticSerializationError, UnicodeEncodeError):
            text = ""
            stored = self.redaction.mask(json.dumps(escape_surrogates(result.model_dump(mode="json")), ensure_ascii=False))
        if stored != text:
            result = CaseResult.model_validate_json(stored)
        data = stored.encode("utf-8") + b"\n"
        offset = self._write(data)
        if offset < 0:
            self._kept[len(self._offsets)] = result
        self._offsets.append(offset)
        self._lengths.append(len(data))
        return result

    def _write(self, data: bytes) -> int:
        """Append `data` to the file: its offset, or -1 when the file cannot take it."""
        if self._file is None or self.trouble is not None:
            return -1
        offset = self._file.seek(0, 2)
        try:
            view = memoryview(data)
            while view:
                view = view[self._file.write(view) or 0:]
        except OSError as error:
            self._note_trouble(error)
            self._file.truncate(offset)
            return -1
        return offset

    def _note_trouble(self, error: OSError) -> None:
        self.trouble = (f"{tempfile.gettempdir()}: cannot hold the finished cases ({error.strerror or error}); "
                        "they were kept in memory instead. Free some space there, or set TMPDIR to a folder with room")

    def __len__(self) -> int:
        return len(self._offsets)

    def read(self, position: int) -> CaseResult:
        if self._offsets[position] < 0:
            return self._kept[position]
        assert self._file is not None  # a case at an offset was written to it
        self._file.seek(self._offsets[position])
        return CaseResult.model_validate_json(self._file.read(self._lengths[position]))

    def in_order(self, positions: Sequence[int]) -> CasesInOrder:
        """The cases at `positions`, read from disk on every access."""
        return CasesInOrder(self.read, positions)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
