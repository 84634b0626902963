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
from collections.abc import Iterator, Sequence
from typing import BinaryIO, overload

from pydantic_core import PydanticSerializationError

from evalkit.foundation.redaction import mask_secrets
from evalkit.foundation.text import escape_surrogates
from evalkit.schema.case_extras import ToolCallSource, UnmatchedToolCall
from evalkit.schema.results import COST_CRITERION, CaseResult, CriterionResult, Status


class CaseStore:
    """Finished cases, each a line of JSON in a temporary file (TMPDIR).

    When that file cannot be made or grown (a full disk, a removed or read-only TMPDIR), the
    cases from then on are kept in memory instead and `trouble` says why: the run goes on,
    loses nothing, and the CLI names the place and exits 3 (docs/reliability.md).
    """

    def __init__(self) -> None:
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
        and secrets are masked here (evalkit.foundation.redaction), once; the case as stored
        is the one every report, the console and the history are made from.
        """
        try:
            text = result.model_dump_json()
            stored = mask_secrets(text)
        except (PydanticSerializationError, UnicodeEncodeError):
            text = ""
            stored = mask_secrets(json.dumps(escape_surrogates(result.model_dump(mode="json")), ensure_ascii=False))
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

    def in_order(self, positions: Sequence[int]) -> StoredCases:
        return StoredCases(self, positions)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


class StoredCases(Sequence[CaseResult]):
    """A sequence of stored cases read from disk on every access: iterate it, do not keep it."""

    def __init__(self, store: CaseStore, positions: Sequence[int]):
        self._store = store
        self._positions = positions

    def __len__(self) -> int:
        return len(self._positions)

    @overload
    def __getitem__(self, index: int) -> CaseResult: ...

    @overload
    def __getitem__(self, index: slice) -> list[CaseResult]: ...

    def __getitem__(self, index: int | slice) -> CaseResult | list[CaseResult]:
        if isinstance(index, slice):
            return [self._store.read(p) for p in self._positions[index]]
        return self._store.read(self._positions[index])

    def __iter__(self) -> Iterator[CaseResult]:
        for position in self._positions:
            yield self._store.read(position)


# Criteria whose details the console's failure lines read; the others are kept as bare scores.
_EXPLAINED = frozenset({Status.FAILED, Status.ERROR, Status.NOT_EVALUATED})
# Slim copies are never assigned to, so they share one "fields set" each (a set per model
# instance is the largest part of a bare copy); a frozenset makes an assignment fail loudly.
_CASE_FIELDS = frozenset(CaseResult.model_fields)
_CRITERION_FIELDS = frozenset(CriterionResult.model_fields)


def slim(result: CaseResult) -> CaseResult:
    """What stays in memory of a finished case, all that the console, JUnit and Markdown
    read: no recorded turns, no repeated runs, no session id, no informational metrics but the cost, and
    details only for the criteria the console explains (failed, error, not evaluated), and
    an error case's `error_detail` (shown under `--debug`; only error cases carry one), and what the
    console says of a case besides its criteria (why it was not evaluated, unmatched tool calls).

    Built afresh rather than copied, so nothing of the full result stays referenced.
    """
    return CaseResult.model_construct(
        _CASE_FIELDS,  # type: ignore[arg-type]  # pydantic annotates a set; it only reads it
        eval_set_id=result.eval_set_id, eval_id=result.eval_id, status=result.status, error=result.error,
        error_detail=result.error_detail, criteria=[_slim_criterion(c) for c in result.criteria if _shown(c)],
        invocations=[],
        source_file=result.source_file, session_id=None,  # in the result file; no report made from slim copies shows it
        duration_s=result.duration_s, simulation=result.simulation, repeat=result.repeat, runs=None,
        reason=result.reason, unmatched_tool_calls=_unmatched_calls(result), tool_calls=_tool_calls(result),
        quarantined=result.quarantined,
    )


def _shown(criterion: CriterionResult) -> bool:
    """Whether a report made from slim copies reads this criterion: the console, JUnit and
    Markdown show the criteria that decide pass or fail, and add up the cost."""
    return criterion.status is not Status.INFORMATIONAL or criterion.name == COST_CRITERION


def _slim_criterion(criterion: CriterionResult) -> CriterionResult:
    if criterion.status in _EXPLAINED:
        return criterion
    return CriterionResult.model_construct(
        _CRITERION_FIELDS,  # type: ignore[arg-type]  # pydantic annotates a set; it only reads it
        name=criterion.name, threshold=criterion.threshold, score=criterion.score,
        status=criterion.status, invocations=[], details={}, error=criterion.error, spread=criterion.spread)


def _unmatched_calls(result: CaseResult) -> list[UnmatchedToolCall] | None:
    # The console lists a case's unmatched tool calls over all its repeated runs, which the slim copy drops.
    calls = [call for run in (result.runs or [result]) for call in run.unmatched_tool_calls or ()]
    return calls or None


def _tool_calls(result: CaseResult) -> list[ToolCallSource] | None:
    # The console counts where tool calls' answers came from over all repeated runs.
    # Only what the count reads (report/tool_sources.py): a call's arguments and answer stay in the file.
    calls = [ToolCallSource(name=call.name, source=call.source)
             for run in (result.runs or [result]) for call in run.tool_calls or ()]
    return calls or None
