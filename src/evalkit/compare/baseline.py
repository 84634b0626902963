"""The run to compare with: `--baseline FILE` or `--baseline last`, and the allowed score drop."""

from __future__ import annotations

import sys
from pathlib import Path

from evalkit.errors import SettingError
from evalkit.results.reader import ScoredRun, read_scored_run

LAST = "last"


def check_tolerance(tolerance: float) -> float:
    if tolerance < 0:
        raise SettingError("tolerance", tolerance, "a score drop allowance cannot be negative")
    return tolerance


def load_baseline(spec: str, eval_set_ids: set[str] | None = None) -> ScoredRun | None:
    """`--baseline FILE`, or `last` for the newest run in the history (of the same eval sets,
    when `eval_set_ids` is given); None when there is none yet."""
    if spec.strip().lower() == LAST:
        from evalkit.engine import history

        path = history.previous_run(eval_set_ids=eval_set_ids)
        if path is None:
            these = f" of these eval sets ({', '.join(sorted(eval_set_ids))})" if eval_set_ids else ""
            print(f"evalkit: --baseline last: no earlier run{these} recorded in {history.runs_dir()}; "
                  "nothing to compare with", file=sys.stderr)
            return None
        run = read_scored_run(path)
        run.label = f"the last run ({path})"
        return run
    if not Path(spec).exists():
        raise SettingError("baseline", spec, "no such file; give a result file (evalkit run --json writes one) "
                           "or `last` for the newest run in the history")
    return read_scored_run(Path(spec))
