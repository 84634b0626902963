"""`run --shard auto`: the slice comes from the CI system's own parallel-job variables."""

from __future__ import annotations

import pytest

from evalkit.engine.ci_shard import SYSTEMS
from evalkit.engine.sharding import Shard, parse_shard
from evalkit.errors import UsageError
from tests.devloop.helpers import WEATHER, evalkit, load

NO_CI = {name: "" for system in SYSTEMS for name in (system.index, system.total)}


@pytest.mark.parametrize(("variables", "shard"), [
    ({"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "4"}, Shard(1, 4)),  # GitLab counts from 1
    ({"CI_NODE_INDEX": "4", "CI_NODE_TOTAL": "4"}, Shard(4, 4)),
    ({"CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "3"}, Shard(1, 3)),  # CircleCI from 0
    ({"CIRCLE_NODE_INDEX": "2", "CIRCLE_NODE_TOTAL": "3"}, Shard(3, 3)),
    ({"BUILDKITE_PARALLEL_JOB": "0", "BUILDKITE_PARALLEL_JOB_COUNT": "2"}, Shard(1, 2)),  # Buildkite from 0
    ({"BUILDKITE_PARALLEL_JOB": "1", "BUILDKITE_PARALLEL_JOB_COUNT": "2"}, Shard(2, 2)),
    ({"JOB_COMPLETION_INDEX": "0", "JOB_COMPLETIONS": "5"}, Shard(1, 5)),  # Kubernetes from 0
    ({"JOB_COMPLETION_INDEX": "4", "JOB_COMPLETIONS": "5"}, Shard(5, 5)),
])
def test_each_ci_systems_numbering_becomes_k_of_n(variables, shard):
    assert parse_shard("auto", {**NO_CI, **variables}) == shard
    assert parse_shard(" AUTO ", {**NO_CI, **variables}) == shard


def test_a_gitlab_job_that_is_not_parallel_is_not_taken_for_one():
    # GitLab sets CI_NODE_TOTAL=1 in every job; without CI_NODE_INDEX nothing says which slice.
    with pytest.raises(UsageError) as raised:
        parse_shard("auto", {**NO_CI, "CI_NODE_TOTAL": "1"})
    assert "none of the CI parallel-job variables is set" in str(raised.value)


def test_a_missing_total_or_an_index_out_of_range_names_the_variables():
    with pytest.raises(UsageError) as raised:
        parse_shard("auto", {**NO_CI, "JOB_COMPLETION_INDEX": "2"})
    assert "JOB_COMPLETIONS is not set" in str(raised.value)
    with pytest.raises(UsageError) as raised:
        parse_shard("auto", {**NO_CI, "CIRCLE_NODE_INDEX": "3", "CIRCLE_NODE_TOTAL": "3"})
    assert "CIRCLE_NODE_INDEX must be between 0 and 2" in str(raised.value)
    with pytest.raises(UsageError) as raised:
        parse_shard("auto", {**NO_CI, "CI_NODE_INDEX": "0", "CI_NODE_TOTAL": "3"})
    assert "CI_NODE_INDEX must be between 1 and 3" in str(raised.value)
    with pytest.raises(UsageError) as raised:
        parse_shard("auto", {**NO_CI, "BUILDKITE_PARALLEL_JOB": "one", "BUILDKITE_PARALLEL_JOB_COUNT": "2"})
    assert "expected whole numbers" in str(raised.value)


def test_run_takes_its_slice_from_gitlabs_variables(tmp_path):
    out = tmp_path / "shard.json"
    done = evalkit("run", WEATHER, "--shard", "auto", "--json", str(out), "--quiet", tmp_path=tmp_path,
                   env={**NO_CI, "CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "3"})
    assert done.returncode == 0, done.stderr
    explicit = tmp_path / "explicit.json"
    assert evalkit("run", WEATHER, "--shard", "2/3", "--json", str(explicit), "--quiet", tmp_path=tmp_path,
                   env=NO_CI).returncode == 0
    result = load(out)
    assert result["shard"] == "2/3"
    assert [c["eval_id"] for c in result["cases"]] == [c["eval_id"] for c in load(explicit)["cases"]]


def test_run_outside_a_parallel_ci_job_is_an_input_error_naming_the_variables(tmp_path):
    done = evalkit("run", WEATHER, "--shard", "auto", tmp_path=tmp_path, env=NO_CI)
    assert done.returncode == 2
    for system in SYSTEMS:
        assert system.index in done.stderr and system.total in done.stderr
    assert "--shard K/N" in done.stderr and "Traceback" not in done.stderr
