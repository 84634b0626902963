"""`evalkit run --cluster tcp://HOST:PORT`: a real `dask scheduler` and `dask worker` processes on 127.0.0.1."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.cluster.cases import AGENTS, CONFIG, verdicts, write_agent, write_set
from tests.conftest import ROOT
from tests.in_process import invoke_evalkit

pytest.importorskip("distributed", reason="the dask extra is not installed")

from tests.cluster.scheduler import dask_scheduler, dask_workers  # noqa: E402  (imports distributed)


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """One scheduler with two workers for the tests that leave it as they found it."""
    folder = tmp_path_factory.mktemp("dask")
    with dask_scheduler(folder) as address, dask_workers(address, 2, folder):
        yield address


def test_a_scheduler_s_workers_give_the_verdicts_and_the_order_of_a_run_in_one_process(tmp_path, scheduler):
    evalset = write_set(tmp_path, 12)
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    agent = f"{AGENTS}:explodes_on_boom"
    here = invoke_evalkit("run", str(evalset), "--agent", agent, "--config", str(CONFIG), "--json", str(one))
    spread = invoke_evalkit("run", str(evalset), "--agent", agent, "--config", str(CONFIG), "--json", str(two),
                            "--cluster", scheduler)
    assert here.returncode == spread.returncode == 3, spread.stderr
    assert verdicts(two) == verdicts(one)
    assert json.loads(two.read_text())["summary"] == json.loads(one.read_text())["summary"]
    # The agent was closed on every worker as the run ended: a second run on the same workers builds it afresh.
    again = invoke_evalkit("run", str(evalset), "--agent", agent, "--config", str(CONFIG), "--cluster", scheduler)
    assert again.returncode == 3 and "12 cases: 11 passed" in again.stdout, again.stderr


def test_workers_of_another_evalkit_version_are_exit_2_before_anything_runs(tmp_path):
    # The worker runs from a copy of evalkit whose version differs: what a machine with another install reports.
    scratch = tmp_path / "other-install"
    shutil.copytree(ROOT / "src" / "evalkit", scratch / "evalkit", ignore=shutil.ignore_patterns("__pycache__"))
    init = scratch / "evalkit" / "__init__.py"
    init.write_text(init.read_text().replace('__version__ = "', '__version__ = "0.0.1.other+'))
    from evalkit import __version__

    with dask_scheduler(tmp_path / "dask") as address, dask_workers(address, 1, tmp_path / "dask",
                                                                    env={"PYTHONPATH": str(scratch)}):
        done = invoke_evalkit("run", str(write_set(tmp_path, 4)), "--agent", write_agent(
            tmp_path, "(MARKS / 'ran').touch()"), "--config", str(CONFIG), "--cluster", address,
            "--json", str(tmp_path / "r.json"))
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"evalkit: --cluster {address}: worker tcp://127.0.0.1:")
    assert f"runs evalkit 0.0.1.other+{__version__}, this run evalkit {__version__}" in line
    assert f"install evalkit-agents {__version__} on every worker" in line
    assert not (tmp_path / "ran").exists() and not (tmp_path / "r.json").exists()  # nothing ran


def test_when_every_worker_is_lost_the_unfinished_cases_are_errors_and_the_run_ends_with_3(tmp_path):
    # Workers without a nanny, as on machines that are gone: the agent kills the process it runs in.
    evalset = write_set(tmp_path, 8, boom=None)
    agent = write_agent(tmp_path, "(MARKS / f'killed-{os.getpid()}').touch()\nos.kill(os.getpid(), signal.SIGKILL)")
    out = tmp_path / "r.json"
    with dask_scheduler(tmp_path / "dask") as address, dask_workers(address, 2, tmp_path / "dask", "--no-nanny"):
        done = invoke_evalkit("run", str(evalset), "--agent", agent, "--config", str(CONFIG), "--cluster", address,
                              "--json", str(out), env={"EVALKIT_CLUSTER_GRACE_S": "1"})
    assert done.returncode == 3, done.stderr
    assert len(list(tmp_path.glob("killed-*"))) == 2  # both workers
    cases = json.loads(out.read_text())["cases"]
    assert [case["eval_id"] for case in cases] == [f"c{i:02d}" for i in range(8)]  # each case once, in order
    assert {case["status"] for case in cases} == {"error"}
    assert all(case["error"].startswith("--cluster: every worker was lost before this case finished")
               for case in cases), [case["error"] for case in cases]
