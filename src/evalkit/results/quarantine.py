"""`--quarantine FILE`: known-flaky cases that run and are reported but do not set the exit code.

The file (JSON or YAML) is a list of entries `{"case": "SET/ID", "until": "YYYY-MM-DD",
"reason": "…"}`. Through its `until` date (inclusive, in UTC) an entry's case is marked
`"quarantined": true` and left out of the exit code; after that date it counts again and a
warning names it. An entry naming no case of the run is reported too (docs/repeats.md,
"Quarantine"). Every problem in the file is found at once and named by its place (exit 2).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from evalkit.errors import InputError, Problem
from evalkit.schema.results import CaseResult
from evalkit.schema.run_figures import QuarantineUse

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_FIELDS = ("case", "until", "reason")


@dataclass(frozen=True)
class QuarantineEntry:
    case: str  # "SET/ID"
    until: date
    reason: str
    place: str  # where in the file, for messages: "[2]"


@dataclass
class Quarantine:
    """The entries of one file, and what applying them to a run found."""

    file: str
    entries: list[QuarantineEntry]
    today: date = field(default_factory=lambda: datetime.now(timezone.utc).date())
    seen: set[str] = field(default_factory=set)  # the cases of the run that entries name
    _split_on: tuple[date, dict[str, QuarantineEntry], dict[str, QuarantineEntry]] | None = field(
        default=None, init=False, repr=False, compare=False)

    @property
    def active(self) -> dict[str, QuarantineEntry]:
        return self._split()[0]

    @property
    def expired(self) -> dict[str, QuarantineEntry]:
        return self._split()[1]

    def _split(self) -> tuple[dict[str, QuarantineEntry], dict[str, QuarantineEntry]]:
        """(active, expired) as of `today`, worked out once per day: `mark` asks for every finished case."""
        if self._split_on is None or self._split_on[0] != self.today:
            active = {e.case: e for e in self.entries if e.until >= self.today}
            expired = {e.case: e for e in self.entries if e.until < self.today and e.case not in active}
            self._split_on = (self.today, active, expired)
        return self._split_on[1], self._split_on[2]

    def mark(self, case: CaseResult) -> CaseResult:
        """The case, with `quarantined` set when an entry in force names it."""
        name = f"{case.eval_set_id}/{case.eval_id}"
        active, expired = self._split()
        if name in active or name in expired:
            self.seen.add(name)
        if name in active:
            case.quarantined = True
        return case

    def marked(self, cases: Iterable[CaseResult]) -> Iterator[CaseResult]:
        for case in cases:
            yield self.mark(case)

    def warnings(self) -> list[str]:
        """Expired entries whose case counted again, and entries that named no case of the run."""
        lines = [f"{self.file}{e.place}: the quarantine of {name} ended on {e.until.isoformat()}; it counts again "
                 f"(reason was: {e.reason}); fix the case or extend 'until'"
                 for name, e in self.expired.items() if name in self.seen]
        lines += [f"{self.file}{e.place}: quarantine entry names {e.case}, which is not a case of this run; "
                  "check the eval set id and eval id, or remove the entry"
                  for e in self.entries if e.case not in self.seen]
        return lines

    def summary(self) -> QuarantineUse:
        """What the result file records under `quarantine`."""
        return QuarantineUse(
            file=self.file,
            active=sorted(name for name in self.active if name in self.seen),
            expired=sorted(name for name in self.expired if name in self.seen),
            unknown=sorted({e.case for e in self.entries if e.case not in self.seen}),
        )


def load_quarantine(path: Path, today: date | None = None) -> Quarantine:
    from evalkit.foundation.documents import read_document

    data = read_document(path)
    problems: list[Problem] = []
    entries: list[QuarantineEntry] = []
    if not isinstance(data, list):
        raise InputError(Problem(str(path), "", "expected a list of entries like "
                                 '{"case": "SET/ID", "until": "YYYY-MM-DD", "reason": "…"}'))
    for index, raw in enumerate(data):
        entry = _entry(raw, f"[{index}]", str(path), problems)
        if entry is not None:
            entries.append(entry)
    if problems:
        raise InputError(problems)
    quarantine = Quarantine(str(path), entries)
    if today is not None:
        quarantine.today = today
    return quarantine


def _entry(raw: Any, place: str, file: str, problems: list[Problem]) -> QuarantineEntry | None:
    if not isinstance(raw, dict):
        problems.append(Problem(file, place, 'expected an entry like {"case": "SET/ID", "until": "YYYY-MM-DD", '
                                             '"reason": "…"}'))
        return None
    found = len(problems)
    for name in raw:
        if name not in _FIELDS:
            problems.append(Problem(file, f"{place}.{name}", f"unknown field; an entry has {', '.join(_FIELDS)}"))
    case, until, reason = raw.get("case"), raw.get("until"), raw.get("reason")
    if not isinstance(case, str) or case.count("/") < 1 or case.startswith("/") or case.endswith("/"):
        problems.append(Problem(file, f"{place}.case", "expected the case as EVAL_SET_ID/EVAL_ID, such as weather/paris"))
    if isinstance(until, date) and not isinstance(until, datetime):  # YAML reads a bare date as a date
        until = until.isoformat()
    day = None
    if isinstance(until, str) and _DATE.fullmatch(until):
        try:
            day = date.fromisoformat(until)
        except ValueError:
            pass
    if day is None:
        problems.append(Problem(file, f"{place}.until", "expected the last day of the quarantine as YYYY-MM-DD (UTC)"))
    if not isinstance(reason, str) or not reason.strip():
        problems.append(Problem(file, f"{place}.reason", "say why the case is quarantined (a link to the issue helps)"))
    if len(problems) > found or day is None:
        return None
    return QuarantineEntry(str(case), day, str(reason), place)


def counted(cases: Iterable[CaseResult]) -> list[CaseResult]:
    """The cases that set the exit code: all but the quarantined ones."""
    return [case for case in cases if not case.quarantined]
