"""Per case and criterion, what changed from a base run to a new one, and which changes are regressions.

A case regressed when it passed in the base and does not now, when a criterion that
passed no longer does, or when a gating criterion's score fell by more than the
tolerance. Informational metrics (token counts, call counts) are not scores to gate on
and are left out. Cases found on one side only are listed as added or removed; they
are not regressions (a shard, a `--case` run or an edited eval set leaves some out).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from evalkit.compare.significance_results import CaseSignificance, Significance
from evalkit.results.reader import CaseKey, ScoredCase, ScoredCriterion, ScoredRun
from evalkit.schema.comparison import ComparisonRecord
from evalkit.schema.results import Status

# Scores are floats from different machines and libraries; differences below this are noise.
_EPSILON = 1e-9

REGRESSED, IMPROVED, CHANGED, UNCHANGED, ADDED, REMOVED = "regressed", "improved", "changed", "unchanged", "added", "removed"
ORDER = (REGRESSED, IMPROVED, CHANGED, ADDED, REMOVED, UNCHANGED)


@dataclass
class CriterionChange:
    name: str
    base_score: float | None
    new_score: float | None
    base_status: str | None
    new_status: str | None
    threshold: float | None
    kind: str = UNCHANGED

    @property
    def delta(self) -> float | None:
        if self.base_score is None or self.new_score is None:
            return None
        return self.new_score - self.base_score


@dataclass
class CaseChange:
    eval_set_id: str
    eval_id: str
    base_status: str | None
    new_status: str | None
    kind: str = UNCHANGED
    criteria: list[CriterionChange] = field(default_factory=list)
    # With `--significance` only (compare/significance.py): the test of this case's pass counts.
    significance: CaseSignificance | None = None

    @property
    def name(self) -> str:
        return f"{self.eval_set_id}/{self.eval_id}"


@dataclass
class Comparison:
    base: str
    new: str
    tolerance: float
    cases: list[CaseChange] = field(default_factory=list)
    significance: Significance | None = None  # `--significance LEVEL`: the tests (compare/significance.py)
    baseline_runs: list[str] = field(default_factory=list)  # `--baseline history`: the runs pooled as the base

    def of_kind(self, kind: str) -> list[CaseChange]:
        return [c for c in self.cases if c.kind == kind]

    @property
    def regressions(self) -> list[CaseChange]:
        return self.of_kind(REGRESSED)

    @property
    def common(self) -> int:
        return sum(1 for c in self.cases if c.kind not in (ADDED, REMOVED))

    def counts(self) -> dict[str, int]:
        return {kind: len(self.of_kind(kind)) for kind in ORDER}

    @property
    def gate_regressions(self) -> list[CaseChange]:
        """The regressions that fail the gate: all of them, or with `--significance` the
        significant ones (an empty list with a significant overall test still fails: see
        `fails_gate`)."""
        if self.significance is None:
            return self.regressions
        return [c for c in self.regressions if c.significance is not None and c.significance.significant]

    @property
    def fails_gate(self) -> bool:
        if self.significance is None:
            return bool(self.regressions)
        return bool(self.gate_regressions) or self.significance.fails_gate

    def to_record(self) -> ComparisonRecord:
        """The comparison as the result file's `comparison` holds it."""
        return ComparisonRecord.model_validate(self.to_dict())

    def to_dict(self) -> dict:
        data = asdict(self)
        data["summary"] = self.counts()
        # Without `--significance` the JSON is what it always was; with it, each regressed
        # or improved case carries its `p_value` and the run an `overall` test.
        del data["significance"]
        if not self.baseline_runs:
            del data["baseline_runs"]
        for case, change in zip(data["cases"], self.cases, strict=True):
            del case["significance"]
            if change.significance is not None and change.kind in (REGRESSED, IMPROVED):
                case.update(change.significance.to_dict())
        if self.significance is not None:
            data.update(self.significance.to_dict())
        return data


