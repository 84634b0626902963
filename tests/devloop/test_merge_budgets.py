"""`evalkit merge` of shards run with a budget: the merged run carries one budget record, and says why cases
never started in its console, its report, its JUnit and its exit code."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from evalkit.engine.sharding import assign
from tests.cli.test_run_budgets import CMD_AGENT
from tests.devloop.helpers import evalkit, load, save


@pytest.fixture(scope="module")
def shards(tmp_path_factory) -> list[Path]:
    """Six cases over two shards run with `--max-model-calls 4`, by a `cmd:` agent reporting one model call (10 + 5
    tokens) a turn. Shard 1's cases have three turns: two of them spend 6 calls, so its third never starts. Shard 2's
    have one turn: 3 calls, within its budget."""
    folder = tmp_path_factory.mktemp("budget-shards")
    keys = [("budget", f"c{i}") for i in range(6)]
    owner = assign(keys, 2)
    turn = {"user_content": {"parts": [{"text": "hi"}]}}
    evalset = folder / "budget.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "budget", "eval_cases": [
        {"eval_id": eval_id, "conversation": [turn] * (3 if owner[("budget", eval_id)] == 1 else 1)}
        for _, eval_id in keys]}))
    (folder / "agent.py").write_text(CMD_AGENT)
    (folder / "test_config.json").write_text(json.dumps({
        "agent": f"cmd:{sys.executable} {folder / 'agent.py'}",
        "criteria": {"response_checks_v1": {"threshold": 1.0, "checks": [{"contains": "done"}]}}}))
    files = []
    for index in (1, 2):
        out = folder / f"shard{index}.json"
        done = evalkit("run", str(evalset), "--shard", f"{index}/2", "--max-model-calls", "4", "--jobs", "1",
                       "--json", str(out), tmp_path=folder)
        assert done.returncode == (1 if index == 1 else 0), done.stderr
        files.append(out)
    return files


def test_shard_budgets_merge_into_one_record_that_explains_the_cases_not_started(shards, tmp_path):
    first, second = (load(path)["budget"] for path in shards)
    assert first["reached"] == "--max-model-calls" and first["not_started"] == 1 and first["model_calls"] == 6
    assert second["reached"] is None and second["model_calls"] == 3
    merged_path, junit, markdown = tmp_path / "all.json", tmp_path / "all.xml", tmp_path / "all.md"
    done = evalkit("merge", str(shards[1]), str(shards[0]), "--json", str(merged_path), "--junit", str(junit),
                   "--markdown", str(markdown), tmp_path=tmp_path)
    line = "budget --max-model-calls 4 reached: 9 model calls, 135 tokens spent; 1 case not started"
    assert done.returncode == 1, done.stderr
    assert line in done.stdout + done.stderr
    merged = load(merged_path)
    assert merged["budget"] == {**merged["budget"], "max_model_calls": 4, "model_calls": 9, "input_tokens": 90,
                                "output_tokens": 45, "reached": "--max-model-calls", "not_started": 1}
    assert merged["budget"]["max_cost"] is None and merged["budget"]["max_tokens"] is None
    assert [gate["message"] for gate in merged["verdict"]["failures"] if gate["gate"] == "budget"] == [line]
    assert [case["reason"] for case in merged["cases"] if case["status"] == "not_evaluated"] == [
        "not started: --max-model-calls 4 reached"]
    budget_case = next(case for case in ET.parse(junit).iter("testcase") if case.get("name") == "budget")
    failure = budget_case.find("failure")
    assert failure is not None and line in (failure.get("message") or "") + (failure.text or "")
    assert line in markdown.read_text()


def test_shards_run_with_different_budgets_are_refused(shards, tmp_path):
    other = load(shards[1])
    other["budget"]["max_model_calls"] = 7
    changed = save(other, tmp_path / "shard2.json")
    done = evalkit("merge", str(shards[0]), str(changed), "--json", str(tmp_path / "all.json"), tmp_path=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "the results were run with different budgets:" in done.stderr
    assert f"{shards[0]} (--max-model-calls 4), {changed} (--max-model-calls 7)" in done.stderr
    assert not (tmp_path / "all.json").exists()
