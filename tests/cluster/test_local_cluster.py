"""`evalkit run --cluster local[:N]`: a real Dask LocalCluster of worker processes, one run folded from their chunks."""

from __future__ import annotations

import json
import os
import sys
import time

import pytest

from tests.cluster.cases import AGENTS, CONFIG, verdicts, write_agent, write_set
from tests.in_process import invoke_evalkit

pytest.importorskip("distributed", reason="the dask extra is not installed")


def test_a_local_cluster_gives_the_verdicts_and_the_order_of_a_run_in_one_process(tmp_path):
    evalset = write_set(tmp_path, 12)
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    agent = f"{AGENTS}:explodes_on_boom"
    here = invoke_evalkit("run", str(evalset), "--agent", agent, "--config", str(CONFIG), "--json", str(one))
    spread = invoke_evalkit("run", str(evalset), "--agent", agent, "--config", str(CONFIG), "--json", str(two),
                            "--cluster", "local:2", "--jobs", "2")
    assert here.returncode == spread.returncode == 3, spread.stderr
    assert verdicts(two) == verdicts(one)
    assert [eval_id for eval_id, _ in verdicts(two)] == [f"c{i:02d}" for i in range(12)]  # the eval set's order
    first, second = json.loads(one.read_text()), json.loads(two.read_text())
    assert second["summary"] == first["summary"] and second["summary"]["errors"] == 1
    assert all(case["invocations"] for case in second["cases"] if case["status"] != "error")  # cases in full
    assert second["latency"]["turn_latency"]["count"] == first["latency"]["turn_latency"]["count"] == 11
    assert "12 cases: 11 passed" in spread.stdout  # the console's summary line, as a local run prints it


def test_cases_run_on_the_workers_each_building_the_agent_once(tmp_path):
    # Each worker process leaves a mark per agent load and per case: several processes ran cases,
    # none of them is the run's own, and no worker loaded the agent twice for its several chunks.
    evalset = write_set(tmp_path, 40, boom=None)
    agent = write_agent(tmp_path, "(MARKS / f'case-{os.getpid()}-{turn.user_text}').touch()")
    module = tmp_path / "cluster_agent.py"
    module.write_text(module.read_text().replace(
        "def agent(turn):", "(MARKS / f'load-{os.getpid()}-{time.monotonic_ns()}').touch()\n\ndef agent(turn):"))
    done = invoke_evalkit("run", str(evalset), "--agent", agent, "--config", str(CONFIG), "--cluster", "local:2",
                          "--json", str(tmp_path / "r.json"))
    assert done.returncode == 0, done.stderr
    ran_in = {mark.name.split("-")[1] for mark in tmp_path.glob("case-*")}
    loads = [mark.name.split("-")[1] for mark in tmp_path.glob("load-*")]
    assert len(list(tmp_path.glob("case-*"))) == 40 and str(os.getpid()) not in ran_in
    assert sorted(loads) == sorted(set(loads)) and ran_in <= set(loads)  # one load per worker process


def test_a_killed_worker_s_cases_run_elsewhere_and_each_case_is_counted_once(tmp_path):
    # The agent kills its own worker process (SIGKILL, as the OOM killer does) on c05, once: Dask runs
    # that chunk again on a worker that is alive, and the run holds every case exactly once.
    evalset = write_set(tmp_path, 16)
    agent = write_agent(tmp_path, "\n".join([
        "if turn.user_text == 'hi 5' and not (MARKS / 'killed').exists():",
        "    (MARKS / 'killed').write_text(str(os.getpid()))",
        "    os.kill(os.getpid(), signal.SIGKILL)",
        "if turn.user_text == 'boom':",
        "    raise RuntimeError('boom')"]))
    (tmp_path / "killed").write_text("not in the run's own process")  # the local run's reference: no kill
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    here = invoke_evalkit("run", str(evalset), "--agent", agent, "--config", str(CONFIG), "--json", str(one))
    (tmp_path / "killed").unlink()
    spread = invoke_evalkit("run", str(evalset), "--agent", agent, "--config", str(CONFIG), "--json", str(two),
                            "--cluster", "local:2")
    killed = (tmp_path / "killed").read_text()
    assert killed.isdigit() and int(killed) != os.getpid()  # a worker process was killed mid-run
    assert here.returncode == spread.returncode == 3, spread.stderr
    assert verdicts(two) == verdicts(one)  # every case once, in order, with the same verdict
    assert [eval_id for eval_id, _ in verdicts(two)] == [f"c{i:02d}" for i in range(16)]


@pytest.mark.parametrize("value", ["local:0", "lokal", "tcp://127.0.0.1", "local:two"])
def test_a_bad_cluster_value_is_one_line_and_exit_2(tmp_path, value):
    done = invoke_evalkit("run", str(write_set(tmp_path, 2)), "--agent", f"{AGENTS}:echo", "--cluster", value)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"evalkit: --cluster {value}: expected local, local:N") and "tcp://HOST:PORT" in line


@pytest.mark.parametrize(("flags", "other"), [(("--processes", "2"), "--processes"), (("--shard", "1/2"), "--shard"),
                                              (("--otel",), "--otel")])
def test_what_cannot_go_with_a_cluster_is_named_before_anything_runs(tmp_path, flags, other):
    done = invoke_evalkit("run", str(write_set(tmp_path, 2)), "--agent", f"{AGENTS}:echo", "--cluster", "local:2",
                          *flags, "--json", str(tmp_path / "r.json"))
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"evalkit: --cluster with {other}: ") and "drop one of the two" in line
    assert not (tmp_path / "r.json").exists()


def test_an_unreachable_scheduler_is_exit_2_before_anything_runs(tmp_path):
    import socket

    with socket.socket() as taken:  # a port nobody listens on: bound here, never listening
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
        started = time.monotonic()
        done = invoke_evalkit("run", str(write_set(tmp_path, 2)), "--agent", f"{AGENTS}:echo", "--cluster",
                              f"tcp://127.0.0.1:{port}", "--json", str(tmp_path / "r.json"))
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"evalkit: --cluster tcp://127.0.0.1:{port}: no Dask scheduler answered there")
    assert "dask scheduler" in line and not (tmp_path / "r.json").exists()
    assert time.monotonic() - started < 30  # a short connect timeout, not Dask's default of 30 s per try


def test_without_the_dask_extra_the_message_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # what an import sees where the package is not installed
    done = invoke_evalkit("run", str(write_set(tmp_path, 2)), "--agent", f"{AGENTS}:echo", "--cluster", "local:2")
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    (line,) = done.stderr.splitlines()
    assert 'pip install "evalkit-agents[dask]"' in line and line.startswith("evalkit: --cluster needs")


def test_the_python_api_runs_on_a_cluster_by_keyword_and_refuses_an_agent_object(tmp_path):
    from evalkit import run_evals
    from evalkit.errors import SettingError

    evalset = write_set(tmp_path, 6, boom=None)
    result = run_evals(evalset, agent=f"{AGENTS}:echo", config=CONFIG, cluster="local:2")
    assert [case.eval_id for case in result.cases] == [f"c{i:02d}" for i in range(6)]
    assert result.summary.passed == 6
    with pytest.raises(SettingError, match=r"^cluster='local:2': .*an agent object cannot be sent"):
        run_evals(evalset, agent=lambda turn: {"final_response": "x"}, config=CONFIG, cluster="local:2")