def compare_runs(base: ScoredRun, new: ScoredRun, tolerance: float = 0.0) -> Comparison:
    comparison = Comparison(base=base.label, new=new.label, tolerance=tolerance, baseline_runs=list(base.sources))
    matched_new = _match(base, new)
    for key, base_case in base.cases.items():
        new_key = matched_new.get(key)
        if new_key is None:
            comparison.cases.append(CaseChange(*key, base_status=str(base_case.status), new_status=None, kind=REMOVED))
        else:
            comparison.cases.append(_compare_case(base_case, new.cases[new_key], tolerance))
    paired = set(matched_new.values())
    for key, new_case in new.cases.items():
        if key not in paired:
            comparison.cases.append(CaseChange(*key, base_status=None, new_status=str(new_case.status), kind=ADDED))
    comparison.cases.sort(key=lambda c: ORDER.index(c.kind))  # stable: file order within each kind
    return comparison


def _match(base: ScoredRun, new: ScoredRun) -> dict[CaseKey, CaseKey]:
    """Base key → new key: the same eval set id and eval id, and nothing else. A case of a
    renamed eval set is removed on one side and added on the other, never paired with a
    case that only shares its eval id (another set may well have one)."""
    return {key: key for key in base.cases if key in new.cases}


def paired_cases(comparison: Comparison, base: ScoredRun, new: ScoredRun) -> list[tuple[ScoredCase, ScoredCase]]:
    """The cases the comparison found on both sides, base and new side by side, in its order."""
    return [(base.cases[key], new.cases[key]) for key in
            ((c.eval_set_id, c.eval_id) for c in comparison.cases if c.kind not in (ADDED, REMOVED))]


def _compare_case(base: ScoredCase, new: ScoredCase, tolerance: float) -> CaseChange:
    change = CaseChange(new.eval_set_id, new.eval_id, str(base.status), str(new.status))
    for name in dict.fromkeys([*base.criteria, *new.criteria]):
        before, after = base.criteria.get(name), new.criteria.get(name)
        if _informational(before) and _informational(after):
            continue
        change.criteria.append(_compare_criterion(name, before, after, tolerance))
    kinds = {c.kind for c in change.criteria}
    if (base.status is Status.PASSED and new.status is not Status.PASSED) or REGRESSED in kinds:
        change.kind = REGRESSED
    elif (new.status is Status.PASSED and base.status is not Status.PASSED) or IMPROVED in kinds:
        change.kind = IMPROVED
    elif base.status is not new.status or kinds - {UNCHANGED}:
        change.kind = CHANGED
    return change


def _compare_criterion(name: str, before: ScoredCriterion | None, after: ScoredCriterion | None,
                       tolerance: float) -> CriterionChange:
    either = after or before
    assert either is not None  # the name comes from one run or the other (_compare_case)
    change = CriterionChange(
        name=name,
        base_score=before.score if before else None,
        new_score=after.score if after else None,
        base_status=str(before.status) if before else None,
        new_status=str(after.status) if after else None,
        threshold=either.threshold,
    )
    if before is None or after is None:
        change.kind = CHANGED  # the criterion was added to or dropped from the config
        return change
    # A budget (`max`) has no threshold and its lower numbers are better: only its
    # verdict can improve or regress.
    delta = change.delta if change.threshold is not None else None
    if (before.status is Status.PASSED and after.status is not Status.PASSED) or (delta is not None and delta < -(tolerance + _EPSILON)):
        change.kind = REGRESSED
    elif (after.status is Status.PASSED and before.status is not Status.PASSED) or (delta is not None and delta > tolerance + _EPSILON):
        change.kind = IMPROVED
    elif before.status is not after.status or (change.delta is not None and abs(change.delta) > _EPSILON) or (
        (before.score is None) != (after.score is None)
    ):
        change.kind = CHANGED
    return change


def _informational(criterion: ScoredCriterion | None) -> bool:
    return criterion is None or criterion.status is Status.INFORMATIONAL
