"""`--significance LEVEL`: which of a comparison's changes are more than noise.

One gate, one error budget (docs/repeats.md, "Is it a real regression?"):

1. First step, at LEVEL: the **overall** test (the exact stratified test of the pass
   counts over the cases in common, each case a stratum: stats/conditional.py) and, with
   `--gate-scores`, each criterion's paired sign-flip test of its scores, adjusted
   together with Holm's method (tests that could not reach LEVEL even at their most
   extreme are left out first: Tarone). The gate fails when one of them is significant.
2. Which cases fell, each with its own exact conditional test (Fisher's for a fixed
   number of runs), adjusted with Holm among the cases that could reach LEVEL (Tarone),
   and not with the overall test: a case that passed in each of the last 20 runs and
   fails now (p = 1/21) is a significant regression at 0.05 whatever the other cases did,
   where a correction shared with the overall test, or a case test held back until the
   overall test was significant, let noisy other cases hide it. The gate fails when either
   step finds something. Measured by simulation (tests/stats/test_simulation.py, 1,000
   comparisons of an agent with itself per configuration), the whole gate's false-alarm
   rate stays at or below LEVEL (the highest, 0.047 at 0.05, with 5 runs each side).

The conditional tests hold their level whatever the two sides' numbers of runs (a case
run once against twenty earlier runs, `--repeat 5` against `--repeat auto`). The score
tests compare a case's mean score on each side, which is only fair when both sides ran
each case the same way: `--gate-scores` with different repeat settings is refused.

A case's `p_value` is its own test; `p_adjusted` is what is held against LEVEL.
"""

from __future__ import annotations

from collections.abc import Collection

from evalkit.compare.diff import REGRESSED, Comparison, paired_cases
from evalkit.compare.significance_results import (
    CONDITIONAL,
    FISHER,
    MCNEMAR,
    STRATIFIED,
    CaseSignificance,
    CriterionSignificance,
    Significance,
)
from evalkit.errors import UsageError
from evalkit.results.reader import CaseKey, ScoredCase, ScoredRun
from evalkit.stats.conditional import Stratum, case_better, case_floor, case_worse, stratified_worse
from evalkit.stats.multiple import tarone_family, tarone_holm_adjusted
from evalkit.stats.power import detectable_drop
from evalkit.stats.paired import paired_better, paired_floor, paired_worse

# Pass rates are ratios of small counts: differences below this are equal.
_EPSILON = 1e-9


def check_level(level: float | None) -> float | None:
    if level is not None and not 0 < level < 1:
        raise UsageError(f"--significance {level:g}: expected a level above 0 and below 1, such as 0.05")
    return level


def add_significance(comparison: Comparison, base: ScoredRun, new: ScoredRun, level: float,
                     gate_scores: bool = False, held: Collection[CaseKey] = ()) -> None:
    """Test the comparison's changes at `level`, in place. Cases in `held` (quarantined)
    are shown with their p-values but take no part in the gate."""
    pairs = paired_cases(comparison, base, new)
    if gate_scores:
        check_scores_comparable(pairs, base, new)
    strata = [Stratum(b.passes, b.outcome_weights, n.passes, n.outcome_weights) for b, n in pairs]
    gating = [i for i, (_, n) in enumerate(pairs) if (n.eval_set_id, n.eval_id) not in held]
    in_gate = set(gating)
    overall_p, overall_floor = stratified_worse([strata[i] for i in gating])
    criteria = _criteria_tests(pairs)
    first_step = [(overall_p, overall_floor)] + ([(c.p_worse, c.floor) for c in criteria] if gate_scores else [])
    adjusted = tarone_holm_adjusted([p for p, _ in first_step], [f for _, f in first_step], level)
    family = len(tarone_family([f for _, f in first_step], level)) or 1
    overall_adjusted = adjusted[0]
    _adjust_criteria(criteria, adjusted[1:] if gate_scores else None, level)
    once = all(b.runs == 1 and n.runs == 1 for b, n in pairs)
    down = sum(1 for b, n in pairs if _rate(n) < _rate(b) - _EPSILON)
    up = sum(1 for b, n in pairs if _rate(n) > _rate(b) + _EPSILON)
    comparison.significance = Significance(
        level=level, test=MCNEMAR if once else STRATIFIED, p_value=overall_p, p_adjusted=overall_adjusted,
        regressed=down, improved=up, gate_scores=gate_scores, criteria=[c.result for c in criteria],
        base_runs=sum(b.runs for b, _ in pairs), new_runs=sum(n.runs for _, n in pairs), family=family,
        detectable_drop=detectable_drop([(b.passes, b.runs, n.runs) for i, (b, n) in enumerate(pairs) if i in in_gate],
                                        level / family))
    _case_tests(comparison, pairs, strata, gating, level)


