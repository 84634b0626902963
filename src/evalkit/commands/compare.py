"""`evalkit compare BASE NEW` and `evalkit run --baseline BASE`: exit 1 on regressions."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evalkit.compare.diff import Comparison, compare_runs
from evalkit.compare.sources import ScoredRun, read_scored_run
from evalkit.errors import ExitCode, UsageError

LAST = "last"


def check_tolerance(tolerance: float) -> float:
    if tolerance < 0:
        raise UsageError(f"--tolerance {tolerance:g}: a score drop allowance cannot be negative")
    return tolerance


def compare_command(base: Path, new: Path, *, tolerance: float = 0.0, json_out: Path | None = None,
                    show_unchanged: bool = False, quiet: bool = False) -> int:
    from evalkit.commands.run import make_console
    from evalkit.compare.render import render_comparison, summary_line

    check_tolerance(tolerance)
    comparison = compare_runs(read_scored_run(base), read_scored_run(new), tolerance)
    console = make_console()
    if quiet:
        console.print(summary_line(comparison), highlight=False, soft_wrap=True)
    else:
        render_comparison(comparison, console, show_unchanged=show_unchanged)
    if not comparison.common:
        print(f"evalkit: {base} and {new} have no eval case in common", file=sys.stderr)
    if json_out:
        write_comparison(comparison, json_out)
    return ExitCode.FAILED if comparison.regressions else ExitCode.OK


def write_comparison(comparison: Comparison, path: Path) -> None:
    from evalkit.report.json_file import write_text_atomically

    write_text_atomically(path, json.dumps(comparison.to_dict(), indent=2) + "\n")


def load_baseline(spec: str, eval_set_ids: set[str] | None = None) -> ScoredRun | None:
    """`--baseline FILE`, or `last` for the newest run in the history (of the same eval sets,
    when `eval_set_ids` is given); None when there is none yet."""
    if spec.strip().lower() == LAST:
        from evalkit import history

        path = history.previous_run(eval_set_ids=eval_set_ids)
        if path is None:
            these = f" of these eval sets ({', '.join(sorted(eval_set_ids))})" if eval_set_ids else ""
            print(f"evalkit: --baseline last: no earlier run{these} recorded in {history.runs_dir()}; "
                  "nothing to compare with", file=sys.stderr)
            return None
        run = read_scored_run(path)
        run.label = f"the last run ({path})"
        return run
    return read_scored_run(Path(spec))
