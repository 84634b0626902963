"""`--max-model-calls` on `--cluster local:2`: the run's budget holds over every worker, as in a local run.

The agent and the fake model are `tests/cli/test_run_budgets.py`'s: a Python callable asking a FakeGemini on
127.0.0.1 through the real google-genai client and reporting the usage it returned; the local cluster's
workers are forked from this process, so they reach the same fake.
"""

from __future__ import annotations

import json

import pytest

from evalkit.testing import FakeGemini
from tests.cli.test_run_budgets import not_started, reply, write_run
from tests.in_process import invoke_evalkit

pytest.importorskip("distributed", reason="the dask extra is not installed")


def test_a_model_calls_budget_stops_new_cases_on_every_worker_and_counts_the_whole_run(tmp_path):
    evalset, config = write_run(tmp_path, 16)
    out = tmp_path / "result.json"
    with FakeGemini() as fake:
        fake.responder(reply)
        env = {"GOOGLE_GEMINI_BASE_URL": fake.base_url, "GOOGLE_API_KEY": "dummy-test-key", "GEMINI_API_KEY": ""}
        # One case at a time per worker, as the budget tests run this agent (it makes its client on first use).
        done = invoke_evalkit("run", str(evalset), "--agent", f"{tmp_path / 'agent.py'}:answer", "--config",
                              str(config), "--json", str(out), "--cluster", "local:2", "--max-model-calls", "5",
                              "--jobs", "1", cwd=tmp_path, env=env)
        calls = len(fake.requests)
    assert done.returncode == 1, done.stderr
    result = json.loads(out.read_text())
    assert [case["eval_id"] for case in result["cases"]] == [f"c{i:02d}" for i in range(16)]  # each once, in order
    budget = result["budget"]
    threads = 2 * 2  # local:2, two chunks at a time per worker: the most cases in flight when the budget is reached
    assert budget["reached"] == "--max-model-calls" and 5 <= budget["model_calls"] < 5 + threads
    assert budget["model_calls"] == calls  # every model call the workers made is counted by the run
    skipped = not_started(result)
    assert len(skipped) == 16 - budget["model_calls"] == budget["not_started"]
    assert set(skipped) == {"not started: --max-model-calls 5 reached"}
    assert all(case["status"] == "passed" for case in result["cases"] if case["status"] != "not_evaluated")
    assert "budget --max-model-calls 5 reached" in done.stdout + done.stderr
