"""The slim copies of a run's finished cases, packed so that memory grows little per case.

A slim copy (`slim`, below) is a `CaseResult` of a few fields, but a
pydantic model with its criteria costs about 2.7 KB, which at 100,000 cases was most of
the run's memory. Most cases are plain: no error, nothing to explain, only the scores of
criteria that passed. Such a case is kept as a tuple of its fields (about 0.2 KB, the
eval set id, source file and equal criteria scores shared between cases) and built again, cheaply, each time
it is read; any other case keeps its slim copy as it is. Read them as a sequence (in
finishing order), or in another order through `in_order`, without building a list.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

from evalkit.results.cases_in_order import CasesInOrder
from evalkit.schema.case_extras import ToolCallSource, UnmatchedToolCall
from evalkit.schema.results import COST_CRITERION, CaseResult, CriterionResult, Status

# Slim copies are never assigned to, so they share one "fields set" each (a set per model
# instance is the largest part of a bare copy); a frozenset makes an assignment fail loudly.
_CASE_FIELDS = frozenset(CaseResult.model_fields)
_CRITERION_FIELDS = frozenset(CriterionResult.model_fields)
_PLAIN_CASE = (Status.PASSED, Status.FAILED)
_PLAIN_CRITERION = (Status.PASSED, Status.INFORMATIONAL)
_PACKED = {"eval_set_id", "eval_id", "status", "source_file", "duration_s", "criteria"}
# Every other field must hold its default for a case to be packed (a field added later is never lost).
_DEFAULTS = {name: field.get_default(call_default_factory=True)
             for name, field in CaseResult.model_fields.items() if name not in _PACKED}
_CRITERION_DEFAULTS = {name: field.get_default(call_default_factory=True)
                       for name, field in CriterionResult.model_fields.items()
                       if name not in {"name", "threshold", "score", "status"}}

# (name, threshold, score, status) of each criterion
Scores = tuple[tuple[str, "float | None", "float | None", Status], ...]
# (eval_set_id, eval_id, status, source_file, duration_s, criteria)
Packed = tuple[str, str, Status, "str | None", "float | None", Scores]


class SlimCases(Sequence[CaseResult]):
    def __init__(self) -> None:
        self._items: list[Packed | CaseResult] = []
        self._shared: dict[str, str] = {}
        self._shared_scores: dict[Scores, Scores] = {}
        # The criteria of each shared scores tuple, built once: the reports read every case a dozen
        # times, and building its criteria was most of the cost (the objects are read-only, as below).
        self._built: dict[int, list[CriterionResult]] = {}

    def append(self, case: CaseResult) -> None:
        self._items.append(self._pack(case) or case)

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> CaseResult: ...

    @overload
    def __getitem__(self, index: slice) -> list[CaseResult]: ...

    def __getitem__(self, index: int | slice) -> CaseResult | list[CaseResult]:
        if isinstance(index, slice):
            return [self._unpack(item) for item in self._items[index]]
        return self._unpack(self._items[index])

    def __iter__(self) -> Iterator[CaseResult]:
        for item in self._items:
            yield self._unpack(item)

    def key(self, index: int) -> tuple[str, str]:
        """(eval_set_id, eval_id) of a case, without building it."""
        item = self._items[index]
        return (item[0], item[1]) if isinstance(item, tuple) else (item.eval_set_id, item.eval_id)

    def in_order(self, positions: Sequence[int]) -> CasesInOrder:
        """The cases at `positions` (finishing order), each built as it is read."""
        return CasesInOrder(self._read, positions)

    def _read(self, position: int) -> CaseResult:
        return self._unpack(self._items[position])

    def _share(self, text: str | None) -> str | None:
        """One string object for the many cases that name the same eval set or file."""
        if text is None or len(self._shared) >= 1000:
            return text
        return self._shared.setdefault(text, text)

    def _share_scores(self, criteria: Scores) -> Scores:
        """One tuple for the many cases whose criteria scored alike (all passed at 1.0, say)."""
        shared = self._shared_scores.get(criteria)
        if shared is None and len(self._shared_scores) < 1000:
            shared = self._shared_scores[criteria] = criteria
            self._built[id(criteria)] = [_criterion(*c) for c in criteria]  # kept alive by the dict: its id stays
        return shared or criteria

    def _unpack(self, item: Packed | CaseResult) -> CaseResult:
        if not isinstance(item, tuple):
            return item
        eval_set_id, eval_id, status, source_file, duration_s, scores = item
        built = self._built.get(id(scores))
        criteria = list(built) if built is not None else [_criterion(*c) for c in scores]
        # A shared frozenset as the fields set, as slim() does: slim copies are never assigned to.
        return CaseResult.model_construct(
            _CASE_FIELDS,  # type: ignore[arg-type]
            eval_set_id=eval_set_id, eval_id=eval_id, status=status, error=None, error_detail=None,
            criteria=criteria, invocations=[], source_file=source_file, session_id=None, duration_s=duration_s,
            simulation=None, repeat=None, runs=None, reason=None, unmatched_tool_calls=None)

    def _pack(self, case: CaseResult) -> Packed | None:
        if case.status not in _PLAIN_CASE:
            return None
        if any(getattr(case, name) != default for name, default in _DEFAULTS.items()):
            return None
        criteria = []
        for criterion in case.criteria:
            if criterion.status not in _PLAIN_CRITERION or any(
                    getattr(criterion, name) != default for name, default in _CRITERION_DEFAULTS.items()):
                return None
            criteria.append((criterion.name, criterion.threshold, criterion.score, criterion.status))
        return (self._share(case.eval_set_id) or "", case.eval_id, case.status, self._share(case.source_file),
                case.duration_s, self._share_scores(tuple(criteria)))


def _criterion(name: str, threshold: float | None, score: float | None, status: Status) -> CriterionResult:
    return CriterionResult.model_construct(_CRITERION_FIELDS, name=name, threshold=threshold,  # type: ignore[arg-type]
                                           score=score, status=status, invocations=[], details={}, error=None,
                                           spread=None)


# Criteria whose details the console's failure lines read; the others are kept as bare scores.
_EXPLAINED = frozenset({Status.FAILED, Status.ERROR, Status.NOT_EVALUATED})


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
