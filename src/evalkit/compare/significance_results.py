"""What `--significance LEVEL` found: the data a comparison carries and writes as JSON.

Kept apart from the tests themselves (compare/significance.py) so that a comparison
(compare/diff.py) can hold these without importing the statistics.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MCNEMAR, FISHER, SIGN_FLIP = "mcnemar_exact", "fisher_exact", "paired_sign_flip"
# The exact conditional test of a common odds ratio over the cases, each case a stratum
# (stats/conditional.py); with every case run once on each side it is McNemar's.
STRATIFIED = "stratified_exact"
# A case's test when a side stopped its runs early (`--repeat auto`): Fisher's, with the
# stopping rule's own counts of outcome sequences in place of binomial coefficients.
CONDITIONAL = "conditional_exact"


@dataclass
class CaseSignificance:
    test: str
    p_value: float
    p_adjusted: float
    significant: bool
    base_passed: int
    base_runs: int
    new_passed: int
    new_runs: int

    def to_dict(self) -> dict[str, Any]:
        return {"p_value": _round(self.p_value), "p_adjusted": _round(self.p_adjusted), "significant": self.significant,
                "test": self.test, "base_passed": self.base_passed, "base_runs": self.base_runs,
                "new_passed": self.new_passed, "new_runs": self.new_runs}


@dataclass
class CriterionSignificance:
    name: str
    cases: int  # cases in common with a score on both sides
    base_mean: float
    new_mean: float
    p_worse: float
    p_better: float
    significant: bool  # a significant drop, adjusted with the gate's family (or among the criteria when not gating)
    p_adjusted: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "test": SIGN_FLIP, "cases": self.cases, "base_mean": _round(self.base_mean),
                "new_mean": _round(self.new_mean), "p_worse": _round(self.p_worse),
                "p_better": _round(self.p_better), "p_adjusted": _round(self.p_adjusted),
                "significant": self.significant}


@dataclass
class Significance:
    level: float
    test: str  # the overall test
    p_value: float
    p_adjusted: float
    regressed: int  # cases whose pass rate went down
    improved: int  # cases whose pass rate went up
    gate_scores: bool = False
    criteria: list[CriterionSignificance] = field(default_factory=list)
    base_runs: int = 0  # runs over the cases in common, each side
    new_runs: int = 0
    family: int = 1  # the tests sharing the level at the first step (the overall test, and the score tests with --gate-scores)
    detectable_drop: float | None = None  # the drop in every case's pass rate caught 80% of the time (stats/power.py)

    @property
    def overall_significant(self) -> bool:
        return self.p_adjusted <= self.level

    @property
    def fails_gate(self) -> bool:
        return self.overall_significant or (self.gate_scores and any(c.significant for c in self.criteria))

    def to_dict(self) -> dict[str, Any]:
        return {
            "significance": self.level,
            "overall": {"test": self.test, "p_value": _round(self.p_value), "p_adjusted": _round(self.p_adjusted),
                        "regressed": self.regressed, "improved": self.improved,
                        "significant": self.overall_significant, "base_runs": self.base_runs,
                        "new_runs": self.new_runs, "family": self.family,
                        "detectable_drop": None if self.detectable_drop is None else round(self.detectable_drop, 3)},
            "criteria_tests": [c.to_dict() for c in self.criteria],
            "gate_scores": self.gate_scores,
        }


def _round(p: float) -> float:
    return float(f"{p:.6g}")
