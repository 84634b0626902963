"""`--repeat N`: run each case N times and fold the runs into one case result.

The folded case keeps the usual fields, so every report and the exit code read it like
any other case, and adds:

- `repeat`: passes out of runs, pass@k and pass^k for k = 1…N (the unbiased estimates
  from N runs), `flaky` when the runs did not all end the same way, the pass rate's 95%
  Wilson interval (`pass_rate_ci`) and the `stability` verdict (evalkit.stats);
- per criterion, `spread`: mean, standard deviation, min and max of the run scores;
- `runs`: every run's own case result, in the order they finished.

The case passes when at least `required` runs passed: all of them, unless
`--pass-rate R` lowers that to ceil(R × N). A criterion's `score` is the mean over the
runs, and its status follows the same rule over that criterion's run verdicts.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import replace

from evalkit.engine.jobs import CaseJob
from evalkit.results.verdicts import combined_status
from evalkit.schema.results import CaseResult, CriterionResult, RepeatStats, ScoreSpread, Status
from evalkit.schema.run_figures import AutoRepeat as AutoRepeatFigures
from evalkit.stats.interval import wilson_interval
from evalkit.stats.sequential import StoppingRule
from evalkit.stats.stability import FLAKY, stability


def repeated(jobs: list[CaseJob], runs: int) -> list[CaseJob]:
    """Round by round rather than case by case, so the runs of one case rarely overlap in time.

    Each run is numbered, so a case that pins its session id still gets one session per run.
    """
    return [replace(job, run_index=index) for index in range(runs) for job in jobs]


def pass_at(n: int, c: int, k: int) -> float:
    """Chance that at least one of k runs drawn from the n observed (c passing) passes."""
    return round(1.0 - math.comb(n - c, k) / math.comb(n, k), 4)


def pass_hat(n: int, c: int, k: int) -> float:
    """Chance that all k runs drawn from the n observed (c passing) pass (τ-bench's pass^k)."""
    return round(math.comb(c, k) / math.comb(n, k), 4)


def combine_runs(runs: list[CaseResult], required: int) -> CaseResult:
    statuses = [run.status for run in runs]
    status = combined_status(statuses, required)
    passed = statuses.count(Status.PASSED)
    n = len(runs)
    shown = next((run for run in runs if run.status is not Status.PASSED), runs[0])
    errored = [run for run in runs if run.status is Status.ERROR]
    error = None
    if status is Status.ERROR and errored:
        error = f"{len(errored)} of {n} runs had errors; the first: {errored[0].error or 'a criterion failed to score'}"
    return CaseResult(
        eval_set_id=shown.eval_set_id,
        eval_id=shown.eval_id,
        status=status,
        error=error,
        criteria=_combined_criteria(runs, required),
        invocations=shown.invocations,
        source_file=shown.source_file,
        session_id=shown.session_id,
        duration_s=round(sum(run.duration_s or 0.0 for run in runs), 3),
        repeat=RepeatStats(
            runs=n,
            passed=passed,
            failed=statuses.count(Status.FAILED),
            errors=len(errored),
            required=required,
            pass_rate=round(passed / n, 4),
            pass_at_k={k: pass_at(n, passed, k) for k in range(1, n + 1)},
            pass_hat_k={k: pass_hat(n, passed, k) for k in range(1, n + 1)},
            flaky=len(set(statuses)) > 1,
            pass_rate_ci=[round(bound, 4) for bound in wilson_interval(passed, n)],
            stability=FLAKY if len(set(statuses)) > 1 else stability([s is Status.PASSED for s in statuses]),
        ),
        runs=runs,
    )


def _combined_criteria(runs: list[CaseResult], required: int) -> list[CriterionResult]:
    names: dict[str, None] = {}
    for run in runs:
        for criterion in run.criteria:
            names.setdefault(criterion.name)
    combined = []
    for name in names:
        per_run = [c for run in runs for c in run.criteria if c.name == name]
        scores = [c.score for c in per_run if c.score is not None]
        statuses = [c.status for c in per_run]
        shown = next((c for c in per_run if c.status not in (Status.PASSED, Status.INFORMATIONAL)), per_run[0])
        if shown.status is not Status.INFORMATIONAL:
            # A run that ended in an error scored nothing: it counts as an error, not as absent.
            statuses += [Status.ERROR] * (len(runs) - len(per_run))
        combined.append(CriterionResult(
            name=name,
            threshold=shown.threshold,
            score=round(statistics.fmean(scores), 6) if scores else None,
            status=combined_status(statuses, required),
            invocations=shown.invocations,
            details=shown.details,
            error=shown.error,
            spread=ScoreSpread(
                runs=len(runs),
                scored=len(scores),
                passed=statuses.count(Status.PASSED),
                mean=round(statistics.fmean(scores), 6) if scores else None,
                stdev=round(statistics.pstdev(scores), 6) if scores else None,
                min=min(scores) if scores else None,
                max=max(scores) if scores else None,
            ),
        ))
    return combined


class RepeatCollector:
    """Holds each case's runs until all N have finished, then hands on the folded result."""

    def __init__(self, runs: int, required: int, on_case_done: Callable[[CaseResult], None]):
        self.runs = runs
        self.required = required
        self.on_case_done = on_case_done
        self.pending: dict[tuple[str, str], list[CaseResult]] = {}

    def add(self, result: CaseResult) -> None:
        key = (result.eval_set_id, result.eval_id)
        group = self.pending.setdefault(key, [])
        group.append(result)
        if len(group) == self.runs:
            del self.pending[key]
            self.on_case_done(combine_runs(group, self.required))

    def flush(self) -> None:
        """Hand on the cases whose runs did not all finish (Ctrl-C): their finished runs count."""
        pending, self.pending = self.pending, {}
        for group in pending.values():
            self.on_case_done(combine_runs(group, min(self.required, len(group))))


class AutoRepeat:
    """`--repeat auto`: round by round, each case runs again only until its verdict is
    settled by `rule` (stats/sequential.py, docs/repeats.md "Repeats that stop early"):
    the verdict is the one `--repeat rule.max_runs` would give, with fewer runs."""

    def __init__(self, rule: StoppingRule, max_repeat: int, on_case_done: Callable[[CaseResult], None]):
        self.rule = rule
        self.max_repeat = max_repeat
        self.on_case_done = on_case_done
        self.pending: dict[tuple[str, str], list[CaseResult]] = {}
        self.agent_runs = 0
        self.cases = 0

    def add(self, result: CaseResult) -> None:
        self.agent_runs += 1
        self.pending.setdefault((result.eval_set_id, result.eval_id), []).append(result)

    def next_round(self, jobs: list[CaseJob]) -> list[CaseJob]:
        """The jobs of the next round: the cases still open; the others are folded and handed on."""
        again = []
        for job in jobs:
            group = self.pending.get((job.eval_set_id, job.case.eval_id))
            if group is None:
                continue  # not finished (interrupted): `flush` hands on what it has
            if not self.rule.stops(len(group), _passes(group)):
                again.append(replace(job, run_index=len(group)))
            else:
                self._fold(self.pending.pop((job.eval_set_id, job.case.eval_id)))
        return again

    def flush(self) -> None:
        """Hand on the cases still open (Ctrl-C, or a round cut short): their finished runs count."""
        pending, self.pending = self.pending, {}
        for group in pending.values():
            self._fold(group)

    def _fold(self, group: list[CaseResult]) -> None:
        self.cases += 1
        runs, passed = len(group), _passes(group)
        case = combine_runs(group, self.rule.required(runs))
        if case.repeat is not None and self.rule.weights(runs)[passed]:  # a case cut short has no such figures
            case.repeat = RepeatStats.model_validate({
                **case.repeat.model_dump(), "pass_rate_unbiased": round(self.rule.unbiased_rate(runs, passed), 4),
                "pass_rate_ci_exact": [round(bound, 4) for bound in self.rule.interval(runs, passed)]})
        self.on_case_done(case)

    def figures(self) -> AutoRepeatFigures:
        """What the result file records under `repeat_auto`: the rule, and the runs it saved
        against `--repeat same_as_repeat`, the fixed number of runs that decides the same way."""
        return AutoRepeatFigures(max_repeat=self.max_repeat, agreeing_runs=self.rule.max_runs, rule=self.rule.kind,
                                 required_passes=self.rule.required_passes, same_as_repeat=self.rule.max_runs,
                                 agent_runs=self.agent_runs,
                                 runs_saved=max(0, self.cases * self.rule.max_runs - self.agent_runs))


def _passes(group: list[CaseResult]) -> int:
    return sum(1 for run in group if run.status is Status.PASSED)
