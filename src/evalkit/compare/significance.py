"""`--significance LEVEL`: which of a comparison's changes are more than noise.

Three tests (docs/repeats.md, "Is it a real regression?"):

- per case, its pass counts on both sides with a one-sided Fisher exact test (a case run
  once on each side is a 1-of-1 count: it can never be significant alone);
- over all cases in common, the cases whose pass rate went down against those whose pass
  rate went up, with an exact binomial test: McNemar's test when every case ran once;
- per criterion, its scores over the cases in common with a paired sign-flip test
  (shown; gating only with `--gate-scores`).

The case tests and the overall test are one family, adjusted with Holm's method, so an
agent compared with itself fails the gate at most LEVEL of the time however many cases
it has; tests that could not reach LEVEL even at their most extreme (a case run once on
each side never goes below 1/2) are left out of the family first (Tarone), so they do not
dilute the others. A case's `p_value` is its own test; `p_adjusted` is what is held
against LEVEL.
"""

from __future__ import annotations

from evalkit.compare.diff import Comparison, paired_cases
from evalkit.compare.significance_results import (
    FISHER,
    MCNEMAR,
    SIGN_TEST,
    CaseSignificance,
    CriterionSignificance,
    Significance,
)
from evalkit.errors import UsageError
from evalkit.results.reader import ScoredCase, ScoredRun
from evalkit.stats.exact_tests import (
    fisher_better,
    fisher_worse,
    fisher_worse_floor,
    mcnemar_floor,
    mcnemar_worse,
)
from evalkit.stats.multiple import holm_adjusted, tarone_holm_adjusted
from evalkit.stats.paired import paired_better, paired_worse

# Pass rates are ratios of small counts: differences below this are equal.
_EPSILON = 1e-9


def check_level(level: float | None) -> float | None:
    if level is not None and not 0 < level < 1:
        raise UsageError(f"--significance {level:g}: expected a level above 0 and below 1, such as 0.05")
    return level


def add_significance(comparison: Comparison, base: ScoredRun, new: ScoredRun, level: float,
                     gate_scores: bool = False) -> None:
    """Test the comparison's changes at `level`, in place."""
    pairs = paired_cases(comparison, base, new)
    worse = [fisher_worse(b.passes, b.runs, n.passes, n.runs) for b, n in pairs]
    floors = [fisher_worse_floor(b.passes, b.runs, n.passes, n.runs) for b, n in pairs]
    down = sum(1 for b, n in pairs if _rate(n) < _rate(b) - _EPSILON)
    up = sum(1 for b, n in pairs if _rate(n) > _rate(b) + _EPSILON)
    overall_p = mcnemar_worse(down, up)
    adjusted = tarone_holm_adjusted([*worse, overall_p], [*floors, mcnemar_floor(down, up)], level)
    once = all(b.runs == 1 and n.runs == 1 for b, n in pairs)
    comparison.significance = Significance(level=level, test=MCNEMAR if once else SIGN_TEST, p_value=overall_p,
                                           p_adjusted=adjusted[-1], regressed=down, improved=up,
                                           gate_scores=gate_scores, criteria=_criteria_tests(pairs, level))
    by_name = {(c.eval_set_id, c.eval_id): c for c in comparison.cases}
    for index, (b, n) in enumerate(pairs):
        change = by_name[(n.eval_set_id, n.eval_id)]
        p_value, p_adjusted = worse[index], adjusted[index]
        if _rate(n) > _rate(b) + _EPSILON:  # an improvement is tested the other way round (it never gates)
            p_value = fisher_better(b.passes, b.runs, n.passes, n.runs)
            p_adjusted = min(1.0, p_value * len(adjusted))
        change.significance = CaseSignificance(FISHER, p_value, p_adjusted, p_adjusted <= level,
                                               b.passes, b.runs, n.passes, n.runs)


def _criteria_tests(pairs: list[tuple[ScoredCase, ScoredCase]], level: float) -> list[CriterionSignificance]:
    scores: dict[str, tuple[list[float], list[float]]] = {}
    for b, n in pairs:
        for name, before in b.criteria.items():
            after = n.criteria.get(name)
            # A score without a threshold is a budget or a report-only figure, not a score to test.
            if after is None or before.threshold is None or before.score is None or after.score is None:
                continue
            base_scores, new_scores = scores.setdefault(name, ([], []))
            base_scores.append(before.score)
            new_scores.append(after.score)
    tests = [(name, b, n, paired_worse(b, n), paired_better(b, n)) for name, (b, n) in scores.items()]
    adjusted = holm_adjusted([t[3] for t in tests])
    return [CriterionSignificance(name, len(b), sum(b) / len(b), sum(n) / len(n), worse, better, p <= level)
            for (name, b, n, worse, better), p in zip(tests, adjusted, strict=True)]


def _rate(case: ScoredCase) -> float:
    return case.passes / case.runs if case.runs else 0.0

