"""`--cassettes` with `--cluster local:N`: each local worker replays the run's cassettes through a proxy of its own.

The committed demo (tests/cassettes/test_demo_cassettes.py) on a real LocalCluster: a Gemini-driven ADK agent,
no key, and a base URL where nothing listens, so a model call the cassettes did not answer would fail its case.
"""

from __future__ import annotations

import json

import pytest

from evalkit.testing.fake_gemini import FOREIGN_ENVIRONMENT
from tests.cluster.cases import AGENTS, write_set
from tests.conftest import ROOT
from tests.in_process import invoke_evalkit

pytest.importorskip("distributed", reason="the dask extra is not installed")


def test_a_local_cluster_replays_the_demo_s_cassettes_offline(tmp_path):
    pytest.importorskip("google.adk")
    env = dict.fromkeys((*FOREIGN_ENVIRONMENT, "GOOGLE_API_KEY"), "")
    env["GOOGLE_GEMINI_BASE_URL"] = "http://127.0.0.1:9"  # nothing listens: any real call would fail
    done = invoke_evalkit("run", str(ROOT / "evalsets" / "llm_weather"), "--cassettes",
                          str(ROOT / "evalsets" / "cassettes"), "--cluster", "local:2", "--json",
                          str(tmp_path / "r.json"), cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 cases: 4 passed" in done.stdout
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["cassettes"] == {"folder": str(ROOT / "evalsets" / "cassettes"), "mode": "replay"}
    assert [case["eval_id"] for case in result["cases"]] == ["paris_today", "tokyo_tomorrow", "london_then_tomorrow",
                                                             "no_city"]


@pytest.mark.parametrize(("cluster", "mode", "start", "advice"), [
    ("tcp://127.0.0.1:8786", "replay", "--cluster with --cassettes: a scheduler's workers run on machines",
     "replay them on a local cluster (--cluster local[:N]) or without a cluster"),
    ("local:2", "record", "--cluster with --cassette-mode record: a cluster's workers only replay cassettes",
     "record them in a run without --cluster, then replay them on the cluster")])
def test_cassettes_other_than_a_local_replay_are_refused_before_anything_runs(tmp_path, cluster, mode, start, advice):
    (tmp_path / "cassettes").mkdir()
    done = invoke_evalkit("run", str(write_set(tmp_path, 2)), "--agent", f"{AGENTS}:echo", "--cluster", cluster,
                          "--cassettes", str(tmp_path / "cassettes"), "--cassette-mode", mode, "--json",
                          str(tmp_path / "r.json"))
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"evalkit: {start}") and line.endswith(advice), line
    assert not (tmp_path / "r.json").exists()
