"""`evalkit run --processes N`: shard workers in their own processes, merged into one run."""

from __future__ import annotations

import json

from tests.conftest import FIXTURES, run_evalkit
from tests.in_process import invoke_evalkit

AGENTS = FIXTURES / "agents_py" / "agents.py"


def write_set(tmp_path, cases: int) -> str:
    evalset = {"eval_set_id": "spread", "eval_cases": [
        {"eval_id": f"c{i:02d}", "conversation": [
            {"user_content": {"role": "user", "parts": [{"text": "boom" if i == 3 else f"hi {i}"}]},
             "final_response": {"role": "model", "parts": [{"text": f"you said: hi {i}"}]}}]}
        for i in range(12)]}
    path = tmp_path / "spread.evalset.json"
    path.write_text(json.dumps(evalset))
    return str(path)


def test_processes_give_the_same_verdicts_as_one_process_in_plan_order(tmp_path):
    evalset = write_set(tmp_path, 12)
    config = str(FIXTURES / "rouge_only.config.json")
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    single = invoke_evalkit("run", evalset, "--agent", f"{AGENTS}:explodes_on_boom", "--config", config, "--json", str(one))
    spread = invoke_evalkit("run", evalset, "--agent", f"{AGENTS}:explodes_on_boom", "--config", config,
                            "--json", str(two), "--processes", "3")
    assert single.returncode == spread.returncode == 3, spread.stderr
    first, second = json.loads(one.read_text()), json.loads(two.read_text())
    assert [(c["eval_id"], c["status"]) for c in second["cases"]] == [(c["eval_id"], c["status"]) for c in first["cases"]]
    assert [c["eval_id"] for c in second["cases"]] == [f"c{i:02d}" for i in range(12)]
    assert second["summary"] == first["summary"] and second["summary"]["errors"] == 1
    assert second["shard"] is None and second.get("shards") is None


def test_the_workers_cases_join_the_run_whole_and_counted_as_one_process_counts_them(tmp_path):
    # The parent adds each worker's cases to its own run as if they had finished there: the
    # result file holds them in full, and the figures made as cases finish count them all.
    evalset = write_set(tmp_path, 12)
    config = str(FIXTURES / "rouge_only.config.json")
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    for out, extra in ((one, ()), (two, ("--processes", "3"))):
        invoke_evalkit("run", evalset, "--agent", f"{AGENTS}:explodes_on_boom", "--config", config, "--json", str(out),
                       *extra)
    first, second = json.loads(one.read_text()), json.loads(two.read_text())

    def steady(case: dict) -> dict:  # what does not depend on timing or on the session's random id
        return {**case, "session_id": None, "duration_s": None, "error_detail": None,
                "criteria": [c for c in case["criteria"] if c["status"] != "informational"],
                "invocations": [{**i, "actual": {**(i["actual"] or {}), "creation_timestamp": None, "duration": None}}
                                for i in case["invocations"]]}

    assert [steady(c) for c in second["cases"]] == [steady(c) for c in first["cases"]]
    assert all(c["invocations"] for c in second["cases"] if c["status"] != "error")
    assert second["latency"]["progress"] == first["latency"]["progress"]
    assert second["latency"]["turn_latency"]["count"] == first["latency"]["turn_latency"]["count"] == 11


def test_processes_and_shard_together_are_a_usage_error(tmp_path):
    done = invoke_evalkit("run", write_set(tmp_path, 2), "--agent", f"{AGENTS}:echo", "--processes", "2", "--shard", "1/2")
    assert done.returncode == 2 and "--processes with --shard" in done.stderr and "Traceback" not in done.stderr


def test_an_agent_that_cannot_start_is_one_message_and_exit_2_with_processes_too(tmp_path):
    import shlex
    import sys

    evalset = write_set(tmp_path, 12)
    broken = tmp_path / "agent.py"
    broken.write_text("raise SystemExit('the model file is missing')\n")
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(broken))}"
    done = invoke_evalkit("run", evalset, "--agent", f"cmd:{command}", "--config", str(FIXTURES / "rouge_only.config.json"),
                          "--processes", "2")
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"evalkit: --agent cmd:{command}: it stopped as soon as it started, before any case ran")
    assert "the model file is missing" in line and "--processes" not in line


def test_the_parent_runs_one_shard_itself_and_starts_workers_for_the_others(tmp_path):
    # Each case answers with the process that ran it and that process's parent: with
    # `--processes 3` the run process itself serves one shard and is the parent of the other two.
    (tmp_path / "which_process.py").write_text(
        "import os\n\ndef answer(turn):\n    return f'{os.getpid()} {os.getppid()}'\n")
    out = tmp_path / "three.json"
    # A real process: on Linux its workers are forked from it (engine/forked_worker.py).
    done = run_evalkit("run", write_set(tmp_path, 12), "--agent", f"{tmp_path / 'which_process.py'}:answer",
                       "--config", str(FIXTURES / "rouge_only.config.json"), "--json", str(out), "--processes", "3")
    assert done.returncode == 1, done.stderr  # the answers match no expected response
    answers = [c["invocations"][0]["actual"]["final_response"]["parts"][0]["text"]
               for c in json.loads(out.read_text())["cases"]]
    parent_of = {int(a.split()[0]): int(a.split()[1]) for a in answers}
    assert len(parent_of) == 3, answers  # three processes served cases
    runner = [pid for pid in parent_of if sorted(parent_of.values()).count(pid) == 2]
    assert len(runner) == 1, parent_of  # one of them started the other two


def test_a_run_asked_for_its_cases_in_full_gets_every_process_s_cases_in_full_in_plan_order(tmp_path):
    # The API and the pytest plugin ask `run` for full cases: the workers' come back whole too.
    from evalkit.engine.run import run
    from evalkit.settings import RunSettings

    settings = RunSettings(paths=[write_set(tmp_path, 12)], agent=f"{AGENTS}:explodes_on_boom",
                           config=str(FIXTURES / "rouge_only.config.json"), processes="3")
    outcome = run(settings, full=True)
    cases = outcome.result.cases
    assert isinstance(cases, list) and [c.eval_id for c in cases] == [f"c{i:02d}" for i in range(12)]
    assert all(c.invocations for c in cases if c.status.value != "error")
    assert outcome.result.summary.errors == 1 and outcome.full_cases is None


def test_a_quarantine_list_with_processes_knows_every_process_s_cases(tmp_path):
    # The list the run reports on (its warnings, its summary) is the one that marked the cases,
    # the workers' included: an entry naming a worker's case is not "not a case of this run".
    quarantine = tmp_path / "quarantine.json"
    quarantine.write_text(json.dumps([{"case": f"spread/c{i:02d}", "until": "2999-01-01", "reason": "flaky"}
                                      for i in range(12)]))
    out = tmp_path / "r.json"
    done = invoke_evalkit("run", write_set(tmp_path, 12), "--agent", f"{AGENTS}:explodes_on_boom",
                          "--config", str(FIXTURES / "rouge_only.config.json"), "--processes", "3",
                          "--quarantine", str(quarantine), "--json", str(out))
    assert "not a case of this run" not in done.stderr, done.stderr
    result = json.loads(out.read_text())
    assert result["summary"]["quarantined"] == 12 and done.returncode == 0, done.stdout + done.stderr
