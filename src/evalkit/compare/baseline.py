"""The run to compare with: `--baseline FILE`, `last` or `history[:N]`, and the allowed score drop."""

from __future__ import annotations

import sys
from pathlib import Path

from evalkit.errors import SettingError, UsageError
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

        path = history.previous_run(runs_folder, eval_set_ids=eval_set_ids)
        if path is None:
            these = f" of these eval sets ({', '.join(sorted(eval_set_ids))})" if eval_set_ids else ""
            print(f"evalkit: --baseline last: no earlier run{these} recorded in {runs_folder}; "
                  "nothing to compare with", file=sys.stderr)
            return None
        run = read_scored_run(path)
        run.label = f"the last run ({path})"
        return run
    if not Path(spec).exists():
        raise SettingError("baseline", spec, "no such file; give a result file (evalkit run --json writes one) "
                           "or `last` for the newest run in the history")
    return read_scored_run(Path(spec))


def _history_baseline(count: int, runs_folder: Path, eval_set_ids: set[str] | None) -> ScoredRun | None:
    from evalkit.compare.history_baseline import pooled_baseline
    from evalkit.results import history

    paths = history.runs_of(eval_set_ids, runs_folder)[-count:]
    if not paths:
        these = f" of these eval sets ({', '.join(sorted(eval_set_ids))})" if eval_set_ids else ""
        print(f"evalkit: --baseline history: no earlier run{these} recorded in {runs_folder}; "
              "nothing to compare with (this run will be the first)", file=sys.stderr)
        return None
    baseline = pooled_baseline([read_scored_run(path) for path in paths], f"the last {len(paths)} run(s) in the history")
    baseline.sources = [path.stem for path in paths]
    return baseline
