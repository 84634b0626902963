"""Upper bounds (`{"max": N}`) that turn report-only metrics into gates (docs/criteria.md, "Budgets").

`max` is a number, which bounds the metric's default statistic, or an object bounding
several statistics at once. Counts, tokens and cost offer `total` (the sum over the
case's turns, their default), `mean` (the metric's own case value, as ADK reports it)
and `turn` (the largest single turn); durations offer `p50`, `p90`, `max` (their
default) and `mean`. A case passes when every bounded statistic is at most its bound;
a statistic no turn measured leaves the case not evaluated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import Field, field_validator

from evalkit.criteria.base import CriterionOptions
from evalkit.foundation.stats import percentile
from evalkit.foundation.suggestions import did_you_mean
from evalkit.schema.results import Status


class BudgetOptions(CriterionOptions):
    """A report-only metric's options: without `max` it stays report-only."""

    statistics: ClassVar[tuple[str, ...]] = ("total", "mean", "turn")

    max: float | dict[str, float] | None = Field(
        default=None,
        description="upper bound: a number (for the default statistic) or {statistic: bound}; "
        "total/mean/turn for counts, tokens and cost, p50/p90/max/mean for durations",
    )

    @field_validator("max")
    @classmethod
    def _known_statistics(cls, value: Any) -> Any:
        bounds = value if isinstance(value, dict) else {} if value is None else {cls.statistics[0]: value}
        for statistic, bound in bounds.items():
            if statistic not in cls.statistics:
                hint = did_you_mean(statistic, cls.statistics, cutoff=0.6)
                raise ValueError(f"unknown statistic {statistic!r} (use {', '.join(cls.statistics)}){hint}")
            if bound < 0:
                raise ValueError(f"the bound for {statistic!r} must be at least 0")
        return value

    def bounds(self) -> dict[str, float]:
        if self.max is None:
            return {}
        return dict(self.max) if isinstance(self.max, dict) else {self.statistics[0]: float(self.max)}


class DurationBudgetOptions(BudgetOptions):
    statistics: ClassVar[tuple[str, ...]] = ("max", "p50", "p90", "mean")


def statistic(name: str, per_turn: Sequence[float | None], case_value: float | None) -> float | None:
    """One statistic of a case's per-turn values (turns that measured nothing are left out)."""
    present = [v for v in per_turn if v is not None]
    if name == "mean":
        return case_value
    if not present:
        return None
    if name == "total":
        return sum(present)
    if name in ("turn", "max"):
        return max(present)
    return percentile(present, {"p50": 50, "p90": 90}[name])


def check_budget(
    options: BudgetOptions, per_turn: Sequence[float | None], case_value: float | None
) -> tuple[Status, dict]:
    """The gate's verdict and its details: each bounded statistic, its value and its bound."""
    checks: list[dict[str, Any]] = []
    for name, bound in options.bounds().items():
        value = statistic(name, per_turn, case_value)
        checks.append({"statistic": name, "value": value, "max": bound,
                       "passed": None if value is None else value <= bound})
    details: dict[str, Any] = {"budget": checks}
    over = [c for c in checks if c["passed"] is False]
    unknown = [c for c in checks if c["passed"] is None]
    if over:
        details["reason"] = "; ".join(f"{c['statistic']} {c['value']:g} > max {c['max']:g}" for c in over)
        return Status.FAILED, details
    if unknown:
        details["reason"] = "no turn measured " + ", ".join(c["statistic"] for c in unknown)
        return Status.NOT_EVALUATED, details
    return Status.PASSED, details
