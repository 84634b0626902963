"""Shared by the developer-loop tests: a demo run's result file and ways to seed changes into it."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from tests.conftest import run_evalkit
from tests.in_process import invoke_evalkit

WEATHER = "evalsets/weather.evalset.json"
REGRESSED = "examples/weather_agent/regressed_agent.py:weather_agent"


def evalkit(*args: str, tmp_path: Path, env: dict[str, str] | None = None, real_process: bool = False):
    """The `evalkit …` command with the run history in the test's own folder.

    In-process (tests/in_process.py), or as `python -m evalkit` for the tests that pin an exit code's contract.
    """
    command = run_evalkit if real_process else invoke_evalkit
    return command(*args, env={"EVALKIT_RUNS_DIR": str(tmp_path / "runs"), **(env or {})})


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def save(data: dict[str, Any], path: Path) -> Path:
    path.write_text(json.dumps(data, indent=2))
    return path


def case(data: dict[str, Any], eval_id: str) -> dict[str, Any]:
    return next(c for c in data["cases"] if c["eval_id"] == eval_id)


def criterion(case_data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in case_data["criteria"] if c["name"] == name)


def seeded(data: dict[str, Any], eval_id: str, name: str, score: float, status: str | None = None,
           case_status: str | None = None) -> dict[str, Any]:
    """A copy of a result with one criterion's score (and optionally verdicts) changed."""
    changed = copy.deepcopy(data)
    target = case(changed, eval_id)
    entry = criterion(target, name)
    entry["score"] = score
    if status:
        entry["status"] = status
    if case_status:
        target["status"] = case_status
    return changed
