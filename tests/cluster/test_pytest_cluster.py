"""The pytest plugin's `--evalkit-cluster`: a pytest session (pytest's own `pytester`) whose eval cases run on a
real Dask LocalCluster, and the combination it refuses before collecting.

Each session is a pytest process of its own (`runpytest_subprocess`), as a user's is: the local cluster forks
its workers from the session's process, and a fork from this test process (xdist's worker, with its own threads
holding their locks) can leave a forked worker waiting forever on a lock no thread will release."""

from __future__ import annotations


import pytest

from tests.cluster.cases import CONFIG, write_agent, write_set
from tests.devloop.test_pytest_plugin import plugin_args

pytest.importorskip("distributed", reason="the dask extra is not installed")

pytest_plugins = ["pytester"]


def test_the_eval_cases_of_a_session_run_on_the_cluster_and_report_as_tests(pytester):
    evals = pytester.mkdir("evals")
    write_set(evals, 6, boom=3)
    agent = write_agent(pytester.path, "\n".join([
        "(MARKS / f'case-{os.getpid()}-{turn.user_text}').touch()",
        "if turn.user_text == 'boom':",
        "    raise RuntimeError('the tool backend is down')"]))
    pytester.makepyfile(test_unit="def test_unit():\n    assert 1 + 1 == 2\n")
    pytester.makeconftest("import os, pathlib\npathlib.Path('session-pid').write_text(str(os.getpid()))\n")
    result = pytester.runpytest_subprocess("--evalkit", "evals", "--evalkit-agent", agent, "--evalkit-config",
                                           _config(pytester), "--evalkit-cluster", "local:2", "-v", *plugin_args())
    result.assert_outcomes(passed=6, errors=0, failed=1)  # five eval cases and the unit test; c03 errs
    result.stdout.fnmatch_lines(["*evals/spread.evalset.json::c00 PASSED*", "*evals/spread.evalset.json::c03 FAILED*",
                                 "eval case spread/c03: error*"])
    ran_in = {mark.name.split("-")[1] for mark in pytester.path.glob("case-*")}
    assert len(list(pytester.path.glob("case-*"))) == 6  # each case once
    session = (pytester.path / "session-pid").read_text()
    assert ran_in and session not in ran_in  # in the cluster's worker processes, not the session's


def test_what_cannot_go_with_a_cluster_stops_the_session_before_collecting(pytester):
    evals = pytester.mkdir("evals")
    write_set(evals, 2, boom=None)
    agent = write_agent(pytester.path, "(MARKS / 'ran').touch()")
    result = pytester.runpytest_subprocess("--evalkit", "evals", "--evalkit-agent", agent, "--evalkit-config",
                                           _config(pytester), "--evalkit-cluster", "local:2", "--evalkit-otel", "true", *plugin_args())
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: evalkit: --evalkit-cluster with --evalkit-otel: the cluster's workers run "
                                 "the cases, so this run cannot also receive the agent's spans; drop one of the two"])
    assert not (pytester.path / "ran").exists()


def test_the_session_s_budget_holds_over_its_files_on_the_cluster(pytester):
    # tests/cli/test_run_budgets.py's session, on a cluster: a `cmd:` agent reporting one model call a turn; the
    # first file's case of two turns spends the budget of two calls, so the second file's cases are never sent.
    from tests.cli.test_run_budgets import write_two_file_session

    write_two_file_session(pytester)
    outcome = pytester.runpytest_subprocess("--evalkit", "first", "--evalkit", "second", "--evalkit-max-model-calls",
                                            "2", "--evalkit-cluster", "local:2", *plugin_args())
    outcome.assert_outcomes(passed=1, failed=3)
    outcome.stdout.fnmatch_lines([
        "evalkit: budget --max-model-calls 2 reached: 2 model calls, 30 tokens spent; 3 cases not started"])
    assert outcome.stdout.str().count("not started: --max-model-calls 2 reached") >= 3


def _config(pytester: pytest.Pytester) -> str:
    """The criteria, copied into the session's folder: an option's value outside it would make pytest take the
    repository's own settings (its rootdir is found from the arguments before the plugin's options are known)."""
    (pytester.path / "criteria.json").write_text(CONFIG.read_text())
    return "criteria.json"
