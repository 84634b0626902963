"""The run to compare with: `--baseline FILE`, `last` or `history[:N]`, and the allowed score drop."""

from __future__ import annotations

import sys
from pathlib import Path

from evalkit.errors import InputError, SettingError, UsageError
from evalkit.results.reader import ScoredRun, read_scored_run

LAST = "last"


def check_tolerance(tolerance: float) -> float:
    if tolerance < 0:
        raise SettingError("tolerance", tolerance, "a score drop allowance cannot be negative")
    return tolerance


def load_baseline(spec: str, runs_folder: Path, eval_set_ids: set[str] | None = None) -> ScoredRun | None:
    """`--baseline FILE`, `last` for the newest run in the history (the run's `runs_folder`), or
    `history[:N]` for the newest N pooled (of the same eval sets, when `eval_set_ids` is given);
    None when there is none yet."""
    from evalkit.compare.history_baseline import parse_history

    try:
        history_runs = parse_history(spec)
    except ValueError as error:
        raise UsageError(f"--baseline {spec}: {error}") from None
    if history_runs is not None:
        return _history_baseline(history_runs, runs_folder, eval_set_ids)
    if spec.strip().lower() == LAST:
        from evalkit.results import history

        for path in reversed(history.runs_of(eval_set_ids, runs_folder)):
            run = _kept_run(path, "last")
            if run is not None:
                run.label = f"the last run ({path})"
                return run
        these = f" of these eval sets ({', '.join(sorted(eval_set_ids))})" if eval_set_ids else ""
        print(f"evalkit: --baseline last: no earlier run{these} recorded in {runs_folder}; "
              "nothing to compare with", file=sys.stderr)
        return None
    if not Path(spec).exists():
        raise SettingError("baseline", spec, "no such file; give a result file (evalkit run --json writes one) "
                           "or `last` for the newest run in the history")
    return read_scored_run(Path(spec))


def _kept_run(path: Path, spec: str) -> ScoredRun | None:
    """A run of the history, or None with a note when it cannot be used: the history is evalkit's own
    folder, and one damaged file in it must not stop every later run until someone deletes it."""
    try:
        return read_scored_run(path)
    except InputError as error:
        print(f"evalkit: --baseline {spec}: skipping {error} (delete or fix that file of the history)", file=sys.stderr)
        return None


def _history_baseline(count: int, runs_folder: Path, eval_set_ids: set[str] | None) -> ScoredRun | None:
    from evalkit.compare.history_baseline import pooled_baseline
    from evalkit.results import history

    kept: list[tuple[Path, ScoredRun]] = []  # the newest `count` usable runs, newest first
    for path in reversed(history.runs_of(eval_set_ids, runs_folder)):
        if len(kept) == count:
            break
        if (run := _kept_run(path, "history")) is not None:
            kept.append((path, run))
    kept.reverse()
    paths = [path for path, _ in kept]
    if not paths:
        these = f" of these eval sets ({', '.join(sorted(eval_set_ids))})" if eval_set_ids else ""
        print(f"evalkit: --baseline history: no earlier run{these} recorded in {runs_folder}; "
              "nothing to compare with (this run will be the first)", file=sys.stderr)
        return None
    baseline = pooled_baseline([run for _, run in kept], f"the last {len(paths)} run(s) in the history")
    baseline.sources = [path.stem for path in paths]
    return baseline
