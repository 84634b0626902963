"""The run to compare with: `--baseline FILE` or `--baseline last`, and the allowed score drop."""

from __future__ import annotations

import sys
from pathlib import Path

from evalkit.errors import UsageError
from evalkit.results.reader import ScoredRun, read_scored_run

LAST = "last"


def check_tolerance(tolerance: float) -> float:
    if tolerance < 0:
        raise UsageError(f"--tolerance {tolerance:g}: a score drop allowance cannot be negative")
    return tolerance


def load_baseline(spec: str) -> ScoredRun | None:
    """`--baseline FILE`, or `last` for the newest run in the history; None when there is none yet."""
    if spec.strip().lower() == LAST:
        from evalkit.engine import history

        path = history.previous_run()
        if path is None:
            print(f"evalkit: --baseline last: no earlier run recorded in {history.runs_dir()}; nothing to compare with",
                  file=sys.stderr)
            return None
        run = read_scored_run(path)
        run.label = f"the last run ({path})"
        return run
    return read_scored_run(Path(spec))
