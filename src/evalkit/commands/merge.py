"""`evalkit merge A.json B.json … --json ALL.json`: shard results → one result and one exit code.

The merged file is an ordinary result file: its cases are the shards' cases, in the
order of their eval set files when those are at hand (as in the CI job's checkout),
else shard by shard; its summary is recounted, and its exit code is the one
`evalkit run` would have given for all the cases at once. Merging refuses inputs that
cannot be one run: a case found in two files, shards of different splits (1/3 with
2/4), a shard missing from a split, or runs with different `--repeat` settings.
The shards' coverage is joined (every call of every shard against one inventory) and
gated here, by `--min-coverage` or the gate the shards were run with (docs/coverage.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

from evalkit.engine.merging import agent_warning, merge_results, shard_index
from evalkit.errors import ExitCode, UsageError
from evalkit.results.coverage import gate_message
from evalkit.schema.results import RunResult


def merge_command(files: list[Path], *, json_out: Path | None = None, junit: Path | None = None,
                  markdown: Path | None = None, html: Path | None = None, quiet: bool = False,
                  min_coverage: float | None = None) -> int:
    from evalkit.results.run_verdict import exit_code
    from evalkit.report.console import make_console, render, summary_line
    from evalkit.report.writing import write_reports
    from evalkit.results.reader import read_result

    loaded = [(path, read_result(path)) for path in files]
    loaded.sort(key=lambda item: shard_index(item[1]))
    merged = merge_results(loaded)
    warning = agent_warning(loaded)
    if warning:
        print(f"evalkit: warning: {warning}", file=sys.stderr)
    requested = _coverage_gate(merged, min_coverage)
    write_reports(merged, json_out=json_out, junit=junit, markdown=markdown, html=html)
    console = make_console()
    if quiet:
        console.print(summary_line(merged), highlight=False)
    else:
        render(merged, console)
    code = exit_code(merged)
    message = gate_message(merged.coverage, requested)
    if message is not None:
        print(f"evalkit: {message}", file=sys.stderr)
        return ExitCode.FAILED if code == ExitCode.OK else code
    return code


def _coverage_gate(merged: RunResult, min_coverage: float | None) -> float | None:
    """`--min-coverage`, else the gate the shards were run with (each shard left it to the merge)."""
    if min_coverage is not None:
        if not 0 <= min_coverage <= 1:
            raise UsageError(f"--min-coverage {min_coverage:g}: expected a share of the agent's tools from 0 to 1, "
                             "such as 0.8")
        if merged.coverage is not None:
            merged.coverage.min_ratio = min_coverage
        return min_coverage
    return merged.coverage.min_ratio if merged.coverage is not None else None
