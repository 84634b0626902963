"""Run history: every `evalkit run` keeps its result file, so `--baseline last` has one.

Files live in a run's history folder (`.evalkit/runs/` under the current folder, or
`$EVALKIT_RUNS_DIR`), named by the UTC time they were recorded so that name order is time
order, and only the newest `$EVALKIT_HISTORY_LIMIT` (default 20) are kept. A limit of 0
turns recording off. The folder and the limit are the run's settings
(`RunSettings.environment`, read by `evalkit.settings.Environment`): every function here
is given them, and none reads the process's environment.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path

from evalkit.schema.results import CaseResult, RunResult

_PATTERN = "run-*.json"


def recorded_runs(folder: Path) -> list[Path]:
    """The kept result files, oldest first."""
    if not folder.is_dir():
        return []
    return sorted(folder.glob(_PATTERN))


def previous_run(directory: Path, eval_set_ids: set[str] | None = None) -> Path | None:
    """The newest kept run; with `eval_set_ids`, the newest run of exactly those eval sets."""
    runs = recorded_runs(directory)
    if eval_set_ids is None:
        return runs[-1] if runs else None
    for path in reversed(runs):
        if _eval_set_ids(path) == eval_set_ids:
            return path
    return None


def runs_of(eval_set_ids: set[str] | None, directory: Path) -> list[Path]:
    """The kept runs of exactly these eval sets (all of them when None), oldest first."""
    runs = recorded_runs(directory)
    return runs if eval_set_ids is None else [path for path in runs if _eval_set_ids(path) == eval_set_ids]


def _eval_set_ids(path: Path) -> set[str] | None:
    from evalkit.foundation.documents import read_json

    try:
        cases = read_json(path).get("cases") or []
        return {case["eval_set_id"] for case in cases}
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        return None  # a damaged or foreign file is no baseline


def run_stamp() -> str:
    """`<UTC time>-<token>`: names a run's files, `run-<stamp>.json` and its progress file `live-<stamp>.jsonl`.

    One stamp names both, so the viewer knows which finished run a run in progress became."""
    return f"{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%S%fZ')}-{secrets.token_hex(3)}"


def record(result: RunResult, directory: Path, limit: int, cases: Iterable[CaseResult] | None = None,
           stamp: str | None = None) -> Path | None:
    """Keep `result` as the newest run and prune the oldest beyond the limit; None when off.

    `cases`, when given, are the run's cases in full, streamed into the file (see `write_result`);
    `stamp` names the file (`run_stamp()`, the one its progress file was named with)."""
    from evalkit.results.writer import write_result
    from evalkit.foundation.state_folder import make_folder

    if limit == 0:
        return None
    path = directory / f"run-{stamp or run_stamp()}.json"
    make_folder(directory)
    write_result(result, path, cases=cases)
    prune(directory, limit)
    return path


def prune(folder: Path, limit: int) -> list[Path]:
    runs = recorded_runs(folder)
    dropped = runs[: max(0, len(runs) - limit)]
    for path in dropped:
        path.unlink(missing_ok=True)  # another run may have pruned it already
    return dropped
