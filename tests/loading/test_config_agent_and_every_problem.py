"""A config's `agent` is checked as the config's (its file named, its path resolved from its folder),
and `validate` reports every problem of a folder at once: real `evalkit` processes."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import ROOT
from tests.in_process import invoke_evalkit

GOOD = json.loads((ROOT / "evalsets" / "weather.evalset.json").read_text())
BROKEN_EVALSET = '{"eval_set_id": "broken", "eval_cases": ['  # cut short


def _write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_a_missing_config_agent_names_the_config_and_the_path_it_resolved(tmp_path):
    evals = tmp_path / "project" / "evals"
    _write(evals / "weather.evalset.json", GOOD)
    config = _write(evals / "test_config.json", {"agent": "../missing.py:fn", "criteria": {"response_match_score": 0.5}})
    expected = (f"evalkit: {config}: agent: '../missing.py:fn': no such file or folder: {tmp_path / 'project' / 'missing.py'}"
                " (a relative path is taken from the config's folder); fix the path, or pass --agent")
    ran = invoke_evalkit("run", str(evals), cwd=tmp_path)
    assert ran.returncode == 2 and ran.stderr.splitlines() == [expected]
    assert "--agent ../missing.py" not in ran.stderr  # not a flag the user never passed
    checked = invoke_evalkit("validate", str(evals), cwd=tmp_path)
    assert checked.returncode == 2 and checked.stderr.splitlines() == [expected]
    alone = invoke_evalkit("validate", str(config), cwd=tmp_path)
    assert alone.returncode == 2 and alone.stderr.splitlines() == [expected]
    # The file exists from the config's folder: valid, and nothing is imported to say so.
    _write(tmp_path / "project" / "missing.py", "raise SystemExit('imported')\n")
    assert invoke_evalkit("validate", str(evals), cwd=tmp_path).returncode == 0


def test_validate_reports_a_broken_eval_set_and_its_broken_config_together(tmp_path):
    evals = tmp_path / "evals"
    evalset = _write(evals / "a.evalset.json", BROKEN_EVALSET)
    config = _write(evals / "test_config.json", {"criteria": {"response_match_scor": 0.8}})
    done = invoke_evalkit("validate", str(evals), cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 2, done.stderr
    assert lines[0].startswith(f"evalkit: {evalset}: line 1 column ") and "invalid JSON" in lines[0]
    assert lines[1].startswith(f"evalkit: {config}: criteria.response_match_scor: unknown criterion")
