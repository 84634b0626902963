"""`evalkit compare BASE NEW` and `evalkit run --baseline BASE`: exit 1 on regressions."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evalkit.compare.baseline import check_tolerance
from evalkit.compare.diff import Comparison, compare_runs
from evalkit.errors import ExitCode, UsageError
from evalkit.report.console import make_console
from evalkit.results.reader import read_scored_run



def compare_command(base: Path, new: Path, *, tolerance: float = 0.0, json_out: Path | None = None,
                    show_unchanged: bool = False, quiet: bool = False, significance: float | None = None,
                    gate_scores: bool = False) -> int:
    from evalkit.compare.render import render_comparison, summary_line

    check_tolerance(tolerance)
    check_significance(significance, gate_scores)
    base_run, new_run = read_scored_run(base), read_scored_run(new)
    comparison = compare_runs(base_run, new_run, tolerance)
    if significance is not None:
        from evalkit.compare.significance import add_significance

        add_significance(comparison, base_run, new_run, significance, gate_scores)
    console = make_console()
    if quiet:
        console.print(summary_line(comparison), highlight=False, soft_wrap=True)
    else:
        render_comparison(comparison, console, show_unchanged=show_unchanged)
    if not comparison.common:
        print(f"evalkit: {base} and {new} have no eval case in common", file=sys.stderr)
    if json_out:
        write_comparison(comparison, json_out)
    return ExitCode.FAILED if comparison.fails_gate else ExitCode.OK


def check_significance(level: float | None, gate_scores: bool) -> None:
    """`--significance` in range; `--gate-scores` only with it."""
    from evalkit.compare.significance import check_level

    check_level(level)
    if gate_scores and level is None:
        raise UsageError("--gate-scores: only means something with --significance LEVEL; "
                         "add --significance 0.05, or drop --gate-scores")


def write_comparison(comparison: Comparison, path: Path) -> None:
    from evalkit.foundation.files import write_run_file

    write_run_file(path, json.dumps(comparison.to_dict(), indent=2) + "\n")
