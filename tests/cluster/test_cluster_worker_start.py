"""A local cluster's workers start clean: nothing of the run's process that another thread held comes with them."""

from __future__ import annotations

import json
import threading

import pytest

from tests.cluster import held_lock
from tests.cluster.cases import CONFIG, write_agent, write_set
from tests.in_process import invoke_evalkit

pytest.importorskip("distributed", reason="the dask extra is not installed")


def test_a_lock_another_thread_holds_while_the_cluster_starts_is_free_in_the_workers(tmp_path):
    # A thread of the run's process (as a progress display, an OTLP receiver or a logging handler may) holds a
    # lock for the whole run. A worker forked from that process would find the lock held, with no thread left
    # to release it, and wait for ever; a worker started clean imports the module afresh and finds it free.
    evalset = write_set(tmp_path, 4, boom=None)
    agent = write_agent(tmp_path, "\n".join([
        "from tests.cluster import held_lock",
        "if not held_lock.LOCK.acquire(timeout=2):",
        "    raise RuntimeError('a lock of the run process came with the worker, held')",
        "held_lock.LOCK.release()"]))
    holding, done = threading.Event(), threading.Event()

    def hold() -> None:
        with held_lock.LOCK:
            holding.set()
            done.wait()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        holding.wait()
        ran = invoke_evalkit("run", str(evalset), "--agent", agent, "--config", str(CONFIG), "--cluster", "local:2",
                             "--json", str(tmp_path / "r.json"))
    finally:
        done.set()
        holder.join()
    result = json.loads((tmp_path / "r.json").read_text())
    assert ran.returncode == 0, [case.get("error") for case in result["cases"]]
    assert result["summary"]["passed"] == 4


def test_each_run_s_workers_see_the_environment_of_that_run(tmp_path, monkeypatch):
    # The workers of every local cluster in one process come from one fork server, started with the first;
    # the second run's workers still see the environment as the second run has it.
    evalset = write_set(tmp_path, 2, boom=None)
    agent = write_agent(tmp_path, "(MARKS / f\"seen-{os.environ.get('EVALKIT_TEST_RUN_MARK')}\").touch()")
    for mark in ("first", "second"):
        monkeypatch.setenv("EVALKIT_TEST_RUN_MARK", mark)
        ran = invoke_evalkit("run", str(evalset), "--agent", agent, "--config", str(CONFIG), "--cluster", "local:1")
        assert ran.returncode == 0, ran.stderr
        assert sorted(path.name for path in tmp_path.glob("seen-*")) == [f"seen-{mark}"]
        (tmp_path / f"seen-{mark}").unlink()
