"""Coverage in the viewer: a run's tool × case matrix, and coverage over the history.

A run's matrix comes from its rows (each row keeps the tool calls of its case, counted
while the file was scanned: nothing is read again); its columns are the tools the run's
`coverage` declares (a run without one has no matrix: the page shows none). The history's coverage joins the
`coverage` objects of the newest runs (evalkit.results.coverage.merged_coverage): a tool
never called in any of them is never called over the history (docs/coverage.md).
"""

from __future__ import annotations

from typing import Any

from evalkit.results.coverage import coverage_lines, merged_coverage
from evalkit.schema.coverage import Coverage
from evalkit.view.index import Run
from evalkit.view.live import LiveRun

MATRIX_ROWS = 500  # cases drawn in one matrix; the rest are counted
HISTORY_RUNS = 20


def run_coverage(run: Run | LiveRun) -> dict[str, Any]:
    """`GET /api/runs/{id}/coverage`: the run's `coverage` (None without one) and its matrix."""
    coverage = _coverage_of(run.document() if isinstance(run, LiveRun) else run.header)
    rows = run.rows if isinstance(run, LiveRun) else run.snapshot()[0]
    tools = coverage.tools.declared if coverage is not None else []
    return {
        "coverage": coverage.model_dump() if coverage is not None else None,
        "lines": coverage_lines(coverage) if coverage is not None else [],
        "matrix": {"tools": tools,
                   "rows": [{key: row[key] for key in ("index", "eval_set_id", "eval_id", "status")}
                            | {"calls": {name: row["tools"][name] for name in tools if name in row.get("tools", {})}}
                            for row in (rows[:MATRIX_ROWS] if tools else [])],
                   "total": len(rows)},
    }


def history_coverage(runs: list[Run], last: int = HISTORY_RUNS) -> dict[str, Any]:
    """`GET /api/coverage?last=N`: the newest N finished runs that have coverage, joined; per tool, how
    many of them called it."""
    chosen = [(run, coverage) for run in runs if run.complete
              for coverage in [_coverage_of(run.header)] if coverage is not None][:max(1, last)]
    merged = merged_coverage(coverage for _, coverage in chosen)
    runs_calling: dict[str, int] = {}
    for _, coverage in chosen:
        for name in coverage.tools.called:
            runs_calling[name] = runs_calling.get(name, 0) + 1
    return {"runs": [{"id": run.id, "started_at": run.header.get("started_at"), "ratio": coverage.tools.ratio}
                     for run, coverage in chosen],
            "coverage": merged.model_dump() if merged is not None else None, "runs_calling": runs_calling,
            "lines": coverage_lines(merged) if merged is not None else []}


def _coverage_of(header: dict[str, Any]) -> Coverage | None:
    data = header.get("coverage")
    if not isinstance(data, dict):
        return None
    try:
        return Coverage.model_validate(data)
    except ValueError:  # a hand-edited or foreign file: the page shows no coverage rather than failing
        return None
