"""One record of a run: each finished case kept once, and every form the run's outputs take read from it.

A finished case enters the record once (`add`): in full, as a line of JSON in the case
store on disk (results/case_store.py), and as a slim copy in memory (results/slim_cases.py);
the run-wide tallies (latency and tool figures, what the cases exercised, judged turns
without a verdict) are fed as it passes. Every other form of the run is a view of the
record and the run's header (a `RunResult` without its cases: what it echoes of the
settings, its summary and figures), rendered by results/record_views.py from the header
and `full_cases()`:

- the result file, and the same file kept in the run history: the header with every case
  in full, in plan order (`result_file_pieces`, which results/writer.py writes);
- a `--processes` worker's shard lines: the header on a line, then a case a line (`shard_line_pieces`);
- what the console, JUnit and Markdown read: the header with the slim copies (`with_cases`);
- the progress file's row of each case as it finishes (`record_views.progress_row`, for
  engine/progress_file.py, which hears of each case the record adds).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timezone

from evalkit.results.case_store import CaseStore
from evalkit.results.cases_in_order import CasesInOrder
from evalkit.results.coverage import CoverageTally
from evalkit.results.latency import RunFigures
from evalkit.results.slim_cases import SlimCases, slim
from evalkit.schema.results import CaseResult, RunResult, Summary

_AFTER_THE_PLAN = 1 << 62  # where a finished case the plan does not list is put: last


@dataclass
class RunRecord:
    """A run's finished cases, kept once, with the tallies fed as they finish; its forms are views of it."""

    started_at: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    started: float = field(default_factory=time.perf_counter)
    store: CaseStore = field(default_factory=CaseStore)  # every case in full, in finishing order
    cases: SlimCases = field(default_factory=SlimCases)  # case i of `store`, slim and packed
    order: dict[str, dict[str, int]] = field(default_factory=dict)  # eval set id → eval id → place in the plan
    figures: RunFigures = field(default_factory=RunFigures)  # latency and tool figures
    coverage: CoverageTally = field(default_factory=CoverageTally)  # what the cases exercised
    no_verdicts: int = 0  # judged turns without a readable verdict

    def add(self, case: CaseResult) -> CaseResult:
        """Keep a finished case; return it as stored (escaped, secrets masked: results/case_store.py)."""
        case = self.store.add(case)
        self.no_verdicts += sum(1 for criterion in case.criteria for turn in criterion.invocations
                                if turn.details.get("no_verdict"))
        self.figures.add(case)
        self.coverage.add(case)
        self.cases.append(slim(case))
        return case

    def __len__(self) -> int:
        return len(self.cases)

    def full_cases(self) -> CasesInOrder:
        """Every case in full, in plan order, read back from disk one at a time."""
        return self.store.in_order(self._plan_order())

    def slim_cases(self) -> CasesInOrder:
        """Every case's slim copy, in plan order, built as it is read."""
        return self.cases.in_order(self._plan_order())

    def summary(self, planned: int | None = None) -> Summary:
        return Summary.of(self.cases, planned=planned)

    def elapsed_s(self) -> float:
        return round(time.perf_counter() - self.started, 3)

    def with_cases(self, header: RunResult, full: bool) -> RunResult:
        """`header` holding the cases: in full (a list), or the slim copies (a view: memory stays flat)."""
        header.cases = list(self.full_cases()) if full else self.slim_cases()  # type: ignore[assignment]
        return header

    def _plan_order(self) -> list[int]:
        def place(index: int) -> int:
            eval_set_id, eval_id = self.cases.key(index)
            return self.order.get(eval_set_id, {}).get(eval_id, _AFTER_THE_PLAN)

        return sorted(range(len(self.cases)), key=place)
