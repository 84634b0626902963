"""`--baseline history[:N]`: the earlier runs of the same eval sets, pooled into one baseline.

Each case's passes and runs are added up over the runs that have it, so one new run is
tested against many old ones (a case that passed in each of 20 earlier runs and fails
now: one-sided p = 1/21). The pooled case's status and scores are those of its newest
run, so the comparison's table reads like `--baseline last`; the tests use the counts.
"""

from __future__ import annotations

from dataclasses import replace

from evalkit.results.reader import CaseKey, ScoredCase, ScoredRun
from evalkit.stats.conditional import combined_weights

HISTORY = "history"
DEFAULT_HISTORY_RUNS = 20


def parse_history(spec: str) -> int | None:
    """`history` → 20, `history:N` → N; None when `spec` is not a history baseline.
    A malformed count raises ValueError with the reason."""
    text = spec.strip().lower()
    if text == HISTORY:
        return DEFAULT_HISTORY_RUNS
    if not text.startswith(HISTORY + ":"):
        return None
    count = text[len(HISTORY) + 1:]
    if not count.isdigit() or int(count) < 1:
        raise ValueError(f"expected history or history:N with N a whole number of runs, at least 1, not {spec!r}")
    return int(count)


def pooled_baseline(runs: list[ScoredRun], label: str) -> ScoredRun:
    """One baseline from `runs`, oldest first: per case, the passes and runs of every run
    that has it, and the newest run's status and scores."""
    pooled: dict[CaseKey, list[ScoredCase]] = {}
    for run in runs:
        for key, case in run.cases.items():
            pooled.setdefault(key, []).append(case)
    baseline = ScoredRun(label=label, kind="evalkit")
    for key, cases in pooled.items():
        stopped_early = any(case.weights is not None for case in cases)
        baseline.cases[key] = replace(
            cases[-1],
            runs=sum(case.runs for case in cases),
            passed_runs=sum(case.passes for case in cases),
            weights=combined_weights(*(case.outcome_weights for case in cases)) if stopped_early else None,
        )
    return baseline