def _case_tests(comparison: Comparison, pairs: list[tuple[ScoredCase, ScoredCase]], strata: list[Stratum],
                gating: list[int], level: float) -> None:
    """Each case's own test, adjusted among the gating cases alone (Holm, after Tarone), never
    with the overall test: its verdict does not wait on what the other cases did."""
    worse = [case_worse(s) for s in strata]
    better = [case_better(s) for s in strata]
    in_family = tarone_holm_adjusted([worse[i] for i in gating], [case_floor(strata[i]) for i in gating], level)
    adjusted_worse = [1.0] * len(pairs)
    for index, value in zip(gating, in_family, strict=True):
        adjusted_worse[index] = value
    rising = [i for i, (b, n) in enumerate(pairs) if _rate(n) > _rate(b) + _EPSILON]
    # Improvements never gate; they are adjusted among themselves (Holm) for what is shown.
    adjusted_better = dict(zip(rising, tarone_holm_adjusted([better[i] for i in rising], [0.0] * len(rising), level),
                               strict=True))
    by_key = {(c.eval_set_id, c.eval_id): c for c in comparison.cases}
    for index, (b, n) in enumerate(pairs):
        change = by_key[(n.eval_set_id, n.eval_id)]
        stopped_early = b.weights is not None or n.weights is not None
        test = CONDITIONAL if stopped_early else FISHER
        if index in adjusted_better:
            p_value, p_adjusted = better[index], adjusted_better[index]
            significant = False
        else:
            p_value, p_adjusted = worse[index], adjusted_worse[index]
            significant = change.kind == REGRESSED and p_adjusted <= level  # a held case's is 1
        change.significance = CaseSignificance(test, p_value, p_adjusted, significant, b.passes, b.runs,
                                               n.passes, n.runs)


class _CriterionTest:
    def __init__(self, name: str, base_scores: list[float], new_scores: list[float]):
        self.p_worse = paired_worse(base_scores, new_scores)
        self.floor = paired_floor(base_scores, new_scores)
        self.result = CriterionSignificance(name, len(base_scores), sum(base_scores) / len(base_scores),
                                            sum(new_scores) / len(new_scores), self.p_worse,
                                            paired_better(base_scores, new_scores), False)


def _criteria_tests(pairs: list[tuple[ScoredCase, ScoredCase]]) -> list[_CriterionTest]:
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
    return [_CriterionTest(name, b, n) for name, (b, n) in scores.items()]


def _adjust_criteria(criteria: list[_CriterionTest], in_gate: list[float] | None, level: float) -> None:
    """With `--gate-scores`, the adjusted p-values from the gate's first step; without, the
    criteria adjusted among themselves, shown but not gating."""
    adjusted = in_gate if in_gate is not None else tarone_holm_adjusted(
        [c.p_worse for c in criteria], [c.floor for c in criteria], level)
    for criterion, value in zip(criteria, adjusted, strict=True):
        criterion.result.p_adjusted = value
        criterion.result.significant = value <= level


def check_scores_comparable(pairs: list[tuple[ScoredCase, ScoredCase]], base: ScoredRun, new: ScoredRun) -> None:
    """`--gate-scores` compares a case's mean score on each side: only fair when both sides
    ran it the same way (the same number of runs, none stopped early)."""
    for b, n in pairs:
        if b.runs != n.runs or b.weights is not None or n.weights is not None:
            raise UsageError(
                f"--gate-scores: {n.eval_set_id}/{n.eval_id} ran {b.runs} time(s) in {base.label} and {n.runs} in "
                f"{new.label}{' (stopped early)' if b.weights is not None or n.weights is not None else ''}; "
                "mean scores over different numbers of runs cannot be tested against each other. Compare runs "
                "made with the same fixed --repeat, or drop --gate-scores (the pass counts are still tested)")


def _rate(case: ScoredCase) -> float:
    return case.passes / case.runs if case.runs else 0.0
